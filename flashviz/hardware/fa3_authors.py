"""FlashAttention-3's design as its authors ship it, on the H200, and the schedule model against it (issue 38).

The data (bench/gpu/fa3_authors.py, flashviz/data/h200/):
  fa3_time.csv   flash-attn-4's Hopper path (flash_attn.cute: Dao-AILab's CuTe-DSL FlashAttention; on sm90
                 FlashAttention-3's design), SDPA's cuDNN and flash backends: forward and backward, fp16 and
                 bf16, causal and not, d = 64, 128, 256, at the model set and the held-apart set; each call
                 timed from an idle GPU (ms) and behind a spin kernel (ms_hidden), the SM clock over one call
                 read on the SMs (sm_mhz), every output checked against PyTorch flash's
  fa3_ncu.csv    Nsight Compute's DRAM bytes and launch shape of the three forwards at 12 calls (float16)
  fa4_masks.csv  flash-attn-4 with sliding windows, packed documents (varlen) and learnable sinks, each mask
                 checked against masked standard attention in float32 at a small shape

The model (schedule.py's kernel_time, nothing fitted): each kernel's tiles as its code picks them
(flash-attn-4's `_tile_size_fwd_sm90`: 192 x 128 at d <= 64, 128 x 128 at d = 128, 128 x 80 at d = 256;
PyTorch flash's as gpu_model.sdpa_flash reads them), FA3's schedule for the authors' kernel and FA2's for
PyTorch flash, each unit's rate per cycle and SM measured by the unit-rate kernels (schedule_rates and the
probes' counters, schedule_targets.probe_rates) times the SM clock the kernel's own call ran at (sm_mhz of
that row), DRAM bytes by lesson 11's read model at the kernel's tiles, and the host's dispatch (the median
of ms - ms_hidden over that kernel's model-set forwards) added, as the timed calls start from an idle GPU.
PyTorch flash's matmuls also wait on shared memory where it cannot deliver their operands in the tensor
cores' time: 128 bytes a clock per SM (the FlashAttention-4 paper), the bytes by FlashAttention-2's layout
(schedule.smem_operands). At d = 256 its 64 x 64 tiles of 4 warps read each K and V tile four times, 16 rows
a warp, and shared memory, not the tensor cores, sets its matmuls' time; at d = 64 and 128 (32 rows a warp)
the tensor cores still do.
flash-attn-4 launches a causal grid longest-first (flash_fwd_sm90.py's SingleTileLPTScheduler): the model deals
its causal blocks to the SMs in that order (schedule.lpt_order).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..model.config import HARDWARE
from .gpu_model import Kernel, sdpa_flash, whole_gpu
from .schedule import ScheduleTime, UnitRates, kernel_time, smem_operands
from .schedule_targets import SPEEDUP_OK, TIME_OK
from .schedule_targets import load as load_rates  # noqa: F401 (tests read the rates through here)

DATA = Path(__file__).resolve().parent.parent / "data" / "h200"
PROVENANCE = ["gpu", "driver", "cuda", "torch", "cudnn", "date", "command", "flash_attn_4", "cutlass_dsl", "quack",
              "tvm_ffi"]
TIME_COLUMNS = ["set", "impl", "pass", "dtype", "causal", "n", "d", "batch_heads", "ms", "ms_hidden", "repeats",
                "tflops", "sm_mhz", "max_abs_diff", "grad_rel_err", "status"] + PROVENANCE
NCU_COLUMNS = ["impl", "dtype", "causal", "n", "d", "batch_heads", "dram_read_bytes", "dram_write_bytes", "grid",
               "block", "regs", "smem_dyn", "status"] + PROVENANCE
MASK_COLUMNS = ["kind", "pass", "dtype", "n", "d", "heads", "causal", "window_left", "window_right", "docs", "sink",
                "pairs", "pair_fraction", "ms", "ms_hidden", "sm_mhz", "tflops_computed", "check_max_abs_diff",
                "check_grad_rel_err", "status"] + PROVENANCE
LABELS = {"fa4": "FA3 (authors)", "cudnn": "cuDNN", "flash": "PyTorch flash"}
SMEM_BYTES_PER_CLK = 128  # shared memory's bytes per clock and SM on Hopper (the FlashAttention-4 paper)
FWD_TOL, GRAD_TOL = 5e-2, 3e-2  # what the bench calls a match (max abs diff; relative error of dQ, dK, dV)


def load_time(data: Path = DATA, name: str = "fa3_time.csv") -> pd.DataFrame:
    """The timed rows (fa3_time.csv; fa3_time_rerun.csv is the same script's second run)."""
    return pd.read_csv(data / name)


def load_ncu(data: Path = DATA) -> pd.DataFrame:
    return pd.read_csv(data / "fa3_ncu.csv")


def reads(ncu: pd.DataFrame | None = None) -> pd.DataFrame:
    """Nsight Compute's DRAM reads of the three forwards at each call it read (fa3_ncu.csv), in bytes by kernel
    ("fa4", "cudnn", "flash"), with PyTorch flash's over the authors' kernel's ("flash / fa4")."""
    t = load_ncu() if ncu is None else ncu
    t = t[t["status"] == "ok"]
    p = t.pivot_table(index=["dtype", "causal", "n", "d", "batch_heads"], columns="impl",
                      values="dram_read_bytes").reset_index()
    p.columns.name = None
    p["flash / fa4"] = p["flash"] / p["fa4"]
    return p


@dataclass(frozen=True)
class ReadGap:
    calls: int          # calls Nsight Compute read
    near: int           # of them, PyTorch flash's reads within `within` of the authors' kernel's
    apart: pd.Series    # the call where the two are furthest apart (a row of `reads`), either way


def read_gap(t: pd.DataFrame | None = None, within: float = 0.2) -> ReadGap:
    """How far PyTorch flash's measured DRAM reads stand from the authors' kernel's, over `reads`' calls."""
    t = reads() if t is None else t
    ratio = t["flash / fa4"]
    return ReadGap(len(t), int(((ratio - 1).abs() <= within).sum()),
                   t.loc[ratio.map(lambda r: max(r, 1 / r)).idxmax()])


def load_masks(data: Path = DATA) -> pd.DataFrame:
    return pd.read_csv(data / "fa4_masks.csv")


def tiles(impl: str, d: int) -> tuple[int, int]:
    """(Br, Bc) of a forward: flash-attn-4's sm90 choice (interface._tile_size_fwd_sm90, FA3's tile_size.h
    adjusted), cuDNN (closed code) taken as FA3's 128 x 128 (schedule_targets), PyTorch flash's (read_kernel)."""
    if impl == "fa4":
        return (192, 128) if d <= 64 else (128, 128) if d <= 128 else (128, 80)
    if impl == "cudnn":
        return 128, 128
    k = read_kernel(impl, d)
    return k.Br, k.Bc


def read_kernel(impl: str, d: int) -> Kernel:
    """The kernel as the read model sees it: its tiles, and the threads and registers Nsight Compute read
    (fa3_ncu.csv: flash-attn-4 runs 512 threads of 128 registers at d = 64, 384 of 168 above, one block an SM)."""
    if impl == "flash":
        # at d = 256 FlashAttention-2's forward runs 64 x 64 tiles of 4 warps, one stage (Nsight Compute: a grid of
        # n / 64 blocks a head, 128 threads, 98,304 B of shared memory = (64 d + 2 x 64 d) x 2 B); gpu_model's
        # sdpa_flash reads d = 64 and 128 only
        return sdpa_flash(d) if d <= 128 else Kernel(LABELS[impl], 64, 64, 1, 4, 255)
    Br, Bc = tiles(impl, d)
    warps, regs = (16, 128) if (impl == "fa4" and d <= 64) else (12, 168)
    return Kernel(LABELS[impl], Br, Bc, 2, warps, regs)


def host_s(t: pd.DataFrame) -> dict[str, float]:
    """Seconds of host dispatch per kernel: the median of ms - ms_hidden over its model-set forwards."""
    f = t[(t["pass"] == "fwd") & (t["set"] == "model")]
    return {impl: float((g["ms"] - g["ms_hidden"]).median()) * 1e-3 for impl, g in f.groupby("impl")}


def model_time(impl: str, n: int, d: int, bh: int, causal: bool, clock_hz: float, rates: dict[str, float],
               host: float, gpu: str = "H200 SXM") -> ScheduleTime:
    """One forward's modelled time (module docstring): FA3's schedule for flash-attn-4 and cuDNN, FA2's for
    PyTorch flash; each unit's rate per cycle and SM times the call's own clock."""
    hw = HARDWARE[gpu]
    Br, Bc = tiles(impl, d)
    # one block an SM for both Hopper kernels, as Nsight Compute reads them (fa3_ncu.csv)
    reads = whole_gpu(n, d, bh, read_kernel(impl, d), hw, resident=None if impl == "flash" else hw.sms)
    dram = (reads.reads + reads.writes) * (0.5 if causal else 1.0)
    tensor = rates["per clock tensor flash"] if impl == "flash" else rates["per clock tensor"]
    per_sm = {"tensor": tensor, "exp": rates["per clock exp"], "fp32": rates["per clock fp32"]}
    unit = UnitRates(**{k: v * hw.sms * clock_hz for k, v in per_sm.items()}, dram=rates["copy bandwidth any"],
                     sms=hw.sms, smem=SMEM_BYTES_PER_CLK * hw.sms * clock_hz)
    schedule = "fa2" if impl == "flash" else "fa3"
    return kernel_time(n, d, bh, causal, Br, Bc, schedule, unit, dram, fill=True, host_s=host,
                       smem_bytes=smem_bytes(impl, d), lpt=impl == "fa4")


def smem_bytes(impl: str, d: int) -> tuple[float, float] | None:
    """The shared-memory operand bytes of one tile's QK^T and PV the model charges: PyTorch flash's
    (FlashAttention-2's mma.sync kernel, each warp reading whole K and V tiles: schedule.smem_operands).
    The wgmma kernels' are not charged: at their tiles the model's tensor time is the longer
    (tests/test_fa3_authors.py holds it), so charging them would change nothing."""
    if impl != "flash":
        return None
    k = read_kernel(impl, d)
    return smem_operands(k.Br, k.Bc, d, k.warps)


def targets(t: pd.DataFrame | None = None, data: Path = DATA) -> pd.DataFrame:
    """One row per timed forward (all three kernels, both sets): the model's time over the measured."""
    t = load_time(data) if t is None else t
    _, rates = load_rates(data)
    host = host_s(t)
    rows = []
    for r in t[(t["pass"] == "fwd") & t["status"].str.startswith("ok")].itertuples():
        n, d, bh, causal = int(r.n), int(r.d), int(r.batch_heads), bool(r.causal)
        m = model_time(str(r.impl), n, d, bh, causal, float(r.sm_mhz) * 1e6, rates, host[str(r.impl)])
        rows.append({"set": r.set, "kernel": LABELS[str(r.impl)], "dtype": r.dtype, "causal": causal, "n": n, "d": d,
                     "B·H": bh, "measured ms": r.ms, "model ms": 1e3 * m.total_s, "clock MHz": r.sm_mhz,
                     "interval µs/tile": 1e6 * m.per_tile, "host ms": 1e3 * m.host_s, "bound": m.bound,
                     "time: model ÷ measured": 1e3 * m.total_s / r.ms})
    out = pd.DataFrame(rows)
    out["in 0.8–1.25"] = out["time: model ÷ measured"].between(*TIME_OK)
    return out


def speedups(tt: pd.DataFrame, over: str = "FA3 (authors)") -> pd.DataFrame:
    """`over` against PyTorch flash at each config, measured and modelled."""
    key = ["set", "dtype", "causal", "n", "d", "B·H"]
    a = tt[tt["kernel"] == "PyTorch flash"].set_index(key)
    b = tt[tt["kernel"] == over].set_index(key)
    s = pd.DataFrame({"measured": a["measured ms"] / b["measured ms"], "model": a["model ms"] / b["model ms"]}).dropna()
    s["measured ÷ model"] = s["measured"] / s["model"]
    s["within 15%"] = (s["measured ÷ model"] - 1).abs() <= SPEEDUP_OK
    return s.reset_index()


def summary(tt: pd.DataFrame) -> pd.DataFrame:
    """Per set and kernel: configs, how many in 0.8-1.25, and the ratio's range and median."""
    g = tt.groupby(["set", "kernel"])["time: model ÷ measured"]
    return pd.DataFrame({"configs": g.size(), "in target": tt.groupby(["set", "kernel"])["in 0.8–1.25"].sum(),
                         "min": g.min().round(2), "median": g.median().round(2), "max": g.max().round(2)})


def speedup_summary(tt: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for over in ("FA3 (authors)", "cuDNN"):
        s = speedups(tt, over)
        for set_, g in s.groupby("set"):
            rows.append({"set": set_, "kernel": over, "configs": len(g), "within 15%": int(g["within 15%"].sum()),
                         "measured ÷ model min": round(g["measured ÷ model"].min(), 2),
                         "median": round(g["measured ÷ model"].median(), 2),
                         "max": round(g["measured ÷ model"].max(), 2)})
    return pd.DataFrame(rows)


def measured_speed(t: pd.DataFrame | None = None, data: Path = DATA) -> pd.DataFrame:
    """Forward and backward TFLOP/s of the three kernels side by side, one row per config and pass."""
    t = load_time(data) if t is None else t
    key = ["set", "pass", "dtype", "causal", "n", "d", "batch_heads"]
    wide = t.pivot_table(index=key, columns="impl", values="tflops").reset_index()
    wide["FA3 ÷ flash"] = wide["fa4"] / wide["flash"]
    wide["FA3 ÷ cuDNN"] = wide["fa4"] / wide["cudnn"]
    return wide


def backward_table(t: pd.DataFrame | None = None, d: int = 128, dtype: str = "float16",
                   data: Path = DATA) -> pd.DataFrame:
    """Each kernel's measured forward and backward at one head dimension and data type (the model set): the
    backward's time over the forward's, and its rate (the backward counted as 2.5 forwards' flops: five
    matmuls against two)."""
    t = load_time(data) if t is None else t
    t = t[(t["set"] == "model") & (t["d"] == d) & (t["dtype"] == dtype)]
    key = ["impl", "causal", "n", "batch_heads"]
    f = t[t["pass"] == "fwd"].set_index(key)
    b = t[t["pass"] == "bwd"].set_index(key)
    out = pd.DataFrame({"forward ms": f["ms"], "backward ms": b["ms"], "backward TFLOP/s": b["tflops"]}).dropna()
    out["backward ÷ forward"] = out["backward ms"] / out["forward ms"]
    out = out.reset_index().rename(columns={"batch_heads": "B·H"})
    out.insert(0, "kernel", out.pop("impl").map(LABELS))
    out["causal"] = out["causal"].astype(bool)
    order = {label: i for i, label in enumerate(LABELS.values())}
    return out.sort_values(["kernel", "causal", "n"], key=lambda c: c.map(order) if c.name == "kernel" else c,
                           ignore_index=True)


SETS = ("model", "held-apart")  # the authors' run's two sets: the calls the model was built on, and those held apart


@dataclass(frozen=True)
class EveryCall:
    """What targets() and speedups() give over the authors' whole run, as lesson 13 states it."""

    calls: int                                # calls a kernel
    d_range: tuple[int, int]                  # the head dims measured, least and most
    fa3_within: tuple[tuple[int, int], ...]   # per set of SETS: FA3's calls within TIME_OK, of how many
    speedup_within: tuple[tuple[int, int], ...]  # per set: its speed-up within SPEEDUP_OK of measured, of how many
    flash_within: int                         # PyTorch flash's calls within TIME_OK
    cudnn_within: int                         # cuDNN's
    cudnn_fast: tuple[int, float, int, int]   # cuDNN's calls under TIME_OK's low end: how many, the least ratio,
                                              # how many causal, how many with n <= 2,048


def every_call(tt: pd.DataFrame, sp: pd.DataFrame) -> EveryCall:
    """EveryCall of targets() `tt` and speedups() `sp`."""
    fa3, flash, cudnn = (tt[tt["kernel"] == LABELS[k]] for k in ("fa4", "flash", "cudnn"))
    fast = cudnn[cudnn["time: model ÷ measured"] < TIME_OK[0]]
    dims = sorted(int(d) for d in set(tt["d"]))
    return EveryCall(
        calls=len(fa3), d_range=(dims[0], dims[-1]),
        fa3_within=tuple((int(g["in 0.8–1.25"].sum()), len(g)) for g in (fa3[fa3["set"] == k] for k in SETS)),
        speedup_within=tuple((int(g["within 15%"].sum()), len(g)) for g in (sp[sp["set"] == k] for k in SETS)),
        flash_within=int(flash["in 0.8–1.25"].sum()), cudnn_within=int(cudnn["in 0.8–1.25"].sum()),
        cudnn_fast=(len(fast), float(fast["time: model ÷ measured"].min()) if len(fast) else 1.0,
                    int(fast["causal"].sum()), int((fast["n"] <= 2048).sum())))
