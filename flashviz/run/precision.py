"""Attention in the precisions real kernels run in: 16-bit and FP8, emulated in NumPy.

Rounding goes through ml_dtypes' NumPy types (bfloat16, float8_e4m3fn, float8_e5m2; float16 is
NumPy's own): every value a kernel stores is cast to its type and back, round to nearest even,
and nothing is rounded by hand. What each method keeps in which type follows the kernels:

- standard attention (the FlashAttention paper's three kernels, as PyTorch runs them): S = QKᵀ
  accumulated in fp32, scaled, and stored in the tensor's 16-bit type; softmax computed in fp32
  from that S and P stored in 16 bits; O = PV accumulated in fp32 and stored in 16 bits.
- flash attention (FlashAttention-2 and -3): S, the running max m and sum l and the output
  accumulator O stay in fp32 registers; P is cast to the matmul's input type only as the input
  of PV; O is divided by l once, at the end, and stored in 16 bits.
- FP8 (the FlashAttention-3 paper's §3.3 and Table 3): Q, K and V quantised to float8 with one
  scale per tensor (the baseline) or one per tile (block quantisation), optionally after a random
  ±1 Hadamard rotation of Q and K (incoherent processing: (QM)(KM)ᵀ = QKᵀ, outliers spread over
  every coordinate). The flash variants cast P to FP8 scaled by 2⁸ (FlashAttention-3's
  `Max_offset = 8`) and write a bfloat16 output (its `out_type` for FP8 inputs); the baseline
  keeps S and P in fp16 between kernels, as the paper describes it, and quantises P per tensor.

Inputs follow the paper's experiment (§4.3): each entry N(0, 1) plus, with probability 0.001, an
independent N(0, 100) term (standard deviation 10). Errors are against float64 attention on the
same stored inputs. No Streamlit, no plotly; pandas only for the tables.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

if TYPE_CHECKING:
    import pandas as pd

F32 = np.float32
TYPES = {"float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16),
         "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn), "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2)}
STORAGE = ("float16", "bfloat16")          # what kernels store tensors in
FP8 = ("float8_e4m3fn", "float8_e5m2")     # what FlashAttention-3's FP8 path quantises to
OUTLIER_P, OUTLIER_STD = 0.001, 10.0       # the paper's N(0, 100)·Bernoulli(0.001)
P_OFFSET = 8                               # FlashAttention-3 FP8: P = exp2(... + 8), in [0, 2⁸]
TILE = 128                                 # Br = Bc = 128: FlashAttention-3's tiles at d = 128
PAPER_N, PAPER_D = 4096, 128               # our choice: the paper prints neither (see BENCHMARKS.md)
LESSON_N = 1024                            # lesson 6's own setting, at PAPER_D


def largest(dtype: str) -> float:
    """The largest finite value of a type."""
    return float(ml_dtypes.finfo(TYPES[dtype]).max) if dtype in TYPES else float(np.finfo(dtype).max)


def exp_limit(dtype: str) -> float:
    """The largest x whose exp(x) the type still holds: ln of its largest finite value."""
    return math.log(largest(dtype))


def spacing(value: float, dtype: str) -> float:
    """The gap between `value` (positive, normal) and the next value up in the type."""
    info = ml_dtypes.finfo(TYPES[dtype]) if dtype in TYPES else np.finfo(dtype)
    return 2.0 ** (math.floor(math.log2(value)) - int(info.nmant))


def _odd_float32(x: np.ndarray) -> np.ndarray:
    """float64 to float32 rounded to odd: toward zero, then the last bit set where that dropped
    anything. A second rounding, to nearest even in a type of 22 or fewer significant bits (every
    16-bit and 8-bit type), then gives exactly the float64's own rounding to that type, where
    rounding to nearest twice can land one step off on a tie that the first rounding made. ml_dtypes
    before 0.7 casts float64 to bfloat16 through float32 that way; this makes every version agree."""
    f = x.astype(F32)
    with np.errstate(invalid="ignore"):
        away = np.abs(f.astype(np.float64)) > np.abs(x)       # rounded away from zero: step back
        f[away] = np.nextafter(f[away], F32(0))
        inexact = (f.astype(np.float64) != x) & np.isfinite(f)
    bits = f.view(np.uint32)
    bits[inexact] |= np.uint32(1)
    return f


def rounded(x, dtype: str) -> np.ndarray:
    """x rounded to `dtype` by ml_dtypes' (or NumPy's) cast, round to nearest even, held in float32
    (every float16, bfloat16 and float8 value is exact in float32); a float64 x rounds once, as
    the float64 it is (_odd_float32). Past the largest value: inf in float16, bfloat16 and
    float8_e5m2, NaN in float8_e4m3fn (it has no inf)."""
    x = np.asarray(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if x.dtype == np.float64:
            x = _odd_float32(x)
        return x.astype(TYPES[dtype]).astype(F32)


# exp(x) below this is a float32 subnormal. The kernels compute exp as exp2 with flush-to-zero (ex2.approx.ftz),
# so such a weight is 0 there; it is 0 after any 16-bit or FP8 cast anyway, and NumPy is slow on subnormals.
FTZ = F32(math.log(float(np.finfo(np.float32).tiny)))


def _exp_ftz(x: np.ndarray) -> np.ndarray:
    """exp of a float32 array in place, subnormal results flushed to zero."""
    np.putmask(x, x < FTZ, F32(-np.inf))
    return np.exp(x, out=x)


def paper_inputs(n: int, d: int, seed: int = 0, spread: float = 1.0):
    """Q, K, V (float64, n × d) drawn as the FlashAttention-3 paper's §4.3 draws them: N(0, 1) plus an
    independent N(0, 100) term on 0.1% of entries. `spread` multiplies Q and K (scores by spread²)."""
    if n < 1 or d < 1:
        raise ValueError("n and d must be at least 1")
    rng = np.random.default_rng(seed)
    out = []
    for scale in (spread, spread, 1.0):
        base = rng.standard_normal((n, d))
        outlier = rng.standard_normal((n, d)) * OUTLIER_STD * (rng.random((n, d)) < OUTLIER_P)
        out.append((base + outlier) * scale)
    return tuple(out)


def stored_inputs(n: int, d: int, dtype: str, seed: int = 0, spread: float = 1.0):
    """The paper's inputs rounded to a 16-bit storage type (float32 arrays of its values): what a
    kernel reads, and what the float64 reference is computed from."""
    return tuple(rounded(x, dtype) for x in paper_inputs(n, d, seed, spread))


def reference(Q, K, V) -> np.ndarray:
    """softmax(QKᵀ/√d)V in float64."""
    Q, K, V = (np.asarray(x, np.float64) for x in (Q, K, V))
    S = (Q @ K.T) / math.sqrt(Q.shape[1])
    S -= S.max(axis=1, keepdims=True)
    P = np.exp(S)
    return (P / P.sum(axis=1, keepdims=True)) @ V


def standard(Q, K, V, storage: str = "float16") -> np.ndarray:
    """Standard attention as three kernels: S and P stored in `storage` between them."""
    Q, K, V = (np.asarray(x, F32) for x in (Q, K, V))
    with np.errstate(over="ignore", invalid="ignore"):
        S = rounded((Q @ np.ascontiguousarray(K.T)) * F32(Q.shape[1] ** -0.5), storage)  # GEMM, fp32, alpha
        e = _exp_ftz(S - S.max(axis=1, keepdims=True))                 # softmax in fp32 ...
        P = rounded(e / e.sum(axis=1, keepdims=True), storage)          # ... stored in 16 bits
        return rounded(P @ V, storage)


def flash(Q, K, V, storage: str = "float16", tile: int = TILE) -> np.ndarray:
    """FlashAttention-2's forward: S, m, l and O in fp32; P cast to `storage` as PV's input."""
    Q, K, V = (np.asarray(x, F32) for x in (Q, K, V))
    return rounded(_online(Q, K, V, F32(Q.shape[1] ** -0.5), tile, lambda P: rounded(P, storage)), storage)


ROWS = 1024  # query rows emulated at once: each row's arithmetic is its own, so this only bounds memory


def _online(Q, K, V, scale, tile: int, cast_p, q_scale=None, k_scale=None, v_scale=None, offset: float = 0.0):
    """FlashAttention-2's online softmax over key tiles of `tile` keys; returns O / l in fp32. Scales
    (per row of Q, per key of K and V) are the FP8 paths' dequantisation factors.

    Tile by tile, as the kernel: m_j = max(m_j-1, rowmax S_j); P_j = exp(S_j − m_j) in fp32;
    l_j = l_j-1·e^(m_j-1 − m_j) + rowsum P_j; O_j = O_j-1·e^(m_j-1 − m_j) + cast(P_j)·V_j. The tiles' S and
    P·V are computed in one matmul each over all tiles (small matmuls are slow in NumPy), so O is summed
    as Σ_j cast(P_j)·V_j times the product of the later tiles' corrections: the same terms, added in
    another order, a difference of float32 rounding (about 1e-7), far below any 16-bit step."""
    out = np.empty((Q.shape[0], V.shape[1]), F32)
    Kt = np.ascontiguousarray(K.T)
    starts = np.arange(0, K.shape[0], tile)
    widths = np.diff(np.append(starts, K.shape[0]))
    for r in range(0, Q.shape[0], ROWS):
        rows = slice(r, r + ROWS)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            S = Q[rows] @ Kt                                         # every tile's S, fp32 accumulate
            if q_scale is not None:
                S *= q_scale[rows] * k_scale.T
            S *= scale
            m = np.maximum.accumulate(np.maximum.reduceat(S, starts, axis=1), axis=1)  # running max, per tile
            S -= np.repeat(m, widths, axis=1) - F32(offset)
            P = _exp_ftz(S)                                          # fp32, in registers
            corr = np.exp(np.concatenate([np.full((m.shape[0], 1), -np.inf, F32), m[:, :-1]], axis=1) - m)
            sums = np.add.reduceat(P, starts, axis=1)
            l = np.zeros((m.shape[0], 1), F32)
            for j in range(len(starts)):                             # l_j = l_j-1 · corr_j + rowsum P_j
                l = l * corr[:, j:j + 1] + sums[:, j:j + 1]
            # the later tiles' corrections each tile's P·V is scaled by: corr_j+1 · … · corr_T
            later = np.ones_like(corr)
            for j in range(len(starts) - 2, -1, -1):
                later[:, j] = later[:, j + 1] * corr[:, j + 1]
            if v_scale is not None:
                later = later * v_scale[starts, 0][None, :]
            W = cast_p(P)                                            # P in the matmul's input type
            W *= np.repeat(later, widths, axis=1)
            out[rows] = (W @ V) / l
    return out


# ---- FP8 ------------------------------------------------------------------------------------------

def fp8_max(fp8: str) -> float:
    return largest(fp8)


def quantize(X, fp8: str = "float8_e4m3fn", rows: int | None = None):
    """X scaled so that each block of `rows` rows (None: the whole tensor) has its largest |value| at
    the type's largest, then cast. Returns (the cast values in float32, each row's scale, n × 1)."""
    X = np.asarray(X, F32)
    n = X.shape[0]
    rows = n if rows is None else rows
    starts = np.arange(0, n, rows)
    amax = np.maximum.reduceat(np.abs(X).max(axis=1), starts).astype(F32)
    block = np.where(amax > 0, amax / F32(fp8_max(fp8)), F32(1))
    scale = np.repeat(block, np.diff(np.append(starts, n)))[:, None].astype(F32)
    return rounded(X / scale, fp8), scale


def hadamard(d: int, seed: int = 0) -> np.ndarray:
    """A random orthogonal d × d matrix as FlashAttention-3 builds it (after QuIP): a diagonal of
    random ±1 times a normalised Hadamard matrix (Sylvester's construction, d a power of two)."""
    if d < 1 or d & (d - 1):
        raise ValueError(f"incoherent processing needs d a power of two (a Hadamard matrix); got d = {d}")
    H = np.ones((1, 1))
    while H.shape[0] < d:
        H = np.block([[H, H], [H, -H]])
    signs = np.random.default_rng([seed, 1]).choice((-1.0, 1.0), size=d)
    return (signs[:, None] * H / math.sqrt(d)).astype(F32)


def fp8_flash(Q, K, V, block: bool = True, incoherent: bool = True, fp8: str = "float8_e4m3fn",
              out: str = "bfloat16", tile: int = TILE, seed: int = 0) -> np.ndarray:
    """FlashAttention-3's FP8 forward: Q, K (rotated first when `incoherent`) and V quantised per tile
    of `tile` rows (`block`) or per tensor; S, m, l, O in fp32; P × 2⁸ cast to FP8 for PV."""
    Q, K, V = (np.asarray(x, F32) for x in (Q, K, V))
    if incoherent:
        M = hadamard(Q.shape[1], seed)
        Q, K = Q @ M, K @ M
    rows = tile if block else None
    (Qq, sq), (Kq, sk), (Vq, sv) = (quantize(X, fp8, rows) for X in (Q, K, V))
    offset = P_OFFSET * math.log(2)
    O = _online(Qq, Kq, Vq, F32(Q.shape[1] ** -0.5), tile, lambda P: rounded(P, fp8), sq, sk, sv, offset)
    return rounded(O, out)


def fp8_baseline(Q, K, V, fp8: str = "float8_e4m3fn", storage: str = "float16") -> np.ndarray:
    """The paper's baseline FP8 attention: one scale per tensor (Q, K, V and P), matmuls accumulated
    in fp32, S and P kept in fp16 between kernels, the output in fp16."""
    Q, K, V = (np.asarray(x, F32) for x in (Q, K, V))
    (Qq, sq), (Kq, sk), (Vq, sv) = (quantize(X, fp8) for X in (Q, K, V))
    with np.errstate(over="ignore", invalid="ignore"):
        S = rounded((Qq @ np.ascontiguousarray(Kq.T)) * (sq[0, 0] * sk[0, 0] * F32(Q.shape[1] ** -0.5)), storage)
        e = _exp_ftz(S - S.max(axis=1, keepdims=True))
        P = rounded(e / e.sum(axis=1, keepdims=True), storage)
        Pq, sp = quantize(P, fp8)
        return rounded((Pq @ Vq) * (sp[0, 0] * sv[0, 0]), storage)


# ---- errors and the paper's table ----------------------------------------------------------------

@dataclass(frozen=True)
class Error:
    rmse: float        # root mean squared error over every output entry (NaN if any is not finite)
    max: float         # the largest |error| over the finite entries
    nonfinite: int     # outputs that are inf or NaN (an overflow)


def error(O, R) -> Error:
    diff = np.abs(np.asarray(O, np.float64) - np.asarray(R, np.float64))
    finite = np.isfinite(diff)
    bad = int(diff.size - finite.sum())
    return Error(float(np.sqrt(np.mean(diff ** 2))) if not bad else math.nan,
                 float(diff[finite].max()) if finite.any() else math.nan, bad)


@dataclass(frozen=True)
class Method:
    key: str
    label: str            # the paper's name for the row
    storage: str          # the type the inputs are stored in before the kernel reads them
    kernel: str           # what the row runs
    paper: str = ""       # the paper's printed RMSE (Table 3), "" where the paper has no such row


# Table 3 of 2407.08608, in its order, then rows the paper does not have: bfloat16, and FP8 flash with neither
# technique (the fourth corner of its two ablations).
METHODS = (
    Method("standard_fp16", "Baseline FP16", "float16", "standard attention, S and P stored in fp16", "3.2e-4"),
    Method("flash_fp16", "FlashAttention-2 / -3 FP16", "float16", "flash: S, m, l, O in fp32, P cast to fp16",
           "1.9e-4"),
    Method("fp8_baseline", "Baseline FP8", "float16", "e4m3, one scale per tensor, S and P in fp16", "2.4e-2"),
    Method("fp8_fa3", "FlashAttention-3 FP8", "float16", "e4m3, block quantisation + incoherent processing",
           "9.1e-3"),
    Method("fp8_no_block", "No block quant", "float16", "e4m3, incoherent processing, one scale per tensor",
           "9.3e-3"),
    Method("fp8_no_incoherent", "No incoherent processing", "float16", "e4m3, block quantisation, no rotation",
           "2.4e-2"),
    Method("standard_bf16", "Baseline BF16", "bfloat16", "standard attention, S and P stored in bf16"),
    Method("flash_bf16", "FlashAttention BF16", "bfloat16", "flash: S, m, l, O in fp32, P cast to bf16"),
    Method("fp8_neither", "FP8 flash, neither technique", "float16", "e4m3, one scale per tensor, no rotation"),
)
BY_KEY = {m.key: m for m in METHODS}
PAPER_KEYS = tuple(m.key for m in METHODS if m.paper)
# The FP8 flash variants: (block quantisation, incoherent processing)
TECHNIQUES = {"fp8_neither": (False, False), "fp8_no_incoherent": (True, False), "fp8_no_block": (False, True),
              "fp8_fa3": (True, True)}
PAPER_RATIO = 2.6  # the paper's headline: baseline FP8 over FlashAttention-3 FP8


def run(key: str, Q, K, V, seed: int = 0) -> np.ndarray:
    """The output of one method on stored inputs (float32 arrays of the method's storage type)."""
    if key.startswith("standard_"):
        return standard(Q, K, V, BY_KEY[key].storage)
    if key.startswith("flash_"):
        return flash(Q, K, V, BY_KEY[key].storage)
    if key == "fp8_baseline":
        return fp8_baseline(Q, K, V)
    block, incoherent = TECHNIQUES[key]
    return fp8_flash(Q, K, V, block=block, incoherent=incoherent, seed=seed)


def errors(n: int = PAPER_N, d: int = PAPER_D, seed: int = 0, spread: float = 1.0,
           keys: tuple[str, ...] = tuple(BY_KEY)) -> dict[str, Error]:
    """Each method's error against float64 attention on the paper's inputs, stored in its type."""
    out = {}
    for storage in STORAGE:
        mine = [k for k in keys if BY_KEY[k].storage == storage]
        if not mine:
            continue
        Q, K, V = stored_inputs(n, d, storage, seed, spread)
        R = reference(Q, K, V)
        for key in mine:
            out[key] = error(run(key, Q, K, V, seed), R)
    return {k: out[k] for k in keys}


def paper_table(n: int = PAPER_N, d: int = PAPER_D, seed: int = 0) -> pd.DataFrame:
    """The paper's Table 3 reproduced: one row per method, this emulation's RMSE and max error beside
    the paper's printed RMSE."""
    return paper_table_from(errors(n, d, seed))


def paper_table_from(found: dict[str, Error]) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame([{"method": m.label, "storage": m.storage, "runs": m.kernel, "RMSE": found[m.key].rmse,
                          "max error": found[m.key].max, "paper RMSE": m.paper or "not in the paper"}
                         for m in METHODS if m.key in found])


def headline(found: dict[str, Error]) -> float:
    """Baseline FP8's RMSE over FlashAttention-3 FP8's: the paper's 2.6×."""
    return found["fp8_baseline"].rmse / found["fp8_fa3"].rmse


# ---- lesson 6's study: every method once, and FP8's two techniques on one row of Q --------------

TOP = 16       # "the keys that win the softmax": a row's 16 largest scores
OUTLIER = 5.0  # an entry of the paper's inputs above 5 in size is one of its N(0, 100) outliers (in practice)


@dataclass(frozen=True)
class Study:
    """Every method's error at one setting, and FP8's two techniques on one row of Q with an outlier:
    the row holding Q's largest entry that FP8 does not store exactly (the very largest maps to the
    type's largest value, 448, and so rounds to itself)."""
    n: int
    d: int
    seed: int
    errors: dict[str, Error]
    row: int                     # the query row shown
    values: np.ndarray           # the row as stored (fp16), d entries
    rotated: np.ndarray          # the row after the random Hadamard rotation
    variants: pd.DataFrame       # per FP8 flash variant: its scale for the row, and the row's score errors
    tiles: int                   # Q's tiles of TILE rows
    outlier_tiles: int           # tiles whose largest entry is an outlier (above OUTLIER)
    smallest_tile_scale: float   # the smallest of Q's tile scales over its per-tensor scale


def _demo_row(Q: np.ndarray, fp8: str = "float8_e4m3fn") -> int:
    Qq, scale = quantize(Q, fp8)
    err = np.abs(Qq * scale - Q)
    for r in np.argsort(-np.abs(Q).max(axis=1), kind="stable"):
        if err[r, np.abs(Q[r]).argmax()] > 0:
            return int(r)
    return 0


def study(n: int = LESSON_N, d: int = PAPER_D, seed: int = 0) -> Study:
    import pandas as pd
    found: dict[str, Error] = {}
    for storage in STORAGE:
        Q, K, V = stored_inputs(n, d, storage, seed)
        R = reference(Q, K, V)
        for m in METHODS:
            if m.storage == storage:
                found[m.key] = error(run(m.key, Q, K, V, seed), R)
    Q, K, _ = stored_inputs(n, d, "float16", seed)
    row, M = _demo_row(Q), hadamard(d, seed)
    exact = (Q[row].astype(np.float64) @ K.T.astype(np.float64)) / math.sqrt(d)
    top = np.argsort(-exact)[:TOP]
    variants = []
    for key, (block, incoherent) in TECHNIQUES.items():
        Qx, Kx = (Q @ M, K @ M) if incoherent else (Q, K)
        rows = TILE if block else None
        (Qq, sq), (Kq, sk) = quantize(Qx, rows=rows), quantize(Kx, rows=rows)
        scores = ((Qq[row] * sq[row]).astype(np.float64) @ (Kq * sk).T.astype(np.float64)) / math.sqrt(d)
        err = scores - exact
        variants.append({"variant": BY_KEY[key].label, "key": key, "block quantisation": block,
                         "rotation": incoherent, "the row's scale": float(sq[row, 0]),
                         "score error, every key (RMS)": float(np.sqrt(np.mean(err ** 2))),
                         f"score error, top {TOP} keys (RMS)": float(np.sqrt(np.mean(err[top] ** 2))),
                         "error-score correlation": float(np.corrcoef(exact, err)[0, 1])})
    tile_max = np.maximum.reduceat(np.abs(Q).max(axis=1), np.arange(0, n, TILE))
    return Study(n, d, seed, {m.key: found[m.key] for m in METHODS}, row, Q[row], (Q @ M)[row],
                 pd.DataFrame(variants), len(tile_max), int((tile_max > OUTLIER).sum()),
                 float(tile_max.min() / tile_max.max()))


def row_scores(n: int = LESSON_N, d: int = PAPER_D, seed: int = 0, row: int | None = None) -> pd.DataFrame:
    """One row's exact scores against every key, and their error after FP8 per tensor, without and
    with the rotation (lesson 6's scatter)."""
    import pandas as pd
    Q, K, _ = stored_inputs(n, d, "float16", seed)
    row = _demo_row(Q) if row is None else row
    M = hadamard(d, seed)
    exact = (Q[row].astype(np.float64) @ K.T.astype(np.float64)) / math.sqrt(d)
    out = {"score": exact}
    for name, (Qx, Kx) in (("per tensor", (Q, K)), ("per tensor, rotated", (Q @ M, K @ M))):
        (Qq, sq), (Kq, sk) = quantize(Qx), quantize(Kx)
        out[name] = ((Qq[row] * sq[row]).astype(np.float64) @ (Kq * sk).T.astype(np.float64)) / math.sqrt(d) - exact
    return pd.DataFrame(out)


# ---- where each type overflows ---------------------------------------------------------------------

LIMIT_TYPES = ("float32", "bfloat16", "float16", "float8_e5m2", "float8_e4m3fn")


def type_limits(score: float) -> pd.DataFrame:
    """Each type's largest value, the x past which exp(x) overflows it, and what storing a score of
    `score` in it costs: the gap to the next value, and the factor by which exp of the stored score can
    be off (e to half the gap). NaN where the type cannot hold the score at all."""
    import pandas as pd
    rows = []
    for t in LIMIT_TYPES:
        gap = spacing(score, t) if score <= largest(t) else math.nan
        rows.append({"type": t, "largest value": largest(t), "exp(x) overflows past x": exp_limit(t),
                     f"gap at a score of {score:,.0f}": gap, "exp of it off by a factor up to": math.exp(gap / 2)})
    return pd.DataFrame(rows)


# ---- the H200's kernels (bench/gpu/precision.py) -------------------------------------------------

MEASURED = Path(__file__).resolve().parents[1] / "data" / "h200" / "precision.csv"
IMPLS = {"plain": "plain (3 kernels)", "flash": "SDPA flash", "cudnn": "SDPA cuDNN",
         "mem_efficient": "SDPA mem-efficient"}


def load_measured(path: Path = MEASURED) -> pd.DataFrame:
    import pandas as pd
    return pd.read_csv(path)


def measured_at(data: pd.DataFrame, n: int, d: int, spread: float = 1.0, seed: int = 0) -> pd.DataFrame:
    """The measured rows at one setting."""
    return data[(data["n"] == n) & (data["d"] == d) & (data["spread"] == spread) & (data["seed"] == seed)]


def side_by_side(found: dict[str, Error], data: pd.DataFrame, n: int, d: int, seed: int = 0) -> pd.DataFrame:
    """Each method's emulated RMSE, and beside the 16-bit ones the H200's kernels' measured RMSE on the
    same inputs (plain attention beside standard, the three fused kernels beside flash)."""
    import pandas as pd
    here = measured_at(data, n, d, 1.0, seed).set_index(["dtype", "impl"])
    rows = []
    for m in METHODS:
        row = {"method": m.label, "key": m.key, "storage": m.storage, "emulated RMSE": found[m.key].rmse}
        for impl, name in IMPLS.items():
            fits = m.key.startswith("standard_") if impl == "plain" else m.key.startswith("flash_")
            row[f"H200 {name} RMSE"] = (float(here.loc[(m.storage, impl), "rmse"])
                                        if fits and (m.storage, impl) in here.index else math.nan)
        rows.append(row)
    return pd.DataFrame(rows)
