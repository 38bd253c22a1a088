"""Which keys each query sees: the masks real models run with, as one rule.

A mask here is FlashAttention's: a sliding window (left, right) around the query, inside the
packed document the query belongs to, optionally cut further by a block mask over tiles.

  window   key j is seen by query i iff i - left <= j <= i + right (flash-attn's
           `window_size=(left, right)`, flash_attn/cute/mask.py; None is its -1, unbounded).
           No mask is (None, None); causal is (None, 0); gpt-oss's 128-token window is (127, 0).
  docs     packed documents: the lengths of the sequences laid end to end in one row of
           n tokens (flash-attn's `cu_seqlens`); a query sees keys of its own document only.
  blocks   a block mask: the (query block, key block) tiles that may be computed at all
           (FlashAttention's block-sparse attention); the others are empty whatever the window.

Because left and right are at least 0, every query sees itself, and the keys one query sees
form one interval [lo(q), hi(q)], with lo and hi never decreasing in q. So a block of query rows
[r0, r1) sees the keys [lo(r0), hi(r1 - 1)], every one of them seen by some row of the block:
its tiles with any key in that range are computed, the others are empty (never loaded, never
multiplied), and a computed tile is full when its first row already sees its last key and its
last row still sees its first (lo(r1 - 1) <= c0 and hi(r0) >= c1 - 1), partial otherwise.
flash-attn's block_info.py (get_n_block_min_max) takes the same range of key blocks per
query block. costs.census sums it in closed form; the runs in flashviz/run call it per tile.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

import numpy as np

EMPTY, PARTIAL, FULL = 0, 1, 2  # a tile's kind, as the players draw it
KINDS = ("empty", "partial", "full")


@dataclass(frozen=True)
class Mask:
    n: int                            # sequence length (queries and keys)
    left: int | None = None           # keys before the query it sees; None: all of them
    right: int | None = None          # keys after it; None: all; 0: causal
    docs: tuple[int, ...] = ()        # packed documents' lengths, summing to n; (): one document
    blocks: frozenset | None = None   # (i, j) tiles a block mask allows; None: every tile

    def __post_init__(self):
        for name in ("left", "right"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"window {name} must be a whole number of keys, at least 0 "
                                 f"(or unbounded), got {value!r}")
        if self.docs:
            if any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in self.docs):
                raise ValueError(f"each document needs at least one token, got {list(self.docs)}")
            if sum(self.docs) != self.n:
                raise ValueError(f"the documents' lengths add up to {sum(self.docs)}, not n = {self.n}")

    @property
    def is_full(self) -> bool:
        """No mask at all: every query sees every key."""
        return self.left is None and self.right is None and len(self.docs) <= 1 and self.blocks is None

    @cached_property
    def starts(self) -> tuple[int, ...]:
        """First token of each document (0 alone for one document)."""
        return (0, *accumulate(self.docs[:-1])) if self.docs else (0,)

    def _doc(self, q: int) -> tuple[int, int]:
        """[start, stop) of the document holding token q."""
        if not self.docs:
            return 0, self.n
        k = bisect_right(self.starts, q) - 1
        return self.starts[k], self.starts[k] + self.docs[k]

    def lo(self, q: int) -> int:
        """The first key query q sees."""
        start = self._doc(q)[0]
        return start if self.left is None else max(start, q - self.left)

    def hi(self, q: int) -> int:
        """The last key query q sees."""
        stop = self._doc(q)[1]
        return stop - 1 if self.right is None else min(stop - 1, q + self.right)

    def key_blocks(self, r0: int, r1: int, Bc: int) -> range:
        """The key blocks a block of query rows [r0, r1) has any key in: the window's range
        (before a block mask)."""
        return range(self.lo(r0) // Bc, self.hi(r1 - 1) // Bc + 1)

    def kind(self, i: int, j: int, rows: tuple[int, int], cols: tuple[int, int]) -> int:
        """EMPTY, PARTIAL or FULL for tile (i, j) over rows [r0, r1) and keys [c0, c1)."""
        (r0, r1), (c0, c1) = rows, cols
        if self.blocks is not None and (i, j) not in self.blocks:
            return EMPTY
        if c0 > self.hi(r1 - 1) or c1 - 1 < self.lo(r0):
            return EMPTY
        return FULL if self.lo(r1 - 1) <= c0 and self.hi(r0) >= c1 - 1 else PARTIAL

    def bounds(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """lo and hi of many queries at once."""
        starts = np.array(self.starts)
        k = np.searchsorted(starts, q, side="right") - 1
        start, stop = starts[k], (starts[k] + np.array(self.docs)[k] if self.docs else np.full_like(q, self.n))
        lo = start if self.left is None else np.maximum(start, q - self.left)
        hi = stop - 1 if self.right is None else np.minimum(stop - 1, q + self.right)
        return lo, hi

    def visible(self, rows: tuple[int, int], cols: tuple[int, int]) -> np.ndarray:
        """(rows, cols) booleans: True where the query sees the key (the window and the
        documents; a block mask acts on whole tiles, through `kind`)."""
        lo, hi = self.bounds(np.arange(*rows))
        k = np.arange(*cols)[None, :]
        return (k >= lo[:, None]) & (k <= hi[:, None])

    def hidden(self, rows: tuple[int, int], cols: tuple[int, int]) -> np.ndarray | None:
        """Where a computed tile's scores are set to -inf, or None for a full tile."""
        seen = self.visible(rows, cols)
        return None if seen.all() else ~seen

    def dense(self, Br: int = 1, Bc: int = 1) -> np.ndarray:
        """The (n, n) mask standard attention applies: True where the query sees the key; a
        block mask's tiles are Br x Bc."""
        seen = self.visible((0, self.n), (0, self.n))
        if self.blocks is not None:
            allowed = np.zeros((-(-self.n // Br), -(-self.n // Bc)), dtype=bool)
            for i, j in self.blocks:
                allowed[i, j] = True
            seen &= allowed.repeat(Br, axis=0)[:self.n].repeat(Bc, axis=1)[:, :self.n]
        return seen

    def kinds(self, Br: int, Bc: int) -> list[list[int]]:
        """Every tile's kind, row block by row block: what the players draw."""
        if self.is_full:
            return [[FULL] * -(-self.n // Bc) for _ in range(0, self.n, Br)]
        out = []
        for i, r0 in enumerate(range(0, self.n, Br)):
            r1 = min(r0 + Br, self.n)
            out.append([self.kind(i, j, (r0, r1), (c0, min(c0 + Bc, self.n)))
                        for j, c0 in enumerate(range(0, self.n, Bc))])
        return out


def window(n: int, left: int | None, right: int | None, causal: bool = False,
           docs: tuple[int, ...] = (), blocks: frozenset | None = None) -> Mask:
    """The mask of a config: causal is the window (None, 0), as flash-attn's interface resolves it
    (`_resolve_causal_local_window`: causal sets window_size_right = 0)."""
    return Mask(n, left, 0 if causal else right, tuple(docs), blocks)


def causal(n: int) -> Mask:
    return Mask(n, None, 0)


def parse_window(text: str) -> tuple[int | None, int | None]:
    """"LEFT,RIGHT" as flash-attn writes window_size: -1 (or an empty side) for unbounded."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2:
        raise ValueError(f"a window is LEFT,RIGHT (two whole numbers, -1 for unbounded), got {text!r}")
    out: list[int | None] = []
    for p in parts:
        try:
            value = int(p) if p else -1
        except ValueError:
            raise ValueError(f"a window is LEFT,RIGHT (two whole numbers, -1 for unbounded), got {text!r}") from None
        if value < -1:
            raise ValueError(f"a window side is at least 0, or -1 for unbounded; got {value}")
        out.append(None if value == -1 else value)
    return out[0], out[1]


def parse_docs(text: str) -> tuple[int, ...]:
    """"LEN,LEN,...": the lengths of the packed documents."""
    try:
        docs = tuple(int(p) for p in str(text).split(",") if p.strip())
    except ValueError:
        raise ValueError(f"documents are lengths separated by commas, such as 512,256,256; got {text!r}") from None
    if not docs or any(k < 1 for k in docs):
        raise ValueError(f"each document needs at least one token; got {text!r}")
    return docs
