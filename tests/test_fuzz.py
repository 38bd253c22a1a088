"""Random valid values on every widget of every lesson, several at a time, in random order.

CI runs a few dozen states; bench/fuzz_app.py runs thousands (FLASHVIZ_FUZZ_EXAMPLES).
"""
import os

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer.lessons import LESSONS
from flashviz.teach.questions import LADDER
from tests.conftest import ROOT

EXAMPLES = int(os.environ.get("FLASHVIZ_FUZZ_EXAMPLES", "12"))
STATES = {"runs": 0}
KINDS = ("slider", "select_slider", "toggle", "radio", "selectbox")


def widgets(at):
    return [w for kind in KINDS for w in at.get(kind)]


def value_for(data, w):
    if w.type == "toggle":
        return data.draw(st.booleans())
    if w.type == "slider":
        lo, hi, step = w.min, w.max, w.step or 1
        k = data.draw(st.integers(0, int(round((hi - lo) / step))))
        return type(w.value)(lo + k * step)
    if w.type == "select_slider" and w.key.startswith("guess_"):  # a ratio guess, shown as "0.001×"
        return data.draw(st.sampled_from(LADDER))
    option = data.draw(st.sampled_from(list(w.options)))
    return type(w.value)(option) if w.type == "select_slider" else option


# Generate only: the app's caches outlive an example, so a replay (shrinking) need not
# retrace the same path; a failing state is reported as it was found, with its widgets.
@settings(max_examples=EXAMPLES, deadline=None, derandomize="CI" in os.environ, database=None,
          phases=[Phase.generate], suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_states_raise_nothing(data):
    page = data.draw(st.sampled_from([lesson.file for lesson in LESSONS]))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    if page != LESSONS[0].file:
        at.switch_page(page).run()
    for _ in range(data.draw(st.integers(1, 3))):
        ws = widgets(at)
        picks = data.draw(st.lists(st.integers(0, len(ws) - 1), min_size=1, max_size=4, unique=True))
        moves = []
        for i in picks:
            value = value_for(data, ws[i])
            moves.append((ws[i].key, value))
            ws[i].set_value(value)
        at.run()
        STATES["runs"] += 1
        assert not at.exception, (page, moves, [e.value for e in at.exception])
