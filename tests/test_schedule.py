"""The schedule model: FA2's times add, FA3's timeline overlaps them, and both against the H200."""
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx

from flashviz.model.costs import census
from tests.conftest import dry_run
from flashviz.hardware.schedule import (TileWork, UnitRates, block_tiles, busiest_sm, describe, interval, kernel_time,
                                        tile_work, timeline, unit_time)
from flashviz.hardware.schedule_targets import DATA, load, speedups, summary, targets

ROOT = Path(__file__).resolve().parent.parent
H200 = UnitRates(tensor=853e12, exp=3.96e12, fp32=31.5e12, dram=4.1e12)
tiles = st.sampled_from([(128, 64), (128, 128), (64, 64)])
ds = st.sampled_from([64, 128, 256])
rate = st.floats(0.5e12, 2e15)


@settings(max_examples=100, deadline=None)
@given(tiles, ds, rate, rate, rate)
def test_fa2_interval_is_the_sum_of_the_parts(tile, d, tensor, exp, fp32):
    w = tile_work(*tile, d, UnitRates(tensor=tensor, exp=exp, fp32=fp32, dram=4e12), copy_bytes=0)
    assert interval("fa2", w) == approx(w.matmul + w.softmax)


@settings(max_examples=100, deadline=None)
@given(tiles, ds, rate, rate, rate)
def test_fa3_overlaps_never_beating_its_busiest_unit(tile, d, tensor, exp, fp32):
    w = tile_work(*tile, d, UnitRates(tensor=tensor, exp=exp, fp32=fp32, dram=4e12), copy_bytes=0)
    fa3 = interval("fa3", w)
    assert max(w.matmul, w.exp, w.pre + w.post) * (1 - 1e-9) <= fa3 <= (w.matmul + w.softmax) * (1 + 1e-9)


@pytest.mark.parametrize("schedule", ["fa2", "fa3"])
def test_timeline_keeps_each_unit_to_one_step_and_each_step_after_its_inputs(schedule):
    steps = timeline(schedule, tile_work(128, 128, 128, H200), tiles=5)
    for lane in {s.lane for s in steps}:
        on = sorted((s for s in steps if s.lane == lane), key=lambda s: s.start)
        assert all(a.end <= b.start + 1e-15 for a, b in zip(on, on[1:])), lane
    at = {(s.label, s.tile, s.group): s for s in steps}
    for (label, j, g), s in at.items():
        if label in ("max", "PV"):
            before = at[("QKᵀ", j, g)] if label == "max" else at[("sum", j, g)]
            assert s.start >= before.end - 1e-15, (label, j, g)
    groups = {s.group for s in steps if s.lane == "tensor cores"}
    assert groups == ({0} if schedule == "fa2" else {0, 1})


def test_fa3_hides_the_softmax_that_fa2_adds_at_d_128():
    w = tile_work(128, 128, 128, H200, copy_bytes=0)
    assert interval("fa3", w) < 0.8 * interval("fa2", w)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([256, 1024, 4096]), st.sampled_from([(128, 64), (128, 128), (64, 128)]), st.booleans())
def test_block_tiles_are_the_tile_census(n, tile, causal):
    assert sum(block_tiles(n, *tile, causal)) == census(n, *tile, causal).tiles


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 40), st.integers(1, 16))
def test_busiest_sm_holds_at_least_its_share_and_one_block_more_at_most(blocks, tiles_per, bh):
    got = busiest_sm([tiles_per] * blocks, bh, 132)
    share = -(-blocks * bh // 132) * tiles_per
    assert got == share


def _dealt(order: list[int], sms: int, cost) -> tuple[float, int]:
    """The dealing written plainly: each unit, in order, to the SM that frees first (ties: the lower SM)."""
    load = [(0.0, 0, i) for i in range(sms)]
    for b in order:
        t, tiles, i = min(load)
        load[i] = (t + cost(b), tiles + b, i)
    return max((t, tiles) for t, tiles, _ in load)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=0, max_size=40), st.booleans(), st.integers(0, 12),
       st.sampled_from([1, 3, 7, 132]), st.booleans(), st.floats(1e-9, 1e-3))
def test_the_busiest_sm_is_the_plain_dealing_exactly(blocks, alike, bh, sms, lpt, scale):
    """busiest_sm and busiest_time skip the heap where every unit is alike, and replace its top: the same
    numbers, to the last bit, as dealing each unit to the SM that frees first."""
    from flashviz.hardware.schedule import busiest_time, lpt_order
    if alike and blocks:
        blocks = [blocks[0]] * len(blocks)
    cost = {b: scale * (1 + b % 7) / 3 for b in blocks}.__getitem__
    order = lpt_order(blocks, bh, 10 ** 7) if lpt else None
    assert busiest_time(blocks, bh, sms, cost, order) == _dealt(order or blocks * bh, sms, cost)
    assert busiest_sm(blocks, bh, sms) == _dealt(blocks * bh, sms, lambda b: b)[1]


def test_a_causal_grid_smaller_than_the_gpu_takes_its_longest_block():
    t = kernel_time(16384, 128, 1, True, 128, 128, "fa2", H200, 0)
    assert t.tiles_busiest == 128  # the last query block sees every key tile


@pytest.fixture(scope="module")
def table():
    return targets(*load(), occupancy=False)


@pytest.fixture(scope="module")
def at_occupancy():
    return targets(*load(), clock=False)


@pytest.fixture(scope="module")
def at_clock():
    return targets(*load())


def test_pytorch_flash_meets_the_time_target(table):
    s = summary(table).loc["PyTorch flash"]
    assert s["configs"] == 96 and s["in target"] >= 0.9 * 96, summary(table)


def test_cudnn_runs_slower_than_the_ideal_fa3_schedule(table):
    # Measured: cuDNN reaches about 0.7 of the time its schedule would take with every overlap perfect.
    r = table[table["kernel"] == "cuDNN"]["time: model ÷ measured"]
    assert r.median() < 0.8 and r.max() < 1.0, r.describe()


def test_rates_at_cudnns_occupancy_close_most_but_not_all_of_its_gap(table, at_occupancy):
    # wgmma at one block of 8 warps and exp / FP32 at one group of 4 warps are slower than the full-SM
    # rates (schedule_occupancy_rates.csv), so the model's cuDNN time grows; PyTorch flash is unchanged.
    full, occ = (t[t["kernel"] == "cuDNN"]["time: model ÷ measured"] for t in (table, at_occupancy))
    assert (occ.values > full.values).all() and occ.median() > full.median()
    assert at_occupancy["in 0.8–1.25"][at_occupancy["kernel"] == "cuDNN"].sum() > 6
    f = at_occupancy[at_occupancy["kernel"] == "PyTorch flash"]["time: model ÷ measured"]
    assert (f.values == table[table["kernel"] == "PyTorch flash"]["time: model ÷ measured"].values).all()


def test_speedups_are_computed_at_every_config(table):
    s = speedups(table)
    assert len(s) == 96 and (s["measured"] > 1.2).all() and (s["model"] > s["measured"]).all()


def test_held_apart_configs_are_a_separate_set():
    held, _ = load(name="schedule_heldout.csv")
    model, _ = load()
    a = set(zip(held["n"], held["d"], held["batch_heads"]))
    assert len(a) >= 8 and not a & set(zip(model["n"], model["d"], model["batch_heads"]))


def test_dry_run_executes_on_the_cpu(tmp_path):
    dry_run("schedule.py", tmp_path)
    for name in ("schedule.csv", "schedule_heldout.csv"):
        got = pd.read_csv(tmp_path / name)
        assert list(got.columns) == list(pd.read_csv(ROOT / "flashviz" / "data" / "h200" / name).columns)
        assert (got["status"] == "ok").all() and len(got)


def test_each_schedule_names_its_source():
    fa3 = describe("fa3")
    assert "FlashAttention-3, §3.1" in fa3 and "FlashAttention-3, §3.2" in fa3 and "2407.08608" in fa3, fa3
    assert "FlashAttention-2, §3.1" in describe("fa2")
    with pytest.raises(ValueError):
        describe("fa1")


@settings(max_examples=40, deadline=None)
@given(tiles, ds, st.integers(1, 40))
def test_fa2_units_have_no_fill_and_fa3_units_a_fixed_one(tile, d, b):
    w = tile_work(*tile, d, H200, copy_bytes=0)
    assert unit_time("fa2", w, b) == approx(b * interval("fa2", w))  # nothing overlaps, so nothing to fill
    per = interval("fa3", w)
    fill = unit_time("fa3", w, 20) - 20 * per
    assert fill >= -1e-9 * per and unit_time("fa3", w, b) >= b * per * (1 - 1e-9)
    assert unit_time("fa3", w, 20 + b) - (20 + b) * per == approx(fill, abs=1e-9 * per)


def test_fa3_fills_its_pipeline_where_the_softmax_is_the_longer_part():
    # d = 64: the softmax outlasts the matmuls, so a unit waits for its first tile's softmax before any PV;
    # d = 128: the other group's QK^T covers most of it, as a group issues its next QK^T only after its
    # softmax (Algorithm 2), and the fill is under a third of d = 64's in tiles
    w64, w128 = (tile_work(128, 128, d, H200, copy_bytes=0) for d in (64, 128))
    fill = {d: unit_time("fa3", w, 8) / interval("fa3", w) - 8 for d, w in ((64, w64), (128, w128))}
    assert w64.softmax > w64.matmul and fill[64] > 0
    assert 0 <= fill[128] < fill[64] / 3 and unit_time("fa3", w128, 1) > interval("fa3", w128), fill
    t = kernel_time(1024, 64, 128, False, 128, 128, "fa3", H200, 0, fill=True, host_s=5e-5)
    assert t.fill_s > 0 and t.total_s == approx(5e-5 + t.arithmetic_s)


def _ncu_raw():
    raw = pd.read_csv(DATA / "probe_ncu_raw.csv").iloc[1:]  # the units row
    raw = raw[~raw["Kernel Name"].str.contains("spin_kernel", na=False)].reset_index(drop=True)
    return raw.copy().assign(label=pd.read_csv(DATA / "probe_ncu.csv")["label"]).set_index("label")


def test_the_unit_rate_kernels_run_their_unit_at_its_peak_per_clock():
    raw = _ncu_raw()
    busy = {"micro:wgmma:4:8:0": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
            "micro:exp:31:4:8": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
            "micro:fp32:31:4:8": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"}
    for label, metric in busy.items():
        assert float(str(raw.loc[label, metric]).replace(",", "")) > 98, (label, raw.loc[label, metric])


def test_cudnn_runs_at_a_lower_clock_than_the_exp_kernel_under_the_power_cap():
    _, rates = load()
    exp_clock = float(pd.read_csv(DATA / "probe_ncu.csv").set_index("label").loc["micro:exp:31:4:8", "clock_mhz"]) * 1e6
    assert rates["clock cudnn d128"] < rates["clock cudnn d64"] < 0.95 * exp_clock, rates
    clocks = pd.read_csv(DATA / "probe_clocks.csv")
    big = clocks[(clocks["impl"] == "cudnn") & (clocks["n"] == 262144)]
    assert (big["reasons"] == "0x4").all()  # NVML: clocks held down by the software power cap


def test_the_dealing_matches_cudnns_per_sm_counters():
    # exp-unit instructions on the busiest SM over the mean, against the model's busiest tiles over the mean
    for label, r in _ncu_raw().iterrows():
        if not str(label).startswith("attn:cudnn"):
            continue
        _, _, n, d, bh, causal = str(label).split(":")
        blocks = block_tiles(int(n), 128, 128, causal == "1")
        model = busiest_sm(blocks, int(bh), 132) / (int(bh) * sum(blocks) / 132)
        xu = {k: float(str(r[f"sm__inst_executed_pipe_xu.{k}"]).replace(",", "")) for k in ("max", "sum")}
        measured = xu["max"] / (xu["sum"] / 132)
        assert model == approx(measured, rel=0.05), (label, model, measured)


def test_the_clock_model_adds_the_same_sdpa_dispatch_to_both_backends(at_clock, at_occupancy):
    _, rates = load()
    assert 0.02 < 1e3 * rates["host sdpa"] < 0.2, rates["host sdpa"]
    for kernel, host in (("cuDNN", rates["host sdpa"]), ("PyTorch flash", rates["host sdpa"]), ("Triton 128×64", 0)):
        got = at_clock[at_clock["kernel"] == kernel]["host ms"]
        assert list(got) == approx([1e3 * host] * len(got)), kernel
    # flash without its own probe (its full-SM rates, as before the flash probe): only the dispatch is new
    df, _ = load()
    before = targets(df, {k: v for k, v in rates.items() if "flash" not in k})
    f = before["kernel"] == "PyTorch flash"
    added = (before[f]["model ms"] - at_occupancy[f]["model ms"]).values
    assert added == approx([1e3 * rates["host sdpa"]] * f.sum())


def test_cudnns_clock_in_the_timing_loop_is_below_its_clock_under_nsight_compute():
    # Same cycles, lower clock: the SMs' own counters over the call in the loop against ncu's replay
    _, rates = load()
    for d in (64, 128):
        assert rates[f"clock cudnn d{d} loop"] < rates[f"clock cudnn d{d} ncu"], d
    assert rates["clock cudnn d128"] == rates["clock cudnn d128 loop"]


def test_cudnn_at_its_clock_stays_short_of_the_target(at_clock):
    # Measured per tile, cuDNN takes about 1.25 times the cycles of the FA3 schedule with every overlap
    # perfect (BENCHMARKS.md): the model is faster than the kernel at most configs, and misses the target.
    r = at_clock[at_clock["kernel"] == "cuDNN"]["time: model ÷ measured"]
    assert 0.75 < r.median() < 0.9 and r.max() < 1.25 and r.between(0.8, 1.25).sum() < 0.9 * len(r), r.describe()
    assert (r[~r.between(0.8, 1.25)] < 0.8).all()  # every miss is the model too fast


def test_flash_keeps_the_time_target_with_the_dispatch(at_clock):
    s = summary(at_clock).loc["PyTorch flash"]
    assert s["in target"] >= 0.9 * s["configs"], summary(at_clock)


def test_probe_dry_run_executes_on_the_cpu(tmp_path):
    dry_run("cudnn_probe.py", tmp_path)
    dry_run("cudnn_probe.py", tmp_path / "loop", "--loop-clock")
    assert list(pd.read_csv(tmp_path / "loop" / "probe_loop_clock.csv").columns) == \
        list(pd.read_csv(ROOT / "flashviz" / "data" / "h200" / "probe_loop_clock.csv").columns)
    for name in ("probe_clocks.csv", "probe_startup.csv", "probe_ncu.csv"):
        got = pd.read_csv(tmp_path / name)
        assert list(got.columns) == list(pd.read_csv(ROOT / "flashviz" / "data" / "h200" / name).columns), name
    assert len(pd.read_csv(tmp_path / "probe_startup.csv")) > 0


def test_the_schedule_assumptions_figures_hold_on_the_data(at_clock):
    # ASSUMPTIONS["schedule"]: "about 1.25 times the cycles per tile of FlashAttention-3's schedule with every
    # overlap perfect", "faster than the kernel on the long calls, by up to about a third ... (the long causal calls)"
    from flashviz.hardware.schedule import tile_work
    from flashviz.hardware.schedule_targets import rates_for
    from flashviz.model.sources import ASSUMPTIONS
    assert "about 1.25 times the cycles per tile" in ASSUMPTIONS["schedule"].real
    _, rates = load()
    raw = _ncu_raw()
    for d, n in ((64, 131072), (128, 262144)):
        r = raw.loc[f"attn:cudnn:{n}:{d}:1:0"]
        cycles = float(str(r["sm__cycles_active.avg"]).replace(",", "")) / (n // 128) ** 2 * 132  # a tile, mean SM
        unit = rates_for("cudnn", rates, 132, True, d)
        ideal = interval("fa3", tile_work(128, 128, d, unit, copy_bytes=0)) * rates[f"clock cudnn d{d}"]
        assert 1.15 < cycles / ideal < 1.35, (d, cycles, ideal)
    c = at_clock[at_clock["kernel"] == "cuDNN"]
    worst = c.loc[c["time: model ÷ measured"].idxmin()]
    assert 0.6 < worst["time: model ÷ measured"] < 0.75 and worst["causal"] and worst["measured ms"] > 10, worst


def _flash_raw(name: str = "flash_ncu_raw.csv") -> pd.DataFrame:
    raw = pd.read_csv(DATA / name, dtype=str)
    spin = raw["Kernel Name"].str.contains("spin_kernel", na=False)  # na: pandas 2.2 leaves NaN, which ~ refuses
    raw = raw[raw["ID"].fillna("").str.strip().str.isdigit() & ~spin]
    return raw.reset_index(drop=True)


def _n(x) -> float:
    return float(str(x).replace(",", ""))


def test_flash_runs_two_blocks_of_four_warps_and_mma_sync_two_thirds_of_wgmma_per_cycle_there():
    # Nsight Compute: PyTorch flash's block is 4 warps, and registers and shared memory each allow 2 a SM
    raw = _flash_raw()
    assert (raw["launch__block_size"].map(_n) == 128).all()
    for limit in ("registers", "shared_mem"):
        assert (raw[f"launch__occupancy_limit_{limit}"].map(_n) == 2).all(), limit
    # the micro-benchmark at that occupancy ran 2 blocks on every SM, its hmma pipe all but always busy
    mma = pd.read_csv(DATA / "flash_mma_rate.csv")
    at = mma[(mma["blocks_per_sm"] == 2) & (mma["warps_per_block"] == 4)]
    assert (at["blocks_on_sm_min"] == 2).all() and (at["blocks_on_sm_max"] == 2).all()
    micro = _flash_raw("flash_mma_ncu_raw.csv")
    two = micro[(micro["launch__grid_size"].map(_n) == 264) & (micro["launch__block_size"].map(_n) == 128)]
    assert len(two) == 2 and (two["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"].map(_n) > 99).all()
    _, rates = load()
    assert rates["per clock tensor flash"] == at["flops_per_cycle_sm_median"].max()
    assert rates["per clock tensor flash"] / rates["per clock tensor"] == approx(2 / 3, rel=0.01)
    # one dependent chain a warp is latency-bound: half the rate; two or more reach the pipe's peak
    one = at[at["chains"] == 1]["flops_per_cycle_sm_median"].iloc[0]
    assert one < 0.6 * rates["per clock tensor flash"]


def test_flash_runs_its_counted_matmuls_at_mma_syncs_peak_and_the_fa2_cycles_a_tile():
    # hmma instructions x 4096 flops are the call's 4 n^2 d B*H; the tensor pipe's busy cycles a tile are
    # those flops at 2,731 a cycle; a long call's cycles a tile are FA2's sum of the parts within 7%
    _, rates = load()
    raw = _flash_raw()
    labels = pd.read_csv(DATA / "flash_ncu.csv")["label"]
    for label, r in zip(labels, raw.to_dict("records")):
        _, _, n, d, bh, causal = label.split(":")
        n, d, bh = int(n), int(d), int(bh)
        Bc = 128 if d <= 64 else 64
        tiles = bh * sum(block_tiles(n, 128, Bc, causal == "1")) / 132
        if causal == "0":
            assert _n(r["sm__inst_executed_pipe_tensor_op_hmma.sum"]) * 4096 == 4 * n * n * d * bh, label
        busy = _n(r["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"]) / 100
        cycles = _n(r["sm__cycles_active.avg"]) / tiles
        assert busy * cycles == approx(4 * 128 * Bc * d / rates["per clock tensor flash"], rel=0.02), label
        if n >= 16384:
            from flashviz.hardware.schedule_targets import rates_for
            unit = rates_for("flash", rates, d=d)
            model = interval("fa2", tile_work(128, Bc, d, unit, copy_bytes=0)) * rates[f"clock flash d{d}"]
            assert 0.93 < model / cycles < 1.01, (label, model, cycles)


def test_flash_at_its_own_clock_meets_the_target_and_comes_closer_to_the_kernel(at_clock):
    _, rates = load()
    for d in (64, 128):  # flash's clock in the loop, below the exp kernel's 1.98 GHz under the power cap
        assert 1.5e9 < rates[f"clock flash d{d}"] < 1.9e9 and rates[f"clock flash d{d}"] > rates[f"clock cudnn d{d}"]
    df, _ = load()
    before = targets(df, {k: v for k, v in rates.items() if "flash" not in k})
    now, was = (t[t["kernel"] == "PyTorch flash"]["time: model ÷ measured"] for t in (at_clock, before))
    assert now.between(0.8, 1.25).all(), now.describe()
    assert abs(now.median() - 1) < abs(was.median() - 1), (now.median(), was.median())


def test_the_speedup_comes_closer_and_misses_where_cudnns_model_is_fast(at_clock):
    # The flash probe moved 14 of 96 to 61 of 96 (BENCHMARKS.md); nearly every miss is the model's speed-up
    # too large, as cuDNN's model is too fast (about 1.25 times the ideal schedule's cycles a tile)
    df, rates = load()
    before = speedups(targets(df, {k: v for k, v in rates.items() if "flash" not in k}))
    now = speedups(at_clock)
    assert now["within 15%"].sum() > 3 * before["within 15%"].sum()
    misses = now[~now["within 15%"]]
    assert (misses["measured ÷ model"] < 0.85).sum() >= 0.9 * len(misses)
    c = at_clock[at_clock["kernel"] == "cuDNN"]["time: model ÷ measured"].median()
    f = at_clock[at_clock["kernel"] == "PyTorch flash"]["time: model ÷ measured"].median()
    assert now["measured ÷ model"].median() == approx(c / f, rel=0.05)


def test_the_speedup_assumption_figures_hold_on_both_sets():
    # ASSUMPTIONS["schedule"]: the modelled speed-up "larger than measured, by about a sixth at the median and
    # up to about a third"
    from flashviz.model.sources import ASSUMPTIONS
    assert "by about a sixth at the median and up to about a third" in ASSUMPTIONS["schedule"].real
    for name in ("schedule.csv", "schedule_heldout.csv"):
        s = speedups(targets(*load(name=name)))
        over = s["model"] / s["measured"]
        assert 1.1 < over.median() < 1.25 and 1.25 < over.max() < 1.4, (name, over.describe())


def test_flash_probe_dry_run_executes_on_the_cpu(tmp_path):
    dry_run("flash_probe.py", tmp_path)
    for name in ("flash_mma_rate.csv", "flash_loop_clock.csv", "flash_ncu.csv"):
        assert list(pd.read_csv(tmp_path / name).columns) == list(pd.read_csv(DATA / name).columns), name


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.05, 4.0), min_size=6, max_size=6), st.integers(2, 5))
def test_fa3_group_issues_its_next_qk_only_after_its_softmax(parts, j):
    # FA3 §3.2, Algorithm 2: line 9 of iteration j+1 (QK^T of tile j+1) follows line 13 of iteration j (its
    # softmax of tile j) in the warp group's program, so that QK^T never runs under that softmax, however
    # long the softmax is against the matmuls
    qk, pv, exp, pre, post, copy = parts
    steps = timeline("fa3", TileWork(qk=qk, pv=pv, exp=exp, pre=pre, post=post, copy=copy), tiles=j + 2)
    for g in (0, 1):
        soft_end = max(s.end for s in steps if s.tile == j and s.group == g and s.label == "sum")
        qk = next(s for s in steps if s.label == "QKᵀ" and s.tile == j + 1 and s.group == g)
        assert qk.start >= soft_end * (1 - 1e-12), (g, qk, soft_end)


def test_fa3_is_described_in_algorithm_2s_order():
    # a tile's softmax runs under the previous tile's PV, not the next tile's QK^T (FA3 §3.2)
    assert describe("fa3").count("the QKᵀ of tile j is issued, then the PV of tile j−1, and the softmax of tile j "
                                 "runs under the PV of tile j−1") == 1, describe("fa3")


def test_flash_attn_4s_causal_order_runs_the_longest_blocks_first_in_sections_that_fit_50_mb():
    """SingleTileLPTScheduler (flash_attn/cute/tile_scheduler.py): heads in sections of a power of 2 whose K and V
    fit in 50 MB, each section's blocks from the last query block to the first, every head of the section in turn."""
    from flashviz.hardware.schedule import L2_SECTION_BYTES, block_tiles, lpt_order
    blocks = block_tiles(4096, 128, 128, True)                    # 1 .. 32 key tiles
    head = 2 * 4096 * 128 * 2                                     # one head's K and V in fp16: 2 MB
    order = lpt_order(blocks, 40, head)
    section = 16                                                  # 25 heads fit in 50 MB: the power of 2 below
    assert L2_SECTION_BYTES // head == 25 and sorted(order) == sorted(blocks * 40)
    assert order[:section] == [32] * section and order[section] == 31
    assert order[32 * section - 1] == 1 and order[32 * section] == 32  # the next section starts over, longest first
    assert order[-8:] == [1] * 8                                  # the residual section: the last 8 heads
    assert lpt_order(blocks, 3, 10 ** 9) == [b for b in reversed(blocks) for _ in range(1)] * 3


def test_a_longest_first_order_never_leaves_a_causal_grid_slower_here():
    from flashviz.hardware.schedule import block_tiles, busiest_time, lpt_order
    for n, bh in ((8192, 8), (16384, 1), (2048, 128)):
        blocks = block_tiles(n, 128, 128, True)
        plain, _ = busiest_time(blocks, bh, 132, float)
        lpt, _ = busiest_time(blocks, bh, 132, float, lpt_order(blocks, bh, 2 * n * 128 * 2))
        assert lpt <= plain, (n, bh, lpt, plain)
