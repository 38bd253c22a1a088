"""The memory model in one place: every rule that counts what crosses HBM <-> SRAM, what
sits in SRAM during a tile step, and what happens when it does not fit.

The simulators (attention.py, backward.py, decode.py) call a rule on the line whose data
crosses; the closed forms (costs.py) sum the same rules over the blocks and tiles, so the
two read side by side, and next to the paper's algorithms.

Counted in elements; bytes are elements times the storage type's size. Notation as in
the paper: N (n here) rows, head dimension d, SRAM budget M in elements, Br x Bc tiles,
Tr = ceil(N / Br) query blocks, Tc = ceil(N / Bc) key/value blocks. A per-tile rule takes
the tile's rows r and columns c: Br and Bc, or fewer on a last, short block.

Where each rule comes from:
  seed   the seed post's counting, whose demos print these figures
  Alg 0  standard attention, FlashAttention paper (Dao et al. 2022), Algorithm 0
  Alg 1  FlashAttention's forward, same paper, Algorithm 1 (K/V blocks outside)
  Alg 3  standard attention's backward, same paper, Appendix B (Algorithm 3)
  FA2    FlashAttention-2's order (Dao 2023), also the seed's: Q blocks outside, O divided by l once
  ours   this project's documented choices, where the sources leave the count open
"""
from __future__ import annotations

from dataclasses import dataclass
from math import ceil

# --- The meter ------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    """Totals of one run, simulated or from a closed form."""

    moved: int        # elements moved HBM <-> SRAM by the algorithm itself
    spilled: int      # elements moved because the working set did not fit
    flops: int        # matmul flops
    nonmatmul: int    # elementwise operations outside the matmuls
    peak: int         # largest buffer live at once, elements (seed's "peak")
    working_set: int  # largest SRAM working set of a tile step, elements
    element_bytes: int

    @property
    def hbm_elements(self) -> int:
        return self.moved + self.spilled

    @property
    def hbm_bytes(self) -> int:
        return self.hbm_elements * self.element_bytes

    @property
    def peak_bytes(self) -> int:
        return self.peak * self.element_bytes

    @property
    def working_set_bytes(self) -> int:
        return self.working_set * self.element_bytes

    @property
    def bytes_per_flop(self) -> float:
        return self.hbm_bytes / self.flops


class Counters:
    """Mutable tallies that the NumPy algorithms update as they run (seed):
      move(k)          k elements cross HBM <-> SRAM (a read or a write)
      matmul(r, k, c)  an (r, k) @ (k, c) product: 2 r k c flops, a multiply and an add per term
      scratch(k)       a buffer of k elements is live; keep the peak
    and ours: spill(k), traffic of a working set over budget; elementwise(k), non-matmul operations
    (max, subtract, exp, sum, scale); tile(ws), one tile step's working set."""

    def __init__(self, element_bytes: int = 4):
        self.element_bytes = element_bytes
        self.moved = 0
        self.spilled = 0
        self.flops = 0
        self.nonmatmul = 0
        self.peak = 0
        self.working_set = 0

    def move(self, elements: int) -> None:
        self.moved += int(elements)

    def spill(self, elements: int) -> None:
        self.spilled += int(elements)

    def matmul(self, rows: int, inner: int, cols: int) -> None:
        self.flops += 2 * rows * inner * cols

    def elementwise(self, ops: int) -> None:
        self.nonmatmul += int(ops)

    def scratch(self, elements: int) -> None:
        self.peak = max(self.peak, int(elements))

    def tile(self, elements: int) -> None:
        """Record one tile step's SRAM working set (it is also scratch)."""
        self.working_set = max(self.working_set, int(elements))
        self.scratch(elements)

    @property
    def hbm_bytes(self) -> int:
        return (self.moved + self.spilled) * self.element_bytes

    def snapshot(self) -> Cost:
        return Cost(self.moved, self.spilled, self.flops, self.nonmatmul,
                    self.peak, self.working_set, self.element_bytes)


# --- Tiles ----------------------------------------------------------------------------

def clamp_tiles(n: int, Br: int, Bc: int, keys: int | None = None) -> tuple[int, int]:
    """(Br, Bc) cut to what they tile: Br to the n query rows, Bc to the keys (n unless
    given). A tile never holds more rows than exist (ours: a tile size set once stands at
    every n of a sweep)."""
    return min(Br, n), min(Bc, n if keys is None else keys)


def paper_block_sizes(M: int, d: int) -> tuple[int, int]:
    """Alg 1, line 1: Bc = ceil(M / 4d), Br = min(ceil(M / 4d), d). Returns (Br, Bc).

    M is on-chip memory in ELEMENTS, not bytes."""
    if M < 1 or d < 1:
        raise ValueError("M and d must be positive")
    Bc = ceil(M / (4 * d))
    return min(Bc, d), Bc


# --- What must sit in SRAM, and what happens when it does not fit ----------------------

def working_set(r: int, c: int, d: int) -> int:
    """Elements in SRAM for one forward tile step: Qi + Kj + Vj + Sij + m + l (seed).
    The output accumulator Oi is not counted: real kernels keep it in registers."""
    return r * d + 2 * c * d + r * c + 2 * r


def backward_working_set(r: int, c: int, d: int) -> int:
    """SRAM of one backward tile step (ours): Kj, Vj, dKj, dVj, Qi, dOi, dQi, two
    score-sized tiles (P, then dS over dP) and m, l, D."""
    return 4 * c * d + 3 * r * d + 2 * r * c + 3 * r


def kernel_smem(Br: int, Bc: int, d: int, stages: int = 1) -> int:
    """Shared memory of a real kernel's thread block (ours; it matches what Nsight Compute
    reported for every kernel measured): Qi plus `stages` copies of Kj and Vj."""
    return Br * d + 2 * stages * Bc * d


def fits(ws: float, budget: float) -> bool:
    """A working set fits when it is at most the budget, both in elements or both in bytes
    (seed: its "fits SRAM?" column)."""
    return ws <= budget


SPILL_TRIPS = 4  # see spill_elements


def spill_elements(ws: int, budget: int) -> int:
    """Extra traffic of one tile step whose working set is over the budget (ours).

    The ws - M elements that do not fit live in HBM and make the four trips the score
    matrix makes in standard attention: written after Q K^T, read for the softmax,
    written as P, read for P V."""
    return SPILL_TRIPS * max(0, ws - budget)


# --- Standard attention, forward (Alg 0): S and P make a round trip each ----------------

def read_Q_K(n: int, d: int) -> int:
    return 2 * n * d           # line 1: load Q, K


def write_S(n: int) -> int:
    return n * n               # line 1: write S = Q K^T


def read_S(n: int) -> int:
    return n * n               # line 2: read S for the softmax


def write_P(n: int) -> int:
    return n * n               # line 2: write P = softmax(S)


def read_P_V(n: int, d: int) -> int:
    return n * n + n * d       # line 3: load P, V


def write_O(n: int, d: int) -> int:
    return n * d               # line 3: write O = P V


# --- FlashAttention forward, FA2 order (the seed's loop): Qi stays, Kj and Vj stream past it ---

def load_Qi(r: int, d: int) -> int:
    return r * d               # once per query block


def load_Kj_Vj(c: int, d: int) -> int:
    return 2 * c * d           # per computed tile (FA2); Alg 1 line 6: once per key block


def write_Oi(r: int, d: int) -> int:
    return r * d               # once per query block, after dividing by l


def load_sink() -> int:
    return 1                   # a head's sink logit: once per query block (FA2), once per run (Alg 1)


# --- FlashAttention forward, Alg 1 order: Kj, Vj stay; O, m, l go back to HBM every step ----

def init_O_m_l(n: int, d: int) -> int:
    return n * d + 2 * n       # line 2: O = 0, l = 0, m = -inf in HBM


def read_Qi_Oi_mi_li(r: int, d: int) -> int:
    return 2 * r * d + 2 * r   # line 8: per tile


def write_Oi_mi_li(r: int, d: int) -> int:
    return r * d + 2 * r       # lines 12-13: per tile; also a split-KV chunk's partial (decode)


def write_Sij(r: int, c: int) -> int:
    return r * c               # the keep_full_S bug: every score tile also written to HBM


# --- Standard backward (Alg 3): P was stored; dP and dS make round trips too ---------------

def read_P_dO(n: int, d: int) -> int:
    return n * n + n * d       # line 1: for dV = P^T dO


def write_dV(n: int, d: int) -> int:
    return n * d


def read_dO_V(n: int, d: int) -> int:
    return 2 * n * d           # line 2: for dP = dO V^T


def write_dP(n: int) -> int:
    return n * n


def read_P_dP(n: int) -> int:
    return 2 * n * n           # line 3: for dS = P * (dP - rowsum(P * dP))


def write_dS(n: int) -> int:
    return n * n


def read_dS_K(n: int, d: int) -> int:
    return n * n + n * d       # line 4: for dQ = dS K


def write_dQ(n: int, d: int) -> int:
    return n * d


def read_dS_Q(n: int, d: int) -> int:
    return n * n + n * d       # line 5: for dK = dS^T Q


def write_dK(n: int, d: int) -> int:
    return n * d


# --- FlashAttention backward (FA2's order, K/V blocks outside; ours in detail): S, P recomputed ---

def read_dO_O(n: int, d: int) -> int:
    return 2 * n * d           # for D = rowsum(dO * O)


def write_D(n: int) -> int:
    return n


def init_dQ(n: int, d: int) -> int:
    return n * d               # dQ = 0 in HBM: every tile adds to it


def read_Qi_dOi_mi_li_Di(r: int, d: int) -> int:
    return 2 * r * d + 3 * r   # per tile


def read_dQi(r: int, d: int) -> int:
    return r * d               # per tile, to add this tile's dS Kj


def write_dQi(r: int, d: int) -> int:
    return r * d               # per tile


def write_dKj_dVj(c: int, d: int) -> int:
    return 2 * c * d           # once per key block, after its last tile
