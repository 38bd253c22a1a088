"""Lesson 13's engine (flashviz/players/schedule_lesson.py): the same numbers as the schedule model's own
functions, the player's steps, what a tile's exponentials overlap, the exp unit's share and FP8."""
import pytest
from pytest import approx

from flashviz.players import schedule_lesson as sl
from flashviz.teach.questions import schedule_speedup
from flashviz.hardware.schedule import SCHEDULES, interval, timeline
from flashviz.hardware.schedule_targets import KERNELS, load, speedups, targets

DF, RATES = load()
CALLS = [sl.Setting(n, d, bh, t, c) for n, d, bh in sl.configs(DF) for t in ("float16", "bfloat16")
         for c in (False, True)]
ISSUE = sl.Setting(8192, 128, 64, "float16", False)


@pytest.fixture(scope="module", params=[True, False], ids=["occupancy", "full_sm"])
def table(request):
    return request.param, targets(DF, RATES, occupancy=request.param)


def test_every_measured_call_is_on_the_menu_once():
    assert sl.measured_configs() == sl.configs(DF)
    assert len(set(sl.configs(DF))) == len(DF) // (4 * len(KERNELS)), "each call: 2 dtypes x 2 masks x 3 kernels"


def test_kernel_time_at_is_targets_row_at_every_call(table):
    """The page's timeline and the model's table must not drift apart when the model changes."""
    occupancy, t = table
    for s in CALLS:
        for impl, (label, *_rest) in KERNELS.items():
            row = sl.row(t, label, s)
            got = sl.kernel_time_at(impl, s, RATES, occupancy)
            assert 1e3 * got.total_s == approx(row["model ms"], rel=1e-12), (impl, s)
            assert 1e6 * got.per_tile == approx(row["interval µs/tile"], rel=1e-12), (impl, s)


def test_the_speedup_row_is_flash_over_cudnn_measured():
    sp = speedups(targets(DF, RATES))
    t = targets(DF, RATES)
    for s in CALLS[::7]:
        row = sl.speedup_row(sp, s)
        assert row["measured"] == approx(sl.row(t, "PyTorch flash", s)["measured ms"]
                                         / sl.row(t, "cuDNN", s)["measured ms"])


def test_a_call_that_was_not_measured_is_refused():
    with pytest.raises(ValueError, match="0 rows"):
        sl.row(targets(DF, RATES), "cuDNN", sl.Setting(8192, 128, 3, "float16", False))


@pytest.mark.parametrize("s", [ISSUE, sl.Setting(1024, 64, 128, "bfloat16", True)], ids=["d128", "d64_causal"])
def test_the_player_draws_every_step_of_both_timelines_on_its_lanes(s):
    work = sl.schedule_work(s, RATES)
    bars = sl.bars(work)
    for sched in SCHEDULES:
        mine = [b for b in bars if b.schedule == sched]
        steps = timeline(sched, work, sl.TILES_SHOWN)
        assert len(mine) == len(steps)
        assert {b.lane for b in mine} == set(sl.lanes(sched))
        assert [(b.start_ns, b.length_ns) for b in mine] == [(x.start * 1e9, x.length * 1e9) for x in steps]
        assert {b.tile for b in mine} == set(range(1, sl.TILES_SHOWN + 1))
    assert sl.intervals(work) == {sched: interval(sched, work) for sched in SCHEDULES}


@pytest.mark.parametrize("s", CALLS[::5])
def test_fa2s_tensor_cores_wait_on_every_exponential_and_fa3s_run_under_them(s):
    bars = sl.bars(sl.schedule_work(s, RATES))
    for tile in range(1, sl.TILES_SHOWN + 1):
        story = sl.tile_story(bars, tile)
        assert story.fa2_tensor_busy == 0, f"FA2, tile {tile}: the same warps run the matmuls"
        assert 0 < story.fa3_overlap <= story.fa3_exp.length_ns * (1 + 1e-12), f"FA3, tile {tile}"
        assert all(b.kind == "matmul" and b.schedule == "fa3" for b in story.fa3_under)


def test_in_the_steady_state_fa3s_exponentials_hide_under_its_own_pv_or_the_other_groups_matmuls():
    story = sl.tile_story(sl.bars(sl.schedule_work(ISSUE, RATES)), 3)
    assert story.fa3_overlap == approx(story.fa3_exp.length_ns)
    assert {(b.label, b.group) for b in story.fa3_under} <= {("PV", 1), ("QKᵀ", 2), ("PV", 2), ("QKᵀ", 1)}


def test_the_exponentials_share_of_the_matmul_time_halves_when_d_doubles():
    wgmma, exp = RATES[sl.WGMMA], RATES[sl.EXP]
    assert sl.exp_share(64, wgmma, exp) == approx(2 * sl.exp_share(128, wgmma, exp))
    # one exponential per score, 4d matmul flops per score: the tile's own parts say the same
    w = sl.fp8(128, RATES).fp16
    assert w.exp / w.matmul == approx(sl.exp_share(128, RATES[sl.FP16_MATMUL], exp) * (1 + 1 / 128), rel=1e-9)


@pytest.mark.parametrize("d", [64, 128])
def test_fp8_speeds_the_matmuls_not_the_exponentials(d):
    f = sl.fp8(d, RATES)
    assert f.speedup == approx(RATES[sl.FP8_MATMUL] / RATES[sl.FP16_MATMUL])
    assert f.fp8.exp == f.fp16.exp and f.fp8.matmul == approx(f.fp16.matmul / f.speedup)
    assert f.fp8.exp / f.fp8.matmul == approx(f.speedup * f.fp16.exp / f.fp16.matmul)
    assert f.fp8_interval <= f.fp16_interval
    assert f.fp16_interval / f.fp8_interval <= f.speedup * (1 + 1e-12), "the exponentials keep it from the full gain"


def test_the_question_answers_with_the_measured_speedup_and_says_the_models_miss():
    q = schedule_speedup(8192, 128, 64, "float16", False, flash_ms=6.0, fa3_ms=4.0, model_flash_ms=6.0,
                         model_fa3_ms=2.0)
    assert q.answer == 1.5 and q.shown == "1.50×"
    assert "1.50× faster" in q.why and "3.00×, 2.00× the measured speed-up, too high" in q.why
    slow = schedule_speedup(1024, 64, 1, "bfloat16", True, 2.0, 4.0, 2.0, 4.2)
    assert "2.00× slower" in slow.why and "within 15%" in slow.why and ", causal" in slow.prompt
    # within 15% as schedule_targets.speedups counts it: |measured ÷ model − 1|, so 1.16× too high is still in
    edge = schedule_speedup(8192, 128, 64, "float16", False, 1.74, 1.0, 2.02, 1.0)
    assert "1.16× the measured speed-up, within 15% of it" in edge.why
