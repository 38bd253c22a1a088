"""FlashAttention-3's design as its authors ship it (flash-attn-4 on the H200): the committed data parse, every
output matched PyTorch flash's, every row says where it came from, and the schedule model reads them as the
bench wrote them (issue 38)."""
import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pytest import approx

from flashviz.hardware import fa3_authors as fa
from tests.conftest import dry_run

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("fa3_bench", ROOT / "bench" / "gpu" / "fa3_authors.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "bench" / "gpu"))
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()
TIME, NCU, MASKS = fa.load_time(), fa.load_ncu(), fa.load_masks()
RERUN = fa.load_time(name="fa3_time_rerun.csv")


@pytest.mark.parametrize("df, columns", [(TIME, fa.TIME_COLUMNS), (RERUN, fa.TIME_COLUMNS), (NCU, fa.NCU_COLUMNS),
                                         (MASKS, fa.MASK_COLUMNS)])
def test_every_row_has_its_columns_and_its_provenance(df, columns):
    assert len(df) > 0
    assert set(columns) <= set(df.columns), set(columns) - set(df.columns)
    prov = df[fa.PROVENANCE]
    assert prov.notna().all().all()
    assert (prov.astype(str) != "none").all().all(), "a package missing on the device"
    assert (df["gpu"] == "NVIDIA H200").all()
    assert df["command"].str.startswith("python bench/gpu/fa3_authors.py").all()


def test_the_sets_are_the_bench_lists_and_every_config_ran_every_way():
    got = {s: set(map(tuple, g[["n", "d", "batch_heads"]].drop_duplicates().to_numpy().tolist()))
           for s, g in TIME.groupby("set")}
    assert got == {"model": set(BENCH.MODEL), "held-apart": set(BENCH.HELD_APART)}
    assert not set(BENCH.MODEL) & set(BENCH.HELD_APART)
    per = TIME.groupby(["n", "d", "batch_heads"]).size()
    assert (per == len(BENCH.IMPLS) * 2 * len(BENCH.DTYPES) * 2).all()  # impls x passes x dtypes x causal
    assert len(TIME[(TIME["set"] == "model") & (TIME["impl"] == "fa4") & (TIME["pass"] == "fwd")]) >= 48


def test_the_rerun_timed_the_same_calls_with_the_same_packages():
    key = ["set", "impl", "pass", "dtype", "causal", "n", "d", "batch_heads"]
    assert sorted(map(tuple, RERUN[key].to_numpy().tolist())) == sorted(map(tuple, TIME[key].to_numpy().tolist()))
    for col in ("flash_attn_4", "cutlass_dsl", "torch", "cudnn", "driver"):
        assert set(RERUN[col]) == set(TIME[col]), col


@pytest.mark.parametrize("df", [TIME, RERUN], ids=["run", "rerun"])
def test_every_output_matched_pytorch_flash(df):
    assert df["status"].eq("ok").all(), df[df["status"] != "ok"][["impl", "n", "d", "status"]]
    fwd, bwd = df[df["pass"] == "fwd"], df[df["pass"] == "bwd"]
    assert fwd["max_abs_diff"].between(0, fa.FWD_TOL).all()
    assert bwd["grad_rel_err"].between(0, fa.GRAD_TOL).all()
    assert (fwd[fwd["impl"] == "flash"]["max_abs_diff"] == 0).all()  # the yardstick against itself


def test_rates_are_the_counted_flops_over_the_median_time():
    flops = 4 * TIME["batch_heads"] * TIME["n"] ** 2 * TIME["d"] * np.where(TIME["causal"] == 1, 0.5, 1.0)
    flops = flops * np.where(TIME["pass"] == "bwd", 2.5, 1.0)
    assert TIME["tflops"].to_numpy() == approx((flops / (TIME["ms"] * 1e-3) / 1e12).to_numpy(), rel=1e-9)
    # a spin kernel ahead hides the host's dispatch: the kernel alone is no slower than the plain call's spread
    assert (TIME["ms_hidden"] <= TIME["ms_p90"]).all()
    assert ((TIME["ms"] - TIME["ms_hidden"]) > 0).mean() > 0.9
    assert TIME["sm_mhz"].between(300, 2100).all()


def test_nsight_compute_profiled_every_planned_call_and_its_grid_is_the_tiles():
    planned = {(i, c, n, d, bh) for c in (0, 1) for (n, d, bh) in BENCH.NCU for i in BENCH.IMPLS}
    assert set(map(tuple, NCU[["impl", "causal", "n", "d", "batch_heads"]].to_numpy().tolist())) == planned
    assert (NCU["dram_read_bytes"] > 0).all() and (NCU["dram_write_bytes"] > 0).all()
    for r in NCU[NCU["impl"].isin(["fa4", "flash"])].itertuples():  # one block per query tile and head
        Br, _ = fa.tiles(r.impl, r.d)
        assert r.grid == math.ceil(r.n / Br) * r.batch_heads, (r.impl, r.n, r.d)
    for r in NCU[NCU["impl"].isin(["fa4", "flash"])].itertuples():  # the kernel read_kernel gives the read model
        k = fa.read_kernel(r.impl, r.d)
        assert (r.block, r.regs) == (32 * k.warps, k.regs_per_thread) or r.impl == "flash"
        barriers = 1024 if r.impl == "fa4" else 0  # flash-attn-4's mbarriers beside its tiles
        assert r.smem_dyn == k.smem_bytes(r.d) + barriers, (r.impl, r.d)


def _pairs(n, causal, left, right):
    """Closed form, row by row: keys max(0, i - left) .. min(n - 1, i + right), right = 0 under causal."""
    right = 0 if causal else right
    total = 0
    for i in range(n):
        lo = 0 if left is None else max(0, i - left)
        hi = n - 1 if right is None else min(n - 1, i + right)
        total += max(0, hi - lo + 1)
    return total


def test_mask_pairs_are_the_closed_form_and_every_mask_matched_standard_attention():
    assert MASKS["status"].eq("ok").all()
    assert MASKS["check_max_abs_diff"].between(0, fa.FWD_TOL).all()
    assert MASKS["check_grad_rel_err"].between(0, fa.GRAD_TOL).all()
    seen = set()
    for r in MASKS.drop_duplicates(["kind", "causal", "window_left", "window_right", "docs", "sink"]).itertuples():
        left = None if pd.isna(r.window_left) else int(r.window_left)
        right = None if pd.isna(r.window_right) else int(r.window_right)
        docs = [int(x) for x in str(r.docs).split(";")] if isinstance(r.docs, str) else [int(r.n)]
        assert sum(docs) == r.n
        key = (len(docs), left, right, bool(r.causal))
        if key not in seen and len(docs) <= 4:  # the row-by-row count is slow: each shape once
            seen.add(key)
            assert r.pairs == r.heads * sum(_pairs(L, bool(r.causal), left, right) for L in docs)
        assert r.pair_fraction == approx(r.pairs / (r.heads * r.n**2))
    windows = MASKS[(MASKS["kind"] == "window") & (MASKS["pass"] == "fwd")]
    widths = windows["window_left"] + windows["window_right"] + 1
    assert widths.min() == 128 and widths.max() == MASKS["n"].iloc[0]


def test_the_model_reads_every_forward_and_its_ratios_are_its_times():
    tt = fa.targets()
    assert len(tt) == len(TIME[TIME["pass"] == "fwd"])
    assert tt["time: model ÷ measured"].to_numpy() == approx((tt["model ms"] / tt["measured ms"]).to_numpy())
    assert (tt["model ms"] > tt["host ms"]).all()
    s = fa.speedups(tt)
    assert len(s) == len(tt) // 3
    key = ["set", "dtype", "causal", "n", "d", "B·H"]
    flash = tt[tt["kernel"] == "PyTorch flash"].set_index(key)["measured ms"]
    fa3 = tt[tt["kernel"] == "FA3 (authors)"].set_index(key)["measured ms"]
    assert s.set_index(key)["measured"].sort_index().to_numpy() == approx((flash / fa3).sort_index().to_numpy())
    summ = fa.summary(tt)
    assert summ["configs"].sum() == len(tt) and (summ["in target"] <= summ["configs"]).all()


def test_the_model_is_slower_with_a_slower_clock_and_fa3_overlaps_what_fa2_adds():
    _, rates = fa.load_rates()
    fast = fa.model_time("fa4", 8192, 128, 64, False, 1.8e9, rates, 0.0)
    slow = fa.model_time("fa4", 8192, 128, 64, False, 1.2e9, rates, 0.0)
    # the units' work scales with the clock; the copies, at DRAM's rate, do not
    assert fast.arithmetic_s < slow.arithmetic_s <= fast.arithmetic_s * 1.5 * (1 + 1e-9)
    assert fast.work.matmul < fast.per_tile < fast.work.matmul + fast.work.softmax


def test_the_bench_prints_the_counts_the_model_gives(capsys):
    from bench import fa3_model
    fa3_model.main([])
    out = capsys.readouterr().out
    summ = fa.summary(fa.targets()).reset_index()
    for r in summ.itertuples():
        assert f"| {r.set} | {r.kernel} | {r.configs} | {r._4} |" in out, (r.set, r.kernel)
    for r in fa.speedup_summary(fa.targets()).itertuples():
        assert f"| {r.set} | {r.kernel} | {r.configs} | {r._4} |" in out, (r.set, r.kernel)


def test_dry_run_executes_on_the_cpu(tmp_path):
    dry_run("fa3_authors.py", tmp_path)
    t = pd.read_csv(tmp_path / "fa3_time.csv")
    m = pd.read_csv(tmp_path / "fa4_masks.csv")
    assert set(t["impl"]) == set(BENCH.IMPLS) and t["status"].eq("ok").all()
    assert m["status"].eq("ok").all() and set(m["kind"]) == {"full", "causal", "window", "docs", "sink"}
    assert (tmp_path / "fa3_ncu.csv").exists()


@pytest.mark.parametrize("d", [64, 128, 256])
def test_pytorch_flash_waits_on_shared_memory_only_where_its_warps_hold_16_rows(d):
    """FlashAttention-2's warps split the rows and each reads whole K and V tiles (kernel_traits.h): at 128
    bytes a clock per SM, shared memory outlasts mma.sync's 2,731 flops a clock only at d = 256 (64 x 64 tiles of
    4 warps, 16 rows a warp); at d = 64 and 128 (32 rows a warp) the tensor cores still set the matmuls' time."""
    from flashviz.hardware.schedule import smem_operands
    _, rates = fa.load_rates()
    k = fa.read_kernel("flash", d)
    qk_bytes, pv_bytes = smem_operands(k.Br, k.Bc, d, k.warps)
    assert qk_bytes == k.warps * k.Bc * d * 2 + k.Br * d * 2 and pv_bytes == k.warps * k.Bc * d * 2
    tensor_clk = 2 * k.Br * k.Bc * d / rates["per clock tensor flash"]
    smem_clk = qk_bytes / fa.SMEM_BYTES_PER_CLK
    assert (smem_clk > tensor_clk) == (d == 256), (d, smem_clk, tensor_clk)
    m = fa.model_time("flash", 16384, d, 4, False, 1.8e9, rates, 0.0)
    assert m.work.qk == approx(max(tensor_clk, smem_clk) / 1.8e9)


@pytest.mark.parametrize("d", [64, 128, 256])
def test_the_wgmma_kernels_tiles_keep_shared_memory_under_the_tensor_cores_time(d):
    """Why the model charges no shared-memory time to flash-attn-4: even with each consumer warp group (64 rows)
    reading whole K and V tiles and its rows of Q from shared memory, as FA2's warps do, its tiles' operand bytes
    take less than their wgmma time at 128 bytes a clock."""
    from flashviz.hardware.schedule import smem_operands
    _, rates = fa.load_rates()
    Br, Bc = fa.tiles("fa4", d)
    qk_bytes, pv_bytes = smem_operands(Br, Bc, d, Br // 64)
    tensor_clk = 2 * Br * Bc * d / rates["per clock tensor"]
    assert max(qk_bytes, pv_bytes) / fa.SMEM_BYTES_PER_CLK < tensor_clk, (d, qk_bytes, tensor_clk)
    assert fa.smem_bytes("fa4", d) is None and fa.smem_bytes("cudnn", d) is None
