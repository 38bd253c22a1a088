"""The three-level model against the H200's measurements (data/h200/whole_gpu*.csv).

Measured inputs, named: the copy bandwidth and dense fp16 matmul rate of this H200
(roofline time), and each kernel's registers per thread (residency), read off Nsight
Compute. Nothing else is taken from the measurements.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .config import HARDWARE
from .gpu_model import Kernel, forward_flops, roofline_ms, sdpa_flash, triton, whole_gpu

DATA = Path(__file__).resolve().parent.parent / "data" / "h200"
READS_OK = (0.8, 1.25)
TIME_OK = (0.7, 1.4)


def kernel_for(impl: str, d: int) -> Kernel:
    if impl == "flash":
        return sdpa_flash(d)
    bm, bn = (int(x) for x in impl.split("_")[1].split("x"))
    return triton(bm, bn, d)


def load(data: Path = DATA) -> tuple[pd.DataFrame, dict]:
    """The joined CSV (fused kernels only: plain attention has no waves) and the ceilings."""
    df = pd.read_csv(data / "whole_gpu.csv")
    df = df[(df["impl"] != "plain") & df["dram_read_bytes"].notna()].copy()
    ceil = pd.read_csv(data / "ceilings.csv")
    whole = pd.read_csv(data / "whole_gpu_ceilings.csv")
    rates = {"bytes_per_s": float(whole["value"].iloc[0]) * 1e12,
             "flops_per_s": float(ceil[(ceil["ceiling"] == "dense matmul") & (ceil["dtype"] == "float16")]
                                  ["value"].iloc[0]) * 1e12}
    return df, rates


def targets(df: pd.DataFrame, rates: dict, gpu: str = "H200 SXM") -> pd.DataFrame:
    """One row per measured config: the model's reads and time over the measured ones."""
    hw = HARDWARE[gpu]
    rows = []
    for r in df.itertuples():
        n, d, bh = int(r.n), int(r.d), int(r.batch_heads)
        k = kernel_for(str(r.impl), d)
        w = whole_gpu(n, d, bh, k, hw)
        t = roofline_ms(forward_flops(n, d, bh), w.reads + w.writes, rates["flops_per_s"], rates["bytes_per_s"])
        rows.append({"kernel": k.name, "n": n, "d": d, "B·H": bh,
                     "K+V per head MB": w.kv_head_bytes / 2**20, "waves": w.waves,
                     "blocks per SM": k.blocks_per_sm(d, hw),
                     "measured reads MB": r.dram_read_bytes / 2**20,
                     "model reads MB": w.reads / 2**20, "two-level MB": w.two_level / 2**20,
                     "floor MB": w.compulsory / 2**20,
                     "reads: model ÷ measured": w.reads / r.dram_read_bytes,
                     "two-level ÷ measured": w.two_level / r.dram_read_bytes,
                     "measured writes MB": r.dram_write_bytes / 2**20,
                     "measured ms": r.time_ms, "roofline ms": t, "time: model ÷ measured": t / r.time_ms,
                     "passes per head": w.passes / bh})
    out = pd.DataFrame(rows)
    lo, hi = READS_OK
    out["reads in 0.8–1.25"] = out["reads: model ÷ measured"].between(lo, hi)
    out["time in 0.7–1.4"] = out["time: model ÷ measured"].between(*TIME_OK)
    return out
