"""Flash attention computes softmax(Q K^T) V exactly, in every loop order."""
import numpy as np
import pytest

from flashviz.run.attention import (flash_attention, local_window_attention, online_softmax, random_qkv, random_row,
                                    softmax, standard_attention)
from flashviz.model.config import Config


def reference(Q, K, V, causal=False):
    """float64 softmax(Q K^T) V written from scratch, masks included."""
    Q, K, V = (np.asarray(x, np.float64) for x in (Q, K, V))
    S = Q @ K.T
    if causal:
        S = np.where(np.tril(np.ones(S.shape, bool)), S, -np.inf)
    P = np.exp(S - S.max(axis=1, keepdims=True))
    return (P / P.sum(axis=1, keepdims=True)) @ V


@pytest.mark.parametrize("loop_order", ["fa2", "fa1"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, Br, Bc", [(256, 64, 64), (300, 64, 48), (97, 13, 31), (64, 64, 1)])
def test_flash_equals_float64_reference(loop_order, causal, n, Br, Bc):
    cfg = Config(n=n, d=32, Br=Br, Bc=Bc, causal=causal, loop_order=loop_order)
    Q, K, V = random_qkv(n, 32, 7)
    err = np.abs(flash_attention(Q, K, V, cfg) - reference(Q, K, V, causal)).max()
    assert err <= 1e-12, f"max abs diff {err:.2e}"


@pytest.mark.parametrize("loop_order", ["fa2", "fa1"])
@pytest.mark.parametrize("seed", range(4))
def test_float32_flash_error_at_most_twice_plain_float32(loop_order, seed):
    # Dao-AILab/flash-attention's acceptance rule, against a float64 reference.
    cfg = Config(n=512, d=64, compute="float32", loop_order=loop_order)
    Q, K, V = random_qkv(512, 64, seed)
    ref = reference(Q, K, V)
    flash_err = np.abs(flash_attention(Q, K, V, cfg) - ref).max()
    plain_err = np.abs(standard_attention(Q, K, V, cfg) - ref).max()
    assert flash_err <= 2 * plain_err, f"flash {flash_err:.2e} vs plain {plain_err:.2e}"


def test_float32_compute_really_runs_in_float32():
    cfg = Config(n=128, d=16, Br=32, Bc=32, compute="float32")
    Q, K, V = random_qkv(128, 16)
    assert flash_attention(Q, K, V, cfg).dtype == np.float32


def test_flash_refuses_inputs_of_the_wrong_shape():
    Q, K, V = random_qkv(64, 8)
    with pytest.raises(ValueError, match="must be"):
        flash_attention(Q, K, V, Config(n=128, d=8))


def test_online_softmax_equals_softmax():
    row = random_row()
    assert np.abs(online_softmax(row, 8) - softmax(row)).max() <= 1e-16


@pytest.mark.parametrize("block", [1, 3, 8, 32, 100])
def test_online_softmax_any_block_size(block):
    row = random_row(50, seed=3)
    np.testing.assert_allclose(online_softmax(row, block), softmax(row), rtol=1e-14)


def test_online_softmax_records_running_max_and_sum():
    row = random_row()
    steps = []
    online_softmax(row, 8, steps=steps)
    assert len(steps) == 4
    assert steps[-1][0] == row.max()
    assert steps[-1][1] == pytest.approx(np.exp(row - row.max()).sum(), rel=1e-14)


def test_local_window_is_a_different_function():
    Q, K, V = random_qkv(512, 64)
    ref = reference(Q, K, V)
    assert np.abs(local_window_attention(Q, K, V, 128) - ref).max() > 1e-2


def window_weights(n, window, causal=False):
    """The attention weights themselves: with V the identity, row q of O is row q of P."""
    Q, K, _ = random_qkv(n, 8, 5)
    return local_window_attention(Q, K, np.eye(n), window, causal=causal)


@pytest.mark.parametrize("window", range(1, 34))
def test_every_query_sees_exactly_window_keys(window):
    counts = (window_weights(33, window) > 0).sum(axis=1)
    assert (counts == window).all(), f"keys seen per query: {sorted(set(counts.tolist()))}"


@pytest.mark.parametrize("window, first, last", [(5, -2, 2), (4, -2, 1)])
def test_local_window_is_centred_with_the_extra_key_before_the_query(window, first, last):
    seen = np.flatnonzero(window_weights(33, window)[16] > 0) - 16
    assert (seen[0], seen[-1]) == (first, last), seen


def test_local_window_slides_inward_at_the_ends():
    P = window_weights(33, 5)
    assert np.flatnonzero(P[0] > 0).tolist() == [0, 1, 2, 3, 4]
    assert np.flatnonzero(P[32] > 0).tolist() == [28, 29, 30, 31, 32]


def test_window_of_one_is_the_query_own_key_and_no_nan():
    P = window_weights(16, 1)
    assert np.array_equal(P, np.eye(16)), P


def test_local_window_as_wide_as_the_sequence_is_exact():
    Q, K, V = random_qkv(100, 8)
    err = np.abs(local_window_attention(Q, K, V, 100) - reference(Q, K, V)).max()
    assert err < 1e-12, f"max abs diff {err:.2e}"


def test_local_window_wider_than_the_sequence_sees_every_key():
    Q, K, V = random_qkv(100, 8)
    err = np.abs(local_window_attention(Q, K, V, 256) - reference(Q, K, V)).max()
    assert err < 1e-12, f"max abs diff {err:.2e}"


@pytest.mark.parametrize("window", [0, -3, 2.5, True])
def test_local_window_refuses_a_window_below_one_key(window):
    Q, K, V = random_qkv(16, 4)
    with pytest.raises(ValueError, match="window must be"):
        local_window_attention(Q, K, V, window)


def test_causal_local_window_sees_only_the_past():
    Q, K, V = random_qkv(64, 8)
    out = local_window_attention(Q, K, V, 64, causal=True)
    assert np.abs(out - reference(Q, K, V, causal=True)).max() < 1e-12


def test_causal_local_window_sees_the_window_ending_at_the_query():
    counts = (window_weights(33, 5, causal=True) > 0).sum(axis=1)
    assert counts.tolist() == [1, 2, 3, 4] + [5] * 29
