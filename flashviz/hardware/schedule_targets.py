"""The schedule model against the H200 (flashviz/data/h200/schedule.csv, schedule_rates.csv; bench/gpu/schedule.py).

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

Rates per clock at the kernel's clock (issue 21, part 2 continued; bench/gpu/cudnn_probe.py, probe_*.csv):
the SMs' own counters read cuDNN's clock over a call in the timing loop, 1.48 GHz at d = 128 and 1.72 GHz
at d = 64 (1.60 and 1.79 under Nsight Compute's replay, with the same cycles) against 1.98 GHz for the
exp and FP32 kernels (the 700 W power cap), and the occupancy rates
above came from kernels of about 0.1 ms, short enough for launch and fill to lower them (an 8 times
longer chain: wgmma 821 TFLOP/s at one block of 8 warps, 939 at one warp group, not 644). `clock=True`
(the default) divides cuDNN's work by each unit's rate per clock and SM (the long unit-rate kernels'
rate over their clock under Nsight Compute: tensor pipe 99.8% busy, exp unit 99.2%, FMA pipe 98.8%)
times cuDNN's clock in the loop at that d; times each work unit with the pipeline's fill and drain
(schedule.unit_time, for every kernel); and adds the host's dispatch of a call through PyTorch's
scaled_dot_product_attention, measured apart (probe_startup.csv: the median over both backends' start-up
calls), to cuDNN and PyTorch flash, whose calls are timed from an idle GPU. Nothing is fitted to schedule.csv.

PyTorch flash the same way (issue 21, part 2 continued; bench/gpu/flash_probe.py, flash_*.csv): Nsight Compute
shows its kernel at 2 blocks of 4 warps an SM (255 registers a thread; the occupancy limit by registers and by
shared memory is 2), and mma.sync (m16n8k16, fp16 in, fp32 accumulate) at that occupancy runs 2,731 flops a
cycle and SM (mma_sync_rate.cu: 4 to 16 independent accumulators a warp, 14 ms launches; the hmma pipe 99.98%
busy under Nsight Compute), two thirds of wgmma's 4,096. Its clock in the timing loop: 1.72 GHz at d = 128 and
1.80 at d = 64 (its largest non-causal probe calls). Flash's tensor work is divided by that rate per cycle, its
exp and FP32 work by the same per-cycle rates as cuDNN's, all times flash's clock at that d.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..model.config import HARDWARE
from .gpu_model import sdpa_flash, triton, whole_gpu
from .schedule import ScheduleTime, UnitRates, kernel_time, rates_from

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
    "<unit> <blocks>x<warps> ilp<chains>", and the probe's per-clock rates, clocks and host dispatch
    (probe_rates)."""
    df = pd.read_csv(data / name)
    rates = rates_from(pd.read_csv(data / "schedule_rates.csv"))
    occ = pd.read_csv(data / "schedule_occupancy_rates.csv")
    for r in occ.itertuples():
        key = occupancy_key(str(r.unit), int(r.blocks_per_sm), int(r.warps_per_block), int(r.ilp))
        rates[key] = float(r.value) * 1e12
    if (data / "probe_ncu.csv").exists():
        rates.update(probe_rates(data))
    return df[df["time_ms"].notna() & df["impl"].isin(KERNELS)].copy(), rates


SDPA = ("cudnn", "flash")  # called through PyTorch's scaled_dot_product_attention: the same host dispatch
PER_CLOCK = {"tensor": ("wgmma", 4, 8, 0), "exp": ("exp", 31, 4, 8), "fp32": ("fp32", 31, 4, 8)}
# impl -> the probe's config (n, d, B*H) per head dimension whose Nsight Compute clock is the kernel's clock
CLOCK_AT = {"cudnn": {64: (131072, 64, 1), 128: (262144, 128, 1)},
            "flash": {64: (131072, 64, 1), 128: (262144, 128, 1)}}
# impl -> (Nsight Compute summary, the clock in the loop) of the probe that measured it
CLOCK_FILES = {"cudnn": ("probe_ncu.csv", "probe_loop_clock.csv"), "flash": ("flash_ncu.csv", "flash_loop_clock.csv")}
# impl -> its tensor instruction's rate per cycle at its own occupancy (blocks an SM, warps a block; flash_mma_rate.csv)
TENSOR_AT = {"flash": (2, 4)}


def _num(x) -> float:
    return float(str(x).replace(",", ""))


def probe_rates(data: Path = DATA, sms: int = 132) -> dict[str, float]:
    """From bench/gpu/cudnn_probe.py's run and flash_probe.py's: "per clock <unit>" (operations per cycle
    and SM: the long unit-rate kernel's rate by CUDA events over its SM clock under Nsight Compute), "per
    clock tensor <impl>" (flops per cycle and SM of the kernel's tensor instruction at its own occupancy,
    TENSOR_AT: mma.sync's, flash_mma_rate.csv), "clock <impl> d<d>"
    (Hz, at the kernel's largest non-causal probe config: the clock the SMs' own counters read over the
    call in the timing loop, CLOCK_FILES' loop file, else sm__cycles_elapsed.avg.per_second under Nsight
    Compute; both kept, as "... ncu" and "... loop") and
    "host <impl>" and "host sdpa" (seconds: the median over the start-up calls, one backend's or both, of
    the call timed from an idle GPU less the same call queued behind a spin kernel)."""
    ncu = pd.read_csv(data / "probe_ncu.csv").set_index("label")
    clocks = pd.read_csv(data / "probe_clocks.csv")
    out: dict[str, float] = {}
    for name, (unit, b, w, ilp) in PER_CLOCK.items():
        row = clocks[(clocks["unit"] == unit) & (clocks["blocks_per_sm"] == b) & (clocks["warps_per_block"] == w)
                     & (clocks["ilp"] == ilp)].iloc[0]
        out[f"per clock {name}"] = float(row["rate"]) * 1e12 / (sms * _num(ncu.loc[f"micro:{unit}:{b}:{w}:{ilp}",
                                                                                    "clock_mhz"]) * 1e6)
    for impl, at in CLOCK_AT.items():
        ncu_name, loop_name = CLOCK_FILES[impl]
        if not (data / ncu_name).exists():
            continue
        ncu = pd.read_csv(data / ncu_name).set_index("label")
        loop = pd.read_csv(data / loop_name) if (data / loop_name).exists() else None
        for d, (n, dd, bh) in at.items():
            out[f"clock {impl} d{d} ncu"] = _num(ncu.loc[f"attn:{impl}:{n}:{dd}:{bh}:0", "clock_mhz"]) * 1e6
            if loop is not None:
                row = loop[(loop["impl"] == impl) & (loop["n"] == n) & (loop["d"] == dd) & (loop["batch_heads"] == bh)
                           & (loop["causal"] == 0)]
                out[f"clock {impl} d{d} loop"] = float(row["mhz_median"].iloc[0]) * 1e6
            out[f"clock {impl} d{d}"] = out.get(f"clock {impl} d{d} loop", out[f"clock {impl} d{d} ncu"])
    if (data / "flash_mma_rate.csv").exists():
        mma = pd.read_csv(data / "flash_mma_rate.csv")
        mma = mma[mma["status"] == "ok"]
        for impl, (b, w) in TENSOR_AT.items():  # the pipe's peak at that occupancy: the most over the chains
            at = mma[(mma["blocks_per_sm"] == b) & (mma["warps_per_block"] == w)]
            out[f"per clock tensor {impl}"] = float(at["flops_per_cycle_sm_median"].max())
    start = pd.read_csv(data / "probe_startup.csv")
    start = start[start["status"] == "ok"]
    for impl, g in start.groupby("impl"):
        out[f"host {impl}"] = float((g["ms_plain"] - g["ms_hidden"]).median()) * 1e-3
    out["host sdpa"] = float((start["ms_plain"] - start["ms_hidden"]).median()) * 1e-3  # both backends' calls
    return out


def occupancy_key(unit: str, blocks: int, warps: int, ilp: int) -> str:
    return f"{unit} {blocks}x{warps} ilp{ilp}"


def rates_for(impl: str, rates: dict[str, float], sms: int = 132, occupancy: bool = False,
              d: int | None = None) -> UnitRates:
    """The rates impl's work is divided by: the full-SM ones, or (occupancy=True, where AT_OCCUPANCY
    names the kernel) those measured at the kernel's own warps per SM, or (d given, where the probe
    measured the kernel's clock at that d) each unit's rate per clock times the kernel's clock."""
    got = {"tensor": rates[KERNELS[impl][5]], "exp": rates["exp unit (ex2.approx) float32"],
           "fp32": rates["FP32 FFMA instructions float32"]}
    clock = rates.get(f"clock {impl} d{d}")
    if clock is not None:
        got = {k: rates.get(f"per clock {k} {impl}", rates[f"per clock {k}"]) * sms * clock for k in got}
    elif occupancy:
        got.update({k: rates[occupancy_key(*v)] for k, v in AT_OCCUPANCY.get(impl, {}).items()})
    return UnitRates(**got, dram=rates["copy bandwidth any"], sms=sms)


def model_time(impl: str, n: int, d: int, bh: int, causal: bool, rates: dict[str, float], gpu: str = "H200 SXM",
               occupancy: bool = True, clock: bool = True) -> ScheduleTime:
    """One kernel's modelled time at one call, as targets() takes it (its options mean the same)."""
    clock = clock and occupancy and any(k.startswith("clock ") for k in rates)
    hw = HARDWARE[gpu]
    _, Br, bc64, bc, schedule, _ = KERNELS[impl]
    Bc = bc64 if d <= 64 else bc
    reads = whole_gpu(n, d, bh, triton(128, 64, d) if impl == "triton_128x64" else sdpa_flash(d), hw)
    dram = (reads.reads + reads.writes) * (0.5 if causal else 1.0)
    unit = rates_for(impl, rates, hw.sms, occupancy, d if clock else None)
    host = rates.get("host sdpa", 0.0) if clock and impl in SDPA else 0.0
    return kernel_time(n, d, bh, causal, Br, Bc, schedule, unit, dram, fill=clock, host_s=host)


def targets(df: pd.DataFrame, rates: dict[str, float], gpu: str = "H200 SXM", occupancy: bool = True,
            clock: bool = True) -> pd.DataFrame:
    """One row per timed kernel config: the schedule model's time over the measured time
    (occupancy=False: every kernel at the full-SM rates, as before issue 21's part 2; clock=False:
    cuDNN at the rates of schedule_occupancy_rates.csv, as in part 2's first step; by default cuDNN at
    the rates per clock times its clock, the host's dispatch added to both SDPA backends, every kernel's
    units with their fill and drain: module docstring)."""
    rows = []
    for r in df.itertuples():
        n, d, bh, causal = int(r.n), int(r.d), int(r.batch_heads), bool(r.causal)
        label, _, _, _, schedule, _ = KERNELS[str(r.impl)]
        t = model_time(str(r.impl), n, d, bh, causal, rates, gpu, occupancy, clock)
        rows.append({"kernel": label, "dtype": r.dtype, "causal": causal, "n": n, "d": d, "B·H": bh,
                     "schedule": schedule, "measured ms": r.time_ms, "model ms": 1e3 * t.total_s,
                     "matmul µs/tile": 1e6 * t.work.matmul, "softmax µs/tile": 1e6 * t.work.softmax,
                     "interval µs/tile": 1e6 * t.per_tile, "tiles on busiest SM": t.tiles_busiest,
                     "fill and drain ms": 1e3 * t.fill_s, "host ms": 1e3 * t.host_s,
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
