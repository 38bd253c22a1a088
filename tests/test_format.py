"""The figures a page prints: three significant figures, and no exponent on a figure of 1,000 or more."""
import pytest

from flashviz.teach.format import figure_text


@pytest.mark.parametrize("x, shown", [(0.5123, "0.512"), (41.28, "41.3"), (999.4, "999"), (999.6, "1,000"),
                                      (25_143.4, "25,143"), (2.26e5, "226,000"), (-1234.5, "-1,234"),
                                      (1.234e-5, "1.23e-05")])
def test_a_figure_has_three_significant_figures_and_no_exponent_from_1_up(x, shown):
    assert figure_text(x) == shown


def test_value_text_writes_a_value_over_many_decades_as_the_back_row_reads_it():
    """Lesson 6's table of each type's limits: fp16's largest value once read "65500" under a sentence saying 65,504,
    and float32's "3.4028234663852886e+38"."""
    from flashviz.teach.format import value_text
    assert [value_text(x) for x in (65504.0, 57344.0, 448.0)] == ["65,504", "57,344", "448"]
    assert value_text(3.4028234663852886e38) == "3.40 × 10³⁸"
    assert value_text(1.2207e-4) == "1.22 × 10⁻⁴"
    assert value_text(88.7228) == "88.72" and value_text(1500.25) == "1,500"
    assert value_text(1.000061) == "1.00006"  # not "1", which would read as exact
    assert value_text(float("nan")) == value_text(None) == "—"
