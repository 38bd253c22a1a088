"""Backward passes: one that stores P, one that recomputes it tile by tile.

Both return (dQ, dK, dV) for the loss <O, dO>, i.e. dO is the upstream gradient.
Bug flags of the config do not apply here: the backward is always correct.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import memory as mem
from ..model import masks
from .attention import _prepare
from ..model.config import Config
from ..model.memory import Counters
from .trace import check_traceable


def standard_backward(Q, K, V, P, dO, cfg: Config, counters: Counters | None = None):
    """The paper's Algorithm 3: P was stored by the forward; three more n x n
    matrices (dP, dS and P again) cross HBM. Moves 7n^2 + 8nd, 4 matmuls."""
    Q, K, V, meter = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    meter.move(mem.read_P_dO(n, d))      # read P, dO
    dV = P.T @ dO
    meter.matmul(n, n, d)
    meter.move(mem.write_dV(n, d))       # write dV
    meter.move(mem.read_dO_V(n, d))      # read dO, V
    dP = dO @ V.T
    meter.matmul(n, d, n)
    meter.move(mem.write_dP(n))          # write dP
    meter.scratch(dP.size)
    meter.move(mem.read_P_dP(n))         # read P, dP
    D = (P * dP).sum(axis=1, keepdims=True)
    dS = P * (dP - D)                    # softmax's Jacobian, row by row
    meter.elementwise(4 * P.size)
    meter.move(mem.write_dS(n))          # write dS
    meter.move(mem.read_dS_K(n, d))      # read dS, K
    dQ = dS @ K
    meter.matmul(n, n, d)
    meter.move(mem.write_dQ(n, d))       # write dQ
    meter.move(mem.read_dS_Q(n, d))      # read dS, Q
    dK = dS.T @ Q
    meter.matmul(n, n, d)
    meter.move(mem.write_dK(n, d))       # write dK
    return dQ, dK, dV


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


def _record(trace: list, meter: Counters, kind: str, i=-1, j=-1, rows=(0, 0), cols=(0, 0), ws=0, **arrays):
    fields = {f: None for f in ("D", "S", "P", "dP", "dS", "dQi", "dKj", "dVj")}
    fields.update({k: v.copy() for k, v in arrays.items()})
    trace.append(BackwardStep(kind=kind, i=i, j=j, rows=rows, cols=cols, hbm_bytes=meter.hbm_bytes,
                              flops=meter.flops, working_set_bytes=ws * meter.element_bytes, **fields))


def flash_backward(Q, K, V, O, m, l, dO, cfg: Config, counters: Counters | None = None,
                   trace: list | None = None):
    """Recomputing backward (FlashAttention-2 order: outer over K/V blocks).

    Only m and l per row were kept from the forward; S and P are rebuilt per
    tile. Five matmuls per tile against four in `standard_backward`.
    Pass a list as `trace` to get one BackwardStep per step (bounded like the
    forward's trace); the results and counts are the same either way.
    """
    Q, K, V, meter = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    if trace is not None:
        check_traceable(cfg.Tr * cfg.Tc)
    m, l = m.reshape(n, 1), l.reshape(n, 1)
    # a row that saw no key (only a block mask leaves one) has m = -inf, l = 0 and P = 0
    m, l = np.where(np.isneginf(m), 0.0, m), np.where(l == 0, 1.0, l)
    kinds = cfg.mask.kinds(cfg.Br, cfg.Bc)  # which tiles the mask leaves (no data read)
    meter.move(mem.read_dO_O(n, d))      # read dO, O
    D = (dO * O).sum(axis=1, keepdims=True)  # equals rowsum(P * dP), without P
    meter.elementwise(2 * dO.size)
    meter.move(mem.write_D(n))           # write D
    dQ = np.zeros_like(Q)
    meter.move(mem.init_dQ(n, d))        # initialise dQ in HBM
    if trace is not None:
        _record(trace, meter, "D", D=D.ravel())
    dK, dV = np.empty_like(K), np.empty_like(V)
    for k0 in range(0, n, cfg.Bc):
        k1 = min(k0 + cfg.Bc, n)
        c = k1 - k0
        Kj, Vj = K[k0:k1], V[k0:k1]
        meter.move(mem.load_Kj_Vj(c, d))     # load Kj, Vj to SRAM
        dKj, dVj = np.zeros_like(Kj), np.zeros_like(Vj)
        for r0 in range(0, n, cfg.Br):
            r1 = min(r0 + cfg.Br, n)
            kind = kinds[r0 // cfg.Br][k0 // cfg.Bc]
            if kind == masks.EMPTY:
                continue                 # fully masked tile: skipped
            r = r1 - r0
            Qi, dOi = Q[r0:r1], dO[r0:r1]
            meter.move(mem.read_Qi_dOi_mi_li_Di(r, d))   # read Qi, dOi, mi, li, Di
            ws = mem.backward_working_set(r, c, d)
            meter.tile(ws)
            S = Qi @ Kj.T                # recompute the score tile
            meter.matmul(r, d, c)
            if kind == masks.PARTIAL:
                S[~cfg.mask.visible((r0, r1), (k0, k1))] = -np.inf
            P = np.exp(S - m[r0:r1]) / l[r0:r1]
            dVj += P.T @ dOi
            meter.matmul(c, r, d)
            dP = dOi @ Vj.T
            meter.matmul(r, d, c)
            dS = P * (dP - D[r0:r1])
            meter.elementwise(5 * r * c + 2 * c * d + r * d)  # P, dS, three adds
            meter.move(mem.read_dQi(r, d))   # read dQi
            dQ[r0:r1] += dS @ Kj
            meter.matmul(r, c, d)
            meter.move(mem.write_dQi(r, d))  # write dQi
            dKj += dS.T @ Qi
            meter.matmul(c, r, d)
            if trace is not None:
                _record(trace, meter, "tile", r0 // cfg.Br, k0 // cfg.Bc, (r0, r1), (k0, k1), ws,
                        S=S, P=P, dP=dP, dS=dS, dQi=dQ[r0:r1], dKj=dKj, dVj=dVj)
        dK[k0:k1], dV[k0:k1] = dKj, dVj
        meter.move(mem.write_dKj_dVj(c, d))  # write dKj, dVj to HBM
        if trace is not None:
            _record(trace, meter, "write", -1, k0 // cfg.Bc, (0, 0), (k0, k1), dKj=dKj, dVj=dVj)
    return dQ, dK, dV
