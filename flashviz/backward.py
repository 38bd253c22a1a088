"""Backward passes: one that stores P, one that recomputes it tile by tile.

Both return (dQ, dK, dV) for the loss <O, dO>, i.e. dO is the upstream gradient.
Bug flags of the config do not apply here: the backward is always correct.
"""
from __future__ import annotations

import numpy as np

from .attention import _prepare, causal_mask, last_key
from .config import Config
from .counters import Counters


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


def flash_backward(Q, K, V, O, m, l, dO, cfg: Config, counters: Counters | None = None):
    """Recomputing backward (FlashAttention-2 order: outer over K/V blocks).

    Only m and l per row were kept from the forward; S and P are rebuilt per
    tile. Five matmuls per tile against four in `standard_backward`.
    """
    Q, K, V, c = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    m, l = m.reshape(n, 1), l.reshape(n, 1)
    c.move(dO.size + O.size)             # read dO, O
    D = (dO * O).sum(axis=1, keepdims=True)  # equals rowsum(P * dP), without P
    c.elementwise(2 * dO.size)
    c.move(D.size)                       # write D
    dQ = np.zeros_like(Q)
    c.move(dQ.size)                      # initialise dQ in HBM
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
        dK[k0:k1], dV[k0:k1] = dKj, dVj
        c.move(dKj.size + dVj.size)      # write dKj, dVj to HBM
    return dQ, dK, dV
