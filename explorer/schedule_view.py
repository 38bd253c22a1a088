"""Lesson 13's controls and its cached engine calls.

The controls are Params (their keys are URL parameters), so explorer.predict can read them for the
lesson's question before the lesson draws them. The measured calls on offer are those of the authors' run,
flashviz/data/h200/fa3_time.csv (flash-attn-4's Hopper path, cuDNN and PyTorch flash side by side), at d = 64
and 128: the menu is read from it, never typed.
"""
from __future__ import annotations

import functools
from collections.abc import Callable

import pandas as pd

from flashviz.players import schedule_lesson as sl
from flashviz.hardware import fa3_authors
from flashviz.teach.claims import compare

from .cache import cache
from .params import Param

CONFIGS = {sl.config_label(*c): c for c in sl.authors_configs()}
DEFAULT_CONFIG = sl.config_label(8192, 128, 64)  # the example call, measured at every dtype and mask
PARAMS = {p.key: p for p in (
    Param("sc_call", "measured call (H200)", DEFAULT_CONFIG, tuple(CONFIGS)),
    Param("sc_dtype", "data type", "float16", ("float16", "bfloat16")),
    Param("sc_causal", "causal mask", False, kind="bool"),
    Param("sc_rates", "unit rates", next(iter(sl.RATES)), tuple(sl.RATES)),
)}


def setting(read: Callable[[Param], object]) -> sl.Setting:
    """The lesson's measured call from its controls; `read` is ui.peek (before they are drawn) or
    ui.bound (drawing them)."""
    n, d, bh = CONFIGS[str(read(PARAMS["sc_call"]))]
    return sl.Setting(n, d, bh, str(read(PARAMS["sc_dtype"])), bool(read(PARAMS["sc_causal"])))


def occupancy(name: str) -> bool:
    return sl.RATES[name]


@cache
def measured() -> tuple[dict[str, float], pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The authors' run against the schedule model (fa3_authors): the unit rates, every forward of
    flash-attn-4, cuDNN and PyTorch flash measured and modelled, the FA3 authors' kernel's speed-up over
    PyTorch flash at each call, and the summary per set and kernel."""
    _, rates = fa3_authors.load_rates()
    t = fa3_authors.targets()
    return rates, t, fa3_authors.speedups(t), fa3_authors.summary(t)


# The authors' run is fixed data: a call's row, and the vendor's gap over the run, are found once a process and
# shared between runs (read only). Found each run, with `measured()` unpickled afresh for each, they were a quarter of
# the lesson's rerun.
@functools.lru_cache(maxsize=256)
def measured_at(s: sl.Setting, kernel: str) -> pd.Series:
    """targets()' row for one kernel (its label) at the lesson's call."""
    return sl.row(measured()[1], kernel, s)


@functools.lru_cache(maxsize=1)
def vendor_gap() -> pd.Series:
    """cuDNN's forward time over the FA3 authors' kernel at each call of the authors' run (sl.vendor_gap)."""
    return sl.vendor_gap()


@functools.lru_cache(maxsize=256)
def speedup_at(s: sl.Setting) -> pd.Series:
    """the FA3 authors' kernel's speed-up over PyTorch flash at the lesson's call, measured and modelled (read only)."""
    return sl.speedup_row(measured()[2], s)


@functools.lru_cache(maxsize=8)
def calls_in(dtype: str, causal: bool) -> pd.DataFrame:
    """Every call of the authors' run in one data type, with the causal mask or without, in the order the lesson's
    table lists them, rounded as it shows them (read only)."""
    t = measured()[1]
    return t[(t["dtype"] == dtype) & (t["causal"] == causal)].sort_values(["d", "n", "B·H", "kernel"]).round(4)


@functools.lru_cache(maxsize=1)
def read_gap() -> fa3_authors.ReadGap:
    """fa3_authors.read_gap over the calls Nsight Compute read: fixed data, found once a process (read only)."""
    return fa3_authors.read_gap()


@functools.lru_cache(maxsize=1)
def every_call() -> fa3_authors.EveryCall:
    """fa3_authors.every_call over the authors' whole run: no setting changes it."""
    _, table, speedups, _ = measured()
    return fa3_authors.every_call(table, speedups)


@cache
def timeline(s: sl.Setting, occupancy: bool) -> tuple[pd.DataFrame, list[sl.Bar], dict[str, float]]:
    """The player's steps (both schedules, the FA3 authors' tile at s) as a table and as records, and
    each schedule's time per tile (s)."""
    work = sl.schedule_work(s, measured()[0], occupancy)
    steps = sl.bars(work)
    return sl.bars_frame(steps), steps, sl.intervals(work)


def tile_text(story: sl.TileStory, per_tile: dict[str, float]) -> str:
    """The player's sentence: what tile k's exponentials overlap under each schedule, and each
    schedule's time per tile."""
    fa2_wait = ("the tensor cores wait" if story.fa2_tensor_busy == 0
                else f"the tensor cores are busy {story.fa2_tensor_busy:.0f} ns of it")
    under = ", ".join(f"WG{b.group}'s {'own ' if b.group == 1 else ''}{b.label} of tile {b.tile}"
                      for b in story.fa3_under)
    fa3_under = (f"under {under} on the tensor cores, busy {story.fa3_overlap:.0f} of those "
                 f"{story.fa3_exp.length_ns:.0f} ns" if story.fa3_under else "with the tensor cores idle")
    fa2, fa3 = story.fa2_exp, story.fa3_exp
    return (f"**Tile {story.tile}.** FA2: its exponentials run {fa2.start_ns:,.0f}–{fa2.end_ns:,.0f} ns and "
            f"{fa2_wait}. FA3: WG1's exponentials run {fa3.start_ns:,.0f}–{fa3.end_ns:,.0f} ns, {fa3_under}. "
            f"Per tile: FA2 {per_tile['fa2'] * 1e6:.3g} µs, FA3 {per_tile['fa3'] * 1e6:.3g} µs, "
            f"{compare(per_tile['fa2'], per_tile['fa3'], 'time', fewer='less')} on the same work.")
