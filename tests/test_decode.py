"""Inference attention: closed forms equal the counters, the answer equals plain attention,
and the split-KV merge is exact."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.run import decode
from flashviz.run.attention import standard_attention
from flashviz.model.config import DTYPE_BYTES, HARDWARE, Config
from flashviz.run.decode import DecodeConfig


@st.composite
def configs(draw):
    kv_heads = draw(st.integers(1, 3))
    n_kv = draw(st.integers(1, 60))
    return DecodeConfig(
        n_kv=n_kv, n_q=draw(st.integers(1, 5)), d=draw(st.integers(1, 6)),
        heads=kv_heads * draw(st.integers(1, 4)), kv_heads=kv_heads, batch=draw(st.integers(1, 2)),
        Br=draw(st.integers(1, 12)), Bc=draw(st.integers(1, 20)), splits=draw(st.integers(1, n_kv)),
        dtype=draw(st.sampled_from(sorted(DTYPE_BYTES))))


def counted(cfg, seed=0):
    Q, K, V = decode.random_cache(cfg, seed)
    tally = decode.Tally(cfg.element_bytes)
    return tally, decode.decode_attention(Q, K, V, cfg, tally), decode.reference_attention(Q, K, V)


@settings(max_examples=150, deadline=None)
@given(configs())
def test_counters_equal_the_closed_form(cfg):
    tally, _, _ = counted(cfg)
    assert tally.snapshot() == decode.decode_cost(cfg)


@settings(max_examples=60, deadline=None)
@given(configs(), st.integers(0, 10))
def test_decode_equals_plain_attention_to_float_noise(cfg, seed):
    _, got, want = counted(cfg, seed)
    err = float(np.abs(got - want).max())
    assert err < 1e-12, f"max |decode - reference| = {err:.2e}"


def test_reference_agrees_with_the_engines_standard_attention_head_by_head():
    """An independent check of the reference: each query head against its shared K/V head, as
    flashviz.run.attention runs square attention (n_q = n_kv, so every head is a square problem)."""
    cfg = DecodeConfig(n_kv=24, n_q=24, d=8, heads=6, kv_heads=2, Br=8, Bc=8, dtype="float32")
    Q, K, V = decode.random_cache(cfg, 3)
    got = decode.decode_attention(Q, K, V, cfg)
    square = Config(n=24, d=8, Br=8, Bc=8)
    for h in range(cfg.heads):
        want = standard_attention(Q[0, h], K[0, h // cfg.group], V[0, h // cfg.group], square)
        assert np.abs(got[0, h] - want).max() < 1e-12, f"head {h}"


@pytest.mark.parametrize("splits", [1, 2, 3, 7, 16])
def test_split_kv_merge_equals_the_unsplit_answer(splits):
    cfg = DecodeConfig(n_kv=50, n_q=1, d=16, heads=8, kv_heads=2, batch=3, Bc=8)
    Q, K, V = decode.random_cache(cfg, 5)
    whole = decode.decode_attention(Q, K, V, cfg)
    split = decode.decode_attention(Q, K, V, cfg.with_(splits=splits))
    assert np.abs(whole - split).max() < 1e-13


def test_merge_is_exact_in_any_order_and_grouping():
    rng = np.random.default_rng(0)
    q, K, V = rng.standard_normal((1, 8)), rng.standard_normal((40, 8)) * 3, rng.standard_normal((40, 8))
    t = decode.Tally()
    parts = [decode.chunk_partial(q, K[k:k + 10], V[k:k + 10], 4, t) for k in range(0, 40, 10)]
    flat = decode.merge(parts)[2]
    reordered = decode.merge(parts[::-1])[2]
    m12, l12, O12 = decode.merge(parts[:2])
    nested = decode.merge([(m12, l12, O12 * l12)] + parts[2:])[2]  # a merged pair is a partial again
    S = q @ K.T
    P = np.exp(S - S.max())
    exact = (P / P.sum()) @ V
    for got in (flat, reordered, nested):
        assert np.abs(got - exact).max() < 1e-13


def test_walkthrough_weight_shares_sum_to_one_and_merge_matches():
    steps, (m, l, O), unsplit = decode.merge_walkthrough(n_kv=16, d=4, splits=4)
    assert len(steps) == 4 and max(s["m_i"] for s in steps) == m
    assert abs(sum(s["weight share"] for s in steps) - 1) < 1e-12
    assert abs(sum(s["e^(m_i − m)"] * s["l_i"] for s in steps) - l) < 1e-12
    assert np.abs(O - unsplit).max() < 1e-14


def test_decode_moves_about_one_byte_per_flop_in_16_bit_mha():
    cfg = DecodeConfig(n_kv=8192, heads=32, kv_heads=32, d=128, dtype="bfloat16")
    assert 0.99 < decode.decode_cost(cfg).bytes_per_flop < 1.01


@pytest.mark.parametrize("kv_heads", [32, 8, 1])
def test_gqa_cuts_the_cache_read_by_its_group_size(kv_heads):
    mha = decode.decode_cost(DecodeConfig(heads=32, kv_heads=32))
    gqa = decode.decode_cost(DecodeConfig(heads=32, kv_heads=kv_heads))
    assert mha.kv == gqa.kv * (32 // kv_heads)
    assert mha.flops == gqa.flops, "the same arithmetic, fewer bytes"


def test_split_kv_pays_when_the_work_fills_few_sms():
    hw = HARDWARE["H100 SXM"]
    few = DecodeConfig(n_kv=32768, heads=32, kv_heads=8, batch=1)        # 8 blocks for 132 SMs
    many = DecodeConfig(n_kv=32768, heads=32, kv_heads=8, batch=64)      # 512 blocks
    assert decode.best_splits(decode.split_sweep(few, hw)) >= 16
    assert decode.best_splits(decode.split_sweep(many, hw)) == 1


def test_split_extra_bytes_are_the_partials_and_the_query_rereads():
    cfg = DecodeConfig(n_kv=1024, heads=8, kv_heads=2, d=64, splits=4)
    base, split = decode.decode_cost(cfg.with_(splits=1)), decode.decode_cost(cfg)
    rows, d = cfg.rows, cfg.d
    per_head = 3 * rows * d + 2 * 4 * (rows * d + 2 * rows)  # Q read 3 more times; partials out and in
    assert split.moved - base.moved == cfg.kv_heads * per_head


def test_cache_size_and_the_longest_context_that_fits():
    hw = HARDWARE["H100 SXM"]  # 80 GB
    per_token = decode.cache_bytes(1, 1, 8, 128, 32, 2)
    assert per_token == 2 * 32 * 8 * 128 * 2  # 131072 bytes: K and V, 32 layers, 8 KV heads
    longest = decode.longest_context(hw, 1, 8, 128, 32, 2)
    assert decode.cache_bytes(longest, 1, 8, 128, 32, 2) <= 80e9 < decode.cache_bytes(longest + 1, 1, 8, 128, 32, 2)


def test_prefill_is_more_intense_than_decode_on_the_roofline():
    pts = decode.roofline_points(DecodeConfig(n_kv=4096), HARDWARE["A100 40GB"]).set_index("method")
    assert pts.loc["prefill", "flops per byte"] > 10 * pts.loc["decode", "flops per byte"]
    assert pts.loc["decode", "bound"] == "memory"


@pytest.mark.parametrize("bad", [dict(heads=6, kv_heads=4), dict(splits=0), dict(n_kv=4, splits=5),
                                 dict(dtype="int8"), dict(batch=True)])
def test_bad_configs_are_refused(bad):
    with pytest.raises(ValueError):
        DecodeConfig(**bad)


def test_the_log_sum_exp_merge_flash_decoding_writes_equals_the_m_l_O_merge():
    rng = np.random.default_rng(3)
    parts = [(rng.normal(size=(2, 1)) * 5, rng.uniform(1, 9, size=(2, 1)), rng.normal(size=(2, 4)))
             for _ in range(5)]
    m, l, O = decode.merge(parts)
    lse, O_lse = decode.merge_lse([decode.to_lse_form(p) for p in parts])
    assert np.allclose(lse, m + np.log(l), rtol=0, atol=1e-12), (lse, m + np.log(l))
    assert np.abs(O_lse - O).max() < 1e-12, np.abs(O_lse - O).max()
