"""Frames for the backward player, built from a traced run of `flash_backward`.

One frame per step of the recomputing backward: D = rowsum(dO * O) formed once, then each
computed tile (S and P rebuilt from Q, K and the stored m and l; dVj, dKj added in SRAM;
dQi read, updated and written back), and dKj, dVj written when their key block is done.
Each frame carries the first rows and keys of its blocks (column 0 of each gradient),
the cumulative bytes and flops, and one entry of the tile worked through. Numbers are
rounded like the forward player's (animation.rounded); the tests compare at that rounding.
"""
from __future__ import annotations

import numpy as np

from ..model import costs
from .animation import MAX_FRAMES, tile_kinds, rounded, teaching_inputs
from ..run.attention import flash_attention, standard_attention
from ..run.backward import flash_backward, standard_backward
from ..model.config import Config
from .player_schema import BackwardDFrame, BackwardRun, BackwardTileFrame, BackwardWriteFrame, Worked

SHOW = 4  # query rows and keys shown per step: the first of each block, the same ones every time


def upstream_gradient(cfg: Config, seed: int = 0) -> np.ndarray:
    """dO, the gradient arriving from above (the loss is <O, dO>), as tests/test_backward.py draws it."""
    return np.random.default_rng(seed + 1).standard_normal((cfg.n, cfg.d))


def traced_backward(cfg: Config, seed: int = 0):
    """(inputs, gradients, trace) of the recomputing backward on the teaching inputs."""
    Q, K, V = teaching_inputs(cfg, seed)
    dO = upstream_gradient(cfg, seed)
    O, m, l = flash_attention(Q, K, V, cfg, stats=True)
    trace: list = []
    grads = flash_backward(Q, K, V, O, m, l, dO, cfg, trace=trace)
    return (Q, K, V, O, m, l, dO), grads, trace


def _worked(step, m, l, D) -> Worked:
    """The entry of the shown rows with the largest |dS| (the one that moves the gradients
    most), worked through: P = e^(S - m) / l, dS = P (dP - D)."""
    shown = step.dS[:SHOW]
    q, c = np.unravel_index(int(np.argmax(np.abs(shown))), shown.shape)
    row, key = step.rows[0] + int(q), step.cols[0] + int(c)
    return {"row": row, "key": key, "S": rounded(step.S[q, c]), "m": rounded(m[row]), "l": rounded(l[row]),
            "P": rounded(step.P[q, c]), "dP": rounded(step.dP[q, c]), "D": rounded(D[row]),
            "dS": rounded(step.dS[q, c])}


class _Running:
    """Column 0 of dQ, dK, dV and each row's sum of P over the keys seen so far,
    as the frames go: the "before" of each step."""

    def __init__(self, n: int):
        self.dq, self.dk, self.dv, self.psum = (np.zeros(n) for _ in range(4))


def _tile_frame(step, run: _Running, m, l, D, stored_flops: int) -> BackwardTileFrame:
    (r0, r1), (k0, k1) = step.rows, step.cols
    rows, keys = slice(r0, r0 + min(SHOW, r1 - r0)), slice(k0, k0 + min(SHOW, k1 - k0))
    qs, ks = rows.stop - r0, keys.stop - k0
    psum1 = run.psum[rows] + step.P[:qs].sum(axis=1)
    frame: BackwardTileFrame = {
        "kind": "tile", "i": step.i, "j": step.j, "rows": [r0, r1], "cols": [k0, k1],
        "m": rounded(m[rows]), "l": rounded(l[rows]), "D": rounded(D[rows]),
        "ps0": rounded(run.psum[rows]), "ps1": rounded(psum1),
        "dq0": rounded(run.dq[rows]), "dq1": rounded(step.dQi[:qs, 0]),
        "dv0": rounded(run.dv[keys]), "dv1": rounded(step.dVj[:ks, 0]),
        "dk0": rounded(run.dk[keys]), "dk1": rounded(step.dKj[:ks, 0]),
        "w": _worked(step, m, l, D), "hbm": step.hbm_bytes, "flops": step.flops,
        "stored_flops": stored_flops,
    }
    run.psum[r0:r1] += step.P.sum(axis=1)
    run.dq[r0:r1] = step.dQi[:, 0]
    run.dk[k0:k1], run.dv[k0:k1] = step.dKj[:, 0], step.dVj[:, 0]
    return frame


def backward_frames(cfg: Config, seed: int = 0, max_frames: int = MAX_FRAMES) -> BackwardRun:
    """Every step of the recomputing backward as numbers, capped at max_frames.

    Bug flags of the config are dropped: the backward reads a correct forward's m and l.
    """
    cfg = cfg.without_bugs()
    (Q, K, V, O, m, l, dO), grads, trace = traced_backward(cfg, seed)
    D = trace[0].D
    run, stored_flops = _Running(cfg.n), 0
    frames: list[BackwardDFrame | BackwardTileFrame | BackwardWriteFrame] = []
    for step in trace[:max_frames]:
        if step.kind == "D":
            show = slice(0, min(SHOW, cfg.Br))  # the first query block (Br <= n, as Config holds)
            frames.append({"kind": "D", "rows": [0, cfg.Br], "D": rounded(D[show]),
                           "m": rounded(m[show]), "l": rounded(l[show]),
                           "hbm": step.hbm_bytes, "flops": 0, "stored_flops": 0})
        elif step.kind == "tile":
            (r0, r1), (k0, k1) = step.rows, step.cols
            stored_flops += 8 * (r1 - r0) * (k1 - k0) * cfg.d  # four matmuls where P was kept
            frames.append(_tile_frame(step, run, m, l, D, stored_flops))
        else:
            k0, k1 = step.cols
            keys = slice(k0, k0 + min(SHOW, k1 - k0))
            frames.append({"kind": "write", "j": step.j, "cols": [k0, k1],
                           "dv1": rounded(step.dVj[:keys.stop - k0, 0]),
                           "dk1": rounded(step.dKj[:keys.stop - k0, 0]),
                           "hbm": step.hbm_bytes, "flops": step.flops, "stored_flops": stored_flops})
    _, P = standard_attention(Q, K, V, cfg, return_P=True)
    stored = standard_backward(Q, K, V, P, dO, cfg)
    diff = max(float(np.abs(a - b).max()) for a, b in zip(grads, stored))
    cost = costs.flash_backward_cost(cfg)
    return {
        "n": cfg.n, "d": cfg.d, "Br": cfg.Br, "Bc": cfg.Bc, "Tr": cfg.Tr, "Tc": cfg.Tc,
        "kinds": tile_kinds(cfg), "dtype": cfg.dtype, "show": SHOW,
        "total_bytes": cost.hbm_bytes, "total_flops": cost.flops,
        "standard_bytes": costs.standard_backward_cost(cfg).hbm_bytes,
        "stored_total_flops": costs.storing_backward_flops(cfg),
        "tiles": costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles,
        "capped": len(trace) > max_frames, "final_diff": rounded(diff), "frames": frames,
    }
