"""FlashAttention-4's polynomial 2^x: the kernel's steps in NumPy, and its error against exact 2^x."""
import numpy as np
import pytest

from flashviz.run.poly_exp import KERNEL_DEGREE, POLY_EX2, exp2_poly, exp_error, sample_inputs


def test_integers_come_out_exact():
    x = np.arange(-126, 1, dtype=np.float32)
    assert (exp2_poly(x) == np.exp2(x)).all(), x[exp2_poly(x) != np.exp2(x)]


def test_bits_trick_equals_ldexp_of_the_cubic_on_the_fraction():
    # An independent route: 2^j by np.ldexp, the cubic evaluated in float64 on f = x - floor(x).
    x = sample_inputs(-126.0, 20000)
    j = np.floor(x.astype(np.float64))
    f = x - j
    c = POLY_EX2[KERNEL_DEGREE]
    cubic = ((c[3] * f + c[2]) * f + c[1]) * f + c[0]
    rel = np.abs(exp2_poly(x) / np.ldexp(cubic, j.astype(int)) - 1).max()
    assert rel < 2e-7, f"bits trick off the float64 cubic by {rel:.2e} (float32 rounding is 6e-8 a step)"


def test_the_kernels_cubic_is_within_1e_minus_4_of_exact():
    e = exp_error("float32", count=1 << 16)
    assert 5e-5 < e.max_rel < 1e-4, e.max_rel


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_the_cubic_sits_below_16_bit_rounding_and_moves_a_result_at_most_one_ulp(dtype):
    e = exp_error(dtype, count=1 << 16)
    assert e.below_rounding and e.max_ulps <= 1, e


def test_higher_degrees_are_closer():
    errs = [exp_error("float32", degree=k, count=1 << 14).max_rel for k in sorted(POLY_EX2)]
    assert errs == sorted(errs, reverse=True), errs


def test_inputs_below_the_clamp_give_what_minus_127_gives():
    assert exp2_poly(np.float32(-300)) == exp2_poly(np.float32(-127)), (exp2_poly(np.float32(-300)))
