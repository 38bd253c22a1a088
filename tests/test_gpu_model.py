"""The three-level model: its floor, its two-level limit, and how it moves."""
from hypothesis import given, settings
from pytest import approx
from hypothesis import strategies as st

from flashviz.config import HARDWARE
from flashviz.config import Config
from flashviz.costs import flash_cost, standard_cost
from flashviz.gpu_model import (Kernel, Rates, forward_time, plain_reads, plain_writes, sdpa_flash, softmax_ops,
                                triton, wave_passes, whole_gpu)
from flashviz.gpu_targets import load, load_plain, plain_targets, targets

H200 = HARDWARE["H200 SXM"]
ns = st.sampled_from([2**k for k in range(7, 21)])
ds = st.sampled_from([64, 128])
bhs = st.integers(1, 64)
kernels = st.sampled_from([sdpa_flash(64), sdpa_flash(128), triton(64, 64, 128), triton(128, 128, 64)])
gpus = st.sampled_from(sorted(HARDWARE))


@settings(max_examples=200, deadline=None)
@given(ns, ds, bhs, kernels, gpus)
def test_never_below_compulsory(n, d, bh, k, gpu):
    w = whole_gpu(n, d, bh, k, HARDWARE[gpu])
    assert w.reads >= w.compulsory, f"{w.reads} < floor {w.compulsory}"


@settings(max_examples=200, deadline=None)
@given(ns, ds, bhs, kernels)
def test_one_block_and_no_l2_is_the_two_level_model(n, d, bh, k):
    w = whole_gpu(n, d, bh, k, H200, resident=1, l2_bytes=0)
    assert w.reads == w.two_level, f"{w.reads} vs two-level {w.two_level}"


@settings(max_examples=200, deadline=None)
@given(ns, ds, bhs, kernels)
def test_never_above_the_two_level_model(n, d, bh, k):
    w = whole_gpu(n, d, bh, k, H200)
    assert w.reads <= w.two_level


@settings(max_examples=150, deadline=None)
@given(ns, ds, bhs, kernels)
def test_more_l2_never_costs_reads(n, d, bh, k):
    small = whole_gpu(n, d, bh, k, H200, l2_bytes=10 * 2**20)
    big = whole_gpu(n, d, bh, k, H200, l2_bytes=100 * 2**20)
    assert big.reads <= small.reads


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([2**k for k in range(7, 20)]), ds, bhs, kernels)
def test_reads_grow_with_n(n, d, bh, k):
    assert whole_gpu(2 * n, d, bh, k, H200).reads >= whole_gpu(n, d, bh, k, H200).reads


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 64), st.integers(1, 5000), st.integers(1, 2000))
def test_wave_passes_counts_waves_by_brute_force(bh, Tr, R):
    brute = sum(((h + 1) * Tr - 1) // R - (h * Tr) // R + 1 for h in range(bh))
    assert wave_passes(bh, Tr, R) == brute


def test_small_heads_sit_on_the_floor():
    w = whole_gpu(16384, 128, 1, sdpa_flash(128), H200)
    assert w.reads == w.compulsory and not w.rereads


def test_residency_from_tiles_matches_the_profiler():
    # Nsight Compute's occupancy limits on the H200 (data/h200/whole_gpu.csv): 2, 2, 1, 2, 4, 1
    got = [k.blocks_per_sm(d, H200) for k, d in [(sdpa_flash(128), 128), (triton(128, 64, 128), 128),
                                                   (triton(128, 128, 128), 128), (triton(64, 64, 128), 128),
                                                   (triton(64, 64, 64), 64), (triton(128, 128, 64), 64)]]
    assert got == [2, 2, 1, 2, 4, 1]


def test_smem_from_tiles_matches_the_profiler():
    assert sdpa_flash(128).smem_bytes(128) == 65536 and triton(128, 64, 128).smem_bytes(128) == 98304


def test_most_measured_configs_are_within_target():
    t = targets(*load())
    share = t["reads in 0.8–1.25"].mean()
    assert len(t) >= 96 and share >= 0.85, f"{share:.2f} of {len(t)} configs within 0.8–1.25"


def test_kernel_smem_counts_stages():
    assert Kernel("x", 64, 64, 2).smem_bytes(64) == (64 * 64 + 4 * 64 * 64) * 2


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([2**k for k in range(7, 16)]), ds, st.integers(1, 8), kernels)
def test_softmax_ops_are_the_tile_counters(n, d, bh, k):
    exps, other = softmax_ops(n, d, bh, k)
    cfg = Config.clamped(n, k.Br, k.Bc, d=d, sram_bytes=2**40, dtype="float16")
    Tc = -(-n // cfg.Bc)
    assert exps == bh * (n * n + n * Tc)  # one per score, one per row and tile (the rescale)
    assert exps + other == bh * flash_cost(cfg).nonmatmul


RATES = Rates(matmul=720e12, exp=4e12, fp32=32e12, dram=4e12)


@settings(max_examples=100, deadline=None)
@given(ns, ds, bhs, kernels)
def test_fa2_adds_the_softmax_and_fa3_hides_the_smaller(n, d, bh, k):
    w = whole_gpu(n, d, bh, k, H200)
    fa2 = forward_time(n, d, bh, k, w.reads + w.writes, RATES)
    fa3 = forward_time(n, d, bh, k, w.reads + w.writes, RATES, overlap=True)
    assert fa2.arithmetic_s == approx(fa2.matmul_s + fa2.exp_s + fa2.other_s)
    assert fa3.arithmetic_s == max(fa3.matmul_s, fa3.softmax_s) <= fa2.arithmetic_s
    assert fa2.total_s >= max(fa2.dram_s, fa2.matmul_s)


def test_exp_is_a_large_share_despite_few_operations():
    # one exp per 4d matmul flops, but the exp units are ~180x slower: at d = 128 about 40% of the matmul time
    t = forward_time(65536, 128, 1, sdpa_flash(128), 0, RATES)
    assert 0.3 < t.exp_s / t.matmul_s < 0.5


def test_plain_model_is_the_two_level_standard_model():
    for n, d in [(1024, 64), (4096, 128)]:
        cfg = Config(n=n, d=d, Br=64, Bc=64, sram_bytes=2**40, dtype="float16")
        assert plain_reads(n, d, 1) + plain_writes(n, d, 1) == standard_cost(cfg).moved * 2
    assert plain_reads(4096, 64, 3, passes=4) - plain_reads(4096, 64, 3) == 3 * 4096**2 * 2


def test_most_measured_configs_meet_the_time_target():
    t = targets(*load())
    assert t["time in 0.7–1.4"].sum() >= 95, t[~t["time in 0.7–1.4"]]
    assert t["matmul-only ÷ measured"].between(0.7, 1.4).sum() <= 5  # what the softmax term fixed


def test_plain_attention_measured_in_every_call():
    p = plain_targets(load_plain())
    assert len(p) == 8 and (p["kernels"] >= 4).all()
    assert p["reads: model ÷ measured"].between(0.5, 0.7).all()   # the model has no separate scale pass
    assert (p["reads: four-kernel ÷ measured"] > 0.75).all() and (p["reads: four-kernel ÷ measured"] <= 1.0).all()
