"""Sentences that state a direction, a ratio or a regime, built from the numbers.

A page never writes "fewer", "memory-bound" or "N×" by hand: it asks here, so the
words cannot disagree with the figures beside them. tests/test_claims.py renders
every lesson with random settings and checks each such sentence against the engine.
"""
from __future__ import annotations

from .format import times_text

SAME = 1e-9  # relative difference below which two counts are called the same


def compare(base: float, other: float, noun: str = "bytes") -> str:
    """How `other` compares with `base`: "7.5× fewer bytes", "30× more bytes", "0.4% more
    bytes" (within 1%), or "the same bytes"."""
    if base <= 0 or other <= 0:
        raise ValueError("compare needs two positive amounts")
    if abs(other - base) <= SAME * max(base, other):
        return f"the same {noun}".rstrip()
    if max(base, other) / min(base, other) < 1.01:  # "1.003×" reads as nothing: say the percent
        pct = 100 * abs(other / base - 1)
        return f"{pct:.2g}% {'fewer' if other < base else 'more'} {noun}".rstrip()
    if other < base:
        return f"{times_text(base / other)} fewer {noun}".rstrip()
    return f"{times_text(other / base)} more {noun}".rstrip()


def change_percent(base: float, other: float) -> str:
    """"+16.7%" or "−38.0%": other against base, with its sign."""
    pct = 100 * (other / base - 1)
    return f"+{pct:.1f}%" if pct >= 0 else f"−{-pct:.1f}%"


def regime(bytes_per_flop: float, balance: float) -> str:
    """"memory" when a kernel needs more bytes per flop than the machine feeds."""
    return "memory" if bytes_per_flop > balance else "compute"


def tiles_overflow(cfg) -> bool:
    """True when one forward tile step's working set is over the SRAM budget."""
    from .memory import fits, working_set
    return not fits(working_set(cfg.Br, cfg.Bc, cfg.d), cfg.sram_elements)


def overflow_cause(cfg) -> str:
    """The clause a traffic sentence adds when the tiles overflow (empty when they fit): the
    overflow, not the algorithm, is then what the flash count is made of."""
    if not tiles_overflow(cfg):
        return ""
    from .format import bytes_text
    from .memory import working_set
    ws = working_set(cfg.Br, cfg.Bc, cfg.d) * cfg.element_bytes
    return (f"its {cfg.Br} × {cfg.Bc} tiles need {bytes_text(ws)} of SRAM against a "
            f"{bytes_text(cfg.sram_bytes)} budget, and the seed's model charges what does not fit to HBM")
