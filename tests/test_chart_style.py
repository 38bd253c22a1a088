"""`_style` writes each chart's look straight into its JSON (35 of a chart's 37 ms went to plotly's own
updates, and a live chart is built at every value of its sliders): on every chart case the figure
equals the one plotly's validated updates make (tests/style_reference.py)."""
import json

import pytest

from explorer import charts
from tests.chart_cases import lazy_cases
from tests.style_reference import reference_style

CASES = lazy_cases()
MODULES = sorted({builder.__module__ for builder in (case.builder for case in CASES)})


@pytest.mark.parametrize("case", CASES, ids=[case.slug for case in CASES])
def test_the_fast_style_equals_plotlys_own_updates(case, monkeypatch):
    args = case.make()
    fast = json.loads(case.builder(*args).to_json())
    for module in MODULES:
        monkeypatch.setattr(f"{module}._style", reference_style)
    slow = json.loads(case.builder(*args).to_json())
    assert fast == slow, f"{case.slug}: the fast style differs from plotly's updates"


def test_the_reference_is_really_swapped_in(monkeypatch):
    """The comparison above is between two implementations, not one twice."""
    module = charts.bytes_vs_flops.__module__
    monkeypatch.setattr(f"{module}._style", reference_style)
    import importlib
    assert importlib.import_module(module)._style is reference_style
