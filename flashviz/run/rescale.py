"""FlashAttention-4's online softmax whose running max may lag: rescale only when it must.

FlashAttention-2's code multiplies l and O by e^(m_old - m_new) at every tile after a row's first, with no test
(csrc/flash_attn/src/softmax.h, softmax_rescale_o); the factor differs from 1 only at a tile whose scores raise the
row's max, so those are the rescales that change anything. FlashAttention-4's forward keeps the max it already
uses unless the new one is more than tau above it, tau in log2 units of the scores (8.0 for 16-bit inputs in
flash_attn/cute/flash_fwd_sm100.py; the test in softmax.py's SoftmaxSm100.update_row_max keeps the
old max while (m_old - m_new) * log2(e) >= -tau). It stays exact: every term of l and of O is taken
against the same max, the one in use, and the final O / l cancels whichever max that was. What it
costs is headroom: an unnormalised weight e^(s - m) can reach 2^tau instead of 1, and the kernel
stores P in the input's type before PV, so 2^tau must stay below that type's largest value.

`rescale_attention` is FlashAttention-2's tiled forward (attention._fa2's loop, its score tile and
mask) with that test per row; it moves the same bytes as `attention.flash_attention`, which counts
them. tau = 0 rescales at every new max: FlashAttention-2's multiplications, less those by 1 (`every_tile` counts
them all).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..model.config import Config
from ..model.memory import Counters
from .attention import _prepare, _score_tile

LOG2E = 1.0 / math.log(2.0)
# The threshold flash-attn-4's Blackwell forward uses for 16-bit inputs (0 for FP8), in log2 units.
KERNEL_TAU = 8.0
# The largest finite value of each storage type P may be cast to before PV (bfloat16: 8 significant bits
# under float32's exponent, (2 - 2^-7) 2^127, as flash_fwd_sm100.py's _LOG2_DTYPE_MAX writes it).
STORAGE_MAX = {"float16": 65504.0, "bfloat16": (2 - 2.0**-7) * 2.0**127,
               "float32": float(np.finfo(np.float32).max), "float64": float(np.finfo(np.float64).max)}


def overflow_tau(dtype: str) -> float:
    """The tau at which a weight 2^tau no longer fits the storage type: log2 of its largest value
    (15.9998 for float16, 128 for bfloat16 and float32)."""
    if dtype not in STORAGE_MAX:
        raise ValueError(f"dtype must be one of {', '.join(STORAGE_MAX)}, got {dtype!r}")
    return math.log2(STORAGE_MAX[dtype])


def check_tau(tau: float) -> float:
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not math.isfinite(tau) or tau < 0:
        raise ValueError(f"the threshold tau must be a finite number of log2 units, at least 0; got {tau!r}")
    return float(tau)


def lag_step(m_use, m_true, tile_max, tau: float):
    """One tile's max update for each row (arrays of one shape), FlashAttention-4's rule.

    m_use: the max the row's l and O are taken against; m_true: the row's true running max.
    Returns (m_use, m_true, corr, rescaled, skipped): corr multiplies l and O (1 where kept);
    rescaled marks rows whose max moved (the new max more than tau log2 units above the one in
    use); skipped marks rows whose true max rose but whose max in use stayed. At tau = 0 nothing
    is skipped, and at any tau a rescale happens only where the true max rose (the true max is
    never more than tau above the one in use), so rescaled + skipped is tau = 0's count.
    """
    cand = np.maximum(m_use, tile_max)
    rescaled = (cand - m_use) * LOG2E > tau
    rose = tile_max > m_true
    with np.errstate(invalid="ignore"):
        corr = np.where(rescaled, np.exp(m_use - cand), 1.0)
    return np.where(rescaled, cand, m_use), np.maximum(m_true, tile_max), corr, rescaled, rose & ~rescaled


@dataclass(frozen=True)
class RescaleRun:
    """A forward with threshold tau: its output, each row's statistics and rescale counts, and the
    largest unnormalised weight it met (log2), against the storage type's range."""

    O: np.ndarray
    m: np.ndarray          # (n,) the max each row's l and O ended against
    m_true: np.ndarray     # (n,) each row's true max
    l: np.ndarray          # (n,)
    rescaled: np.ndarray   # (n,) rescales done per row
    skipped: np.ndarray    # (n,) new maxima that did not rescale, per row
    tau: float
    dtype: str
    peak_log2: float       # log2 of the largest e^(s - m) any tile computed (at most tau)
    # rows times the tiles after each row's first: FlashAttention-2's code multiplies l and O by e^(m_old - m_new) at
    # each of them, with no test (csrc/flash_attn/src/softmax.h, softmax_rescale_o), by 1 where the max stayed
    every_tile: int = 0

    @property
    def done(self) -> int:
        return int(self.rescaled.sum())

    @property
    def skips(self) -> int:
        return int(self.skipped.sum())

    @property
    def every_new_max(self) -> int:
        """The rescales tau = 0 does on the same scores: one per tile that raised a row's max (of FlashAttention-2's
        every_tile multiplications, those by a factor other than 1)."""
        return self.done + self.skips

    @property
    def skip_share(self) -> float:
        return self.skips / self.every_new_max if self.every_new_max else 0.0

    @property
    def limit_log2(self) -> float:
        return overflow_tau(self.dtype)

    @property
    def headroom_log2(self) -> float:
        """log2 units between the largest weight tau allows (2^tau) and the type's largest value."""
        return self.limit_log2 - self.tau

    @property
    def in_range(self) -> bool:
        """Whether every weight tau allows stays below the storage type's largest value."""
        return self.tau < self.limit_log2


def _store(P: np.ndarray, dtype: str) -> np.ndarray:
    """P cast to its storage type before PV, saturating at the type's largest value (the kernel's
    Note [Low Precision Scaling]: the top weights saturate while the float32 sum counts them whole)."""
    if dtype in ("float64", "float32"):
        return P.astype(dtype).astype(np.float64)
    import ml_dtypes  # only the 16-bit types need it
    target = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    return np.minimum(P, STORAGE_MAX[dtype]).astype(target).astype(np.float64)


def rescale_attention(Q, K, V, cfg: Config, tau: float = KERNEL_TAU, store_p: bool = False,
                      record: dict | None = None) -> RescaleRun:
    """FlashAttention-2's tiled forward (Q-outer) with FlashAttention-4's conditional rescale.

    store_p=True casts each tile's P to cfg.dtype before PV, as the kernel does (the sum l stays in
    the compute type): past overflow_tau(cfg.dtype) the largest weights saturate and O shrinks.
    record, if given, receives (i, j) -> (rescaled, skipped): each row's flags at query block i's key
    tile j (all False on the first), for the tile player.
    """
    tau = check_tau(tau)
    Q, K, V, meter = _prepare(Q, K, V, cfg, Counters(cfg.element_bytes))
    n, d = Q.shape
    if (n, d) != (cfg.n, cfg.d) or K.shape != (n, d) or V.shape != (n, d):
        raise ValueError(f"Q, K, V must be ({cfg.n}, {cfg.d}) to match the config")
    O = np.empty_like(Q)
    stats = {k: np.empty(n) for k in ("m", "m_true", "l")}
    done, skipped = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    peak, every_tile = -np.inf, 0
    with np.errstate(over="ignore", invalid="ignore"):
        for i, r0 in enumerate(range(0, n, cfg.Br)):
            r1 = min(r0 + cfg.Br, n)
            Qi = Q[r0:r1]
            Oi = np.zeros((r1 - r0, d))
            m_use = np.full((r1 - r0, 1), -np.inf)
            m_true, li = m_use.copy(), np.zeros((r1 - r0, 1))
            for j in cfg.mask.key_blocks(r0, r1, cfg.Bc):  # the mask's key blocks (causal: up to the diagonal)
                k0, k1 = j * cfg.Bc, min(j * cfg.Bc + cfg.Bc, n)
                kind = cfg.mask.kind(i, j, (r0, r1), (k0, k1))
                S = _score_tile(Qi, K[k0:k1], (r0, r1), (k0, k1), cfg, meter, None, kind)   # (r, c)
                tile_max = S.max(axis=1, keepdims=True)
                if k0 == 0:          # the first tile sets the max: nothing to rescale yet
                    m_use, m_true, corr = tile_max, tile_max, np.ones_like(tile_max)
                    did = skip = np.zeros(tile_max.shape, dtype=bool)
                else:
                    m_use, m_true, corr, did, skip = lag_step(m_use, m_true, tile_max, tau)
                    every_tile += r1 - r0
                    done[r0:r1] += did.ravel()
                    skipped[r0:r1] += skip.ravel()
                if record is not None:
                    record[(i, j)] = (did.ravel(), skip.ravel())
                P = np.exp(S - m_use)                                  # up to 2^tau, not 1
                peak = max(peak, float(np.max(P)))
                li = corr * li + P.sum(axis=1, keepdims=True)
                Oi = corr * Oi + (_store(P, cfg.dtype) if store_p else P) @ V[k0:k1]
            O[r0:r1] = Oi / li              # the same max in every term of Oi and li: it cancels
            stats["m"][r0:r1], stats["m_true"][r0:r1], stats["l"][r0:r1] = m_use.ravel(), m_true.ravel(), li.ravel()
    return RescaleRun(O=O, m=stats["m"], m_true=stats["m_true"], l=stats["l"], rescaled=done, skipped=skipped,
                      tau=tau, dtype=cfg.dtype, peak_log2=math.log2(peak), every_tile=every_tile)


@dataclass(frozen=True)
class RowStep:
    """One block of a single row streamed with a lagging max (lesson 2's table)."""

    block: int
    block_max: float
    m_true: float
    m_use: float
    l: float
    rescaled: bool
    skipped: bool
    peak_log2: float   # log2 of the block's largest weight e^(s - m), m the max in use (at most tau)


def lagging_row(row, block: int, tau: float) -> tuple[np.ndarray, list[RowStep]]:
    """One row's softmax streamed in blocks with threshold tau: its weights and each block's step."""
    tau = check_tau(tau)
    row = np.asarray(row, dtype=np.float64)
    steps: list[RowStep] = []
    m_use = m_true = np.array(-np.inf)
    l = 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        for b, j in enumerate(range(0, len(row), block)):
            chunk = row[j:j + block]
            if b == 0:
                m_use = m_true = np.array(chunk.max())
                did = skip = np.array(False)
                corr = 1.0
            else:
                m_use, m_true, corr, did, skip = lag_step(m_use, m_true, np.array(chunk.max()), tau)
            l = float(corr) * l + float(np.exp(chunk - m_use).sum())
            steps.append(RowStep(b, float(chunk.max()), float(m_true), float(m_use), l, bool(did), bool(skip),
                                 float((chunk.max() - m_use) * LOG2E)))
    return np.exp(row - m_use) / l, steps


def reference_error(Q, K, V, O, causal: bool = False, rows: int = 512) -> float:
    """Largest |O - softmax(Q K^T) V| against float64 attention computed a block of rows at a time
    (so an 8192-long check holds rows x n scores, not n x n)."""
    Q, K, V = (np.asarray(x, np.float64) for x in (Q, K, V))
    n, worst = Q.shape[0], 0.0
    for r0 in range(0, n, rows):
        S = Q[r0:r0 + rows] @ K.T
        if causal:
            S[np.arange(S.shape[1])[None, :] > np.arange(r0, r0 + S.shape[0])[:, None]] = -np.inf
        P = np.exp(S - S.max(axis=1, keepdims=True))
        worst = max(worst, float(np.abs((P / P.sum(axis=1, keepdims=True)) @ V - O[r0:r0 + rows]).max()))
    return worst


def lagging_run(cfg: Config, spread: float, tau: float, seed: int = 0) -> RescaleRun:
    """The conditional-rescale forward on random_qkv's inputs at cfg, its scores' spread (std) `spread`
    (random_qkv's have unit variance: Q is scaled by it)."""
    from .attention import random_qkv
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    return rescale_attention(Q * spread, K, V, cfg.without_bugs(), tau)


@dataclass(frozen=True)
class SampledRescales:
    """The lagging max's counts over a sample of query blocks (`sampled_rescales`): per row as
    RescaleRun counts them, and per warp of `warp` rows, as FlashAttention-4's correction warps act
    (a warp rescales its rows' O when any of its rows' max moved)."""

    tau: float
    rows: int              # rows sampled
    slots: int             # (row, tile) pairs after each row's first tile: the rescales a max could ask for
    done: int
    skipped: int
    warp_slots: int        # (warp, tile) pairs after the first tile
    warp_done: int         # of those, where some row of the warp rescaled

    @property
    def every_new_max(self) -> int:
        return self.done + self.skipped

    @property
    def skip_share(self) -> float:
        return self.skipped / self.every_new_max if self.every_new_max else 0.0

    @property
    def warp_rate(self) -> float:
        """Share of (warp, tile) pairs that rescale O."""
        return self.warp_done / self.warp_slots if self.warp_slots else 0.0


KEY_CHUNK = 16384   # keys drawn and scored at a time: a long call's K never whole in memory


def sampled_inputs(n: int, d: int, blocks: int, Br: int = 128, seed: int = 0):
    """The sampled query blocks' first rows, their Q rows, and K in chunks of KEY_CHUNK keys: unit-variance
    scores as random_qkv's (entries N(0, 1) / d^(1/4)), K drawn chunk by chunk from one stream, Q's rows
    from another. Blocks spread evenly over the n rows, the last among them (and the first, for two or more)."""
    Tr = -(-n // Br)
    # spread evenly from the last block (under a causal mask, the one that computes every key tile) back to
    # the first
    picks = sorted({Tr - 1 - round(k * (Tr - 1) / max(blocks - 1, 1)) for k in range(min(blocks, Tr))})
    q_rng = np.random.default_rng([seed, 1])
    Q = {i * Br: q_rng.standard_normal((min(Br, n - i * Br), d)) / d**0.25 for i in picks}

    def keys():
        k_rng = np.random.default_rng([seed, 2])
        for k0 in range(0, n, KEY_CHUNK):
            yield k0, k_rng.standard_normal((min(KEY_CHUNK, n - k0), d)) / d**0.25
    return Q, keys


@lru_cache(maxsize=16)
def _block_maxima(n: int, d: int, causal: bool, Br: int, Bc: int, blocks: int, seed: int) -> np.ndarray:
    """Each sampled row's max score in each key tile (rows, tiles), unit spread; -inf for a tile a causal row
    does not reach (a spread s > 0 scales every max by s). Kept: a page asks for the counts at every
    threshold and spread its sliders offer, on the same scores."""
    if KEY_CHUNK % Bc:
        raise ValueError(f"Bc = {Bc} must divide the key chunk of {KEY_CHUNK}")
    Q, keys = sampled_inputs(n, d, blocks, Br, seed)
    starts = sorted(Q)
    rows = np.concatenate([Q[r0] for r0 in starts])
    row_ids = np.concatenate([np.arange(r0, r0 + len(Q[r0])) for r0 in starts])
    T = -(-n // Bc)
    out = np.full((len(rows), T), -np.inf)
    for k0, K in keys():
        S = rows @ K.T
        if causal:
            S[k0 + np.arange(len(K))[None, :] > row_ids[:, None]] = -np.inf
        pad = -len(K) % Bc
        if pad:
            S = np.concatenate([S, np.full((len(rows), pad), -np.inf)], axis=1)
        out[:, k0 // Bc:k0 // Bc + S.shape[1] // Bc] = S.reshape(len(rows), -1, Bc).max(axis=2)
    out.setflags(write=False)
    return out


def lagging_events(maxima: np.ndarray, tau: float) -> np.ndarray:
    """Where FlashAttention-4's rule rescales, from each row's tile maxima (rows, tiles): True at (row, t)
    when tile t's max is more than tau log2 units above the max in use, which it then becomes. lag_step's
    test tile by tile, taken event by event: the max in use only moves at a rescale, so each pass finds
    every row's next one at once."""
    rows, T = maxima.shape
    events = np.zeros((rows, T), dtype=bool)
    m_use = maxima[:, 0].copy()
    after = np.zeros(rows, dtype=np.int64)            # tiles up to here are decided
    idx = np.arange(T)[None, :]
    live = np.ones(rows, dtype=bool)
    with np.errstate(invalid="ignore"):
        while live.any():
            ahead = (maxima - m_use[:, None]) * LOG2E > tau
            ahead &= idx > after[:, None]
            hit = ahead.any(axis=1)
            t = ahead.argmax(axis=1)
            live = hit
            r = np.nonzero(hit)[0]
            events[r, t[r]] = True
            m_use[r] = maxima[r, t[r]]
            after[r] = t[r]
    return events


def sampled_rescales(n: int, d: int, tau: float, spread: float = 1.0, causal: bool = False, Br: int = 128,
                     Bc: int = 128, blocks: int = 4, warp: int = 32, seed: int = 0) -> SampledRescales:
    """rescale_attention's counts for the rows of `blocks` query blocks (sampled_inputs, Q scaled by
    `spread`), without the rest of the forward: each row's tile maxima, then the lagging max's rule
    (lagging_events). Its rows' counts equal rescale_attention's on the same inputs (tests/test_rescale.py),
    and it is cheap enough at every n lesson 13 offers: past 65,536 keys it takes one block."""
    tau = check_tau(tau)
    if not (isinstance(spread, (int, float)) and math.isfinite(spread) and spread > 0):
        raise ValueError(f"the scores' spread must be a positive number, got {spread!r}")
    if Br % warp:
        raise ValueError(f"Br = {Br} must be a multiple of the warp's {warp} rows")
    maxima = _block_maxima(n, d, causal, Br, Bc, blocks if n <= 65536 else 1, seed) * spread
    events = lagging_events(maxima, tau)[:, 1:]
    with np.errstate(invalid="ignore"):
        rose = maxima[:, 1:] > np.maximum.accumulate(maxima, axis=1)[:, :-1]
    reached = np.isfinite(maxima[:, 1:])
    done, rises = int(events.sum()), int(rose.sum())
    rows = maxima.shape[0]
    pad = ((0, -rows % warp), (0, 0))   # a short last block: its last warp holds fewer rows
    by_warp = np.pad(events, pad).reshape(-1, warp, events.shape[1]).any(axis=1)
    warp_reached = np.pad(reached, pad).reshape(-1, warp, events.shape[1]).any(axis=1)
    return SampledRescales(tau, rows, int(reached.sum()), done, rises - done, int(warp_reached.sum()),
                           int(by_warp.sum()))
