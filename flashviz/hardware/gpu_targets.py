"""The three-level model against the H200's measurements (flashviz/data/h200/whole_gpu*.csv).

Measured inputs, named: four rates of this H200 measured in the same run as the kernels
(whole_gpu_ceilings.csv: copy bandwidth, cuBLAS fp16 matmul, exp on the special-function
units, FP32 FFMA instructions; bench/gpu/unit_rates.py), and each kernel's registers per
thread (residency), read off Nsight Compute. Nothing else is taken from the measurements,
and nothing is fitted per config.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..model.config import HARDWARE
from .gpu_model import (Kernel, Rates, forward_flops, forward_time, plain_reads, plain_writes, sdpa_flash,
                        triton, whole_gpu)

DATA = Path(__file__).resolve().parent.parent / "data" / "h200"
READS_OK = (0.8, 1.25)
TIME_OK = (0.7, 1.4)
CEILINGS = {"copy bandwidth": "dram", "dense matmul float16": "matmul", "exp": "exp", "FP32 FFMA": "fp32"}
# Attention that materialises S (no waves to model): the paper's standard attention in three
# kernels, and a naive script's four (bench/gpu/measure.py: `plain`, `naive_script`).
PLAIN, NAIVE = "plain", "naive_script"


def kernel_for(impl: str, d: int) -> Kernel:
    if impl == "flash":
        return sdpa_flash(d)
    bm, bn = (int(x) for x in impl.split("_")[1].split("x"))
    return triton(bm, bn, d)


def rates_from(ceilings: pd.DataFrame) -> Rates:
    """The four rates of whole_gpu_ceilings.csv, per second (TB/s, TFLOP/s and Tops/s there)."""
    got = {}
    for label, value in zip(ceilings["ceiling"], ceilings["value"]):
        for prefix, field in CEILINGS.items():
            if str(label).startswith(prefix):
                got[field] = float(value) * 1e12
    return Rates(**got)


def load(data: Path = DATA) -> tuple[pd.DataFrame, Rates]:
    """The joined CSV (fused kernels only: plain attention has no waves) and the same run's rates."""
    df = pd.read_csv(data / "whole_gpu.csv")
    df = df[~df["impl"].isin((PLAIN, NAIVE)) & df["dram_read_bytes"].notna()].copy()
    return df, rates_from(pd.read_csv(data / "whole_gpu_ceilings.csv"))


def load_heldout(data: Path = DATA) -> pd.DataFrame:
    """The read model's held-apart configs (issue 21, bench/gpu/schedule.py's HELD_APART, measured after the
    model was frozen): PyTorch flash and the three Triton tiles, float16, not causal, reads by Nsight Compute."""
    df = pd.read_csv(data / "schedule_heldout.csv")
    keep = (df["causal"] == 0) & (df["dtype"] == "float16") & df["dram_read_bytes"].notna()
    return df[keep & df["impl"].isin(("flash", "triton_128x64", "triton_64x64", "triton_128x128"))].copy()


def load_plain(data: Path = DATA, impl: str = PLAIN) -> pd.DataFrame:
    """Plain attention's rows, or (impl=NAIVE) the naive script's: each call profiled in its own
    ncu process, all its kernels summed."""
    df = pd.read_csv(data / "whole_gpu.csv")
    return df[(df["impl"] == impl) & df["dram_read_bytes"].notna()].copy()


def targets(df: pd.DataFrame, rates: Rates, gpu: str = "H200 SXM") -> pd.DataFrame:
    """One row per measured config: the model's reads and time over the measured ones. The time
    model adds the softmax (exp and FP32 work) to the matmuls, as FA2-style kernels run them; the
    'matmul-only' column is the plain roofline it replaces."""
    hw = HARDWARE[gpu]
    rows = []
    for r in df.itertuples():
        n, d, bh = int(r.n), int(r.d), int(r.batch_heads)
        k = kernel_for(str(r.impl), d)
        w = whole_gpu(n, d, bh, k, hw)
        t = forward_time(n, d, bh, k, w.reads + w.writes, rates)
        matmul_only = max(forward_flops(n, d, bh) / rates.matmul, t.dram_s)
        rows.append({"kernel": k.name, "n": n, "d": d, "B·H": bh,
                     "K+V per head MB": w.kv_head_bytes / 2**20, "waves": w.waves,
                     "blocks per SM": k.occupancy(d, hw).blocks,
                     "measured reads MB": r.dram_read_bytes / 2**20,
                     "model reads MB": w.reads / 2**20, "two-level MB": w.two_level / 2**20,
                     "floor MB": w.compulsory / 2**20,
                     "reads: model ÷ measured": w.reads / r.dram_read_bytes,
                     "two-level ÷ measured": w.two_level / r.dram_read_bytes,
                     "measured writes MB": r.dram_write_bytes / 2**20,
                     "measured ms": r.time_ms, "matmul ms": 1e3 * t.matmul_s, "softmax ms": 1e3 * t.softmax_s,
                     "model ms": 1e3 * t.total_s, "model bound": t.bound,
                     "time: model ÷ measured": 1e3 * t.total_s / r.time_ms,
                     "matmul-only ÷ measured": 1e3 * matmul_only / r.time_ms,
                     "passes per head": w.passes / bh})
    out = pd.DataFrame(rows)
    out["reads in 0.8–1.25"] = out["reads: model ÷ measured"].between(*READS_OK)
    out["time in 0.7–1.4"] = out["time: model ÷ measured"].between(*TIME_OK)
    return out


def plain_targets(plain: pd.DataFrame, naive: pd.DataFrame) -> pd.DataFrame:
    """Plain attention (the paper's standard attention, three kernels): measured DRAM bytes beside
    the two-level standard model (three n x n passes, 4 n^2 + 4 n d moved per head). Beside it, at
    the same config, the naive script: its fourth kernel scales S in a pass of its own, counted
    as one more read and write of S."""
    other = naive.set_index(["n", "d", "batch_heads"])
    rows = []
    for r in plain.itertuples():
        n, d, bh = int(r.n), int(r.d), int(r.batch_heads)
        three, four = plain_reads(n, d, bh), plain_reads(n, d, bh, passes=4)
        row = {"n": n, "d": d, "B·H": bh, "S per head MB": n * n * 2 / 2**20, "kernels": int(r.n_kernels),
               "measured reads MB": r.dram_read_bytes / 2**20,
               "model reads MB (4n²+4nd moved)": three / 2**20,
               "reads: model ÷ measured": three / r.dram_read_bytes,
               "measured writes MB": r.dram_write_bytes / 2**20,
               "writes: model ÷ measured": plain_writes(n, d, bh) / r.dram_write_bytes,
               "measured ms": r.time_ms}
        if (n, d, bh) in other.index:
            q = other.loc[(n, d, bh)]
            row.update({"naive kernels": int(q["n_kernels"]), "naive reads MB": q["dram_read_bytes"] / 2**20,
                        "four-kernel count MB": four / 2**20,
                        "naive reads: count ÷ measured": four / q["dram_read_bytes"],
                        "naive writes: count ÷ measured": plain_writes(n, d, bh, passes=4) / q["dram_write_bytes"],
                        "naive ms": q["time_ms"], "time: naive ÷ plain": q["time_ms"] / r.time_ms})
        rows.append(row)
    return pd.DataFrame(rows)


def plain_over_flash(measured: pd.DataFrame, plain: pd.DataFrame) -> tuple[float, float]:
    """Plain attention's measured DRAM reads over PyTorch's flash kernel's at the same configs (load()'s sweep and
    load_plain()'s rows): (least, most)."""
    at = ["n", "d", "batch_heads"]
    flash = measured[measured["impl"] == "flash"].set_index(at)["dram_read_bytes"]
    ratio = plain.set_index(at)["dram_read_bytes"] / flash.reindex(plain.set_index(at).index)
    return float(ratio.min()), float(ratio.max())


def time_bias(table: pd.DataFrame) -> tuple[tuple[str, float], ...]:
    """Each kernel's median time model ÷ measured over targets()' rows, in the order the kernels first come."""
    medians = table.groupby("kernel", sort=False)["time: model ÷ measured"].median()
    return tuple((str(kernel), float(ratio)) for kernel, ratio in medians.items())


def triton_128_slower(table: pd.DataFrame) -> tuple[float, float, float, float]:
    """At d = 64 (targets()' rows), Triton 128×128's measured time over the other two Triton tiles' on the same work
    (least, most), and its time model ÷ measured (least, most)."""
    t = table[table["d"] == 64].pivot_table(index=["n", "B·H"], columns="kernel", values="measured ms")
    slower = pd.concat([t["Triton 128×128"] / t["Triton 128×64"], t["Triton 128×128"] / t["Triton 64×64"]])
    t128 = table[(table["kernel"] == "Triton 128×128") & (table["d"] == 64)]["time: model ÷ measured"]
    return float(slower.min()), float(slower.max()), float(t128.min()), float(t128.max())
