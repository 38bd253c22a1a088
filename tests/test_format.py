"""The figures a page prints: three significant figures, and no exponent on a figure of 1,000 or more."""
import pytest

from flashviz.teach.format import figure_text


@pytest.mark.parametrize("x, shown", [(0.5123, "0.512"), (41.28, "41.3"), (999.4, "999"), (999.6, "1,000"),
                                      (25_143.4, "25,143"), (2.26e5, "226,000"), (-1234.5, "-1,234"),
                                      (1.234e-5, "1.23e-05")])
def test_a_figure_has_three_significant_figures_and_no_exponent_from_1_up(x, shown):
    assert figure_text(x) == shown
