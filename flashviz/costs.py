"""Closed forms that equal the counters of attention.py and backward.py.

No loops over tiles: the causal sums are floor sums, evaluated in O(log n),
so any n up to 2^22 costs microseconds. tests/test_costs.py checks every
function here against a counted run.
"""
from __future__ import annotations

from dataclasses import dataclass

from .attention import SPILL_TRIPS
from .backward import backward_working_set
from .config import Config, working_set
from .counters import Cost


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

    @property
    def tiles(self) -> int:
        return sum(self.counts.values())

    def total(self, f) -> int:
        """Sum of f(rows, cols) over every computed tile."""
        return sum(k * f(r, c) for (r, c), k in self.counts.items() if k)


def census(n: int, Br: int, Bc: int, causal: bool) -> Census:
    full_rows, last_rows = divmod(n, Br)
    Tc = -(-n // Bc)
    last_cols = n % Bc
    if causal:
        # Row block i (last row (i+1)Br - 1) computes floor(((i+1)Br - 1)/Bc) + 1 key blocks.
        blocks = floor_sum(full_rows, Bc, Br, Br - 1 + Bc)
        first_full = -(-((Tc - 1) * Bc + 1) // Br) - 1  # first row block that sees block Tc-1
        reach_last = max(0, full_rows - max(0, first_full))
    else:
        blocks = full_rows * Tc
        reach_last = full_rows
    partial = reach_last if last_cols else 0
    counts = {(Br, Bc): blocks - partial}
    counts[(Br, last_cols)] = partial
    if last_rows:  # the last, short row block sees every key block
        counts[(last_rows, Bc)] = Tc - (1 if last_cols else 0)
        counts[(last_rows, last_cols)] = 1 if last_cols else 0
    return Census({shape: k for shape, k in counts.items() if k})


def standard_cost(cfg: Config) -> Cost:
    n, d = cfg.n, cfg.d
    return Cost(moved=4 * n * d + 4 * n * n, spilled=0, flops=4 * n * n * d,
                nonmatmul=5 * n * n, peak=n * n, working_set=0,
                element_bytes=cfg.element_bytes)


def _update_ops(cfg: Config, r: int, c: int) -> int:
    """Non-matmul operations of one tile update (see _tile_update, _fa1_update)."""
    d = cfg.d
    ops = (3 + cfg.subtract_max) * r * c + r
    correct = cfg.rescale and cfg.subtract_max
    if cfg.loop_order == "fa2":
        return ops + (4 * r + 2 * r * d if correct else r + r * d)
    return ops + (8 * r + 4 * r * d if correct else r + 3 * r * d)


def flash_cost(cfg: Config) -> Cost:
    n, d = cfg.n, cfg.d
    tiles = census(n, cfg.Br, cfg.Bc, cfg.causal)
    budget = cfg.sram_elements
    if cfg.loop_order == "fa2":
        # Q in, each computed tile's K and V in, O out.
        moved = 2 * n * d + tiles.total(lambda r, c: 2 * c * d)
        finals = n * d  # O / l, once per row
    else:
        # O, m, l initialised; K, V in once; every tile reads Qi, Oi, mi, li and writes Oi, mi, li.
        moved = (n * d + 2 * n) + 2 * n * d + tiles.total(lambda r, c: 3 * r * d + 4 * r)
        finals = 0
    if cfg.keep_full_S:
        moved += tiles.total(lambda r, c: r * c)
    ws = working_set(cfg.Br, cfg.Bc, d)
    return Cost(
        moved=moved,
        spilled=tiles.total(lambda r, c: SPILL_TRIPS * max(0, working_set(r, c, d) - budget)),
        flops=tiles.total(lambda r, c: 4 * r * c * d),
        nonmatmul=tiles.total(lambda r, c: _update_ops(cfg, r, c)) + finals,
        peak=max(ws, n * n) if cfg.keep_full_S else ws,
        working_set=ws,
        element_bytes=cfg.element_bytes,
    )


def forward_cost(cfg: Config, method: str) -> Cost:
    if method == "standard":
        return standard_cost(cfg)
    if method == "flash":
        return flash_cost(cfg)
    raise ValueError(f"method must be 'standard' or 'flash', got {method!r}")


def standard_backward_cost(cfg: Config) -> Cost:
    n, d = cfg.n, cfg.d
    return Cost(moved=7 * n * n + 8 * n * d, spilled=0, flops=8 * n * n * d,
                nonmatmul=4 * n * n, peak=n * n, working_set=0,
                element_bytes=cfg.element_bytes)


def flash_backward_cost(cfg: Config) -> Cost:
    n, d = cfg.n, cfg.d
    tiles = census(n, cfg.Br, cfg.Bc, cfg.causal)
    ws = backward_working_set(cfg.Br, cfg.Bc, d)
    return Cost(
        moved=7 * n * d + n + tiles.total(lambda r, c: (4 * d + 3) * r),
        spilled=0,
        flops=tiles.total(lambda r, c: 10 * r * c * d),
        nonmatmul=2 * n * d + tiles.total(lambda r, c: 5 * r * c + 2 * c * d + r * d),
        peak=ws, working_set=ws, element_bytes=cfg.element_bytes,
    )


def storing_backward_flops(cfg: Config) -> int:
    """Flops of a backward that kept P from the forward, over the same computed tiles
    as the recomputing one: four matmuls per tile (dV, dP, dQ, dK) instead of five."""
    return census(cfg.n, cfg.Br, cfg.Bc, cfg.causal).total(lambda r, c: 8 * r * c * cfg.d)


def stored_for_backward(cfg: Config, method: str, include_O: bool = False) -> int:
    """Elements the forward leaves in HBM for the backward, the seed's way:
    Q, K, V plus P (standard) or m and l (flash). With include_O, also O,
    which our recomputing backward reads for D = rowsum(dO * O)."""
    n, d = cfg.n, cfg.d
    kept = n * n if method == "standard" else 2 * n
    return 3 * n * d + kept + (n * d if include_O and method == "flash" else 0)


def io_theorem(n: int, d: int, sram_elements: int) -> dict:
    """The orders of Theorem 2, with constant 1: standard Nd + N^2,
    FlashAttention N^2 d^2 / M (elements)."""
    return {"standard": n * d + n * n, "flash": n * n * d * d / sram_elements}
