"""Frames for the tile-by-tile animation, built from the engine's trace.

`flash_frames` runs the flash forward with a trace and turns each computed tile
into one frame of plain numbers (JSON-ready); `standard_frames` does the same
for standard attention's passes over the n x n matrices. The browser plays them
with no round trip to the server. Values are rounded to 4 significant digits
to keep the payload small; the tests compare against the trace at that rounding.
"""
from __future__ import annotations

import json
import math

import numpy as np

from . import costs
from .attention import flash_attention, random_qkv, standard_attention
from .config import Config

MAX_FRAMES = 300        # frames sent to the browser at most (keeps the worst case under 5 MB)
MAX_ROWS = 64           # query rows shown per block
MAX_COLS = 16           # output columns shown per row
DIGITS = 4


def rounded(x):
    """A number, or a nested list of numbers, at DIGITS significant digits;
    non-finite values as the strings JavaScript's Number() reads back."""
    if isinstance(x, np.ndarray):
        return [rounded(v) for v in x.tolist()]
    if isinstance(x, list):
        return [rounded(v) for v in x]
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(f"{x:.{DIGITS}g}")


def teaching_inputs(cfg: Config, seed: int = 0, score_scale: float = 1.0):
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    return Q * score_scale, K, V


def flash_frames(cfg: Config, seed: int = 0, score_scale: float = 1.0,
                 reference: Config | None = None, max_frames: int = MAX_FRAMES) -> dict:
    """One frame per computed tile (causal skips excluded), capped at max_frames.

    `reference`, if given, is a correct config run on the same inputs; its
    running sums go in each frame as l_true, so a bug's drift can be seen.
    """
    Q, K, V = teaching_inputs(cfg, seed, score_scale)
    trace: list = []
    O = flash_attention(Q, K, V, cfg, trace=trace)
    true_trace: list = []
    if reference is not None:
        if (reference.Br, reference.Bc, reference.loop_order) != (cfg.Br, cfg.Bc, cfg.loop_order):
            raise ValueError("a reference run must use the same tiles and loop order, step for step")
        flash_attention(Q, K, V, reference, trace=true_trace)
    rows, cols = min(cfg.Br, MAX_ROWS), min(cfg.d, MAX_COLS)
    frames = []
    for k, step in enumerate(trace[:max_frames]):
        frame = {
            "i": step.i, "j": step.j, "rows": list(step.rows), "cols": list(step.cols),
            "m0": rounded(step.m_before[:rows]), "m1": rounded(step.m_after[:rows]),
            "scale": rounded(step.rescale[:rows]), "l": rounded(step.l[:rows]),
            "O": rounded(step.O[:rows, :cols]),
            "hbm": step.hbm_bytes, "flops": step.flops, "ws": step.working_set_bytes,
            "bad": bool(not np.isfinite(step.l).all() or not np.isfinite(step.O).all()),
        }
        if true_trace:
            frame["l_true"] = rounded(true_trace[k].l[:rows])
        frames.append(frame)
    with np.errstate(invalid="ignore"):
        diff = float(np.abs(O - standard_attention(Q, K, V, cfg)).max())
    census = costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.causal)
    std = costs.standard_cost(cfg)
    first_bad = next((k for k, f in enumerate(frames) if f["bad"]), None)
    return {
        "kind": "flash", "n": cfg.n, "d": cfg.d, "Br": cfg.Br, "Bc": cfg.Bc, "Tr": cfg.Tr, "Tc": cfg.Tc,
        "order": cfg.loop_order, "causal": cfg.causal, "rows_shown": rows, "cols_shown": cols,
        "budget": cfg.sram_bytes, "standard_bytes": std.hbm_bytes,
        "total_bytes": costs.flash_cost(cfg).hbm_bytes, "tiles": census.tiles,
        "capped": len(trace) > max_frames, "keep_full_S": cfg.keep_full_S,
        "rescales": cfg.rescale and cfg.subtract_max,
        "final_diff": rounded(diff), "first_bad": first_bad, "frames": frames,
    }


def standard_frames(cfg: Config) -> dict:
    """Standard attention as passes over row blocks of the n x n matrices.

    Frame 0 reads Q and K; then for each row block: S written; S read and P
    written; P read with V and O written. Cumulative bytes end at 4nd + 4n^2.
    """
    n, d, eb = cfg.n, cfg.d, cfg.element_bytes
    frames, moved = [], 2 * n * d
    frames.append({"phase": "read Q, K", "block": -1, "hbm": moved * eb, "peak": 0})
    phases = (("write S", lambda r: r * n), ("read S, write P", lambda r: 2 * r * n),
              ("read P, V; write O", lambda r: r * n + r * d))
    for k, (label, elements) in enumerate(phases):
        for i, r0 in enumerate(range(0, n, cfg.Br)):
            r = min(r0 + cfg.Br, n) - r0
            moved += elements(r) + (n * d if k == 2 and i == 0 else 0)  # V is read once
            frames.append({"phase": label, "block": i, "hbm": moved * eb,
                           "peak": (min(r0 + r, n) if k == 0 else n) * n * eb})
    return {"kind": "standard", "n": n, "Br": cfg.Br, "Tr": cfg.Tr, "frames": frames,
            "standard_bytes": costs.standard_cost(cfg).hbm_bytes}


def payload(data: dict) -> str:
    """The JSON the browser receives."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


TEACHING_N = (32, 64, 96, 128, 192, 256, 384, 512)
TEACHING_D = (4, 8, 16, 32)


def teaching_config(cfg: Config, n: int, d: int) -> tuple[Config, str | None]:
    """cfg at a teaching size: n and d as asked, tiles from cfg (cut to n), and n
    halved until the run has at most MAX_TRACE_TILES tiles. Returns (config, note)."""
    from .trace import MAX_TRACE_TILES
    asked = n
    while n > 1 and -(-n // min(cfg.Br, n)) * -(-n // min(cfg.Bc, n)) > MAX_TRACE_TILES:
        n //= 2
    out = cfg.with_(n=n, d=d, Br=min(cfg.Br, n), Bc=min(cfg.Bc, n), compute="float64")
    note = None
    if n != asked:
        note = (f"With {cfg.Br} × {cfg.Bc} tiles, n = {asked} has more than {MAX_TRACE_TILES} tile steps; "
                f"the animation uses n = {n}.")
    return out, note


# The overflow bug only shows on large scores: scale them and compute in float32,
# whose exp overflows past e^88.7 (float16 would already at e^11).
OVERFLOW_SCALE = 30.0


def bug_frames(cfg: Config, bug: str) -> dict:
    """Frames of the broken run, with the correct run's l beside each step."""
    from .bugs import BUGS
    correct = cfg.with_(rescale=True, subtract_max=True, keep_full_S=False)
    broken = BUGS[bug].apply(correct)
    scale = 1.0
    if bug == "no_max":
        correct, broken = correct.with_(compute="float32"), broken.with_(compute="float32")
        scale = OVERFLOW_SCALE
    # The correct l goes beside each step only where both runs take the same steps and l means
    # the same thing: not for other tile sizes, and not without the max (l sums e^s, not e^(s - m)).
    same_steps = (broken.Br, broken.Bc) == (correct.Br, correct.Bc) and bug != "no_max"
    data = flash_frames(broken, score_scale=scale, reference=correct if same_steps else None)
    data["bug"] = bug
    data["score_scale"] = scale
    return data
