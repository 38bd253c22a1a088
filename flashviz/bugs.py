"""The seed's "Break it" table: each bug as a change to a Config, and a lab
that runs the correct and the broken version side by side."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import costs
from .attention import (flash_attention, online_softmax, random_qkv, random_row, softmax,
                        standard_attention)
from .config import KB, MB, Config

LAB_MAX_N = 2048  # the lab really runs both versions; keep it interactive
OVERFLOW_ROW = (800.0, 801.5, 799.2, 802.3)  # demo 9's scores near 800


@dataclass(frozen=True)
class Bug:
    key: str
    label: str
    change: str    # what was edited in the code, in one sentence
    symptom: str   # what the seed says to watch for
    apply: Callable[[Config], Config]
    watch: str     # the figure (a key of break_it's dicts) the symptom is about


BUGS = {b.key: b for b in (
    Bug("no_rescale", "Drop the rescale",
        "The factor e^(m_old - m_new) on l and O is removed, so earlier terms keep an outdated baseline.",
        "Weights sum to 0.190131 instead of 1; max error 6.53e-01; nothing raises.",
        lambda c: c.with_(rescale=False), "demo 2 weights sum"),
    Bug("tiles_too_big", "Tiles too big for SRAM",
        "Br = Bc = 512 under the same SRAM budget.",
        "The working set jumps to 1412.0 KB against a 96 KB budget; spilling eats the saving.",
        lambda c: c.with_(Br=min(512, c.n), Bc=min(512, c.n)), "working set KB"),
    Bug("tiles_too_small", "Tiles too small",
        "Br = Bc = 16, so every query block streams all of K and V again.",
        "Traffic climbs to 32.50 MB, above standard attention's 17.00 MB.",
        lambda c: c.with_(Br=min(16, c.n), Bc=min(16, c.n)), "HBM MB (with spill)"),
    Bug("keep_full_S", "Keep the full score matrix",
        "Every score tile is also copied into an n x n buffer 'for debugging'.",
        "Peak extra memory goes from 64.5 KB to 4096.0 KB: 64 times worse.",
        lambda c: c.with_(keep_full_S=True), "peak extra KB"),
    Bug("no_max", "exp without the max",
        "exp(S - m_new) becomes exp(S): nothing keeps the exponent small.",
        "On scores near 800, exp returns inf and the weights come back nan.",
        lambda c: c.with_(subtract_max=False), "nan weights on scores near 800"),
)}


def _figures(cfg: Config, Q, K, V, ref) -> dict:
    cost = costs.flash_cost(cfg)
    weights = online_softmax(random_row(), 8, rescale=cfg.rescale, subtract_max=cfg.subtract_max)
    overflow = online_softmax(np.array(OVERFLOW_ROW), 2, rescale=cfg.rescale,
                              subtract_max=cfg.subtract_max)
    with np.errstate(invalid="ignore"):
        O = flash_attention(Q, K, V, cfg)
        error = float(np.abs(O - ref).max())
    return {
        "demo 2 weights sum": float(weights.sum()),
        "demo 2 max abs error": float(np.abs(weights - softmax(random_row())).max()),
        "nan weights on scores near 800": int(np.isnan(overflow).sum()),
        "output max abs error": error,
        "Br x Bc": f"{cfg.Br} x {cfg.Bc}",
        "working set KB": cost.working_set_bytes / KB,
        "fits SRAM": cost.working_set_bytes <= cfg.sram_bytes,
        "HBM MB (with spill)": cost.hbm_bytes / MB,
        "peak extra KB": cost.peak_bytes / KB,
        "GFLOPs": cost.flops / 1e9,
    }


def break_it(cfg: Config, bug: str, seed: int = 0) -> dict:
    """Correct vs broken figures for one bug; returns {"correct": {...}, "broken": {...},
    "standard": {...}}. Runs NumPy, so n is capped at LAB_MAX_N."""
    if bug not in BUGS:
        raise ValueError(f"unknown bug {bug!r}; choose one of {', '.join(BUGS)}")
    if cfg.n > LAB_MAX_N:
        raise ValueError(f"the lab runs both versions in NumPy: use n <= {LAB_MAX_N}")
    correct = cfg.with_(rescale=True, subtract_max=True, keep_full_S=False)
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    ref = standard_attention(Q, K, V, correct)
    std = costs.standard_cost(correct)
    return {"correct": _figures(correct, Q, K, V, ref),
            "broken": _figures(BUGS[bug].apply(correct), Q, K, V, ref),
            "standard": {"HBM MB": std.hbm_bytes / MB, "peak KB": std.peak_bytes / KB}}


FORMATS = {"demo 2 weights sum": "{:.6f}", "demo 2 max abs error": "{:.2e}",
           "output max abs error": "{:.2e}", "working set KB": "{:.1f}",
           "HBM MB (with spill)": "{:.2f}", "peak extra KB": "{:.1f}", "GFLOPs": "{:.3f}"}


def comparison(lab: dict) -> list[dict]:
    """Rows of (figure, correct, with the bug, changed), values printed at the seed's precision."""
    rows = []
    for name, correct in lab["correct"].items():
        fmt = FORMATS.get(name, "{}")
        a, b = fmt.format(correct), fmt.format(lab["broken"][name])
        rows.append({"figure": name, "correct": a, "with the bug": b, "changed": a != b})
    return rows
