"""Lesson 13's controls and its cached engine calls.

The controls are Params (their keys are URL parameters), so explorer.predict can read them for the
lesson's question before the lesson draws them. The measured calls on offer are those of
flashviz/data/h200/schedule.csv: the menu is read from it, never typed.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from flashviz.players import schedule_lesson as sl
from flashviz.hardware import fa3_authors, schedule_targets
from flashviz.teach.claims import compare

from .cache import cache
from .params import Param

CONFIGS = {sl.config_label(*c): c for c in sl.measured_configs()}
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
def measured(occupancy: bool = True) -> tuple[pd.DataFrame, dict[str, float], pd.DataFrame, pd.DataFrame,
                                              pd.DataFrame]:
    """The schedule run: its timed rows, the same run's rates, the model against every config,
    cuDNN's speed-up over PyTorch flash, and the model's summary per kernel."""
    df, rates = schedule_targets.load()
    t = schedule_targets.targets(df, rates, occupancy=occupancy)
    return df, rates, t, schedule_targets.speedups(t), schedule_targets.summary(t)


@cache
def authors() -> pd.DataFrame:
    """FlashAttention-3's own code (flash-attn-4 on the H200, its own run): every forward of it, cuDNN and
    PyTorch flash, measured and modelled (fa3_authors.targets)."""
    return fa3_authors.targets()


def authors_at(s: sl.Setting) -> tuple[pd.Series, pd.Series] | None:
    """The authors' kernel's row and cuDNN's of the same run at the lesson's call, or None where that run
    did not time it."""
    t = authors()
    try:
        return sl.row(t, fa3_authors.LABELS["fa4"], s), sl.row(t, fa3_authors.LABELS["cudnn"], s)
    except ValueError:
        return None


def measured_at(s: sl.Setting, kernel: str, occupancy: bool = True) -> pd.Series:
    """targets()' row for one kernel (its label) at the lesson's call."""
    return sl.row(measured(occupancy)[2], kernel, s)


@cache
def timeline(s: sl.Setting, occupancy: bool) -> tuple[pd.DataFrame, list[sl.Bar], dict[str, float]]:
    """The player's steps (both schedules, cuDNN's tile at s) as a table and as records, and each
    schedule's time per tile (s)."""
    _, rates, *_ = measured(occupancy)
    work = sl.schedule_work(s, rates, occupancy)
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
