"""The closed forms equal what the code counts, for every kind of config."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.model import costs, sweeps
from flashviz.run.attention import flash_attention, random_qkv, standard_attention
from flashviz.run.backward import flash_backward, standard_backward
from flashviz.model.config import DTYPE_BYTES, HARDWARE, HEAD_DIMS, SEQUENCE_LENGTHS, Config
from flashviz.model.memory import Counters


@st.composite
def configs(draw, bugs=True):
    n = draw(st.integers(1, 80))
    return Config(
        n=n, d=draw(st.integers(1, 9)),
        Br=draw(st.integers(1, n)), Bc=draw(st.integers(1, n)),
        sram_bytes=draw(st.integers(1, 4000)),
        dtype=draw(st.sampled_from(sorted(DTYPE_BYTES))),
        causal=draw(st.booleans()), loop_order=draw(st.sampled_from(["fa1", "fa2"])),
        rescale=draw(st.booleans()) if bugs else True,
        subtract_max=draw(st.booleans()) if bugs else True,
        keep_full_S=draw(st.booleans()) if bugs else False,
    )


def counted(fn, cfg, *args):
    c = Counters(cfg.element_bytes)
    out = fn(*args, cfg, c)
    return c.snapshot(), out


@settings(max_examples=150, deadline=None)
@given(configs())
def test_flash_counters_equal_closed_form(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d, 3)
    got, _ = counted(flash_attention, cfg, Q, K, V)
    assert got == costs.flash_cost(cfg)


@settings(max_examples=40, deadline=None)
@given(configs(bugs=False))
def test_standard_counters_equal_closed_form(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d, 3)
    got, _ = counted(standard_attention, cfg, Q, K, V)
    assert got == costs.standard_cost(cfg)


@settings(max_examples=60, deadline=None)
@given(configs(bugs=False))
def test_backward_counters_equal_closed_forms(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d, 4)
    dO = np.random.default_rng(5).standard_normal((cfg.n, cfg.d))
    O, m, l = flash_attention(Q, K, V, cfg, stats=True)
    got, _ = counted(flash_backward, cfg, Q, K, V, O, m, l, dO)
    assert got == costs.flash_backward_cost(cfg)
    _, P = standard_attention(Q, K, V, cfg, return_P=True)
    got, _ = counted(standard_backward, cfg, Q, K, V, P, dO)
    assert got == costs.standard_backward_cost(cfg)


@given(st.integers(0, 60), st.integers(1, 40), st.integers(0, 90), st.integers(0, 90))
def test_floor_sum_matches_brute_force(count, m, a, b):
    assert costs.floor_sum(count, m, a, b) == sum((a * i + b) // m for i in range(count))


def test_standard_traffic_is_4nd_plus_4n2():
    cost = costs.standard_cost(Config(n=512, d=64, Br=64, Bc=64))
    assert cost.moved == 4 * 512 * 64 + 4 * 512 * 512


def test_closed_form_handles_the_largest_n():
    cfg = Config(n=2**22, d=128, Br=64, Bc=128, causal=True)
    cost = costs.flash_cost(cfg)
    # Causal skips about half the tiles: flops sit just above half of 4 n^2 d.
    full = 4 * cfg.n**2 * cfg.d
    assert full / 2 < cost.flops < full / 2 * 1.001


def test_causal_traffic_equals_a_direct_tile_loop_at_large_n():
    cfg = Config(n=100_003, d=64, Br=96, Bc=160, causal=True)
    keys = sum(min(-(-min(r0 + cfg.Br, cfg.n) // cfg.Bc) * cfg.Bc, cfg.n)
               for r0 in range(0, cfg.n, cfg.Br))
    assert costs.flash_cost(cfg).moved == 2 * cfg.n * cfg.d + 2 * cfg.d * keys


def test_io_theorem_orders():
    io = costs.io_theorem(1024, 64, 24576)
    assert io == {"standard": 1024 * 64 + 1024**2, "flash": 1024**2 * 64**2 / 24576}


def test_standard_kernels_move_what_their_lines_of_algorithm_0_read_and_write():
    n, d = 512, 64
    kernels = dict(costs.standard_kernels(Config(n=n, d=d, Br=64, Bc=64)))
    assert [name for name in kernels] == ["S = QKᵀ", "softmax", "O = PV"]
    moved = {name: k.moved for name, k in kernels.items()}
    assert moved == {"S = QKᵀ": 2 * n * d + n * n, "softmax": 2 * n * n, "O = PV": n * n + 2 * n * d}, moved
    flops = {name: (k.flops, k.nonmatmul) for name, k in kernels.items()}
    assert flops == {"S = QKᵀ": (2 * n * n * d, 0), "softmax": (0, 5 * n * n), "O = PV": (2 * n * n * d, 0)}, flops


@settings(max_examples=60, deadline=None)
@given(configs(bugs=False))
def test_standard_kernels_add_up_to_the_counted_run(cfg):
    Q, K, V = random_qkv(cfg.n, cfg.d, 3)
    got, _ = counted(standard_attention, cfg, Q, K, V)
    kernels = [k for _, k in costs.standard_kernels(cfg)]
    sums = (sum(k.moved for k in kernels), sum(k.flops for k in kernels), sum(k.nonmatmul for k in kernels))
    assert sums == (got.moved, got.flops, got.nonmatmul), (sums, got)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(SEQUENCE_LENGTHS), st.sampled_from(HEAD_DIMS), st.sampled_from(sorted(DTYPE_BYTES)),
       st.sampled_from(sorted(HARDWARE)))
def test_the_softmax_kernel_is_memory_bound_at_any_n_and_d_on_every_gpu(n, d, dtype, gpu):
    points = sweeps.roofline_points(Config(n=n, d=d, Br=min(64, n), Bc=min(64, n), dtype=dtype),
                                    HARDWARE[gpu], kernels=True).set_index("kernel")
    assert points.loc["softmax", "bound"] == "memory", points.loc["softmax"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(SEQUENCE_LENGTHS), st.sampled_from(HEAD_DIMS), st.sampled_from(sorted(DTYPE_BYTES)),
       st.sampled_from(sorted(HARDWARE)))
def test_kernels_one_after_another_never_beat_the_single_point(n, d, dtype, gpu):
    times = sweeps.standard_time(Config(n=n, d=d, Br=min(64, n), Bc=min(64, n), dtype=dtype), HARDWARE[gpu])
    assert times["kernels us"] >= times["one point us"] * (1 - 1e-12), times
    assert 0 <= times["memory-bound us"] <= times["kernels us"], times


def test_kernels_take_19us_against_the_single_points_14us_at_the_seeds_example():
    times = sweeps.standard_time(Config(n=1024, d=64, dtype="float32"), HARDWARE["A100 40GB"])
    assert round(times["kernels us"], 1) == 19.2 and round(times["one point us"], 1) == 13.8, times


def test_flash_is_the_same_point_with_or_without_standards_kernels():
    cfg, hw = Config(n=2048, d=128, dtype="bfloat16", causal=True), HARDWARE["H100 SXM"]
    one, kernels = sweeps.roofline_points(cfg, hw), sweeps.roofline_points(cfg, hw, kernels=True)
    assert one.iloc[-1].drop("method").to_dict() == kernels.iloc[-1].drop(["method", "kernel"]).to_dict()


def test_a_30_mb_l2_share_holds_one_heads_k_and_v_for_60k_tokens_at_d128_in_16_bit():
    assert costs.kv_tokens_within(30 * 2**20, 128, 2) == 61_440
