"""The three-level model: its floor, its two-level limit, and how it moves."""
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.config import HARDWARE
from flashviz.gpu_model import Kernel, sdpa_flash, triton, wave_passes, whole_gpu
from flashviz.gpu_targets import load, targets

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
