"""Per-tile records of the flash forward, for pictures and the animation.

A trace is opt-in (pass a list to `flash_attention(..., trace=...)`) and
bounded: at most MAX_TRACE_TILES tile steps, so a page can never ask the
engine to copy a thousand-by-thousand run tile by tile.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import memory as mem

MAX_TRACE_TILES = 32 * 32


@dataclass(frozen=True)
class TileStep:
    """One computed tile (i, j): the state of its query rows after the step."""

    step: int               # 0-based order in which the tile was computed
    i: int                  # query block index
    j: int                  # key/value block index
    rows: tuple[int, int]   # [start, stop) of the query rows
    cols: tuple[int, int]   # [start, stop) of the key rows
    m_before: np.ndarray    # (r,) running max before the step (-inf at first)
    m_after: np.ndarray     # (r,) running max after it
    rescale: np.ndarray     # (r,) factor applied to l and O: e^(m_before - m_after), 1 where
                            # the max held, and 1 everywhere when a bug skips the rescale
    l: np.ndarray           # (r,) running sum after the step, against m_after
    O: np.ndarray           # (r, d) output so far, divided by l
    hbm_bytes: int          # cumulative bytes moved HBM <-> SRAM (spill included)
    flops: int              # cumulative matmul flops
    working_set_bytes: int  # SRAM working set of this step
    sram_bytes: int         # the budget it is held against

    @property
    def max_moved(self) -> np.ndarray:
        """Rows whose running max moved on this step (rescaled, unless a bug is on)."""
        return self.m_after > self.m_before

    @property
    def fits(self) -> bool:
        return mem.fits(self.working_set_bytes, self.sram_bytes)


def check_traceable(tiles: int) -> None:
    if tiles > MAX_TRACE_TILES:
        raise ValueError(
            f"a trace records at most {MAX_TRACE_TILES} tiles (32 x 32); this run has "
            f"{tiles}: use a smaller n or larger Br/Bc"
        )


def record(trace: list, *, i, j, rows, cols, m_before, m_after, l, O, counters, ws, budget,
           applied: bool = True):
    with np.errstate(invalid="ignore", over="ignore"):
        rescale = np.exp(m_before - m_after)
    rescale = np.where(np.isneginf(m_before) & np.isneginf(m_after), 1.0, rescale)
    if not applied:
        rescale = np.ones_like(rescale)
    trace.append(TileStep(
        step=len(trace), i=i, j=j, rows=rows, cols=cols,
        m_before=m_before.ravel().copy(), m_after=m_after.ravel().copy(),
        rescale=rescale.ravel(), l=l.ravel().copy(), O=O.copy(),
        hbm_bytes=counters.hbm_bytes, flops=counters.flops,
        working_set_bytes=ws * counters.element_bytes, sram_bytes=budget,
    ))
