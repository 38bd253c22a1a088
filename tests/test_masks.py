"""Masks beyond causal: windows, packed documents, block masks and sinks, counted in closed form
and tile by tile, and run exactly against masked standard attention."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.model import costs, masks
from flashviz.model.config import Config
from flashviz.model.masks import EMPTY, FULL, PARTIAL, Mask
from flashviz.model.memory import Counters
from flashviz.run.attention import flash_attention, online_softmax, random_qkv, standard_attention
from flashviz.run.backward import flash_backward


def reference_mask(n, left, right, docs=()):
    """Key j seen by query i iff i - left <= j <= i + right (flash-attn's window_size, None for its -1)
    and both lie in one document: written here from the definition, one entry at a time."""
    doc = np.repeat(np.arange(len(docs)), docs) if docs else np.zeros(n, dtype=int)
    seen = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            seen[i, j] = ((left is None or j >= i - left) and (right is None or j <= i + right)
                          and doc[i] == doc[j])
    return seen


def reference_attention(Q, K, V, seen, sink=None):
    """softmax over the seen keys (and a sink column, as gpt-oss's sdpa), in float64; an unseen row is 0."""
    S = np.where(seen, Q @ K.T, -np.inf)
    if sink is not None:
        S = np.concatenate([S, np.full((len(S), 1), float(sink))], axis=1)
    top = S.max(axis=1, keepdims=True)
    W = np.exp(S - np.where(np.isneginf(top), 0.0, top))
    total = W.sum(axis=1, keepdims=True)
    W = np.divide(W, total, out=np.zeros_like(W), where=total > 0)
    return W[:, :seen.shape[1]] @ V


@st.composite
def masked_configs(draw, blocks=True):
    n = draw(st.integers(1, 48))
    Br, Bc = draw(st.integers(1, n)), draw(st.integers(1, n))
    side = st.one_of(st.none(), st.integers(0, n + 2))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=4))) if n > 1 else []
    docs = tuple(np.diff([0, *cuts, n]).tolist()) if draw(st.booleans()) else ()
    cfg = Config(n=n, d=draw(st.integers(1, 6)), Br=Br, Bc=Bc, sram_bytes=draw(st.integers(1, 4000)),
                 causal=draw(st.booleans()), window_left=draw(side), window_right=draw(side), docs=docs,
                 loop_order=draw(st.sampled_from(["fa1", "fa2"])),
                 sink=draw(st.one_of(st.none(), st.floats(-4, 4))))
    if blocks and draw(st.booleans()):
        tiles = [(i, j) for i in range(cfg.Tr) for j in range(cfg.Tc)]
        cfg = cfg.with_(blocks=frozenset(draw(st.sets(st.sampled_from(tiles)))))
    return cfg


def tile_by_tile(cfg):
    """The census counted tile by tile from each tile's kind."""
    counts: dict = {}
    for i, row in enumerate(cfg.mask.kinds(cfg.Br, cfg.Bc)):
        for j, kind in enumerate(row):
            if kind != EMPTY:
                shape = (min(cfg.Br, cfg.n - i * cfg.Br), min(cfg.Bc, cfg.n - j * cfg.Bc))
                counts[shape] = counts.get(shape, 0) + 1
    return counts


@settings(max_examples=300, deadline=None)
@given(masked_configs())
def test_the_closed_form_census_equals_the_tiles_counted_one_by_one(cfg):
    assert costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).counts == tile_by_tile(cfg)


@settings(max_examples=300, deadline=None)
@given(masked_configs())
def test_each_tiles_kind_agrees_with_the_mask_entry_by_entry(cfg):
    seen = cfg.mask.dense(cfg.Br, cfg.Bc)
    for i, row in enumerate(cfg.mask.kinds(cfg.Br, cfg.Bc)):
        for j, kind in enumerate(row):
            tile = seen[i * cfg.Br:(i + 1) * cfg.Br, j * cfg.Bc:(j + 1) * cfg.Bc]
            want = FULL if tile.all() else PARTIAL if tile.any() else EMPTY
            assert kind == want, f"tile ({i}, {j}): {masks.KINDS[kind]}, its entries say {masks.KINDS[want]}"


@settings(max_examples=200, deadline=None)
@given(masked_configs(blocks=False))
def test_the_mask_is_flash_attns_window_inside_each_document(cfg):
    right = 0 if cfg.causal else cfg.window_right
    assert (cfg.mask.dense() == reference_mask(cfg.n, cfg.window_left, right, cfg.docs)).all()


@settings(max_examples=200, deadline=None)
@given(masked_configs())
def test_masked_flash_counts_equal_the_closed_form(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d, 3)
    meter = Counters(cfg.element_bytes)
    flash_attention(Q, K, V, cfg, meter)
    assert meter.snapshot() == costs.flash_cost(cfg)


@settings(max_examples=200, deadline=None)
@given(masked_configs())
def test_masked_flash_equals_masked_standard_attention_in_float64(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d, 7)
    want = reference_attention(Q, K, V, cfg.mask.dense(cfg.Br, cfg.Bc), cfg.sink)
    got = flash_attention(Q, K, V, cfg)
    assert np.abs(got - want).max() < 1e-12, f"max |flash - reference| = {np.abs(got - want).max():.2e}"
    assert np.abs(standard_attention(Q, K, V, cfg) - want).max() < 1e-12


@settings(max_examples=100, deadline=None)
@given(masked_configs())
def test_masked_backward_counts_equal_the_closed_form_and_its_gradients_the_standard_ones(cfg):
    cfg = cfg.with_(sink=None)  # the sink's own gradient is not computed
    Q, K, V = random_qkv(cfg.n, cfg.d, 4)
    dO = np.random.default_rng(5).standard_normal((cfg.n, cfg.d))
    O, m, l = flash_attention(Q, K, V, cfg, stats=True)
    meter = Counters(cfg.element_bytes)
    dQ, dK, dV = flash_backward(Q, K, V, O, m, l, dO, cfg, meter)
    assert meter.snapshot() == costs.flash_backward_cost(cfg)
    seen = cfg.mask.dense(cfg.Br, cfg.Bc)
    S = np.where(seen, Q @ K.T, -np.inf)
    top = S.max(axis=1, keepdims=True)
    P = np.exp(S - np.where(np.isneginf(top), 0, top))
    P = np.divide(P, P.sum(axis=1, keepdims=True), out=np.zeros_like(P), where=P.sum(axis=1, keepdims=True) > 0)
    dP = dO @ V.T
    dS = P * (dP - (P * dP).sum(axis=1, keepdims=True))
    for got, want in ((dQ, dS @ K), (dK, dS.T @ Q), (dV, P.T @ dO)):
        assert np.abs(got - want).max() < 1e-10


@settings(max_examples=100, deadline=None)
@given(masked_configs(blocks=False))
def test_skipped_tiles_are_never_computed(cfg):
    if cfg.Tr * cfg.Tc > 1024:
        cfg = cfg.with_tiles(max(cfg.Br, cfg.n // 16), max(cfg.Bc, cfg.n // 16)).with_(blocks=None)
    Q, K, V = random_qkv(cfg.n, cfg.d, 1)
    trace: list = []
    flash_attention(Q, K, V, cfg.with_(sink=None), trace=trace)
    kinds = cfg.mask.kinds(cfg.Br, cfg.Bc)
    assert {(t.i, t.j) for t in trace} == {(i, j) for i, row in enumerate(kinds)
                                           for j, k in enumerate(row) if k != EMPTY}
    assert len(trace) == costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300), st.integers(1, 64), st.integers(1, 64))
def test_causal_is_the_window_none_zero_with_the_same_census(n, Br, Bc):
    Br, Bc = min(Br, n), min(Bc, n)
    as_window = costs.census(n, Br, Bc, Mask(n, None, 0))
    assert costs.census(n, Br, Bc, True) == as_window
    assert as_window.counts == tile_by_tile(Config(n=n, Br=Br, Bc=Bc, causal=True))
    assert Config(n=n, Br=Br, Bc=Bc, causal=True).mask == Config(n=n, Br=Br, Bc=Bc, window_right=0).mask


def test_causal_wins_over_a_right_side_as_in_flash_attns_interface():
    assert Config(n=64, causal=True, window_left=8, window_right=5).mask == Mask(64, 8, 0)


def test_gpt_oss_128_token_window_is_the_window_127_0():
    """gpt-oss's sdpa masks keys after the query (triu, diagonal 1) and keys 128 or more before it
    (tril, diagonal -128): the window (127, 0)."""
    n, w = 300, 128
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    far = np.tril(np.ones((n, n), dtype=bool), -w)
    assert (Mask(n, w - 1, 0).dense() == ~(upper | far)).all()


def test_a_windows_tiles_grow_linearly_with_n_and_the_full_matrixs_quadratically():
    def tiles(n, mask):
        return costs.census(n, 128, 128, mask).tiles
    for n in (1 << 14, 1 << 17, 1 << 20):
        # a n + b: each doubling of n adds twice what the one before added
        w1, w2, w4 = (tiles(k * n, Mask(k * n, 1023, 0)) for k in (1, 2, 4))
        assert w4 - w2 == 2 * (w2 - w1), f"n = {n}: {w1}, {w2}, {w4} tiles"
        assert tiles(2 * n, Mask(2 * n)) == 4 * tiles(n, Mask(n))


def test_the_census_is_closed_form_at_the_largest_n():
    n = 1 << 22
    got = costs.census(n, 128, 64, Mask(n, 4095, 0, docs=(n // 4,) * 4))
    assert got.tiles == 4 * (costs.census(n // 4, 128, 64, Mask(n // 4, 4095, 0)).tiles)


def test_packed_documents_compute_the_blocks_of_each_document_alone():
    n, Br = 1024, 64
    docs = costs.census(n, Br, Br, Mask(n, docs=(256,) * 4)).tiles
    assert docs == 4 * costs.census(256, Br, Br, Mask(256)).tiles


@pytest.mark.parametrize("sink", [-3.0, 0.0, 2.5, 40.0])
def test_online_softmax_with_a_sink_equals_the_softmax_with_the_sink_as_one_more_column(sink):
    row = np.random.default_rng(2).standard_normal(32) * 3
    full = np.exp(np.append(row, sink) - max(row.max(), sink))
    want = (full / full.sum())[:-1]
    got = online_softmax(row, block=8, sink=sink)
    assert np.abs(got - want).max() < 1e-15 and got.sum() < 1


def test_the_running_sum_starts_from_the_sink():
    steps: list = []
    online_softmax(np.zeros(8), block=8, sink=1.5, steps=steps)
    # one block of zeros: m stays at the sink, l = e^0 (the sink) + 8 e^(0 - 1.5)
    assert steps == [(1.5, pytest.approx(1 + 8 * np.exp(-1.5), rel=1e-15))]


@pytest.mark.parametrize("text, want", [("127,0", (127, 0)), ("-1,0", (None, 0)), ("64,-1", (64, None)),
                                        ("-1,-1", (None, None))])
def test_a_window_is_read_as_flash_attn_writes_it(text, want):
    assert masks.parse_window(text) == want


@pytest.mark.parametrize("text", ["127", "a,0", "-2,0", "1,2,3"])
def test_a_bad_window_says_what_a_window_is(text):
    with pytest.raises(ValueError, match="window|side"):
        masks.parse_window(text)


def test_documents_must_add_up_to_n():
    with pytest.raises(ValueError, match="add up to 96, not n = 128"):
        Config(n=128, docs=(64, 32))
    with pytest.raises(ValueError, match="at least one token"):
        masks.parse_docs("64,0")
