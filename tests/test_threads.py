"""explorer/threads.py and the config beside it: what keeps many readers' runs from queueing behind the GIL and
behind a full garbage collection after every run (bench/load.py measures the effect)."""
import sys
import threading
import tomllib

from explorer import threads
from tests.conftest import ROOT
from tests.test_app import PAGES, open_page


def test_a_run_of_the_app_sets_the_gil_switch_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    try:
        at = open_page(PAGES[0])
        assert not at.exception
        assert sys.getswitchinterval() == threads.SWITCH_INTERVAL_S < 0.005
    finally:
        sys.setswitchinterval(before)


def test_no_full_collection_after_every_run():
    options = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert options["runner"]["postScriptGC"] is False


def test_a_run_draws_the_page_holding_the_app_and_another_thread_waits(monkeypatch):
    """One run at a time: a run of the app holds the lock while it draws (ui.style is the first thing it draws),
    and another thread that asks for it meanwhile waits."""
    from explorer import ui
    seen = []
    style = ui.style

    def drawing():
        seen.append(threads._ONE_RUN._is_owned())  # type: ignore[attr-defined]
        def other_run():
            got = threads._ONE_RUN.acquire(timeout=0.2)
            seen.append(got)
            if got:
                threads._ONE_RUN.release()

        other = threading.Thread(target=other_run)
        other.start()
        other.join()
        style()

    monkeypatch.setattr(ui, "style", drawing)
    at = open_page(PAGES[0])
    assert not at.exception
    assert seen == [True, False]
    assert not threads._ONE_RUN._is_owned()  # type: ignore[attr-defined]


def test_a_fragment_reruns_alone():
    """A fragment reruns without app.py: every fragment of the app takes the same lock itself."""
    sources = [p for p in (ROOT / "explorer").glob("*.py")]
    fragments = 0
    for path in sources:
        text = path.read_text()
        fragments += text.count("@st.fragment\n") + text.count("st.fragment(")
        assert text.count("@st.fragment\n") == text.count("@st.fragment\n@threads.runs_alone\n"), path
        assert text.count("st.fragment(") == text.count("st.fragment(threads.runs_alone("), path
    assert fragments == 4


def test_the_lock_is_reentrant_for_a_fragment_drawn_inside_its_run():
    calls = []
    inner = threads.runs_alone(lambda: calls.append(threading.current_thread()))
    with threads.one_run_at_a_time():
        inner()
    assert calls == [threading.current_thread()]
