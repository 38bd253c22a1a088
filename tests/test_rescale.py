"""FlashAttention-4's conditional rescale: exact for any threshold, and its counts as the rule says."""
import math

import numpy as np
import pytest

from flashviz.model.config import Config
from flashviz.run.attention import random_qkv
from flashviz.run.rescale import (KERNEL_TAU, check_tau, lagging_row, overflow_tau, rescale_attention)

TAUS = [0.0, 1.0, KERNEL_TAU, 15.9, 100.0]


def reference(S, V):
    """float64 softmax(S) V from scratch (S with -inf where masked)."""
    P = np.exp(S - S.max(axis=1, keepdims=True))
    return (P / P.sum(axis=1, keepdims=True)) @ V


def scored(S, Br=16, Bc=16, causal=False, dtype="float32", seed=0):
    """Q, K, V and a Config whose scores Q K^T are exactly S (K the identity, d = n)."""
    n = S.shape[0]
    V = np.random.default_rng(seed).standard_normal((n, n))
    return S.copy(), np.eye(n), V, Config(n=n, d=n, Br=Br, Bc=Bc, causal=causal, dtype=dtype)


def adversarial(n=64):
    rng = np.random.default_rng(3)
    keys = np.arange(n, dtype=float)
    last = rng.standard_normal((n, n))
    last[:, -5] += 40.0                                  # the max arrives in the last tile
    return {
        "rising": np.tile(keys * 0.7, (n, 1)),           # a new max at every key: 31 log2 units in all
        "max in the last tile": last,
        "near exp's overflow": 700.0 + 5 * rng.standard_normal((n, n)),   # e^s alone overflows float64
        "all equal": np.full((n, n), 3.0),
        "wide random": 20 * rng.standard_normal((n, n)),
        "rising by steps under tau": np.tile(np.floor(keys / 16) * 7.9 * math.log(2), (n, 1)),
    }


@pytest.mark.parametrize("tau", TAUS)
@pytest.mark.parametrize("name", list(adversarial()))
@pytest.mark.parametrize("causal", [False, True])
def test_equals_float64_softmax_on_adversarial_rows(tau, name, causal):
    S = adversarial()[name]
    Q, K, V, cfg = scored(S, causal=causal)
    ref_S = np.where(np.tril(np.ones(S.shape, bool)), S, -np.inf) if causal else S
    err = np.abs(rescale_attention(Q, K, V, cfg, tau).O - reference(ref_S, V)).max()
    assert err <= 1e-12, f"{name}, tau={tau}, causal={causal}: max abs diff {err:.2e}"


@pytest.mark.parametrize("tau", TAUS)
@pytest.mark.parametrize("n, Br, Bc, seed", [(256, 64, 64, 0), (300, 64, 48, 1), (97, 13, 31, 2)])
def test_equals_float64_softmax_on_random_rows(tau, n, Br, Bc, seed):
    Q, K, V = random_qkv(n, 32, seed)
    Q = Q * 4                                              # wide scores: many new maxima, some large
    cfg = Config(n=n, d=32, Br=Br, Bc=Bc)
    err = np.abs(rescale_attention(Q, K, V, cfg, tau).O - reference(Q @ K.T, V)).max()
    assert err <= 1e-12, f"tau={tau}: max abs diff {err:.2e}"


def test_tau_zero_rescales_at_every_new_max_and_skips_none():
    Q, K, V, cfg = scored(adversarial()["rising"], Bc=1)
    run = rescale_attention(Q, K, V, cfg, 0.0)
    assert (run.rescaled == 63).all() and run.skips == 0, (run.rescaled[:3], run.skips)


@pytest.mark.parametrize("tau, done, skipped", [(0.0, 9, 0), (0.5, 9, 0), (3.5, 2, 7), (7.5, 1, 8), (9.5, 0, 9)])
def test_counts_equal_the_hand_count(tau, done, skipped):
    # Scores 0, 1, ..., 9 log2 units, one key a tile: at tau = 3.5 the max in use moves at 4 and 8 only.
    S = np.tile(np.arange(10) * math.log(2), (10, 1))
    run = rescale_attention(S, np.eye(10), np.ones((10, 10)), Config(n=10, d=10, Br=5, Bc=1), tau)
    assert (run.rescaled == done).all() and (run.skipped == skipped).all(), (run.rescaled, run.skipped)


@pytest.mark.parametrize("tau", [1.0, KERNEL_TAU, 20.0])
def test_done_plus_skipped_is_tau_zeros_count(tau):
    Q, K, V = random_qkv(256, 32, 5)
    cfg = Config(n=256, d=32, Br=32, Bc=16)
    zero, run = rescale_attention(Q * 3, K, V, cfg, 0.0), rescale_attention(Q * 3, K, V, cfg, tau)
    assert (run.rescaled + run.skipped == zero.rescaled).all(), (run.done, run.skips, zero.done)


@pytest.mark.parametrize("tau", [0.0, 2.0, KERNEL_TAU, 15.0])
def test_weights_never_exceed_two_to_the_tau(tau):
    Q, K, V, cfg = scored(adversarial()["rising"], Bc=4)
    run = rescale_attention(Q, K, V, cfg, tau)
    assert run.peak_log2 <= tau + 1e-12, (run.peak_log2, tau)


def test_overflow_tau_is_log2_of_the_types_largest_value():
    assert overflow_tau("float16") == pytest.approx(math.log2(65504)), overflow_tau("float16")
    assert 15.99 < overflow_tau("float16") < 16, overflow_tau("float16")
    assert 127.99 < overflow_tau("bfloat16") < 128, overflow_tau("bfloat16")
    assert KERNEL_TAU < overflow_tau("float16"), "the kernel's threshold fits fp16"


def test_fp16_storage_of_P_holds_below_the_limit_and_breaks_above_it():
    # The max in use stays at the first key's score while the others sit 15.5 or 16.5 log2 units above it.
    n = 32
    for above, tau, ok in ((15.5, 15.9, True), (16.5, 17.0, False)):
        S = np.full((n, n), above * math.log(2))
        S[:, 0] = 0.0
        Q, K, V, cfg = scored(S, Br=8, Bc=1, dtype="float16")
        run = rescale_attention(Q, K, V, cfg, tau, store_p=True)
        err = np.abs(run.O - reference(S, V)).max()
        assert (err < 5e-3) == ok and run.in_range == ok, (above, tau, err, run.in_range)


def test_headroom_is_the_types_limit_less_tau():
    Q, K, V = random_qkv(64, 16, 0)
    run = rescale_attention(Q, K, V, Config(n=64, d=16, dtype="float16"), KERNEL_TAU)
    assert run.headroom_log2 == pytest.approx(overflow_tau("float16") - 8), run.headroom_log2


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), True, "8"])
def test_refuses_a_threshold_that_is_not_a_finite_non_negative_number(bad):
    with pytest.raises(ValueError, match="tau"):
        check_tau(bad)


@pytest.mark.parametrize("tau", [0.0, 3.0, KERNEL_TAU])
def test_lagging_row_equals_softmax_and_agrees_with_the_tiled_counts(tau):
    row = np.random.default_rng(1).standard_normal(32) * 6
    weights, steps = lagging_row(row, 4, tau)
    ref = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
    assert np.abs(weights - ref).max() <= 1e-14, np.abs(weights - ref).max()
    Q, K, V, cfg = scored(np.tile(row, (32, 1)), Br=32, Bc=4)
    run = rescale_attention(Q, K, V, cfg, tau)
    assert sum(s.rescaled for s in steps) == run.rescaled[0] and sum(s.skipped for s in steps) == run.skipped[0]


def _sampled_qk(n, d, blocks, Br):
    """sampled_inputs' Q (zeros where no block is sampled) and K, whole."""
    from flashviz.run.rescale import sampled_inputs
    Qs, keys = sampled_inputs(n, d, blocks, Br)
    Q = np.zeros((n, d))
    for r0, rows in Qs.items():
        Q[r0:r0 + len(rows)] = rows
    return Q, np.concatenate([K for _, K in keys()]), sorted(Qs)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tau", [0.0, 2.0, KERNEL_TAU, 30.0])
@pytest.mark.parametrize("blocks", [2, 8])
def test_sampled_counts_equal_the_forwards_on_the_same_rows(tau, causal, blocks):
    """sampled_rescales (lesson 13's B200) counts, without the forward, what rescale_attention counts on the
    rows it samples (a spread of 4, a power of two, scales the scores exactly either way); and per warp,
    whether any of its rows rescaled."""
    from flashviz.run.rescale import sampled_rescales
    n, d, Br, spread, warp = 512, 16, 64, 4.0, 16
    Q, K, starts = _sampled_qk(n, d, blocks, Br)
    record: dict = {}
    run = rescale_attention(Q * spread, K, np.ones((n, d)), Config(n=n, d=d, Br=Br, Bc=Br, causal=causal), tau,
                            record=record)
    rows = np.concatenate([np.arange(r0, r0 + Br) for r0 in starts])
    got = sampled_rescales(n, d, tau, spread, causal, Br, Br, blocks=blocks, warp=warp)
    assert (got.rows, got.done, got.skipped) == (len(rows), run.rescaled[rows].sum(), run.skipped[rows].sum())
    warps = [bool(did[w * warp:(w + 1) * warp].any()) for (i, j), (did, _) in record.items()
             if j > 0 and i * Br in starts for w in range(Br // warp)]
    assert (got.warp_done, got.warp_slots) == (sum(warps), len(warps))


def test_sampled_counts_at_tau_zero_are_the_new_maxima_counted_by_hand():
    from flashviz.run.rescale import sampled_rescales
    n, d, Br = 1024, 32, 128
    Q, K, _ = _sampled_qk(n, d, n // Br, Br)
    S = (Q * 2.0) @ K.T
    maxima = np.stack([S[:, k:k + Br].max(axis=1) for k in range(0, n, Br)], axis=1)
    rises = int((maxima[:, 1:] > np.maximum.accumulate(maxima, axis=1)[:, :-1]).sum())
    got = sampled_rescales(n, d, 0.0, 2.0, False, Br, Br, blocks=n // Br)
    assert got.done == got.every_new_max == rises > 0 and got.skipped == 0


def test_the_counts_take_every_key_of_a_long_call_in_chunks():
    """Past one chunk of keys the maxima are still over every key (the chunks' seams inside no tile)."""
    from flashviz.run.rescale import KEY_CHUNK, _block_maxima
    n, d, Br = KEY_CHUNK + 256, 8, 128
    Q, K, starts = _sampled_qk(n, d, 1, Br)
    S = Q[starts[0]:starts[0] + Br] @ K.T
    want = np.stack([S[:, k:k + Br].max(axis=1) for k in range(0, n, Br)], axis=1)
    assert np.array_equal(_block_maxima(n, d, False, Br, Br, 1, 0), want)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_sampled_counts_refuse_a_spread_that_is_not_positive(bad):
    from flashviz.run.rescale import sampled_rescales
    with pytest.raises(ValueError, match="spread"):
        sampled_rescales(256, 16, 8.0, bad)


def test_one_sampled_block_is_the_last_so_a_causal_row_sees_every_key_tile():
    from flashviz.run.rescale import sampled_inputs, sampled_rescales
    Q, _ = sampled_inputs(4096, 16, 1, 128)
    assert sorted(Q) == [4096 - 128]
    got = sampled_rescales(4096, 16, 0.0, 3.0, causal=True, blocks=1)
    assert got.rows == 128 and got.warp_slots == 4 * (4096 // 128 - 1) and got.done > 0


@pytest.mark.parametrize("causal", [False, True])
def test_every_tile_counts_fa2s_unconditional_rescales(causal):
    """FlashAttention-2 multiplies l and O at every key tile after a row's first, whatever the max did: rows times
    (tiles - 1) without a mask, and to the diagonal with the causal one. The new maxima are a part of them."""
    n, Br, Bc = 256, 32, 64
    cfg = Config(n=n, d=16, Br=Br, Bc=Bc, causal=causal, dtype="float64")
    run = rescale_attention(*random_qkv(n, 16, seed=3), cfg, tau=0.0)
    by_hand = sum(Br * ((r0 + Br - 1) // Bc) for r0 in range(0, n, Br)) if causal else n * (n // Bc - 1)
    assert run.every_tile == by_hand
    assert 0 < run.every_new_max < run.every_tile
