"""2^x without the exp unit: FlashAttention-4's polynomial, bit for bit in NumPy float32.

flash-attn-4's `ex2_emulation` (flash_attn/cute/utils.py) computes 2^x on the FMA units for a share of a
tile's entries, so the special-function unit (MUFU, 16 exponentials a clock per SM) is not the only
one doing exponentials:

  1. clamp x at -127 (a softmax's x = s - m is at most 0 here; the kernel assumes x <= 127)
  2. split x = j + f, j = floor(x), f in [0, 1): the kernel adds 2^23 + 2^22 rounding down, which
     leaves j in the low bits of the sum, then subtracts it back and takes f = x - j
  3. 2^f by a cubic, Horner's rule in fused multiply-adds, with the kernel's coefficients
     POLY_EX2[3], a relative minimax fit of 2^f on [0, 1] with 1 as its constant (Sollya's fpminimax)
  4. 2^j placed by integer arithmetic: the bits of the round-down sum shifted left 23 (j lands in the
     exponent field) added to the bits of 2^f, which lies in [1, 2)

Steps 2 and 4 are integer and float32 operations on the bits exactly as the kernel does them; a fused
multiply-add is computed in float64 (exact for float32 operands) and rounded to float32 once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# flash_attn/cute/utils.py, POLY_EX2 (from Sollya: fpminimax(exp(x * log(2.0)), d, [|1,24...|], [0;1], relative)).
POLY_EX2 = {
    2: (1.0, 0.6657850742340087890625, 0.330107033252716064453125),
    3: (1.0, 0.695146143436431884765625, 0.227564394474029541015625, 0.077119089663028717041015625),
    4: (1.0, 0.693042695522308349609375, 0.2412912547588348388671875, 5.2225358784198760986328125e-2,
        1.3434938155114650726318359375e-2),
    5: (1.0, 0.693151414394378662109375, 0.24016360938549041748046875, 5.5802188813686370849609375e-2,
        9.01452265679836273193359375e-3, 1.86810153536498546600341796875e-3),
}
KERNEL_DEGREE = 3
ROUND_INT = np.float32(2**23 + 2**22)
CLAMP = np.float32(-127.0)
# FP32 operations one emulated exponential costs on the FMA pipe, read off ex2_emulation: a max (the
# clamp), an add and two subtractions (the split), one FMA per degree (Horner). The shift and the
# integer add of step 4 run on the integer pipe (the kernel's comment: add.s32 becomes a LEA, "the ALU
# pipeline"), so they are not counted against the FMA units.
FMA_OPS_PER_EXP = 4 + KERNEL_DEGREE


def _fma(a, b, c) -> np.ndarray:
    """a * b + c rounded once to float32 (float64 holds a float32 product exactly)."""
    return (a.astype(np.float64) * b + c).astype(np.float32)


def exp2_poly(x, degree: int = KERNEL_DEGREE) -> np.ndarray:
    """2^x in float32 the way flash-attn-4's ex2_emulation computes it (module docstring)."""
    coeffs = POLY_EX2[degree]
    x = np.maximum(np.asarray(x, dtype=np.float32), CLAMP)
    j = np.floor(x)                                     # the round-down add's integer
    rounded = (j + ROUND_INT).astype(np.float32)        # 2^23 + 2^22 + j: exact, j in the low bits
    f = (x - (rounded - ROUND_INT)).astype(np.float32)  # the fraction, in [0, 1)
    p = np.full(x.shape, coeffs[-1], dtype=np.float32)
    for c in coeffs[-2::-1]:                            # Horner: one FMA per degree
        p = _fma(p, f, np.float32(c))
    shifted = (rounded.view(np.uint32).astype(np.uint64) << 23) & 0xFFFFFFFF
    out = (p.view(np.uint32).astype(np.uint64) + shifted) & 0xFFFFFFFF
    return out.astype(np.uint32).view(np.float32)


@dataclass(frozen=True)
class ExpError:
    """The polynomial against exact 2^x over a set of inputs, in one output type."""

    dtype: str              # "float32", "bfloat16" or "float16"
    lo: float               # the inputs' range [lo, 0] this row covers
    max_rel: float          # largest |poly - exact| / exact before rounding to dtype
    half_ulp: float         # the type's rounding unit: half an ulp, relative (2^-24, 2^-9, 2^-11)
    max_ulps: float         # largest difference after both round to dtype, in the type's ulps
    differ_share: float     # share of inputs whose rounded results differ

    @property
    def below_rounding(self) -> bool:
        return self.max_rel < self.half_ulp


SIGNIFICAND_BITS = {"float32": 24, "bfloat16": 8, "float16": 11}
# Smallest x whose 2^x is a normal number of the type (below it the type's ulp is absolute).
NORMAL_FLOOR = {"float32": -126.0, "bfloat16": -126.0, "float16": -14.0}


def _round(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "float32":
        return values.astype(np.float32).astype(np.float64)
    import ml_dtypes
    target = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    return values.astype(np.float32).astype(target).astype(np.float64)


def sample_inputs(lo: float, count: int = 1 << 20, seed: int = 0) -> np.ndarray:
    """Inputs x in [lo, 0] a softmax feeds exp2: a uniform draw, every integer and its float32 neighbours
    (where the split jumps), as float32."""
    rng = np.random.default_rng(seed)
    ints = np.arange(np.ceil(lo), 1.0)
    edges = np.concatenate([ints, np.nextafter(ints.astype(np.float32), np.float32(-np.inf)),
                            np.nextafter(ints.astype(np.float32), np.float32(np.inf))])
    x = np.concatenate([rng.uniform(lo, 0.0, count), edges]).astype(np.float32)
    return x[(x >= lo) & (x <= 0)]


def exp_error(dtype: str, lo: float | None = None, degree: int = KERNEL_DEGREE, count: int = 1 << 20) -> ExpError:
    """The polynomial's error over x in [lo, 0] (by default down to where 2^x is a normal number of dtype)."""
    lo = NORMAL_FLOOR[dtype] if lo is None else lo
    x = sample_inputs(lo, count)
    exact = np.exp2(x.astype(np.float64))
    poly = exp2_poly(x, degree).astype(np.float64)
    rel = np.abs(poly - exact) / exact
    a, b = _round(poly, dtype), _round(exact, dtype)
    ulp = np.exp2(np.floor(np.log2(np.maximum(b, np.finfo(np.float64).tiny))) - (SIGNIFICAND_BITS[dtype] - 1))
    return ExpError(dtype=dtype, lo=lo, max_rel=float(rel.max()), half_ulp=2.0 ** -SIGNIFICAND_BITS[dtype],
                    max_ulps=float((np.abs(a - b) / ulp).max()), differ_share=float(np.mean(a != b)))
