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
