"""The exp split and the skipped rescales on sourced unit rates (a model of the B200, not a measurement)."""
import pytest

from flashviz.hardware import blackwell as bw
from flashviz.model.config import HARDWARE


def test_b200_clock_gives_the_sheets_tensor_rate_at_8192_flops_a_clock():
    g = bw.gpu_rates("B200")
    assert g.clock_hz * HARDWARE["B200"].sms * 8192 == pytest.approx(2.25e15), g.clock_hz


def test_h100_exp_rate_is_fa3s_figure():
    assert bw.gpu_rates("H100 SXM").rates.exp == pytest.approx(3.9e12)


def test_balance_share_equalises_the_two_units():
    from flashviz.run.poly_exp import FMA_OPS_PER_EXP
    for name in ("H200 SXM", "B200"):
        g = bw.gpu_rates(name)
        f = bw.balance_share(g)
        fma = (bw.OTHER_OPS_PER_ENTRY + FMA_OPS_PER_EXP * f) / g.rates.fp32
        assert fma == pytest.approx((1 - f) / g.rates.exp), (name, f)


@pytest.mark.parametrize("freq, start, share", [(10, 1, 24 / 128), (16, 1, 16 / 128), (16, 0, 24 / 128),
                                                (32, 1, 8 / 128), (0, 1, 0.0)])
def test_kernel_share_counts_the_emulated_pairs_by_hand(freq, start, share):
    # freq 10: in a fragment the pairs at k = 6, 8, 16, 18, 26, 28 (k mod 10 >= 6), 12 of 32 entries;
    # fragments 1 and 2 of 4 (from start_frg, not the last).
    assert bw.kernel_share(freq, start) == share


def test_the_b200s_exponentials_take_about_its_matmuls_time_and_the_h200s_half():
    cmp = bw.compare_tile(128)
    assert cmp.b200.exp >= cmp.b200.matmul and cmp.h200.exp < 0.6 * cmp.h200.matmul, cmp


def test_refuses_a_gpu_without_exp_rates():
    with pytest.raises(ValueError, match="H100, H200 and B200"):
        bw.gpu_rates("A100 40GB")


# ---- the B200 timelines (lesson 13): FA3's design and FA4's, unit by unit ----

def _schedules(d=128, causal=False, n=2048, tau=8.0, spread=3.0):
    return bw.b200_schedules(d, causal, n, tau, spread)


@pytest.mark.parametrize("d, causal, tau", [(64, False, 8.0), (128, True, 0.0), (128, False, 8.0)])
def test_each_lane_carries_exactly_its_units_work(d, causal, tau):
    s = _schedules(d, causal, tau=tau)
    tiles = 6
    for w in (s.fa3, s.fa4, s.fa4_split_only, s.fa4_skip_only, s.fa4_neither):
        steps = bw.b200_steps(w, tiles)
        total = {lane: sum(x.length for x in steps if x.lane == lane) for lane in bw.B200_LANES}
        score_tiles = tiles * bw.score_tiles_per_key_tile(w.name)
        first = bw.score_tiles_per_key_tile(w.name)   # a Q tile's first key tile has nothing to rescale
        assert total["tensor cores"] == pytest.approx(score_tiles * (w.qk + w.pv)), w.name
        assert total["shared memory"] == pytest.approx(score_tiles * (w.qk_smem + w.pv_smem)), w.name
        assert total["exp unit"] == pytest.approx(score_tiles * w.exp), w.name
        assert total["FP32"] == pytest.approx(score_tiles * (w.pre + w.poly + w.post)
                                              + (score_tiles - first) * w.correct), w.name


def test_no_lane_runs_two_steps_at_once_and_every_step_follows_its_inputs():
    s = _schedules()
    for w in (s.fa3, s.fa4):
        steps = bw.b200_steps(w, 6)
        for lane in bw.B200_LANES:
            mine = sorted((x for x in steps if x.lane == lane), key=lambda x: x.start)
            assert all(a.end <= b.start + 1e-15 for a, b in zip(mine, mine[1:])), (w.name, lane)
    steps = {(x.label, x.tile, x.group): x for x in bw.b200_steps(s.fa4, 6)}
    for (label, j, q), x in steps.items():
        if label == "PV":
            assert x.start >= steps[("sum", j, q)].end and (j == 0 or x.start >= steps[("rescale", j, q)].end)
        if label == "QKᵀ" and j > 0:   # S and P share tensor memory: the QK^T of tile j after the PV of j-1
            assert x.start >= steps[("PV", j - 1, q)].end
        if label == "sum":
            assert x.start >= max(steps[("exp", j, q)].end, steps[("poly", j, q)].end)


@pytest.mark.parametrize("d", [64, 128])
def test_the_split_balances_the_exp_unit_and_the_fp32_lanes(d):
    s = _schedules(d)
    busy = s.fa4.busy()
    assert 0 < s.balanced < 1 and busy["exp unit"] == pytest.approx(busy["FP32"]), (s.balanced, busy)
    # the split moves exponentials from one unit to the other: less on the exp unit, more on the FP32 lanes
    assert s.fa4.exp < s.fa4_skip_only.exp and busy["FP32"] > s.fa4_skip_only.busy()["FP32"]


def test_no_schedule_beats_its_busiest_unit():
    for d in (64, 128):
        for tau in (0.0, 8.0):
            s = _schedules(d, tau=tau)
            for key, t in s.per_tile().items():
                w = getattr(s, key)
                assert t >= max(w.busy().values()) * (1 - 1e-9), (d, tau, key)


def test_fa3s_design_takes_neither_idea_and_rescales_every_row():
    s = _schedules()
    assert (s.fa3.share, s.fa3.rescale_rate, s.fa3.poly, s.fa3.correct) == (0.0, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="no polynomial"):
        bw.design_work(bw.gpu_rates("B200"), 128, "fa3", share=0.2)


def test_fa3s_design_on_the_b200_is_schedule_timelines_fa3():
    from flashviz.hardware.schedule import timeline
    w = _schedules().fa3
    mine = [x for x in bw.b200_steps(w, 5) if x.lane != "shared memory"]
    work = bw.TileWork(qk=w.qk, pv=w.pv, exp=w.exp, pre=w.pre, post=w.post, copy=0.0)
    theirs = [x for x in timeline("fa3", work, 5) if x.lane != "copies"]
    assert mine == theirs


def test_the_operand_reads_count_each_design_s_mma_shapes():
    # FA3: two 64-row groups read Q's 64 rows and K's 128 each; FA4: one 128-row MMA reads Q and K once
    assert bw.operand_bytes("fa3", 128) == (2 * (64 + 128) * 128 * 2, 2 * 128 * 128 * 2)
    assert bw.operand_bytes("fa4", 128) == ((128 + 128) * 128 * 2, 128 * 128 * 2)
    g = bw.gpu_rates("B200")
    w = bw.design_work(g, 128, "fa4", 0.0, 1.0)
    # 128 bytes a clock per SM: FA4's QK^T reads exactly as long as its flops take at 8,192 a clock
    assert w.qk_smem == pytest.approx(w.qk_flops)


def test_tau_zero_skips_nothing_and_rescales_at_every_new_max():
    s = _schedules(tau=0.0)
    r = s.rescales
    assert r.skipped == 0 and r.done == r.every_new_max == s.rescales_tau0.done > 0
    assert s.fa4.rescale_rate == s.fa4_split_only.rescale_rate == s.rescales_tau0.warp_rate


def test_the_bars_cover_the_same_score_tiles_in_both_designs():
    s = _schedules()
    bars = bw.b200_bars(s)
    qk = {name: sum(1 for b in bars if b["schedule"] == name and b["label"] == "QKᵀ") for name in bw.DESIGNS}
    # FA3: 2 warp groups x 8 key tiles; FA4: 2 Q tiles x 4 key tiles, each step a whole 128-row tile
    assert qk == {"fa3": 2 * 2 * bw.B200_TILES_SHOWN, "fa4": 2 * bw.B200_TILES_SHOWN}


def test_the_bars_put_every_step_on_a_lane_the_chart_draws():
    bars = bw.b200_bars(_schedules())
    assert {b["lane"] for b in bars} == set(bw.B200_CHART_LANES)
