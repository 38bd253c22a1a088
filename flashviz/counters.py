"""The memory model: what crosses between HBM and SRAM, and what is computed.

Everything is counted in elements; `Cost.hbm_bytes` converts with the element
size of the config's dtype. The counting rules are the seed's:
  move(k)          k elements cross HBM <-> SRAM (a read or a write)
  matmul(m, k, n)  2*m*k*n flops (one multiply and one add per term)
  scratch(k)       a buffer of k elements is live; keep the peak
and two of ours:
  spill(k)         k elements of a working set over budget make a round trip
  elementwise(k)   k non-matmul operations (max, subtract, exp, sum, scale)
"""
from __future__ import annotations

from dataclasses import dataclass


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
    """Mutable tallies that the NumPy algorithms update as they run."""

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

    def matmul(self, m: int, k: int, n: int) -> None:
        self.flops += 2 * m * k * n

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
