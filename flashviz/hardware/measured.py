"""Real-GPU measurements (bench/gpu/measure.py) beside the engine's predictions.

The model: bytes from the closed forms at the real kernels' tile sizes, time from
a roofline with the ceilings measured in the same run (copy bandwidth, dense
matmul rate). Everything here reads the committed CSVs; no GPU is needed.

"plain" is the FlashAttention paper's standard attention, three kernels (S = QK^T
with the scale in the matmul, softmax, PV); "naive_script" is what a script that
writes `(q @ k^T) * scale` runs, one more kernel that scales S. The model is set
beside plain attention; the naive script is set beside plain attention, measured
against measured (naive_vs_plain).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from ..model import costs
from ..model.config import Config

DATA = Path(__file__).resolve().parents[1] / "data" / "h200"
PROVENANCE = ["gpu", "driver", "cuda", "torch", "date"]
RUN_PROVENANCE = PROVENANCE + ["cudnn", "command"]  # measure.py's rows since 2026-12-01
ATTENTION_COLUMNS = ["impl", "pass", "n", "d", "dtype", "batch_heads", "time_ms", "time_ms_p10",
                     "time_ms_p90", "tflops", "status"] + RUN_PROVENANCE
DRAM_COLUMNS = ["impl", "pass", "n", "d", "dtype", "batch_heads", "dram_read_bytes", "dram_write_bytes",
                "l2_bytes", "kernels", "kernel_names", "status"] + RUN_PROVENANCE
CEILING_COLUMNS = ["ceiling", "dtype", "value", "unit"] + RUN_PROVENANCE
NAIVE = "naive_script"  # the four-kernel version: measured, compared with plain, never modelled

# Tile sizes the model assumes for the fused kernels, per head dim: FlashAttention-2's
# forward launch code (which PyTorch ships) uses 128 x 128 at d = 64 and 128 x 64 at
# d = 128; the memory-efficient (xFormers/CUTLASS) kernel 64 x 64.
TILES = {("flash", 64): (128, 128), ("flash", 128): (128, 64),
         # PyTorch's cutlass forward picks its first kernel whose kMaxK covers d: 64 x 64 up to d = 64,
         # 64 x 128 above (aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernels/cutlassF.h)
         ("mem_efficient", 64): (64, 64), ("mem_efficient", 128): (64, 128)}
SMEM_BYTES = 227 * 1024  # what one H100/H200 thread block may use


BLOCK_COLUMNS = ["block_m", "block_n", "n", "d", "dtype", "batch_heads", "time_ms", "tflops", "max_abs_diff",
                 "dram_read_bytes", "dram_write_bytes", "l2_bytes", "status"] + PROVENANCE


def load(folder: Path = DATA) -> dict[str, pd.DataFrame]:
    return {"attention": pd.read_csv(folder / "attention.csv"),
            "dram": pd.read_csv(folder / "dram.csv"),
            "ceilings": pd.read_csv(folder / "ceilings.csv"),
            "blocks": pd.read_csv(folder / "triton_blocks.csv")}


def provenance(data: dict) -> dict:
    row = data["attention"].iloc[0]
    return {k: str(row[k]) for k in RUN_PROVENANCE}


def ceiling(data: dict, name: str, dtype: str = "any") -> float:
    c = data["ceilings"]
    rows = c[(c["ceiling"] == name) & (c["dtype"] == dtype)]
    return float(rows["value"].iloc[0])


# The three benchmark runs that each timed cuBLAS's float16 matmul (8192³, random data) beside their own
# kernels, and the lesson that divides by that run's figure: (file, command, lesson).
CUBLAS_RUNS = (("ceilings.csv", "bench/gpu/measure.py", "lesson 10"),
               ("whole_gpu_ceilings.csv", "bench/gpu/whole_gpu.py", "lesson 11"),
               ("schedule_rates.csv", "bench/gpu/schedule.py", "lesson 13"))


def cublas_fp16_runs(folder: Path = DATA) -> list[tuple[str, str, float]]:
    """The H200's cuBLAS float16 rate (TFLOP/s) as each run measured it: (command, lesson, rate).
    They differ by a few percent from run to run (the clock under the power cap); each lesson uses its
    own run's, the one its kernels were timed in."""
    out = []
    for file, command, lesson in CUBLAS_RUNS:
        t = pd.read_csv(folder / file)
        name = t["rate"] if "rate" in t else t["ceiling"]
        dtype = t["dtype"] if "dtype" in t else name.str.extract(r"dense matmul (\w+)")[0]
        rows = t[name.str.startswith("dense matmul") & (dtype == "float16")]
        if len(rows) != 1:
            raise ValueError(f"{file}: expected one float16 dense matmul row, found {len(rows)}")
        out.append((command, lesson, float(rows["value"].iloc[0])))
    return out


def model_config(impl: str, n: int, d: int, dtype: str) -> Config:
    Br, Bc = TILES.get((impl, d), (64, 64)) if impl != "plain" else (64, 64)
    return Config.clamped(n, Br, Bc, d=d, dtype=dtype, sram_bytes=SMEM_BYTES)


def model(impl: str, pass_: str, n: int, d: int, dtype: str, batch_heads: int) -> dict:
    """Predicted bytes and flops of one call (all heads) from the closed forms."""
    cfg = model_config(impl, n, d, dtype)
    if impl == "plain":
        parts = [costs.standard_cost(cfg)] + ([costs.standard_backward_cost(cfg)] if pass_ != "fwd" else [])
    else:
        parts = [costs.flash_cost(cfg)] + ([costs.flash_backward_cost(cfg)] if pass_ != "fwd" else [])
    return {"model_bytes": batch_heads * sum(p.hbm_bytes for p in parts),
            "model_flops": batch_heads * sum(p.flops for p in parts)}


def compare(data: dict) -> pd.DataFrame:
    """Every measured config beside its model: bytes, roofline time, ratios (the naive script
    aside: naive_vs_plain sets it beside plain attention)."""
    a = data["attention"]
    a = a[(a["status"] == "ok") & (a["impl"] != NAIVE)].copy()
    bw = ceiling(data, "copy bandwidth (read + write)") * 1e12
    peaks = {dtype: ceiling(data, "dense matmul", dtype) * 1e12 for dtype in set(a["dtype"])}  # once a type
    rows = []
    for r in a.rename(columns={"pass": "pass_"}).itertuples(index=False):
        m = model(r.impl, r.pass_, r.n, r.d, r.dtype, r.batch_heads)
        peak = peaks[r.dtype]
        t_model = max(m["model_bytes"] / bw, m["model_flops"] / peak)
        rows.append({"impl": r.impl, "pass": r.pass_, "n": r.n, "d": r.d, "dtype": r.dtype,
                     "batch heads": r.batch_heads, "measured ms": r.time_ms, "roofline ms": t_model * 1e3,
                     "measured / roofline": r.time_ms / (t_model * 1e3), "model MB": m["model_bytes"] / 2**20,
                     "bound": "memory" if m["model_bytes"] / bw > m["model_flops"] / peak else "compute"})
    out = pd.DataFrame(rows)
    d = data["dram"]
    d = d[(d["status"] == "ok") & (d["impl"] != NAIVE)].assign(**{"measured DRAM MB": lambda x: (x["dram_read_bytes"]
                                                                         + x["dram_write_bytes"]) / 2**20,
                                         "L2 MB": lambda x: x["l2_bytes"] / 2**20})
    out = out.merge(d[["impl", "pass", "n", "d", "dtype", "measured DRAM MB", "L2 MB", "kernels"]],
                    on=["impl", "pass", "n", "d", "dtype"], how="left")
    out["DRAM / model"] = out["measured DRAM MB"] / out["model MB"]
    return out


def speedups(table: pd.DataFrame) -> pd.DataFrame:
    """plain / fused time, measured and as the roofline predicts it."""
    key = ["pass", "n", "d", "dtype"]
    plain = table[table["impl"] == "plain"].set_index(key)
    rows = []
    for impl in ("flash", "mem_efficient"):
        fused = table[table["impl"] == impl].set_index(key)
        both = plain.merge(fused, left_index=True, right_index=True, suffixes=("_plain", "_fused"))
        for idx, r in both.iterrows():
            rows.append(dict(zip(key, idx), impl=impl,
                             **{"measured speed-up": r["measured ms_plain"] / r["measured ms_fused"],
                                "predicted speed-up": r["roofline ms_plain"] / r["roofline ms_fused"]}))
    return pd.DataFrame(rows)


def naive_vs_plain(data: dict) -> pd.DataFrame:
    """The naive script's four kernels over plain attention's three, config by config: time
    (every dtype and pass) and, where Nsight Compute read them, DRAM bytes (float16 forward)."""
    key = ["pass", "n", "d", "dtype"]

    def by_impl(df: pd.DataFrame, impl: str, column: pd.Series) -> pd.Series:
        ok = (df["status"] == "ok") & (df["impl"] == impl)
        return column[ok].set_axis(pd.MultiIndex.from_frame(df.loc[ok, key]))

    a, d = data["attention"], data["dram"]
    dram = d["dram_read_bytes"] + d["dram_write_bytes"]
    out = pd.DataFrame({"plain ms": by_impl(a, "plain", a["time_ms"]), "naive ms": by_impl(a, NAIVE, a["time_ms"]),
                        "plain DRAM MB": by_impl(d, "plain", dram) / 2**20,
                        "naive DRAM MB": by_impl(d, NAIVE, dram) / 2**20}).dropna(subset=["plain ms", "naive ms"])
    out["time: naive ÷ plain"] = out["naive ms"] / out["plain ms"]
    out["DRAM: naive ÷ plain"] = out["naive DRAM MB"] / out["plain DRAM MB"]
    return out.reset_index()


def roofline_points(table: pd.DataFrame) -> pd.DataFrame:
    """Configs with DRAM counts, as points: model flops over measured bytes, and rate."""
    t = table[table["measured DRAM MB"].notna()].copy()
    flops = t.apply(lambda r: model(r["impl"], r["pass"], r["n"], r["d"], r["dtype"], r["batch heads"])
                    ["model_flops"], axis=1)
    t["flops per DRAM byte"] = flops / (t["measured DRAM MB"] * 2**20)
    t["achieved TFLOP/s"] = flops / (t["measured ms"] * 1e-3) / 1e12
    return t[["impl", "n", "d", "dtype", "flops per DRAM byte", "achieved TFLOP/s"]]


def blocks(data: dict) -> pd.DataFrame:
    """The Triton kernel across tile shapes: measured time and DRAM bytes beside the
    model's bytes at the same Br x Bc (and whether that tile fits 227 KB of SRAM)."""
    b = data["blocks"]
    b = b[b["status"] == "ok"]
    rows = []
    for r in b.itertuples(index=False):
        cfg = Config(n=int(r.n), d=int(r.d), Br=int(r.block_m), Bc=int(r.block_n), dtype=r.dtype,
                     sram_bytes=SMEM_BYTES)
        cost = costs.flash_cost(cfg)
        rows.append({"n": r.n, "Br x Bc": f"{r.block_m} x {r.block_n}", "Br": r.block_m, "Bc": r.block_n,
                     "measured ms": r.time_ms, "TFLOP/s": r.tflops,
                     "measured DRAM MB": (r.dram_read_bytes + r.dram_write_bytes) / 2**20,
                     "DRAM read MB": r.dram_read_bytes / 2**20, "DRAM write MB": r.dram_write_bytes / 2**20,
                     # Q, K and V read once, and O written once: what the L2 leaves for DRAM at best
                     "QKV MB": 3 * r.batch_heads * r.n * r.d * cost.element_bytes / 2**20,
                     "O MB": r.batch_heads * r.n * r.d * cost.element_bytes / 2**20,
                     "model MB": cost.moved * r.batch_heads * cost.element_bytes / 2**20,
                     "model working set KB": cost.working_set_bytes / 1024,
                     "max abs diff": r.max_abs_diff})
    return pd.DataFrame(rows)


COPY = "copy bandwidth (read + write)"
MATMUL = "dense matmul"


T = TypeVar("T")


def _kept(method: Callable[..., T]) -> Callable[..., T]:
    """A View's method, computed once per arguments: a View is read, never changed (explorer/cache.py shares one
    between reruns, and its sentences ask the same ratios every rerun)."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def kept(self: View, *args: Any, **kwargs: Any) -> T:
        called = signature.bind(self, *args, **kwargs)
        called.apply_defaults()  # wins("flash") and wins("flash", "measured speed-up") are one answer
        key = (method.__name__, *called.args[1:])
        if key not in self._memo:
            self._memo[key] = method(*called.args)
        return self._memo[key]
    return kept


@dataclass(frozen=True)
class View:
    """Lesson 10's reading of the H200's runs for one head dim, data type and pass: the rows it
    shows and every ratio its sentences state, computed here so the page only words them. Read, never
    changed: its methods keep what they return (the frames too, which callers leave as they are)."""

    d: int                     # head dim
    table: pd.DataFrame        # compare() rows of this d, dtype and pass
    speedups: pd.DataFrame     # speedups() rows of this d, dtype and pass, both fused kernels
    dram: pd.DataFrame         # float16 forward rows with Nsight Compute bytes, every d
    points: pd.DataFrame       # roofline_points() of this d (float16 forward)
    copy_tbs: float            # measured copy bandwidth, TB/s
    matmul_tflops: float       # measured dense matmul rate at this dtype, TFLOP/s
    float16_tflops: float      # measured dense matmul rate in float16, TFLOP/s
    ridge: float               # flops per byte where the float16 matmul roof meets the copy roof
    naive: pd.DataFrame        # naive_vs_plain() rows of this d, dtype and pass
    naive_dram: pd.Series      # the naive script's DRAM bytes over plain's, float16 forward, every d
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @_kept
    def kernel(self, impl: str) -> pd.DataFrame:
        return self.speedups[self.speedups["impl"] == impl]

    @_kept
    def wins(self, impl: str, column: str = "measured speed-up") -> int:
        """Sizes at which the kernel beats plain attention (measured, or as the roofline predicts)."""
        return int((self.kernel(impl)[column] > 1).sum())

    @_kept
    def dram_over_model(self, impl: str) -> pd.Series:
        """Nsight Compute's DRAM bytes over the model's bytes, float16 forward, every d."""
        return self.dram[self.dram["impl"] == impl]["DRAM / model"]

    @_kept
    def flash_share_at_largest_n(self) -> tuple[int, float]:
        """(n, DRAM over model bytes) of flash's float16 forward at this d, at the largest n measured."""
        rows = self.dram[(self.dram["impl"] == "flash") & (self.dram["d"] == self.d)]
        row = rows.loc[rows["n"].idxmax()]
        return int(row["n"]), float(row["DRAM / model"])

    @_kept
    def least_flash_ratio_n(self) -> int:
        """The n at which flash's DRAM bytes fall furthest below the tile model's."""
        return int(self.dram.loc[self.dram_over_model("flash").idxmin(), "n"])

    @_kept
    def flash_bound(self) -> tuple[str, str]:
        """Flash's regime at this d: by the model's bytes, and by the measured DRAM bytes."""
        model = self.dram[(self.dram["impl"] == "flash") & (self.dram["d"] == self.d)]
        by_model = "/".join(sorted(set(model["bound"]))) or "n/a"
        intensity = self.points[self.points["impl"] == "flash"]["flops per DRAM byte"]
        by_dram = ("compute" if (intensity > self.ridge).all() else
                   "memory" if (intensity <= self.ridge).all() else "partly memory")
        return by_model, by_dram

    @_kept
    def best_flash_rate(self) -> tuple[float, int]:
        """(TFLOP/s, n) of flash's fastest profiled call at this d: the maximum over n."""
        pts = self.flash_points
        best = pts.loc[pts["achieved TFLOP/s"].idxmax()]
        return float(best["achieved TFLOP/s"]), int(best["n"])

    @functools.cached_property
    def flash_points(self) -> pd.DataFrame:
        return self.points[self.points["impl"] == "flash"]


def view(data: dict, d: int, dtype: str, pass_: str) -> View:
    table = compare(data)
    speed = speedups(table)
    points = roofline_points(table)
    mine = (table["d"] == d) & (table["dtype"] == dtype) & (table["pass"] == pass_)
    dram = table[(table["dtype"] == "float16") & (table["pass"] == "fwd") & table["measured DRAM MB"].notna()]
    copy, matmul16 = ceiling(data, COPY), ceiling(data, MATMUL, "float16")
    naive = naive_vs_plain(data)
    return View(d=d, table=table[mine], dram=dram, points=points[points["d"] == d],
                speedups=speed[(speed["d"] == d) & (speed["dtype"] == dtype) & (speed["pass"] == pass_)],
                copy_tbs=copy, matmul_tflops=ceiling(data, MATMUL, dtype), float16_tflops=matmul16,
                ridge=matmul16 / copy,
                naive=naive[(naive["d"] == d) & (naive["dtype"] == dtype) & (naive["pass"] == pass_)],
                naive_dram=naive["DRAM: naive ÷ plain"].dropna())


@dataclass(frozen=True)
class BlockView:
    """The Triton tile sweep at one n, with what lesson 10 says of it."""

    table: pd.DataFrame   # blocks() rows at this n
    best: pd.Series       # the fastest tile shape's row
    slowest: pd.Series    # the slowest tile shape's row
    most_model: pd.Series  # the row the model gives the most bytes
    spread: float         # largest over smallest measured DRAM bytes


def block_view(data: dict, n: int) -> BlockView:
    all_blocks = blocks(data)
    bt = all_blocks[all_blocks["n"] == n].reset_index(drop=True)
    return BlockView(table=bt, best=bt.loc[bt["measured ms"].idxmin()], slowest=bt.loc[bt["measured ms"].idxmax()],
                     most_model=bt.loc[bt["model MB"].idxmax()],
                     spread=float(bt["measured DRAM MB"].max() / bt["measured DRAM MB"].min()))


@dataclass(frozen=True)
class HopperSteps:
    """PyTorch flash -> Triton 128 x 64 -> cuDNN on the H200 (schedule.csv: bench/gpu/schedule.py), float16,
    not causal, at one head dim: each step changes one thing. PyTorch flash is FlashAttention-2's code on
    Ampere's mma.sync; the Triton kernel runs FA2's schedule on Hopper's wgmma (the instruction changes);
    cuDNN, NVIDIA's closed warp-specialised kernel, runs on the same wgmma a schedule the model takes as FA3's
    (the schedule changes; the FA3 authors' kernel is flash-attn-4's, fa3_authors.py)."""

    d: int
    calls: int                  # configs where all three kernels were timed
    instruction: pd.Series      # per call: PyTorch flash time over Triton 128 x 64's
    schedule: pd.Series         # per call: Triton 128 x 64's time over cuDNN's

    @property
    def instruction_median(self) -> float:
        return float(self.instruction.median())

    @property
    def schedule_median(self) -> float:
        return float(self.schedule.median())


def hopper_steps(d: int, folder: Path = DATA) -> HopperSteps:
    """The two steps' time ratios at head dim d, float16, not causal, call by call."""
    s = pd.read_csv(folder / "schedule.csv")
    s = s[(s["status"] == "ok") & s["time_ms"].notna() & (s["dtype"] == "float16") & (s["causal"] == 0)
          & (s["d"] == d)]
    t = s.pivot_table(index=["n", "batch_heads"], columns="impl", values="time_ms")
    t = t[["flash", "triton_128x64", "cudnn"]].dropna()
    return HopperSteps(d=d, calls=len(t), instruction=t["flash"] / t["triton_128x64"],
                       schedule=t["triton_128x64"] / t["cudnn"])


def block_sizes(data: dict) -> tuple[int, ...]:
    """The sequence lengths the tile sweep ran at."""
    return tuple(int(n) for n in sorted(data["blocks"][data["blocks"]["status"] == "ok"]["n"].unique()))
