"""Lesson 13's numbers, "After the bytes, the schedule": everything read through the schedule model's
own functions (schedule.py: tile_work, timeline, interval, kernel_time; fa3_authors.py: the authors' run,
tiles, model_time, targets, speedups; schedule_targets.py: the rates), so the page follows any change to the
model.

  Setting         one measured call: n, d, batch x heads, dtype, causal (the authors' run, fa3_time.csv; or
                  schedule.csv's, which kernel_time_at reads)
  kernel_time_at  one kernel's modelled time at a setting, as targets() computes its row
  bars            the timeline of FA2's and FA3's schedules on the same tile (the FA3 authors' own, as
                  flash-attn-4's Hopper path picks it), step by step, in ns, laid on lanes per warp group
                  for the page's player
  tile_story      what one tile's exponentials overlap under each schedule (the player's sentence)
  exp_share       the exponentials' time over the matmuls' (one exponential per 4d matmul flops)
  fp8             the same tile with FP8's matmul rate: how much of it the exponentials then take

No Streamlit, no Plotly.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import pandas as pd

from ..hardware import fa3_authors
from ..hardware.schedule import ScheduleTime, Step, TileWork, UnitRates, interval, tile_work, timeline
from ..hardware.schedule_targets import KERNELS, model_time, rates_for

GPU = "H200 SXM"     # the one GPU whose unit rates and kernels were measured (bench/gpu/schedule.py)
TILES_SHOWN = 4      # key tiles the player lays out: the fill, then the steady overlap, on one screen
SCHEDULE_KERNEL = "fa4"  # whose tile the player runs under both schedules: the FA3 authors' (flash-attn-4)
# The rates a page may divide the work by: each kernel's own (its units' rates per clock at its own
# occupancy, times the clock the H200 held while it ran: the model's default) or those measured with
# the SM full (the model before issue 21's part 2).
RATES = {"each kernel's own": True, "full SM": False}
FP16_MATMUL, FP8_MATMUL = "dense matmul float16", "dense matmul float8_e4m3fn"
WGMMA, EXP = "tensor cores wgmma float16", "exp unit (ex2.approx) float32"


@dataclass(frozen=True)
class Setting:
    """One measured call (of the authors' run, fa3_time.csv, on the lesson's page)."""

    n: int
    d: int
    bh: int
    dtype: str
    causal: bool

    @property
    def key(self) -> dict:
        """The columns targets() and speedups() name it by."""
        return {"dtype": self.dtype, "causal": self.causal, "n": self.n, "d": self.d, "B·H": self.bh}


def configs(df: pd.DataFrame) -> list[tuple[int, int, int]]:
    """The measured (n, d, batch x heads) of a timed set, by d, then n, then batch x heads."""
    got = {(int(r.n), int(r.d), int(r.batch_heads)) for r in df.itertuples()}
    return sorted(got, key=lambda c: (c[1], c[0], c[2]))


def kernel_time_at(impl: str, s: Setting, rates: dict[str, float], occupancy: bool = True) -> ScheduleTime:
    """One kernel's modelled time at a setting: schedule_targets.targets' row, one call
    (tests/test_schedule_lesson.py holds the two equal at every measured config)."""
    return model_time(impl, s.n, s.d, s.bh, s.causal, rates, GPU, occupancy)


def row(t: pd.DataFrame, kernel: str, s: Setting) -> pd.Series:
    """targets()' row of one kernel (its label) at a setting."""
    mask = t["kernel"] == kernel
    for col, value in s.key.items():
        mask &= t[col] == value
    hit = t[mask]
    if len(hit) != 1:
        raise ValueError(f"{kernel} at {s}: {len(hit)} rows measured")
    return hit.iloc[0]


def speedup_row(sp: pd.DataFrame, s: Setting) -> pd.Series:
    """A speed-up table's row (fa3_authors.speedups: the FA3 authors' kernel over PyTorch flash, measured
    and modelled; or schedule_targets.speedups: cuDNN's) at a setting."""
    mask = pd.Series(True, index=sp.index)
    for col, value in s.key.items():
        mask &= sp[col] == value
    return sp[mask].iloc[0]


# ---------------------------------------------------------------------------------------------
# The player: both schedules' steps on lanes per warp group.

@dataclass(frozen=True)
class Bar:
    """One step as the player draws it: its schedule, lane, what it is (QKᵀ, PV, exp, max, sum,
    K, V), the kind that colours it (copy, matmul, exp, fp32), its key tile (1-based), its warp
    group (1, 2; 0 for the producer's copies), start and length in ns."""

    schedule: str
    lane: str
    label: str
    kind: str
    tile: int
    group: int
    start_ns: float
    length_ns: float

    @property
    def end_ns(self) -> float:
        return self.start_ns + self.length_ns


KIND = {"K, V": "copy", "QKᵀ": "matmul", "PV": "matmul", "exp": "exp", "max": "fp32", "sum": "fp32"}


def lane_of(schedule: str, step: Step) -> str:
    """The player's lane: the copies, then per warp group its tensor-core steps and its softmax
    (max, exp, sum run one after another on a group's own warps). FA2's one group of warps runs both."""
    if step.lane == "copies":
        return "copies"
    part = "tensor" if step.lane == "tensor cores" else "softmax"
    return part if schedule == "fa2" else f"WG{step.group + 1} {part}"


def lanes(schedule: str) -> list[str]:
    """The lanes top to bottom (short enough for a phone: WG1 and WG2 are FA3's two consumer warp
    groups; FA3's copies are its producer warps')."""
    if schedule == "fa2":
        return ["copies", "tensor", "softmax"]
    return ["copies", *(f"WG{g} {p}" for g in (1, 2) for p in ("tensor", "softmax"))]


def bars(work: TileWork, tiles: int = TILES_SHOWN) -> list[Bar]:
    """Both schedules' timelines (schedule.timeline) of one query block's first `tiles` key tiles."""
    return [Bar(sched, lane_of(sched, s), s.label, KIND[s.label], s.tile + 1, s.group + 1, s.start * 1e9,
                s.length * 1e9)
            for sched in ("fa2", "fa3") for s in timeline(sched, work, tiles)]


@dataclass(frozen=True)
class TileStory:
    """Tile k's exponentials under each schedule, and what the tensor cores do meanwhile (ns)."""

    tile: int
    fa2_exp: Bar
    fa2_tensor_busy: float     # tensor-core time inside FA2's exp step: none, its warps wait on it
    fa3_exp: Bar               # group 1's exponentials of tile k
    fa3_under: list[Bar]       # the tensor-core steps (either group's) that run during them
    fa3_overlap: float         # how much of group 1's exp time the tensor cores are busy


def _overlap(a: Bar, b: Bar) -> float:
    return max(0.0, min(a.end_ns, b.end_ns) - max(a.start_ns, b.start_ns))


def tile_story(all_bars: list[Bar], tile: int) -> TileStory:
    def exp_of(schedule: str) -> Bar:
        return next(b for b in all_bars if b.schedule == schedule and b.label == "exp" and b.tile == tile
                    and b.group == 1)

    fa2, fa3 = exp_of("fa2"), exp_of("fa3")
    fa2_busy = sum(_overlap(fa2, b) for b in all_bars if b.schedule == "fa2" and b.kind == "matmul")
    under = [b for b in all_bars if b.schedule == "fa3" and b.kind == "matmul" and _overlap(fa3, b) > 0]
    return TileStory(tile, fa2, fa2_busy, fa3, under, sum(_overlap(fa3, b) for b in under))


def authors_tile(d: int) -> tuple[int, int]:
    """(Br, Bc) of the FA3 authors' forward at head dim d (flash-attn-4's Hopper choice)."""
    return fa3_authors.tiles(SCHEDULE_KERNEL, d)


@lru_cache(maxsize=8)
def authors_clock(d: int, dtype: str) -> float:
    """The SM clock (Hz) flash-attn-4's forwards held at head dim d and this dtype in their run: the median of
    sm_mhz over those calls (fa3_time.csv, both sets)."""
    t = fa3_authors.load_time()
    at = t[(t["impl"] == SCHEDULE_KERNEL) & (t["pass"] == "fwd") & (t["d"] == d) & (t["dtype"] == dtype)]
    return float(at["sm_mhz"].median()) * 1e6


def vendor_gap(t: pd.DataFrame | None = None) -> pd.Series:
    """cuDNN's forward time over the FA3 authors' kernel at each call of the authors' run (both sets, both
    dtypes, causal and not): above 1 where the vendor's kernel is the slower."""
    w = fa3_authors.measured_speed(t)
    return w[w["pass"] == "fwd"]["FA3 ÷ cuDNN"]  # the same flops: a rate ratio is the inverse time ratio


def schedule_work(s: Setting, rates: dict[str, float], occupancy: bool = True) -> TileWork:
    """The tile the player runs under both schedules: the FA3 authors' (authors_tile), its K and V
    copies as the read model counts them at s. occupancy=True: each unit's rate per clock times the clock
    flash-attn-4 held at this d (authors_clock), as fa3_authors.model_time takes it; False: the rates
    measured with the SM full (wgmma, the exp unit, FP32)."""
    m = fa3_authors.model_time(SCHEDULE_KERNEL, s.n, s.d, s.bh, s.causal, authors_clock(s.d, s.dtype), rates, 0.0)
    if occupancy:
        return m.work
    full = rates_for("cudnn", rates, occupancy=False)  # the full-SM rates: wgmma, the exp unit, FP32, DRAM
    return tile_work(*authors_tile(s.d), s.d, full, copy_bytes=m.work.copy * full.dram / full.sms)


def intervals(work: TileWork) -> dict[str, float]:
    """Each schedule's steady time per tile (s)."""
    return {sched: interval(sched, work) for sched in ("fa2", "fa3")}


# ---------------------------------------------------------------------------------------------
# The exp unit, and FP8.

def exp_share(d: int, tensor_rate: float, exp_rate: float) -> float:
    """The exponentials' time over the matmuls': one exponential per score against 4d matmul flops
    per score (QKᵀ and PV, 2d each)."""
    return tensor_rate / (4 * d * exp_rate)


@dataclass(frozen=True)
class Fp8:
    """One tile's arithmetic (no copies) at cuBLAS's fp16 and FP8 matmul rates, with the
    exp unit's and FP32's full-SM rates, all of one run: each part and FA3's interval (s)."""

    fp16_rate: float
    fp8_rate: float
    fp16: TileWork
    fp8: TileWork
    fp16_interval: float
    fp8_interval: float

    @property
    def speedup(self) -> float:
        return self.fp8_rate / self.fp16_rate


def fp8(d: int, rates: dict[str, float]) -> Fp8:
    """the FA3 authors' tile at d (authors_tile) at cuBLAS's fp16 and FP8 rates."""
    base = rates_for("cudnn", rates, occupancy=False)  # the full-SM rates of the exp unit and FP32
    Br, Bc = authors_tile(d)

    def at(tensor: float) -> TileWork:
        return tile_work(Br, Bc, d, UnitRates(tensor, base.exp, base.fp32, base.dram, base.sms), copy_bytes=0)

    w16, w8 = at(rates[FP16_MATMUL]), at(rates[FP8_MATMUL])
    return Fp8(rates[FP16_MATMUL], rates[FP8_MATMUL], w16, w8, interval("fa3", w16), interval("fa3", w8))


def measured_configs(data=None) -> list[tuple[int, int, int]]:
    """configs() of schedule.csv, read alone (for the lesson's menu, before anything else loads)."""
    from ..hardware.schedule_targets import DATA
    df = pd.read_csv((data or DATA) / "schedule.csv", usecols=["n", "d", "batch_heads", "time_ms", "impl"])
    return configs(df[df["time_ms"].notna() & df["impl"].isin(KERNELS)])


def authors_configs(data=None) -> list[tuple[int, int, int]]:
    """The (n, d, batch x heads) of the authors' run (fa3_time.csv: flash-attn-4, cuDNN and PyTorch flash timed
    side by side, the model set and the held-apart set) at d = 64 and 128, the lesson's menu."""
    t = fa3_authors.load_time(data or fa3_authors.DATA)
    t = t[(t["pass"] == "fwd") & (t["d"] <= 128)]
    return sorted({(int(r.n), int(r.d), int(r.batch_heads)) for r in t.itertuples()}, key=lambda c: (c[1], c[0], c[2]))


def config_label(n: int, d: int, bh: int) -> str:
    """A measured call as the lesson's menu names it."""
    return f"n {n:,}, d {d}, B·H {bh}"


def bars_frame(all_bars: list[Bar]) -> pd.DataFrame:
    """bars() as a table, one row a step (the chart's input)."""
    return pd.DataFrame([{**b.__dict__, "end_ns": b.end_ns} for b in all_bars])
