"""The chart builders' fast paths equal the slow ones they replaced (tests/style_reference.py).
`_style` writes each chart's look straight into its JSON: 35 of a chart's 37 ms went to plotly's own
updates, and a live chart is built at every value of its sliders."""
import json
import math
import random

import pandas as pd
import pytest

from explorer import charts
from tests.chart_cases import lazy_cases
from explorer.charts.labels import PHONE, WIDE, label_spots
from tests.style_reference import reference_label_spots, reference_style

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


@pytest.mark.parametrize("geometry", [WIDE, PHONE], ids=["wide", "phone"])
@pytest.mark.parametrize("seed", range(40))
def test_the_roofline_labels_take_the_spots_the_search_over_every_choice_takes(seed, geometry):
    """label_spots scores every choice at once in NumPy; the reference walks them one by one."""
    rng = random.Random(seed)
    k = 1 + seed % 4
    xs, ys = ([10 ** rng.uniform(-1, 3) for _ in range(k)] for _ in range(2))
    labels = ["".join(rng.choice("abc|") for _ in range(rng.randint(3, 14))).replace("|", "<br>") for _ in range(k)]
    marks = pd.DataFrame({"x": xs, "y": ys, "label": labels})
    x_range = (math.log10(min(xs)) - rng.uniform(0, 1), math.log10(max(xs)) + rng.uniform(0, 1))
    y_range = (math.log10(min(ys)) - rng.uniform(0, 1), math.log10(max(ys)) + rng.uniform(0, 1))
    assert label_spots(marks, x_range, y_range, geometry) == reference_label_spots(marks, x_range, y_range, geometry), \
        marks
