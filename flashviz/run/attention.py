"""Attention, really computed in NumPy, with every HBM <-> SRAM crossing counted.

Each `meter.move(...)` sits on the line whose data crosses and names its rule in
memory.py, the rule costs.py sums, so the code reads as the cost model. Scores are
softmax(Q K^T) V as the paper writes it; inputs from `random_qkv` fold the 1/sqrt(d)
scale into Q and K.
"""
from __future__ import annotations

import math

import numpy as np

from ..model import masks
from ..model import memory as mem
from . import trace as tr
from ..model.config import Config
from ..model.memory import Counters


# The largest x whose exp(x) a type can hold: ln of its largest finite value, taken in float64 (np.log of
# a float16 or float32 scalar computes in that type: 11.09375 for float16, whose true limit is 11.0899).
# bfloat16 keeps float32's 8-bit exponent with 8 significant bits, so its largest value is (2 - 2**-7) * 2**127.
EXP_LIMIT = {"float64": math.log(float(np.finfo(np.float64).max)),
             "float32": math.log(float(np.finfo(np.float32).max)),
             "bfloat16": math.log((2 - 2.0**-7) * 2.0**127),
             "float16": math.log(float(np.finfo(np.float16).max))}


def random_qkv(n: int, d: int, seed: int = 0, dtype=np.float64):
    """Q, K, V whose scores Q K^T have unit variance (the 1/sqrt(d) scale)."""
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((n, d)) / d**0.25
    K = rng.standard_normal((n, d)) / d**0.25
    V = rng.standard_normal((n, d))
    return Q.astype(dtype), K.astype(dtype), V.astype(dtype)


def random_row(length: int = 32, seed: int = 1, spread: float = 3.0) -> np.ndarray:
    """One row of scores; the defaults give the seed's demo 2 row digit for digit."""
    return np.random.default_rng(seed).standard_normal(length) * spread


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Softmax that subtracts the max first, so exp never overflows."""
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def masked_softmax(S: np.ndarray) -> np.ndarray:
    """Softmax of each row; a row that sees no key at all (only a block mask leaves one) is 0,
    as FlashAttention's kernels write it (flash_attn/cute/softmax.py: a zero row sum scales by 1)."""
    seen = ~np.isneginf(S.max(axis=1, keepdims=True))
    with np.errstate(invalid="ignore"):
        return np.where(seen, softmax(np.where(seen, S, 0.0)), 0.0)


def _prepare(Q, K, V, cfg: Config, counters: Counters | None):
    dt = np.dtype(cfg.compute)
    meter = counters if counters is not None else Counters(cfg.element_bytes)
    return Q.astype(dt, copy=False), K.astype(dt, copy=False), V.astype(dt, copy=False), meter


def standard_attention(Q, K, V, cfg: Config, counters: Counters | None = None,
                       return_P: bool = False):
    """Algorithm 0 of the paper: S and P go through HBM. 4nd + 4n^2 elements moved, peak n^2."""
    Q, K, V, meter = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    meter.move(mem.read_Q_K(n, d))       # read Q, K from HBM
    S = Q @ K.T                          # (n, n)
    meter.matmul(n, d, n)
    if not cfg.mask.is_full:
        S[~cfg.mask.dense(cfg.Br, cfg.Bc)] = -np.inf
    meter.move(mem.write_S(n))           # write S to HBM
    meter.scratch(S.size)
    meter.move(mem.read_S(n))            # read S back for the softmax
    if cfg.sink is not None:             # gpt-oss: the sink is one more column of the softmax, then dropped
        P = masked_softmax(np.concatenate([S, np.full((n, 1), cfg.sink)], axis=1))[:, :n]
    else:
        P = masked_softmax(S)
    meter.elementwise(5 * n * n)         # row max, subtract, exp, row sum, divide (the sink's column: ours, uncounted)
    meter.move(mem.write_P(n))           # write P to HBM
    meter.move(mem.read_P_V(n, d))       # read P and V
    O = P @ V
    meter.matmul(n, n, d)
    meter.move(mem.write_O(n, d))        # write O to HBM
    return (O, P) if return_P else O


def online_softmax(row, block: int = 8, rescale: bool = True, subtract_max: bool = True,
                   steps: list | None = None, sink: float | None = None):
    """Softmax of one row, streamed in blocks with a running max m and sum l.

    The second pass at the end only rebuilds the weights for comparison;
    attention never needs it, because it accumulates O as it goes.
    `steps`, if given, receives (m, l) after each block. With a `sink` logit the running sum
    starts from it: m = sink and l = e^(sink - m) = 1, rescaled with m like any term, so the
    weights add up to 1 - e^(sink - m) / l, what the sink takes.
    """
    row = np.asarray(row, dtype=np.float64)
    m, l = (-np.inf, 0.0) if sink is None else (float(sink), 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        for j in range(0, len(row), block):
            chunk = row[j:j + block]
            m_new = max(m, chunk.max())
            if not subtract_max:                 # THE BUG: baseline 0, exp overflows
                l = l + np.exp(chunk).sum()
            elif rescale:
                l = l * np.exp(m - m_new) + np.exp(chunk - m_new).sum()
            else:                                # THE BUG: old terms keep their old baseline
                l = l + np.exp(chunk - m_new).sum()
            m = m_new
            if steps is not None:
                steps.append((float(m), float(l)))
        return (np.exp(row - m) if subtract_max else np.exp(row)) / l


def _tile_update(S, Vj, m, l, O, cfg: Config, meter: Counters):
    """The online softmax update of FlashAttention-2 on one (r, cols) tile.

    O stays unnormalised; it is divided by l once, after the last tile.
    """
    r, cols = S.shape
    d = Vj.shape[1]
    m_new = np.maximum(m, S.max(axis=1, keepdims=True))    # (r, 1)
    meter.elementwise(r * cols + r)
    # a row that has seen no key yet (a window's edge) keeps m = -inf: exp against 0 gives it P = 0
    m_use = np.where(np.isneginf(m_new), 0.0, m_new)
    if cfg.subtract_max:
        P = np.exp(S - m_use)                              # (r, cols) in SRAM only
        meter.elementwise(2 * r * cols)
    else:
        P = np.exp(S)                                      # THE BUG: may overflow to inf
        meter.elementwise(r * cols)
    l_tile = P.sum(axis=1, keepdims=True)
    meter.elementwise(r * cols)
    PV = P @ Vj
    meter.matmul(r, cols, d)
    if cfg.rescale and cfg.subtract_max:
        corr = np.exp(m - m_use)     # the load-bearing line: e^(m_old - m_new)
        l = corr * l + l_tile
        O = corr * O + PV            # O is a weighted sum whose weights just moved
        meter.elementwise(4 * r + 2 * r * d)
    else:                            # no correction: terms on different baselines
        l = l + l_tile
        O = O + PV
        meter.elementwise(r + r * d)
    return m_new, l, O


def _fa1_update(S, Vj, m, l, O, cfg: Config, meter: Counters):
    """Algorithm 1 of the paper (FlashAttention-1): O is kept normalised,
    so every step divides by the new l and multiplies back the old one.
    """
    r, cols = S.shape
    d = Vj.shape[1]
    m_tile = S.max(axis=1, keepdims=True)
    meter.elementwise(r * cols)
    if cfg.subtract_max:
        # a causal row can be fully masked in this tile: its max is -inf, its P zero
        P = np.exp(S - np.where(np.isneginf(m_tile), 0.0, m_tile))
        meter.elementwise(2 * r * cols)
    else:
        P = np.exp(S)                                      # THE BUG
        meter.elementwise(r * cols)
    l_tile = P.sum(axis=1, keepdims=True)
    m_new = np.maximum(m, m_tile)
    meter.elementwise(r * cols + r)
    PV = P @ Vj
    meter.matmul(r, cols, d)
    if cfg.rescale and cfg.subtract_max:
        m_use = np.where(np.isneginf(m_new), 0.0, m_new)  # a row that has seen no key yet
        a, b = np.exp(m - m_use), np.exp(m_tile - m_use)  # two rescale factors
        l_new = a * l + b * l_tile
        O = _divide((l * a) * O + b * PV, l_new)
        meter.elementwise(7 * r + r + 4 * r * d)
    else:
        l_new = l + l_tile
        O = _divide(l * O + PV, l_new)
        meter.elementwise(r + 3 * r * d)
    return m_new, l_new, O


def _divide(O, l):
    """O / l by row, 0 where l is 0: a row that has seen no key (FlashAttention writes it as 0)."""
    return np.divide(O, l, out=np.zeros_like(O), where=l != 0)


def _score_tile(Qi, Kj, rows, cols, cfg, meter, S_full, kind):
    S = Qi @ Kj.T                                # (r, c): lives in SRAM only
    meter.matmul(Qi.shape[0], Qi.shape[1], Kj.shape[0])
    if kind == masks.PARTIAL:                    # a full tile needs no mask
        S[~cfg.mask.visible(rows, cols)] = -np.inf
    if S_full is not None:                       # BUG keep_full_S: write Sij to HBM
        S_full[rows[0]:rows[1], cols[0]:cols[1]] = S
        meter.move(mem.write_Sij(*S.shape))
    return S


def _tile_sram(r, c, cfg, meter):
    """One tile step's SRAM: its working set, and the spill if it is over the budget M."""
    ws = mem.working_set(r, c, cfg.d)
    meter.tile(ws)
    meter.spill(mem.spill_elements(ws, cfg.sram_elements))
    return ws


def flash_attention(Q, K, V, cfg: Config, counters: Counters | None = None,
                    trace: list | None = None, stats: bool = False):
    """Tiled exact attention. Returns O, or (O, m, l) with stats=True.

    cfg.loop_order picks the sweep: "fa2" keeps a Q block in SRAM and streams
    every K/V block past it; "fa1" keeps a K/V block and streams Q blocks,
    reading and writing O, l, m in HBM at every step.
    """
    Q, K, V, meter = _prepare(Q, K, V, cfg, counters)
    n, d = Q.shape
    if (n, d) != (cfg.n, cfg.d) or K.shape != (n, d) or V.shape != (n, d):
        raise ValueError(f"Q, K, V must be ({cfg.n}, {cfg.d}) to match the config")
    if trace is not None:
        tr.check_traceable(cfg.Tr * cfg.Tc)
    S_full = None
    if cfg.keep_full_S:                          # BUG: an n x n buffer "for debugging"
        S_full = np.empty((n, n))
        meter.scratch(n * n)
    run = _fa2 if cfg.loop_order == "fa2" else _fa1
    with np.errstate(over="ignore", invalid="ignore"):
        O, m, l = run(Q, K, V, cfg, meter, trace, S_full)
    return (O, m, l) if stats else O


def _start(r: int, cfg: Config, meter: Counters, dtype):
    """m and l of r rows before any key: -inf and 0, or with a sink, m = sink and l = e^(sink - m) = 1."""
    if cfg.sink is None:
        return np.full((r, 1), -np.inf, dtype=dtype), np.zeros((r, 1), dtype=dtype)
    meter.move(mem.load_sink())                  # load the head's sink logit
    return np.full((r, 1), cfg.sink, dtype=dtype), np.ones((r, 1), dtype=dtype)


def _fa2(Q, K, V, cfg, meter, trace, S_full):
    n, d = Q.shape
    O = np.empty_like(Q)
    m_all, l_all = np.empty(n), np.empty(n)
    mask = cfg.mask
    for i, r0 in enumerate(range(0, n, cfg.Br)):
        r1 = min(r0 + cfg.Br, n)
        r = r1 - r0
        Qi = Q[r0:r1]
        meter.move(mem.load_Qi(r, d))            # load Qi to SRAM
        Oi = np.zeros((r, d), dtype=Q.dtype)
        mi, li = _start(r, cfg, meter, Q.dtype)
        for j in mask.key_blocks(r0, r1, cfg.Bc):   # the mask's range: tiles outside it are never touched
            k0, k1 = j * cfg.Bc, min(j * cfg.Bc + cfg.Bc, n)
            kind = mask.kind(i, j, (r0, r1), (k0, k1))
            if kind == masks.EMPTY:              # a block mask's hole: skipped, nothing loaded
                continue
            Kj, Vj = K[k0:k1], V[k0:k1]
            meter.move(mem.load_Kj_Vj(k1 - k0, d))  # load Kj, Vj to SRAM
            ws = _tile_sram(r, k1 - k0, cfg, meter)
            S = _score_tile(Qi, Kj, (r0, r1), (k0, k1), cfg, meter, S_full, kind)
            m_old = mi
            mi, li, Oi = _tile_update(S, Vj, mi, li, Oi, cfg, meter)
            if trace is not None:
                tr.record(trace, i=i, j=j, rows=(r0, r1), cols=(k0, k1), m_before=m_old,
                          m_after=mi, l=li, O=Oi / li, counters=meter, ws=ws, budget=cfg.sram_bytes,
                          applied=cfg.rescale and cfg.subtract_max)
        O[r0:r1] = _divide(Oi, li)               # normalise once, at the end
        meter.elementwise(r * d)
        meter.move(mem.write_Oi(r, d))           # write Oi to HBM
        m_all[r0:r1], l_all[r0:r1] = mi.ravel(), li.ravel()
    return O, m_all, l_all


def _fa1(Q, K, V, cfg, meter, trace, S_full):
    n, d = Q.shape
    O = np.zeros_like(Q)                         # (n, d) in HBM
    m, l = _start(n, cfg, meter, Q.dtype)
    meter.move(mem.init_O_m_l(n, d))             # initialise O, m, l in HBM
    kinds = cfg.mask.kinds(cfg.Br, cfg.Bc)       # which tiles the mask leaves (no data read)
    for j, k0 in enumerate(range(0, n, cfg.Bc)):
        k1 = min(k0 + cfg.Bc, n)
        if all(row[j] == masks.EMPTY for row in kinds):
            continue                             # no query sees this key block: never loaded
        Kj, Vj = K[k0:k1], V[k0:k1]
        meter.move(mem.load_Kj_Vj(k1 - k0, d))   # load Kj, Vj to SRAM
        for i, r0 in enumerate(range(0, n, cfg.Br)):
            r1 = min(r0 + cfg.Br, n)
            if kinds[i][j] == masks.EMPTY:       # every key out of every query's sight: skip
                continue
            r = r1 - r0
            Qi = Q[r0:r1]
            Oi, mi, li = O[r0:r1].copy(), m[r0:r1].copy(), l[r0:r1].copy()
            meter.move(mem.read_Qi_Oi_mi_li(r, d))   # read Qi, Oi, mi, li from HBM
            ws = _tile_sram(r, k1 - k0, cfg, meter)
            S = _score_tile(Qi, Kj, (r0, r1), (k0, k1), cfg, meter, S_full, kinds[i][j])
            m_new, l_new, O_new = _fa1_update(S, Vj, mi, li, Oi, cfg, meter)
            O[r0:r1], m[r0:r1], l[r0:r1] = O_new, m_new, l_new
            meter.move(mem.write_Oi_mi_li(r, d))     # write Oi, mi, li to HBM
            if trace is not None:
                tr.record(trace, i=i, j=j, rows=(r0, r1), cols=(k0, k1), m_before=mi,
                          m_after=m_new, l=l_new, O=O_new, counters=meter, ws=ws,
                          budget=cfg.sram_bytes, applied=cfg.rescale and cfg.subtract_max)
    return O, m.ravel(), l.ravel()


def local_window_keys(n: int, window: int, causal: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi) of the keys each of n queries sees through a local window.

    Without a mask, query q sees the `window` keys q - window//2 ... q + (window - 1)//2:
    centred on q when the window is odd, with the extra key on the earlier side when it
    is even. Near either end of the sequence the window slides inward rather than shrink,
    so every query sees exactly `window` keys. A window of n or more sees every key.

    With causal=True, q sees the `window` keys ending at q itself (q - window + 1 ... q);
    the first window - 1 queries have only q + 1 keys before them, so they see those.
    """
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window must be a whole number of keys, at least 1; got {window!r}")
    w = min(int(window), n)
    q = np.arange(n)
    if causal:
        return np.maximum(0, q - w + 1), q + 1
    lo = np.clip(q - w // 2, 0, n - w)
    return lo, lo + w


def local_window_attention(Q, K, V, window: int = 128, causal: bool = False):
    """An approximation: each query sees only the `window` keys of `local_window_keys`.

    A stand-in for the sparse-attention family FlashAttention displaced. Computed in
    row blocks, each against the span of keys its rows see, so memory stays O(n * window).
    """
    n = Q.shape[0]
    lo, hi = local_window_keys(n, window, causal)
    O = np.empty((n, V.shape[1]))
    block = max(1, min(window, n))
    for r0 in range(0, n, block):
        r1 = min(r0 + block, n)
        k0, k1 = lo[r0], hi[r1 - 1]            # lo and hi never decrease with q
        S = Q[r0:r1] @ K[k0:k1].T              # (rows, keys in their span)
        k = np.arange(k0, k1)[None, :]
        S[(k < lo[r0:r1, None]) | (k >= hi[r0:r1, None])] = -np.inf
        O[r0:r1] = softmax(S) @ V[k0:k1]
    return O


def masks_exact(cfg: Config, window: int, docs: tuple[int, ...], sink: float, seed: int = 0) -> list[dict]:
    """Each mask run through flash and through masked standard attention on the same Q, K, V (cfg's n and
    tiles, float64): the largest difference, and the tiles flash computed. First the seed's local window
    (causal: the query and the window - 1 keys before it) as an approximation of causal attention, then
    as the function it is, the window (window - 1, 0) FlashAttention takes."""
    from ..model.costs import census
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    base = cfg.with_(causal=True, window_left=None, window_right=None, docs=(), blocks=None, sink=None,
                     compute="float64")
    local = local_window_attention(Q, K, V, window, causal=True)
    total = f" of {cfg.Tr * cfg.Tc:,}"
    rows = [{"mask": f"the seed's local window {window:,}, against causal attention", "tiles computed": "none: "
             "NumPy, row by row", "max |diff|": float(np.abs(local - standard_attention(Q, K, V, base)).max())}]
    runs = {f"flash, window ({window - 1:,}, 0), against the seed's local window": (base.with_(
                window_left=window - 1), local),
            "flash, packed documents (causal), against masked standard": (base.with_(docs=docs), None),
            f"flash, causal with a sink of {sink:g}, against gpt-oss's softmax": (base.with_(sink=sink), None)}
    for name, (at, want) in runs.items():
        got = flash_attention(Q, K, V, at)
        ref = standard_attention(Q, K, V, at) if want is None else want
        rows.append({"mask": name, "tiles computed": f"{census(at.n, at.Br, at.Bc, at.mask).tiles:,}{total}",
                     "max |diff|": float(np.abs(got - ref).max())})
    return rows
