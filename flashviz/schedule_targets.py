"""The schedule model against the H200 (data/h200/schedule.csv, schedule_rates.csv; bench/gpu/schedule.py).

Each kernel: its tiles, its schedule and the tensor-core rate of the instruction it uses, all
measured in the same run, nothing fitted per config:

  PyTorch flash   FlashAttention-2's code: 128 x 128 tiles up to d = 64, 128 x 64 above (gpu_model.sdpa_flash),
                  schedule fa2, Ampere's mma.sync (the on-chip Triton kernel built with DISABLE_MMA_V3=1)
  cuDNN           the Hopper-native kernel: 3 warp groups of 128 threads, 132 persistent blocks (Nsight
                  Compute), taken as FlashAttention-3's 128 x 128 tiles, schedule fa3, wgmma (the same
                  on-chip kernel as Hopper's own instruction)
  Triton 128 x 64 bench/gpu/triton_blocks.py: schedule fa2 (one group of warps), wgmma

DRAM bytes: lesson 11's read model (gpu_model.whole_gpu) for the non-causal call, half of it causal.

Rates at the kernel's occupancy (issue 21, part 2; bench/gpu/occupancy_rates.py, schedule_occupancy_rates.csv):
the full-SM rates of schedule_rates.csv are measured with many warps per SM. cuDNN's kernel runs one block of
three warp groups per SM (Nsight Compute: grid 132, 384 threads): its two consumer groups, 8 warps, share
the tensor cores, and under ping-pong one group of 4 warps runs the softmax at a time, each thread on
64 of its 64 x 128 scores. `occupancy=True` divides cuDNN's work by the rates measured at that
occupancy (wgmma at one block of 8 warps per SM; exp and FP32 at one block of 4 warps, 64 independent
chains a thread): measured unit rates, not fitted per config (ASSUMPTIONS["schedule model"]).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .config import HARDWARE
from .gpu_model import sdpa_flash, triton, whole_gpu
from .schedule import UnitRates, kernel_time, rates_from

DATA = Path(__file__).resolve().parent.parent / "data" / "h200"
TIME_OK = (0.8, 1.25)
SPEEDUP_OK = 0.15
# impl -> (label, Br, Bc at d = 64, Bc above, schedule, tensor rate's key in schedule_rates.csv)
KERNELS = {"flash": ("PyTorch flash", 128, 128, 64, "fa2", "tensor cores mma.sync float16"),
           "cudnn": ("cuDNN", 128, 128, 128, "fa3", "tensor cores wgmma float16"),
           "triton_128x64": ("Triton 128×64", 128, 64, 64, "fa2", "tensor cores wgmma float16")}


# impl -> {rate: (unit, blocks per SM, warps per block, independent chains per thread)} at the kernel's occupancy
AT_OCCUPANCY = {"cudnn": {"tensor": ("wgmma", 1, 8, 0), "exp": ("exp", 1, 4, 64), "fp32": ("fp32", 1, 4, 64)}}


def load(data: Path = DATA, name: str = "schedule.csv") -> tuple[pd.DataFrame, dict[str, float]]:
    """The timed rows of one set (schedule.csv, or schedule_heldout.csv) and the same run's rates,
    with the rates at one and two warp groups per SM (schedule_occupancy_rates.csv) as
    "<unit> <blocks>x<warps> ilp<chains>"."""
    df = pd.read_csv(data / name)
    rates = rates_from(pd.read_csv(data / "schedule_rates.csv"))
    occ = pd.read_csv(data / "schedule_occupancy_rates.csv")
    for r in occ.itertuples():
        key = occupancy_key(str(r.unit), int(r.blocks_per_sm), int(r.warps_per_block), int(r.ilp))
        rates[key] = float(r.value) * 1e12
    return df[df["time_ms"].notna() & df["impl"].isin(KERNELS)].copy(), rates


def occupancy_key(unit: str, blocks: int, warps: int, ilp: int) -> str:
    return f"{unit} {blocks}x{warps} ilp{ilp}"


def rates_for(impl: str, rates: dict[str, float], sms: int = 132, occupancy: bool = False) -> UnitRates:
    """The rates impl's work is divided by: the full-SM ones, or (occupancy=True, where AT_OCCUPANCY
    names the kernel) those measured at the kernel's own warps per SM."""
    got = {"tensor": rates[KERNELS[impl][5]], "exp": rates["exp unit (ex2.approx) float32"],
           "fp32": rates["FP32 FFMA instructions float32"]}
    if occupancy:
        got.update({k: rates[occupancy_key(*v)] for k, v in AT_OCCUPANCY.get(impl, {}).items()})
    return UnitRates(**got, dram=rates["copy bandwidth any"], sms=sms)


def targets(df: pd.DataFrame, rates: dict[str, float], gpu: str = "H200 SXM", occupancy: bool = True) -> pd.DataFrame:
    """One row per timed kernel config: the schedule model's time over the measured time
    (occupancy=False: every kernel at the full-SM rates, as before issue 21's part 2)."""
    hw = HARDWARE[gpu]
    rows = []
    for r in df.itertuples():
        n, d, bh, causal = int(r.n), int(r.d), int(r.batch_heads), bool(r.causal)
        label, Br, bc64, bc, schedule, _ = KERNELS[str(r.impl)]
        Bc = bc64 if d <= 64 else bc
        reads = whole_gpu(n, d, bh, triton(128, 64, d) if r.impl == "triton_128x64" else sdpa_flash(d), hw)
        dram = (reads.reads + reads.writes) * (0.5 if causal else 1.0)
        t = kernel_time(n, d, bh, causal, Br, Bc, schedule, rates_for(str(r.impl), rates, hw.sms, occupancy), dram)
        rows.append({"kernel": label, "dtype": r.dtype, "causal": causal, "n": n, "d": d, "B·H": bh,
                     "schedule": schedule, "measured ms": r.time_ms, "model ms": 1e3 * t.total_s,
                     "matmul µs/tile": 1e6 * t.work.matmul, "softmax µs/tile": 1e6 * t.work.softmax,
                     "interval µs/tile": 1e6 * t.per_tile, "tiles on busiest SM": t.tiles_busiest,
                     "time: model ÷ measured": 1e3 * t.total_s / r.time_ms})
    out = pd.DataFrame(rows)
    out["in 0.8–1.25"] = out["time: model ÷ measured"].between(*TIME_OK)
    return out


def speedups(t: pd.DataFrame) -> pd.DataFrame:
    """cuDNN over PyTorch flash at each config, measured and modelled."""
    key = ["dtype", "causal", "n", "d", "B·H"]
    a = t[t["kernel"] == "PyTorch flash"].set_index(key)
    b = t[t["kernel"] == "cuDNN"].set_index(key)
    s = pd.DataFrame({"measured": a["measured ms"] / b["measured ms"], "model": a["model ms"] / b["model ms"]}).dropna()
    s["measured ÷ model"] = s["measured"] / s["model"]
    s["within 15%"] = (s["measured ÷ model"] - 1).abs() <= SPEEDUP_OK
    return s.reset_index()


def summary(t: pd.DataFrame) -> pd.DataFrame:
    g = t.groupby("kernel")["time: model ÷ measured"]
    return pd.DataFrame({"configs": g.size(), "in target": t.groupby("kernel")["in 0.8–1.25"].sum(),
                         "min": g.min().round(2), "median": g.median().round(2), "max": g.max().round(2)})
