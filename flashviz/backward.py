"""Backward passes: one that stores P, one that recomputes it tile by tile.

Both return (dQ, dK, dV) for the loss <O, dO>, i.e. dO is the upstream gradient.
Bug flags of the config do not apply here: the backward is always correct.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import _prepare, causal_mask, last_key
from .config import Config
from .counters import Counters
from .trace import check_traceable


def standard_backward(Q, K, V, P, dO, cfg: Config, counters: Counters | None = None):
    """The paper's Algorithm 3: P was stored by the forward; three more n x n
    matrices (dP, dS and P again) cross HBM. Moves 7n^2 + 8nd, 4 matmuls."""
    Q, K, V, c = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    c.move(P.size + dO.size)             # read P, dO
    dV = P.T @ dO
    c.matmul(n, n, d)
    c.move(dV.size)                      # write dV
    c.move(dO.size + V.size)             # read dO, V
    dP = dO @ V.T
    c.matmul(n, d, n)
    c.move(dP.size)                      # write dP
    c.scratch(dP.size)
    c.move(P.size + dP.size)             # read P, dP
    D = (P * dP).sum(axis=1, keepdims=True)
    dS = P * (dP - D)                    # softmax's Jacobian, row by row
    c.elementwise(4 * P.size)
    c.move(dS.size)                      # write dS
    c.move(dS.size + K.size)             # read dS, K
    dQ = dS @ K
    c.matmul(n, n, d)
    c.move(dQ.size)                      # write dQ
    c.move(dS.size + Q.size)             # read dS, Q
    dK = dS.T @ Q
    c.matmul(n, n, d)
    c.move(dK.size)                      # write dK
    return dQ, dK, dV


def backward_working_set(rows: int, cols: int, d: int) -> int:
    """SRAM of one backward tile step: Kj, Vj, dKj, dVj, Qi, dOi, dQi,
    two score-sized tiles (P, then dS over dP) and m, l, D."""
    return 4 * cols * d + 3 * rows * d + 2 * rows * cols + 3 * rows


@dataclass(frozen=True)
class BackwardStep:
    """One step of `flash_backward`, for pictures: "D" (D formed, dQ zeroed), "tile" (tile
    (i, j) recomputed and its gradients added) or "write" (dKj, dVj written to HBM).
    Arrays are copies taken after the step; None where the step has none."""

    kind: str
    i: int                       # query block (-1 for "D" and "write")
    j: int                       # key/value block (-1 for "D")
    rows: tuple[int, int]        # [start, stop) of the query rows
    cols: tuple[int, int]        # [start, stop) of the key rows
    D: np.ndarray | None         # (n,) rowsum(dO * O), on "D"
    S: np.ndarray | None         # (r, c) scores rebuilt as Qi Kj^T (masked: -inf)
    P: np.ndarray | None         # (r, c) e^(S - m) / l, from the stored m and l
    dP: np.ndarray | None        # (r, c) dOi Vj^T
    dS: np.ndarray | None        # (r, c) P * (dP - D)
    dQi: np.ndarray | None       # (r, d) dQ of the rows, after the step
    dKj: np.ndarray | None       # (c, d) dK of the keys so far
    dVj: np.ndarray | None       # (c, d) dV of the keys so far
    hbm_bytes: int               # cumulative bytes moved HBM <-> SRAM
    flops: int                   # cumulative matmul flops
    working_set_bytes: int       # SRAM working set of this step (0 outside tiles)


def _record(trace: list, c: Counters, kind: str, i=-1, j=-1, rows=(0, 0), cols=(0, 0), ws=0, **arrays):
    fields = {f: None for f in ("D", "S", "P", "dP", "dS", "dQi", "dKj", "dVj")}
    fields.update({k: v.copy() for k, v in arrays.items()})
    trace.append(BackwardStep(kind=kind, i=i, j=j, rows=rows, cols=cols, hbm_bytes=c.hbm_bytes,
                              flops=c.flops, working_set_bytes=ws * c.element_bytes, **fields))


def flash_backward(Q, K, V, O, m, l, dO, cfg: Config, counters: Counters | None = None,
                   trace: list | None = None):
    """Recomputing backward (FlashAttention-2 order: outer over K/V blocks).

    Only m and l per row were kept from the forward; S and P are rebuilt per
    tile. Five matmuls per tile against four in `standard_backward`.
    Pass a list as `trace` to get one BackwardStep per step (bounded like the
    forward's trace); the results and counts are the same either way.
    """
    Q, K, V, c = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    if trace is not None:
        check_traceable(cfg.Tr * cfg.Tc)
    m, l = m.reshape(n, 1), l.reshape(n, 1)
    c.move(dO.size + O.size)             # read dO, O
    D = (dO * O).sum(axis=1, keepdims=True)  # equals rowsum(P * dP), without P
    c.elementwise(2 * dO.size)
    c.move(D.size)                       # write D
    dQ = np.zeros_like(Q)
    c.move(dQ.size)                      # initialise dQ in HBM
    if trace is not None:
        _record(trace, c, "D", D=D.ravel())
    dK, dV = np.empty_like(K), np.empty_like(V)
    for k0 in range(0, n, cfg.Bc):
        k1 = min(k0 + cfg.Bc, n)
        cols = k1 - k0
        Kj, Vj = K[k0:k1], V[k0:k1]
        c.move(Kj.size + Vj.size)        # load Kj, Vj to SRAM
        dKj, dVj = np.zeros_like(Kj), np.zeros_like(Vj)
        for r0 in range(0, n, cfg.Br):
            r1 = min(r0 + cfg.Br, n)
            if k0 >= last_key(r1, n, cfg.causal):
                continue                 # fully masked tile: skipped
            r = r1 - r0
            Qi, dOi = Q[r0:r1], dO[r0:r1]
            c.move(Qi.size + dOi.size + 3 * r)   # read Qi, dOi, mi, li, Di
            c.tile(backward_working_set(r, cols, d))
            S = Qi @ Kj.T                # recompute the score tile
            c.matmul(r, d, cols)
            if cfg.causal:
                mask = causal_mask((r0, r1), (k0, k1))
                if mask is not None:
                    S[mask] = -np.inf
            P = np.exp(S - m[r0:r1]) / l[r0:r1]
            dVj += P.T @ dOi
            c.matmul(cols, r, d)
            dP = dOi @ Vj.T
            c.matmul(r, d, cols)
            dS = P * (dP - D[r0:r1])
            c.elementwise(5 * r * cols + 2 * cols * d + r * d)  # P, dS, three adds
            c.move(r * d)                # read dQi
            dQ[r0:r1] += dS @ Kj
            c.matmul(r, cols, d)
            c.move(r * d)                # write dQi
            dKj += dS.T @ Qi
            c.matmul(cols, r, d)
            if trace is not None:
                _record(trace, c, "tile", r0 // cfg.Br, k0 // cfg.Bc, (r0, r1), (k0, k1),
                        backward_working_set(r, cols, d), S=S, P=P, dP=dP, dS=dS,
                        dQi=dQ[r0:r1], dKj=dKj, dVj=dVj)
        dK[k0:k1], dV[k0:k1] = dKj, dVj
        c.move(dKj.size + dVj.size)      # write dKj, dVj to HBM
        if trace is not None:
            _record(trace, c, "write", -1, k0 // cfg.Bc, (0, 0), (k0, k1), dKj=dKj, dVj=dVj)
    return dQ, dK, dV
