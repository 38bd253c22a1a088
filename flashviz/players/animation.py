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
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..model import costs
from ..run import listing
from ..model.breaks import BREAKS
from ..run.attention import flash_attention, random_qkv, standard_attention
from ..run.rescale import overflow_tau, rescale_attention
from ..model.config import Config
from ..model.memory import fits
from .player_schema import (BugRun, CodePanel, FlashFrame, FlashRun, Payload, StandardFrame, StandardPhase,
                            StandardRun)

MAX_FRAMES = 300        # frames sent to the browser at most (keeps the worst case well under 1 MB)
FIRST_ROWS = 4          # rows of a block always shown, so a row can be followed from step to step
SHOW_ROWS = 8           # rows shown per step: the first FIRST_ROWS, then those whose max rose most
DIGITS = 4
BIG_TILE_STEPS = 4      # query blocks the "tiles too big" animation gets at least
CODE_ROWS = 4           # rows whose values stand beside the listing's lines (the table shows more)


def _rounded_one(x: float, spec: str = f".{DIGITS}g"):
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "Infinity" if x > 0 else "-Infinity"
    return float(format(x, spec))


def rounded(x):
    """A number, or a nested list of numbers, at DIGITS significant digits;
    non-finite values as the strings JavaScript's Number() reads back. An array is rounded flat and
    shaped again: a player's frames hold some 65,000 numbers, and a call a number took a third of a second."""
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return _rounded_one(float(x))
        flat = [_rounded_one(v) for v in x.astype(float).ravel().tolist()]
        return np.array(flat, dtype=object).reshape(x.shape).tolist() if x.ndim > 1 else flat
    if isinstance(x, list):
        return [rounded(v) for v in x]
    return _rounded_one(float(x))


def teaching_inputs(cfg: Config, seed: int = 0, score_scale: float = 1.0):
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    return Q * score_scale, K, V


def shown_rows(m_before: np.ndarray, m_after: np.ndarray, broke: np.ndarray | None = None) -> list[int]:
    """Offsets (in the block) of the rows a step shows: the block's first FIRST_ROWS rows,
    then the rows that turned inf or nan on this step (`broke`, a mask), then those whose max
    rose most, then the next rows in order, SHOW_ROWS in all. So the step where inf or nan
    first appears shows a row that holds it."""
    r = len(m_after)
    if r <= SHOW_ROWS:
        return list(range(r))
    with np.errstate(invalid="ignore"):
        rise = np.where(np.isfinite(m_before) & (m_after > m_before), m_after - m_before, 0.0)
    bad = [int(q) for q in np.flatnonzero(broke)] if broke is not None else []
    rest = [int(q) for q in np.argsort(-rise, kind="stable") if rise[q] > 0]
    picked = set(range(FIRST_ROWS))
    for q in bad + rest:
        if len(picked) == SHOW_ROWS:
            break
        picked.add(q)
    q = FIRST_ROWS
    while len(picked) < SHOW_ROWS:
        picked.add(q)
        q += 1
    return sorted(picked)


def _before(trace: list, k: int, sink: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """l and the unnormalised O of step k's rows before the step: the same row block's
    previous step, or on its first tile l = 0 (1 with a sink: its term, e^(sink - m) with m = sink)
    and O = 0."""
    step = trace[k]
    prev = next((t for t in reversed(trace[:k]) if t.i == step.i), None)
    if prev is None:
        return np.zeros_like(step.l) if sink is None else np.ones_like(step.l), np.zeros(step.O.shape[0])
    return prev.l, prev.O[:, 0] * prev.l


def _num(v) -> float:
    return float(v) if isinstance(v, str) else v


class _Panel(NamedTuple):
    """The code panel's listing: its source, the bug it carries, the lines values stand beside."""
    src: str
    bug: str | None
    marks: dict


def _frame(trace: list, k: int, rescales: bool, listed: dict, panel: _Panel, sink: float | None) -> FlashFrame:
    """One step as numbers. O is shown unnormalised (O·l, what the rescale multiplies):
    its first column, before and after the step. `listed` is the listing's record of the
    same step (listing.record), for the code panel."""
    step = trace[k]
    l0, o0 = _before(trace, k, sink)
    with np.errstate(invalid="ignore", over="ignore"):
        o1 = step.O[:, 0] * step.l
        added = step.l - step.rescale * l0             # this tile's row sums, e^(S - m_new)
        should = np.exp(step.m_before - step.m_after)  # the factor a correct run applies
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(step.l) & np.isfinite(step.O).all(axis=1)
        was_finite = np.isfinite(l0) & np.isfinite(o0)
    show = shown_rows(step.m_before, step.m_after, broke=was_finite & ~finite)
    m0, m1, scale = rounded(step.m_before), rounded(step.m_after), rounded(step.rescale)
    finite0 = [isinstance(v, float) for v in m0]
    rose = [q for q in range(len(m1)) if finite0[q] and _num(m1[q]) > m0[q]]
    rescaled = [q for q in rose if scale[q] < 1]
    first = not any(finite0)
    pick = lambda a: [a[q] for q in show]  # noqa: E731
    at = _code_line(panel, rescale=bool(rose) and not first)
    frame: FlashFrame = {
        "i": step.i, "j": step.j, "rows": list(step.rows), "cols": list(step.cols), "show": show,
        "m0": pick(m0), "m1": pick(m1), "scale": pick(scale),
        "l0": pick(rounded(l0)), "l": pick(rounded(step.l)), "add": pick(rounded(added)),
        "o0": pick(rounded(o0)), "o1": pick(rounded(o1)),
        "first": first, "rose": len(rose), "rescaled": len(rescaled),
        "smin": min((scale[q] for q in rescaled), default=1.0),
        "hbm": step.hbm_bytes, "ws": step.working_set_bytes,
        "bad": bool(not np.isfinite(step.l).all() or not np.isfinite(step.O).all()),
        "code": _code_panel(listed, show, pick(m0), pick(m1), step.rows[0], at),
    }
    if not rescales:  # a bug: what a correct run would have multiplied by, and how big s got
        should = rounded(np.where(np.isfinite(step.m_before), should, 1.0))
        frame["should"] = pick(should)
        frame["should_min"] = min((should[q] for q in rose), default=1.0)
        frame["mmax"] = rounded(np.max(step.m_after))
    return frame


def _code_line(panel: _Panel, rescale: bool) -> int:
    """The listing's line a step is about: where the bug bites, else the rescale when a
    row's max rose, else the running sum."""
    lines = panel.src.splitlines()

    def at(start):
        return next(n for n, line in enumerate(lines, 1) if line.lstrip().startswith(start))
    if panel.bug == "no_max":
        return at("P = np.exp")
    if panel.bug == "keep_full_S":
        return at("S_full[rows, cols]")
    if panel.bug in ("tiles_too_big", "tiles_too_small"):
        return at("hbm.sram")
    return panel.marks["alpha"] if rescale else panel.marks["l"]


def _code_panel(listed: dict, show: list[int], m0: list, m1: list, row0: int, at: int) -> CodePanel:
    """What the code panel shows at one step: the lines that ran since the previous step,
    the line the step is about, and m_tile, alpha, l of up to CODE_ROWS of the shown rows
    (those whose max rose first), as the listing itself computed them."""
    rose = [q for q in range(len(show)) if isinstance(m0[q], float) and _num(m1[q]) > m0[q]]
    picked = sorted((rose + [q for q in range(len(show)) if q not in rose])[:CODE_ROWS])
    offsets = [show[q] for q in picked]
    value = lambda name: [rounded(listed[name][o]) for o in offsets]  # noqa: E731
    return {"at": at, "ran": sorted(set(listed["ran"])), "rows": [row0 + o for o in offsets],
            "m_tile": value("m_tile"), "alpha": value("alpha"), "l": value("l")}


def tile_kinds(cfg: Config) -> list[list[int]]:
    """Each tile's kind under the config's mask (masks.EMPTY, PARTIAL, FULL), row block by row block: the
    players cross out an empty tile (never computed) and mark a partial one, so a masked tile is told from
    one past the last frame sent."""
    return cfg.mask.kinds(cfg.Br, cfg.Bc)


def flash_frames(cfg: Config, seed: int = 0, score_scale: float = 1.0,
                 reference: Config | None = None, max_frames: int = MAX_FRAMES,
                 bug: str | None = None, tau: float | None = None) -> FlashRun:
    """One frame per computed tile (tiles a mask leaves empty excluded), capped at max_frames.

    Each frame shows SHOW_ROWS rows of the block (see shown_rows) and counts over all of
    them. `reference`, if given, is a correct config run on the same inputs; its running
    sums go in each frame as l_true, so a bug's drift can be seen.

    The code panel's listing (flashviz.run.listing, edited by `bug`, or by the edit cfg's bug
    flags stand for) runs on the same inputs: each frame's "code" holds what it computed.

    `tau`, on a correct run: FlashAttention-4's lagging max on the same inputs and tiles
    (flashviz.run.rescale), each frame's rows marked with what its rule does there, and its counts
    over the run.
    """
    order = listing.listing_of(cfg)  # a window, documents or a sink: FA2_MASK (no block mask, no FA1 order)
    Q, K, V = teaching_inputs(cfg, seed, score_scale)
    trace: list = []
    O = flash_attention(Q, K, V, cfg, trace=trace)
    bug = bug or listing.bug_of(cfg)
    src = listing.source(order, bug)
    panel = _Panel(src, bug, listing.marks(src, order))
    _, _, steps = listing.record(cfg, Q, K, V, bug)
    true_trace: list = []
    if reference is not None:
        if (reference.Br, reference.Bc, reference.loop_order) != (cfg.Br, cfg.Bc, cfg.loop_order):
            raise ValueError("a reference run must use the same tiles and loop order, step for step")
        flash_attention(Q, K, V, reference, trace=true_trace)
    rescales = cfg.rescale and cfg.subtract_max
    lag_at: dict = {}
    lag = None
    if tau is not None and cfg == cfg.without_bugs():
        lag = rescale_attention(Q, K, V, cfg, tau, record=lag_at)
    frames: list[FlashFrame] = []
    kept = 0
    for k in range(min(len(trace), max_frames)):
        frame = _frame(trace, k, rescales, steps[k], panel, cfg.sink)
        if lag is not None:
            did, skip = lag_at[(trace[k].i, trace[k].j)]
            frame["lag"] = ["rescaled" if did[q] else "skipped" if skip[q] else "" for q in frame["show"]]
        if true_trace:
            frame["l_true"] = [rounded(true_trace[k].l[q]) for q in frame["show"]]
        if cfg.keep_full_S:  # bytes of score tiles copied to the n x n buffer so far
            kept += (trace[k].rows[1] - trace[k].rows[0]) * (trace[k].cols[1] - trace[k].cols[0])
            frame["kept"] = kept * cfg.element_bytes
        frames.append(frame)
    with np.errstate(invalid="ignore"):
        diff = float(np.abs(O - standard_attention(Q, K, V, cfg)).max())
    census = costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask)
    std = costs.standard_cost(cfg)
    first_bad = next((k for k, f in enumerate(frames) if f["bad"]), None)
    run: FlashRun = {
        "kind": "flash", "n": cfg.n, "d": cfg.d, "Br": cfg.Br, "Bc": cfg.Bc, "Tr": cfg.Tr, "Tc": cfg.Tc,
        "order": cfg.loop_order, "causal": cfg.causal, "kinds": tile_kinds(cfg), "first_rows": FIRST_ROWS,
        "budget": cfg.sram_bytes, "standard_bytes": std.hbm_bytes,
        "total_bytes": costs.flash_cost(cfg).hbm_bytes, "tiles": census.tiles,
        "capped": len(trace) > max_frames, "keep_full_S": cfg.keep_full_S,
        "rescales": rescales, "subtract_max": cfg.subtract_max,
        "final_diff": rounded(diff), "first_bad": first_bad, "frames": frames,
        "code": {"src": src, "marks": panel.marks, "bug": bug,
                 "edited": listing.changed_lines(bug, order) if bug else []},
    }
    if order == "fa2_mask":  # the player says which mask, how many tiles it skips, where the sum starts
        run["mask"] = mask_words(cfg)
        run["skipped"] = cfg.Tr * cfg.Tc - census.tiles
        if cfg.sink is not None:
            run["sink"] = rounded(cfg.sink)
    if lag is not None:
        run["tau"], run["lag_done"], run["lag_skipped"] = lag.tau, lag.done, lag.skips
        run["lag_peak"] = rounded(lag.peak_log2)
        run["lag_limit"] = overflow_tau("float16")   # unrounded: 15.9993, not 16
    return run


def mask_words(cfg: Config) -> str:
    """A config's mask as the player names it: "a causal window of 64 keys in 4 documents, a sink of 1"."""
    mask = cfg.mask
    if mask.left is not None or (mask.right not in (None, 0)):
        side = "a causal window" if mask.right == 0 else "a window"
        width = (f"of {mask.left + 1:,} keys" if mask.right == 0 and mask.left is not None
                 else f"(left {'all' if mask.left is None else mask.left}, right "
                      f"{'all' if mask.right is None else mask.right})")
        words = f"{side} {width}"
    else:
        words = "causal" if mask.right == 0 else "no mask"
    if len(mask.docs) > 1:
        words += f" in {len(mask.docs)} documents"
    if cfg.sink is not None:
        words += f", a sink of {cfg.sink:g}"
    return words


def standard_frames(cfg: Config) -> StandardRun:
    """Standard attention as passes over row blocks of the n x n matrices.

    Frame 0 reads Q and K; then for each row block: S written; S read and P
    written; P read with V and O written. Cumulative bytes end at 4nd + 4n^2.
    """
    n, d, eb = cfg.n, cfg.d, cfg.element_bytes
    moved = 2 * n * d
    frames: list[StandardFrame] = [{"phase": "read Q, K", "block": -1, "hbm": moved * eb, "peak": 0}]
    phases: tuple[tuple[StandardPhase, Callable[[int], int]], ...] = (  # elements moved for r rows
        ("write S", lambda r: r * n), ("read S, write P", lambda r: 2 * r * n),
        ("read P, V; write O", lambda r: r * n + r * d))
    for k, (label, elements) in enumerate(phases):
        for i, r0 in enumerate(range(0, n, cfg.Br)):
            r = min(r0 + cfg.Br, n) - r0
            moved += elements(r) + (n * d if k == 2 and i == 0 else 0)  # V is read once
            frames.append({"phase": label, "block": i, "hbm": moved * eb,
                           "peak": (min(r0 + r, n) if k == 0 else n) * n * eb})
    return {"kind": "standard", "n": n, "Br": cfg.Br, "Tr": cfg.Tr, "frames": frames,
            "standard_bytes": costs.standard_cost(cfg).hbm_bytes}


def payload(data: Payload) -> str:
    """The JSON the browser receives."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


TEACHING_N = (32, 64, 96, 128, 192, 256, 384, 512)
TEACHING_D = (4, 8, 16, 32)


def teaching_config(cfg: Config, n: int, d: int) -> tuple[Config, str | None]:
    """cfg at a teaching size: n and d as asked, tiles from cfg (cut to n), and n
    halved until the run has at most MAX_TRACE_TILES tiles. Returns (config, note)."""
    from ..run.trace import MAX_TRACE_TILES
    asked = n

    def steps(k: int) -> int:
        at = cfg.at_n(k)
        return at.Tr * at.Tc
    while n > 1 and steps(n) > MAX_TRACE_TILES:
        n //= 2
    out = cfg.at_n(n).with_(d=d, compute="float64")
    note = None
    if n != asked:
        note = (f"With {cfg.Br} × {cfg.Bc} tiles, n = {asked} has more than {MAX_TRACE_TILES} tile steps; "
                f"the animation uses n = {n}.")
    return out, note


MASK_PLAYER_BLOCKS = 8   # query and key blocks a side in the masks player: 64 tiles, a few crossed out
MASK_PLAYER_MOST_N = 2048
MASK_PLAYER_D = 16
MASK_SHAPES = ("window", "documents", "window in documents")


def mask_teaching_config(cfg: Config, window: int, docs, shape: str, sink: float | None) -> Config:
    """The masks player's run: cfg's tiles and data type, MASK_PLAYER_BLOCKS of the larger tile a side (n at
    most MASK_PLAYER_MOST_N, halved while the tiles number over 4 x MASK_PLAYER_BLOCKS²), d = MASK_PLAYER_D in
    float64, FlashAttention-2's order, causal, with `shape` of MASK_SHAPES: a causal window of `window` keys
    (cut to n), the documents `docs(n)` gives, or both; and the sink, if one is given."""
    if shape not in MASK_SHAPES:
        raise ValueError(f"the player's mask is one of {', '.join(MASK_SHAPES)}; got {shape!r}")
    n = min(MASK_PLAYER_BLOCKS * max(cfg.Br, cfg.Bc), MASK_PLAYER_MOST_N)
    at = cfg.at_n(n)
    while n > 1 and at.Tr * at.Tc > MASK_PLAYER_BLOCKS**2 * 4:  # tall, thin tiles: every tile a frame, none capped
        n //= 2
        at = cfg.at_n(n)
    at = at.with_(d=MASK_PLAYER_D, compute="float64", loop_order="fa2", causal=True, blocks=None,
                           window_left=min(window, n) - 1 if shape != "documents" else None, window_right=None,
                           docs=tuple(docs(n)) if shape != "window" else (), sink=sink)
    return at.without_bugs()


# The overflow bug only shows on large scores: scale them and compute in float32,
# whose exp overflows past e^88.7 (float16 would already at e^11).
OVERFLOW_SCALE = 30.0


def bug_frames(cfg: Config, bug: str) -> BugRun:
    """Frames of the broken run, with the correct run's l beside each step where the two
    take the same steps, and the correct tiles' total traffic for the HBM meter. The player
    opens at the first step; symptoms.at_symptom opens it where the bug's symptom first shows.

    Tiles too big would be one tile at the lesson's teaching n (512-wide tiles cut to n):
    that animation runs at n = BIG_TILE_STEPS x 512 instead, and says so in data["note"].
    """
    correct = cfg.without_bugs()
    note = None
    if bug == "tiles_too_big":
        big = BREAKS[bug](correct.with_(n=max(correct.n, 1 << 20))).Br  # the bug's own tile
        if correct.n < BIG_TILE_STEPS * big:
            note = f"n = {BIG_TILE_STEPS * big} here (at n = {correct.n}, {big}-wide tiles would be one step)."
            correct = correct.with_(n=BIG_TILE_STEPS * big)
    broken = BREAKS[bug](correct)
    scale = 1.0
    if bug == "no_max":
        correct, broken = correct.with_(compute="float32"), broken.with_(compute="float32")
        scale = OVERFLOW_SCALE
    # The correct l goes beside each step where it differs and means the same thing: only without
    # the rescale (other tiles take other steps; without the max l sums e^s, not e^(s - m)).
    data = flash_frames(broken, score_scale=scale, reference=correct if bug == "no_rescale" else None,
                        bug=bug)
    run: BugRun = {**data, "bug": bug, "headline": headline(bug, broken, scale), "score_scale": scale,
                   "note": note, "correct_bytes": costs.flash_cost(correct).hbm_bytes}
    return run


def headline(bug: str, broken: Config, score_scale: float = 1.0) -> str:
    """The player's first line for a bug: what was broken, in the run's own numbers. The
    player adds what the bug does at each step (l off the correct l, spill, overflow)."""
    fit = fits(costs.flash_cost(broken).working_set_bytes, broken.sram_bytes)
    return {
        "no_rescale": "Bug: the rescale e^(m_old − m_new) is dropped.",
        "tiles_too_big": f"Bug: {broken.Br} × {broken.Bc} tiles, " + (
            f"too big for {broken.sram_bytes // 1024} KB of SRAM." if not fit
            else f"which still fit this {broken.sram_bytes // 1024} KB budget: no spill."),
        "tiles_too_small": f"Bug: {broken.Br} × {broken.Bc} tiles, too small: more passes over HBM.",
        "keep_full_S": "Bug: every score tile is also copied to an n × n buffer in HBM.",
        "no_max": f"Bug: exp(s) without subtracting the max (scores ×{score_scale:g}, float32).",
    }[bug]
