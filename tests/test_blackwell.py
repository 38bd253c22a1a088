"""The exp split and the skipped rescales on sourced unit rates (a model of the B200, not a measurement)."""
import pytest

from flashviz.hardware import blackwell as bw
from flashviz.model.config import HARDWARE


def test_b200_clock_gives_the_sheets_tensor_rate_at_8192_flops_a_clock():
    g = bw.gpu_rates("B200")
    assert g.clock_hz * HARDWARE["B200"].sms * 8192 == pytest.approx(2.25e15), g.clock_hz


def test_h100_exp_rate_is_fa3s_figure():
    assert bw.gpu_rates("H100 SXM").rates.exp == pytest.approx(3.9e12)


def test_balance_share_equalises_the_two_units():
    from flashviz.run.poly_exp import FMA_OPS_PER_EXP
    for name in ("H200 SXM", "B200"):
        g = bw.gpu_rates(name)
        f = bw.balance_share(g)
        fma = (bw.OTHER_OPS_PER_ENTRY + FMA_OPS_PER_EXP * f) / g.rates.fp32
        assert fma == pytest.approx((1 - f) / g.rates.exp), (name, f)


@pytest.mark.parametrize("freq, start, share", [(10, 1, 24 / 128), (16, 1, 16 / 128), (16, 0, 24 / 128),
                                                (32, 1, 8 / 128), (0, 1, 0.0)])
def test_kernel_share_counts_the_emulated_pairs_by_hand(freq, start, share):
    # freq 10: in a fragment the pairs at k = 6, 8, 16, 18, 26, 28 (k mod 10 >= 6), 12 of 32 entries;
    # fragments 1 and 2 of 4 (from start_frg, not the last).
    assert bw.kernel_share(freq, start) == share


def test_the_b200_waits_on_the_exponentials_and_fa4_shortens_its_tile():
    t = bw.fa4_tile(bw.gpu_rates("B200"), 128, 128, 128, share=0.1875, skipped=0.9)
    assert t.fa3.exp >= t.fa3.matmul and bw.per_tile(t.fa4) < bw.per_tile(t.fa3), (t.fa3, t.fa4)


def test_fa4_with_nothing_moved_is_fa3():
    g = bw.gpu_rates("B200")
    t = bw.fa4_tile(g, 128, 128, 64, share=0.0, skipped=0.0)
    assert t.fa4 == t.fa3


def test_refuses_a_gpu_without_exp_rates():
    with pytest.raises(ValueError, match="H100, H200 and B200"):
        bw.gpu_rates("A100 40GB")
