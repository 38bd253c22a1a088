"""The three-level model: its floor, its two-level limit, and how it moves."""
import pytest
from hypothesis import assume, given, settings
from pytest import approx
from hypothesis import strategies as st

from flashviz.model.config import HARDWARE, custom_hardware
from flashviz.model.config import Config
from flashviz.model.costs import flash_cost, standard_cost
from flashviz.hardware.gpu_model import (Kernel, Rates, forward_time, plain_reads, plain_writes, sdpa_flash,
                                         softmax_ops, triton, wave_passes, whole_gpu)
from flashviz.hardware.gpu_targets import NAIVE, load, load_plain, plain_targets, targets, time_bias

H200 = HARDWARE["H200 SXM"]
ns = st.sampled_from([2**k for k in range(7, 21)])
ds = st.sampled_from([64, 128])
bhs = st.integers(1, 64)
kernels = st.sampled_from([sdpa_flash(64), sdpa_flash(128), triton(64, 64, 128), triton(128, 128, 64)])
gpus = st.sampled_from(sorted(HARDWARE))


@settings(max_examples=200, deadline=None)
@given(ns, ds, bhs, kernels, gpus)
def test_never_below_compulsory(n, d, bh, k, gpu):
    assume(k.occupancy(d, HARDWARE[gpu]).launch is None)  # tiles too big for the MI300X's 64 KB of LDS
    w = whole_gpu(n, d, bh, k, HARDWARE[gpu])
    assert w.reads >= w.compulsory, f"{w.reads} < floor {w.compulsory}"


# One resident block makes a wave of every block: the model walks bh * n / Br waves, a million at n = 2**20
# and 64 heads (seconds each). The limit is the same at every length; up to n = 16,384 it walks 16,384 at most.
@settings(max_examples=200, deadline=None)
@given(st.sampled_from([2**k for k in range(7, 15)]), ds, bhs, kernels)
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
    # Nsight Compute's occupancy limits on the H200 (flashviz/data/h200/whole_gpu.csv): 2, 2, 1, 2, 4, 1
    got = [k.occupancy(d, H200).blocks for k, d in [(sdpa_flash(128), 128), (triton(128, 64, 128), 128),
                                                   (triton(128, 128, 128), 128), (triton(64, 64, 128), 128),
                                                   (triton(64, 64, 64), 64), (triton(128, 128, 64), 64)]]
    assert got == [2, 2, 1, 2, 4, 1]


def test_smem_from_tiles_matches_the_profiler():
    assert sdpa_flash(128).smem_bytes(128) == 65536 and triton(128, 64, 128).smem_bytes(128) == 98304


def test_most_measured_configs_are_within_target():
    t = targets(*load())
    share = t["reads in 0.8–1.25"].mean()
    assert len(t) >= 96 and share >= 0.9, f"{share:.2f} of {len(t)} configs within 0.8–1.25"


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 64), st.integers(1, 3000), st.integers(1, 1000), st.sampled_from([2**20, 2**23, 2**25]))
def test_partial_retention_lies_between_all_and_nothing(bh, Tr, R, kv):
    from flashviz.hardware.gpu_model import wave_reuse
    tiles = 2**15
    none = wave_reuse(bh, Tr, R, kv, tiles, 0.0)
    assert none.passes == wave_passes(bh, Tr, R), "no cache: every wave of a head reads it again"
    assert wave_reuse(bh, Tr, R, kv, tiles, none.in_flight).passes == bh, "a cache as large as the distance keeps all"
    mid = wave_reuse(bh, Tr, R, kv, tiles, 30 * 2**20)
    assert bh <= mid.passes <= none.passes


def test_next_to_the_crossover_the_l2_keeps_part_of_k_and_v():
    # 65536/64/8, PyTorch flash: 512 blocks a head, 264 a wave; a wave pair that shares one head and
    # adds another needs 16 MB + the new head's first x of 16 MB + 8.25 MB of tiles: fits up to x = 0.36
    w = whole_gpu(65536, 64, 8, sdpa_flash(64), H200)
    assert 8 < w.passes < wave_passes(8, 512, 264) and w.rereads, w.passes


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


def test_time_bias_is_each_kernels_median_in_the_order_the_kernels_first_come():
    import statistics
    table = targets(*load())
    kernels = list(dict.fromkeys(table["kernel"]))
    expected = [(k, statistics.median(table[table["kernel"] == k]["time: model ÷ measured"])) for k in kernels]
    assert [k for k, _ in time_bias(table)] == kernels
    assert [r for _, r in time_bias(table)] == approx([r for _, r in expected], rel=1e-12)


def test_plain_attention_measured_in_every_call():
    p = plain_targets(load_plain(), load_plain(impl=NAIVE))
    assert len(p) == 8 and (p["kernels"] == 3).all()  # S = QK^T (scale in the matmul), softmax, PV
    big = p["n"] == 65536  # S has 2^32 elements: the call reads about one n^2 more than the count
    assert p[~big]["reads: model ÷ measured"].between(0.95, 1.0).all(), p["reads: model ÷ measured"]
    assert p[big]["reads: model ÷ measured"].between(0.6, 0.75).all()
    assert p["naive kernels"].min() == 4 and p[~big]["naive reads: count ÷ measured"].between(0.95, 1.0).all()
    assert (p["time: naive ÷ plain"] > 1.1).all(), "the naive script's extra pass over S costs time"


# ---------------------------------------------------------------------------------------------
# Every GPU the lesson offers, and AMD CDNA 3's rules against a hand count from the sources.

MI300X = HARDWARE["MI300X"]


def _launches(k, d, hw):
    return k.occupancy(d, hw).launch is None


@settings(max_examples=200, deadline=None)
@given(ds, kernels, st.sampled_from(sorted(HARDWARE)))
def test_a_kernel_that_launches_keeps_at_least_one_block_per_unit(d, k, gpu):
    occ = k.occupancy(d, HARDWARE[gpu])
    assert (occ.launch is None) == (occ.blocks >= 1), f"{k.name} on {gpu} at d = {d}: {occ}"


@settings(max_examples=100, deadline=None)
@given(st.integers(16, 4096), st.integers(1, 4096), st.integers(0, 4096), ds, kernels)
def test_a_custom_gpu_either_holds_blocks_or_says_why_not(smem_kb, sms, l2_mb, d, k):
    hw = custom_hardware(1555, 312, 19.5, smem_kb, l2_mb, sms, 40)
    occ = k.occupancy(d, hw)
    if occ.launch:
        assert k.smem_bytes(d) > smem_kb * 1024, f"{occ.launch} though {k.smem_bytes(d)} B fit {smem_kb} KB"
        with pytest.raises(ValueError, match="cannot launch"):
            whole_gpu(4096, d, 1, k, hw)
    else:
        w = whole_gpu(4096, d, 1, k, hw)
        assert occ.blocks >= 1 and w.resident >= 1 and w.reads >= w.compulsory, (occ, w)


def test_mi300x_holds_one_pytorch_flash_workgroup_per_cu_by_lds():
    # Hand count (ROCm specs: 64 KiB LDS per CU; LLVM AMDGPU: 512 VGPRs per lane per SIMD, 4 SIMDs,
    # 8 wavefronts per SIMD, VGPRs in steps of 8). d = 64: tiles (128 + 2 * 128) * 64 * 2 B = 48 KB,
    # 64 // 48 = 1; d = 128: (128 + 2 * 64) * 128 * 2 B = 64 KB, 64 // 64 = 1 (no driver reservation).
    # Registers: 128 threads = 2 wavefronts; 255 -> 256 VGPRs, 512 // 256 = 2 per SIMD, 8 per CU, 4 blocks.
    for d, smem in ((64, 48 * 1024), (128, 64 * 1024)):
        occ = sdpa_flash(d).occupancy(d, MI300X)
        assert sdpa_flash(d).smem_bytes(d) == smem and occ.launch is None
        assert dict(occ.limits) == {"LDS": 1, "registers": 4, "wavefront slots": 16}, (d, occ.limits)
        assert occ.blocks == 1 and occ.limited_by == "LDS", (d, occ)


def test_mi300x_runs_the_default_in_four_waves_of_304():
    for d in (64, 128):
        w = whole_gpu(131072, d, 1, sdpa_flash(d), MI300X)
        # 131072 / 128 = 1024 blocks, 304 CUs x 1 resident: ceil(1024 / 304) = 4 waves
        assert (w.blocks, w.resident, w.waves) == (1024, 304, 4), (d, w.blocks, w.resident, w.waves)


def test_mi300x_infinity_cache_keeps_reads_on_the_floor_where_the_h200_l2_does_not():
    # d = 128, one head: K + V = 64 MB, in flight 64 MB + 304 blocks x 64 KB of Q and O tiles = 83 MB,
    # under the 256 MB Infinity Cache; the H200's 30 MB share re-reads K + V in each of 4 waves.
    amd, nv = whole_gpu(131072, 128, 1, sdpa_flash(128), MI300X), whole_gpu(131072, 128, 1, sdpa_flash(128), H200)
    assert amd.in_flight == 64 * 2**20 + 304 * 64 * 1024 and amd.l2_share == 256 * 2**20, amd
    assert amd.reads == amd.compulsory == 96 * 2**20, f"MI300X reads {amd.reads / 2**20} MB"
    assert nv.reads == 32 * 2**20 + 4 * 64 * 2**20, f"H200 reads {nv.reads / 2**20} MB"


def test_mi300x_reads_again_once_k_and_v_outgrow_the_infinity_cache():
    # n = 524288, d = 128: K + V = 256 MB per head, more than the whole 256 MB Infinity Cache.
    w = whole_gpu(524288, 128, 1, sdpa_flash(128), MI300X)
    assert w.rereads and w.reads == 128 * 2**20 + w.waves * 256 * 2**20, (w.waves, w.reads / 2**20)


def test_each_xcd_reads_k_and_v_from_the_infinity_cache_once_per_wave_when_its_l2_is_outgrown():
    # 8 XCDs x 4 waves x 64 MB of K + V, plus Q (32 MB) once: blocks go to the XCDs round-robin.
    w = whole_gpu(131072, 128, 1, sdpa_flash(128), MI300X)
    assert w.chiplet_rereads and w.chiplet_fills == 32 * 2**20 + 8 * 4 * 64 * 2**20, w.chiplet_fills / 2**20


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 16), st.integers(1, 300), st.integers(1, 700), st.booleans())
def test_chiplet_fills_count_xcds_by_brute_force(bh, Tr, R, rereads):
    from flashviz.hardware.gpu_model import chiplet_fills
    seen: set[tuple] = set()
    for b in range(bh * Tr):
        seen.add((b // Tr, b % 8, b // R if rereads else 0))  # (head, XCD, wave when L2 forgets)
    assert chiplet_fills(bh, Tr, R, 8, rereads) == len(seen)


def test_nvidia_has_no_chiplet_level():
    w = whole_gpu(131072, 128, 1, sdpa_flash(128), H200)
    assert w.chiplets == 1 and w.chiplet_fills == 0 and not w.chiplet_rereads


def test_the_h200s_triton_tiles_do_not_fit_the_mi300x_lds():
    # two stages of 64-row K and V tiles at d = 128: (128 + 4 * 64) * 128 * 2 B = 96 KB > 64 KB
    occ = triton(128, 64, 128).occupancy(128, MI300X)
    assert occ.launch and "96 KB of LDS" in occ.launch and occ.blocks == 0, occ
    with pytest.raises(ValueError, match="cannot launch on the MI300X"):
        whole_gpu(4096, 128, 1, triton(128, 64, 128), MI300X)


def test_every_preset_has_an_architecture_whose_figures_are_sourced():
    from flashviz.hardware.gpu_arch import ARCH
    from flashviz.model.sources import SOURCES
    assert set(ARCH) == set(HARDWARE), f"presets without an architecture, or stale names: {set(ARCH) ^ set(HARDWARE)}"
    for name, arch in ARCH.items():
        assert arch.sources and set(arch.sources) <= set(SOURCES), f"{name}: sources {arch.sources}"
