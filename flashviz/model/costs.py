"""Closed forms that equal the counters of attention.py and backward.py.

Each term sums one rule of memory.py, the rule the simulator's line calls, over the
blocks or tiles it applies to. No loops over tiles: the causal sums are floor sums,
evaluated in O(log n), so any n up to 2^22 costs microseconds. tests/test_costs.py
checks every function here against a counted run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import masks
from . import memory as mem
from .config import Config
from .masks import Mask
from .memory import Cost


def floor_sum(count: int, m: int, a: int, b: int) -> int:
    """sum(floor((a*i + b) / m) for i in range(count)), for a, b >= 0, m >= 1."""
    total = 0
    while True:
        if a >= m:
            total += count * (count - 1) // 2 * (a // m)
            a %= m
        if b >= m:
            total += count * (b // m)
            b %= m
        y = a * count + b
        if y < m:
            return total
        count, b = divmod(y, m)
        m, a = a, m


@dataclass(frozen=True)
class Census:
    """How many tiles are computed, by shape. A shape is (rows, cols)."""

    counts: dict  # (rows, cols) -> number of computed tiles of that shape
    columns: dict  # cols -> number of key blocks of that width with at least one computed tile

    @property
    def tiles(self) -> int:
        return sum(self.counts.values())

    def total(self, f) -> int:
        """Sum of f(rows, cols) over every computed tile."""
        return sum(k * f(r, c) for (r, c), k in self.counts.items() if k)

    def largest(self, f) -> int:
        """The largest f(rows, cols) of a computed tile (0 if none is): Br x Bc's unless a block
        mask leaves only short ones."""
        return max((f(r, c) for (r, c), k in self.counts.items() if k), default=0)

    def key_blocks(self, f) -> int:
        """Sum of f(cols) over the key blocks some tile computes."""
        return sum(k * f(c) for c, k in self.columns.items() if k)


def per_block(n: int, B: int, f: Callable[[int], int]) -> int:
    """Sum of f(size) over the ceil(n / B) blocks of n rows: B each, the last one shorter."""
    full, last = divmod(n, B)
    return full * f(B) + (f(last) if last else 0)


def _floor_range(i0: int, i1: int, a: int, b: int, m: int) -> int:
    """sum(floor((a*i + b) / m) for i in range(i0, i1)), where a*i0 + b >= 0."""
    return floor_sum(i1 - i0, m, a, a * i0 + b) if i1 > i0 else 0


def _sum_first_blocks(mask: Mask, F: int, Br: int, Bc: int) -> int:
    """Sum over the F full query blocks i of lo(i Br) // Bc, their first key block: document by
    document, a constant while the document's start bounds it, a floor sum once the window does."""
    total = 0
    for s, length in zip(mask.starts, mask.docs or (mask.n,)):
        ia, ib = -(-s // Br), min(F, -(-(s + length) // Br))  # blocks whose first row is in it
        if ia >= ib:
            continue
        t = ib if mask.left is None else max(ia, min(ib, -(-(s + mask.left) // Br)))
        total += (t - ia) * (s // Bc) + _floor_range(t, ib, Br, -mask.left if mask.left else 0, Bc)
    return total


def _sum_last_blocks(mask: Mask, F: int, Br: int, Bc: int) -> int:
    """Sum over the F full query blocks i of hi(i Br + Br - 1) // Bc, their last key block: a
    floor sum while the window bounds it, then the document's last key."""
    total = 0
    for s, length in zip(mask.starts, mask.docs or (mask.n,)):
        e = s + length
        ia, ib = max(0, -(-(s - Br + 1) // Br)), min(F, max(0, -(-(e - Br + 1) // Br)))  # last row in it
        if ia >= ib:
            continue
        t = ia if mask.right is None else max(ia, min(ib, (e - Br - mask.right) // Br + 1))
        total += _floor_range(ia, t, Br, Br - 1 + (mask.right or 0), Bc) + (ib - t) * ((e - 1) // Bc)
    return total


def _reaching(mask: Mask, F: int, Br: int, key: int) -> int:
    """How many of the F full query blocks see key `key` or a later one (hi never decreases)."""
    lo, hi = 0, F  # the first block that does lies in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        if mask.hi(mid * Br + Br - 1) >= key:
            hi = mid
        else:
            lo = mid + 1
    return F - lo


def census(n: int, Br: int, Bc: int, mask: bool | Mask = False) -> Census:
    """The tiles a mask leaves to compute (False: none masked, True: causal), in closed form:
    query block i computes the key blocks lo(i Br) // Bc ... hi(last row) // Bc (masks.py), summed
    over the full query blocks by floor sums, document by document, plus the last short block."""
    if not isinstance(mask, Mask):
        mask = masks.causal(n) if mask else Mask(n)
    if mask.blocks is not None:
        return _block_census(mask, Br, Bc)
    F, last_rows = divmod(n, Br)
    Tc, last_cols = -(-n // Bc), n % Bc
    blocks = _sum_last_blocks(mask, F, Br, Bc) - _sum_first_blocks(mask, F, Br, Bc) + F
    partial = _reaching(mask, F, Br, (Tc - 1) * Bc) if last_cols else 0
    counts = {(Br, Bc): blocks - partial, (Br, last_cols): partial}
    if last_rows:  # the last, short query block
        seen = mask.key_blocks(F * Br, n, Bc)
        ends = bool(last_cols) and seen[-1] == Tc - 1
        counts[(last_rows, Bc)] = len(seen) - ends
        counts[(last_rows, last_cols)] = int(ends)
    # every key is seen by its own query, so every key block has a computed tile
    columns = {Bc: n // Bc, last_cols: 1 if last_cols else 0}
    return Census({shape: k for shape, k in counts.items() if k}, {c: k for c, k in columns.items() if k})


def _block_census(mask: Mask, Br: int, Bc: int) -> Census:
    """A block mask's tiles, each computed where the window and documents leave any key: the
    block mask is its own list, so its count is the list's."""
    n = mask.n
    counts: dict = {}
    widths: dict = {}
    for i, j in mask.blocks or ():
        r0, c0 = i * Br, j * Bc
        rows, cols = (r0, min(r0 + Br, n)), (c0, min(c0 + Bc, n))
        if mask.kind(i, j, rows, cols) != masks.EMPTY:
            shape = (rows[1] - rows[0], cols[1] - cols[0])
            counts[shape] = counts.get(shape, 0) + 1
            widths[j] = shape[1]
    columns: dict = {}
    for c in widths.values():
        columns[c] = columns.get(c, 0) + 1
    return Census(counts, columns)


SOFTMAX_OPS = 5  # per score: row max, subtract, exp, row sum, divide (attention.standard_attention)


def standard_kernels(cfg: Config) -> list[tuple[str, Cost]]:
    """Algorithm 0 as the kernels it runs, one per line of the algorithm: each reads its
    inputs from HBM and writes its output back. Their moved, flops and nonmatmul add up to
    standard_cost's. The causal mask is applied to S as the first kernel writes it (as in
    attention.standard_attention), so it is no pass of its own here; PyTorch's attention in
    the paper's Figure 1 (right) runs mask and dropout as kernels of their own."""
    n, d = cfg.n, cfg.d

    def kernel(moved: int, flops: int = 0, nonmatmul: int = 0) -> Cost:
        return Cost(moved=moved, spilled=0, flops=flops, nonmatmul=nonmatmul, peak=n * n,
                    working_set=0, element_bytes=cfg.element_bytes)
    return [
        ("S = QKᵀ", kernel(mem.read_Q_K(n, d) + mem.write_S(n), flops=2 * n * n * d)),      # line 1
        ("softmax", kernel(mem.read_S(n) + mem.write_P(n), nonmatmul=SOFTMAX_OPS * n * n)),  # line 2
        ("O = PV", kernel(mem.read_P_V(n, d) + mem.write_O(n, d), flops=2 * n * n * d)),     # line 3
    ]


def standard_cost(cfg: Config) -> Cost:
    """Algorithm 0: S and P make a round trip each through HBM. The sum of its kernels."""
    kernels = [cost for _, cost in standard_kernels(cfg)]
    return Cost(moved=sum(k.moved for k in kernels), spilled=0, flops=sum(k.flops for k in kernels),
                nonmatmul=sum(k.nonmatmul for k in kernels), peak=cfg.n * cfg.n, working_set=0,
                element_bytes=cfg.element_bytes)


def _update_ops(cfg: Config, r: int, c: int) -> int:
    """Non-matmul operations of one tile update (see _tile_update, _fa1_update)."""
    d = cfg.d
    ops = (3 + cfg.subtract_max) * r * c + r
    correct = cfg.rescale and cfg.subtract_max
    if cfg.loop_order == "fa2":
        return ops + (4 * r + 2 * r * d if correct else r + r * d)
    return ops + (8 * r + 4 * r * d if correct else r + 3 * r * d)


def _flash_moved(cfg: Config, tiles: Census) -> int:
    n, d = cfg.n, cfg.d
    if cfg.loop_order == "fa2":
        # Each query block loads Qi and writes Oi; each computed tile loads its Kj, Vj.
        moved = (per_block(n, cfg.Br, lambda r: mem.load_Qi(r, d) + mem.write_Oi(r, d))
                 + tiles.total(lambda r, c: mem.load_Kj_Vj(c, d)))
    else:
        # O, m, l initialised; each key block loads Kj, Vj once; each computed tile reads
        # Qi, Oi, mi, li and writes Oi, mi, li.
        moved = (mem.init_O_m_l(n, d) + tiles.key_blocks(lambda c: mem.load_Kj_Vj(c, d))
                 + tiles.total(lambda r, c: mem.read_Qi_Oi_mi_li(r, d) + mem.write_Oi_mi_li(r, d)))
    if cfg.sink is not None:  # the sink logit, read where m and l start
        moved += mem.load_sink() * (cfg.Tr if cfg.loop_order == "fa2" else 1)
    if cfg.keep_full_S:
        moved += tiles.total(mem.write_Sij)
    return moved


def flash_cost(cfg: Config) -> Cost:
    n, d = cfg.n, cfg.d
    tiles = census(n, cfg.Br, cfg.Bc, cfg.mask)
    M = cfg.sram_elements
    ws = tiles.largest(lambda r, c: mem.working_set(r, c, d))
    finals = n * d if cfg.loop_order == "fa2" else 0  # O / l, once per row
    return Cost(
        moved=_flash_moved(cfg, tiles),
        spilled=tiles.total(lambda r, c: mem.spill_elements(mem.working_set(r, c, d), M)),
        flops=tiles.total(lambda r, c: 4 * r * c * d),
        nonmatmul=tiles.total(lambda r, c: _update_ops(cfg, r, c)) + finals,
        peak=max(ws, n * n) if cfg.keep_full_S else ws,
        working_set=ws,
        element_bytes=cfg.element_bytes,
    )


def standard_backward_cost(cfg: Config) -> Cost:
    """Algorithm 3: P, dP and dS each cross HBM."""
    n, d = cfg.n, cfg.d
    moved = (mem.read_P_dO(n, d) + mem.write_dV(n, d) + mem.read_dO_V(n, d) + mem.write_dP(n)
             + mem.read_P_dP(n) + mem.write_dS(n) + mem.read_dS_K(n, d) + mem.write_dQ(n, d)
             + mem.read_dS_Q(n, d) + mem.write_dK(n, d))
    return Cost(moved=moved, spilled=0, flops=8 * n * n * d,
                nonmatmul=4 * n * n, peak=n * n, working_set=0,
                element_bytes=cfg.element_bytes)


def flash_backward_cost(cfg: Config) -> Cost:
    n, d = cfg.n, cfg.d
    tiles = census(n, cfg.Br, cfg.Bc, cfg.mask)
    ws = tiles.largest(lambda r, c: mem.backward_working_set(r, c, d))
    moved = (mem.read_dO_O(n, d) + mem.write_D(n) + mem.init_dQ(n, d)
             + per_block(n, cfg.Bc, lambda c: mem.load_Kj_Vj(c, d) + mem.write_dKj_dVj(c, d))
             + tiles.total(lambda r, c: mem.read_Qi_dOi_mi_li_Di(r, d) + mem.read_dQi(r, d)
                           + mem.write_dQi(r, d)))
    return Cost(
        moved=moved,
        spilled=0,
        flops=tiles.total(lambda r, c: 10 * r * c * d),
        nonmatmul=2 * n * d + tiles.total(lambda r, c: 5 * r * c + 2 * c * d + r * d),
        peak=ws, working_set=ws, element_bytes=cfg.element_bytes,
    )


def storing_backward_flops(cfg: Config) -> int:
    """Flops of a backward that kept P from the forward, over the same computed tiles
    as the recomputing one: four matmuls per tile (dV, dP, dQ, dK) instead of five."""
    return census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).total(lambda r, c: 8 * r * c * cfg.d)


def stored_for_backward(cfg: Config, method: str, include_O: bool = False) -> int:
    """Elements the forward leaves in HBM for the backward, the seed's way:
    Q, K, V plus P (standard) or m and l (flash). With include_O, also O, which the paper's
    recomputing backward (Algorithm 4) reads for D = rowsum(dO * O); the seed leaves it out."""
    n, d = cfg.n, cfg.d
    kept = n * n if method == "standard" else 2 * n
    return 3 * n * d + kept + (n * d if include_O and method == "flash" else 0)


def io_theorem(n: int, d: int, sram_elements: int) -> dict:
    """The orders of Theorem 2, with constant 1: standard Nd + N^2,
    FlashAttention N^2 d^2 / M (elements)."""
    return {"standard": n * d + n * n, "flash": n * n * d * d / sram_elements}


def kv_tokens_within(budget_bytes: float, d: int, element_bytes: int) -> int:
    """The longest sequence whose K and V for one head (2nd elements) fit in budget_bytes."""
    return int(budget_bytes // (2 * d * element_bytes))
