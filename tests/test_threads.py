"""explorer/threads.py and the config beside it: what keeps many readers' runs from queueing behind the GIL and
behind a full garbage collection after every run (bench/load.py measures the effect)."""
import ast
import contextlib
import sys
import threading
import time
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
        seen.append(threads._ONE_RUN._is_owned())
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
    # the run over, the lock is free again for another thread (the run's own thread has ended)
    assert threads._ONE_RUN.acquire(timeout=10)
    threads._ONE_RUN.release()


@contextlib.contextmanager
def stuck_holder(monkeypatch):
    """Another thread holds the lock (a run stuck by a fault) until the block ends; MOST_WAIT_S is 0.5 s. Yields
    that thread."""
    monkeypatch.setattr(threads, "MOST_WAIT_S", 0.5)
    holding, release = threading.Event(), threading.Event()

    def stuck():
        with threads.one_run_at_a_time():
            holding.set()
            release.wait(120)

    other = threading.Thread(target=stuck)
    other.start()
    try:
        assert holding.wait(10)
        yield other
    finally:
        release.set()
        other.join(10)


def test_a_run_that_waits_too_long_runs_anyway(monkeypatch):
    """A run stuck while it holds the lock (a fault) does not stop every reader: past MOST_WAIT_S a run goes on."""
    with stuck_holder(monkeypatch) as other:
        at = open_page(PAGES[0])
        assert not at.exception and at.select_slider(key="n").value == 1024
        assert other.is_alive()  # the stuck run still holds the lock: this one ran beside it
    assert threads._ONE_RUN.acquire(timeout=10)  # and the lock is free once the stuck run is over
    threads._ONE_RUN.release()


def test_a_run_that_waited_too_long_does_not_wait_again_in_its_fragments(monkeypatch, caplog):
    """A run that went on beside a stuck holder draws its fragments (lesson 1's question box, its live figures)
    without asking for the lock again: one wait, and one warning that says so, not one a fragment."""
    entered = []

    class Counting(threading.local):
        def __setattr__(self, name, value):
            if name == "depth" and value > 1:
                entered.append(value)
            super().__setattr__(name, value)

    monkeypatch.setattr(threads, "_passed", Counting())
    with stuck_holder(monkeypatch), caplog.at_level("WARNING", logger="explorer.threads"):
        at = open_page(PAGES[0])
        assert not at.exception
    waits = [r for r in caplog.records if "waited" in r.getMessage()]
    assert len(waits) == 1, [r.getMessage() for r in waits]
    assert entered  # the run drew fragments inside its own pass


def test_the_runs_get_the_lock_in_the_order_they_asked():
    """Three runs ask while a fourth holds the lock: they get it first come, first served."""
    turns, order = threads.Turns(), []
    assert turns.acquire(timeout=1)

    def run(name):
        assert turns.acquire(timeout=30)
        order.append(name)
        turns.release()

    started = []
    for k, name in enumerate("abc"):
        t = threading.Thread(target=run, args=(name,))
        t.start()
        started.append(t)
        while len(turns._line) < k + 1:  # this one is in line before the next asks
            time.sleep(0.001)
    turns.release()
    for t in started:
        t.join(30)
    assert order == ["a", "b", "c"]
    assert turns.acquire(timeout=1)  # free again


def test_a_readers_run_on_its_page_goes_before_first_visits_at_most_most_passes_in_a_row():
    """While a run holds the lock, two first visits ask (the long line), then four runs on a page the reader has
    (the short line): these go first, MOST_PASSES of them, then a first visit, then MOST_PASSES more, then the rest;
    each line first come, first served."""
    turns, order = threads.Turns(), []
    assert turns.acquire(timeout=1)

    def run(name, soon):
        assert turns.acquire(timeout=30, soon=soon)
        order.append(name)
        turns.release()

    started = []
    for name, soon in (("visit 1", False), ("visit 2", False), ("move 1", True), ("move 2", True), ("move 3", True),
                       ("move 4", True)):
        t = threading.Thread(target=run, args=(name, soon))
        t.start()
        started.append(t)
        while len(turns._line) + len(turns._soon) < len(started):  # in line before the next asks
            time.sleep(0.001)
    turns.release()
    for t in started:
        t.join(30)
    assert threads.MOST_PASSES == 2
    assert order == ["move 1", "move 2", "visit 1", "move 3", "move 4", "visit 2"]
    assert turns.acquire(timeout=1, soon=True)  # free again, from either line
    turns.release()
    assert turns.acquire(timeout=1)


def test_a_run_of_a_reader_who_has_the_page_is_in_the_short_line(monkeypatch):
    """app.py: a session's first run is in the long line; once a run has drawn its page, its next runs of that page are
    in the short one, and a switch to another lesson (a first visit there) in the long one. A fragment (a lesson's own
    controls) is in the short one; an ask for a slider's figures in the long one."""
    asked = []
    real = threads.Turns.acquire

    def spy(self, timeout, soon=False):
        asked.append(soon)
        return real(self, timeout, soon)

    monkeypatch.setattr(threads.Turns, "acquire", spy)
    at = open_page(PAGES[0])
    assert not at.exception and asked == [False]
    at.run()
    assert asked == [False, True]
    at.switch_page(PAGES[1]).run()
    assert not at.exception and asked == [False, True, False]
    at.run()
    assert asked == [False, True, False, True]
    asked.clear()
    threads.runs_alone(lambda: None)()
    threads.runs_in_line(lambda: None)()
    assert asked == [True, False]


def test_a_waiter_that_gives_up_leaves_the_line():
    """A run that waited its most and went on is out of the line: the lock, once free, is anyone's at once."""
    turns = threads.Turns()
    assert turns.acquire(timeout=1)
    got = []
    t = threading.Thread(target=lambda: got.append(turns.acquire(timeout=0.2)))
    t.start()
    t.join(30)
    assert got == [False] and not turns._line
    turns.release()
    assert turns.acquire(timeout=1)


def _streamlit_call(node: ast.AST, name: str) -> bool:
    """Whether `node` is `st.<name>` or a call of it (`st.fragment`, `st.fragment(run_every=...)`)."""
    if isinstance(node, ast.Call):
        node = node.func
    return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, ast.Name) \
        and node.value.id == "st"


def _runs_alone(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ("runs_alone", "runs_in_line")


def fragments_not_alone(tree: ast.AST) -> tuple[int, list[int]]:
    """Every fragment (or dialog, which reruns alone too) in a module's code: how many, and the lines of those whose
    function is not wrapped in threads.runs_alone (the decorator right under it, or the argument of the call)."""
    found, bare = 0, []
    decorators = {id(d) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for d in node.decorator_list}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            listed = node.decorator_list
            for k, d in enumerate(listed):
                if _streamlit_call(d, "fragment") or _streamlit_call(d, "dialog"):
                    found += 1
                    if not (k + 1 < len(listed) and _runs_alone(listed[k + 1])):
                        bare.append(d.lineno)
        elif isinstance(node, ast.Call) and (_streamlit_call(node.func, "fragment") or _streamlit_call(node.func,
                                                                                                    "dialog")):
            if id(node) in decorators:
                continue  # st.fragment(run_every=...) as a decorator: counted above
            found += 1
            wrapped = node.args and isinstance(node.args[0], ast.Call) and _runs_alone(node.args[0].func)
            if not wrapped:
                bare.append(node.lineno)
    return found, sorted(bare)


def test_a_fragment_reruns_alone():
    """A fragment reruns without app.py: every fragment of the app takes the same lock itself."""
    files = [ROOT / "app.py", *sorted((ROOT / "explorer").rglob("*.py")), *sorted((ROOT / "lessons").glob("*.py"))]
    total = 0
    for path in files:
        found, bare = fragments_not_alone(ast.parse(path.read_text()))
        total += found
        assert not bare, f"{path.name}: a fragment at line(s) {bare} does not take threads.runs_alone"
    assert total >= 4  # the question boxes, a lesson's sections, the live figures


def test_the_check_finds_a_fragment_that_does_not_take_the_lock():
    bare = """
import streamlit as st
@st.fragment
def a(): pass
@st.fragment(run_every=2)  # a comment
def b(): pass
c = st.fragment(lambda: None)
@st.dialog("title")
def d(): pass
"""
    alone = """
import streamlit as st
from explorer import threads
@st.fragment
@threads.runs_alone
def a(): pass
@st.fragment(run_every=2)
@threads.runs_alone
def b(): pass
c = st.fragment(threads.runs_alone(lambda: None))
"""
    assert fragments_not_alone(ast.parse(bare)) == (4, [3, 5, 7, 8])
    assert fragments_not_alone(ast.parse(alone)) == (3, [])


def test_the_lock_is_reentrant_for_a_fragment_drawn_inside_its_run():
    calls = []
    inner = threads.runs_alone(lambda: calls.append(threading.current_thread()))
    with threads.one_run_at_a_time():
        inner()
    assert calls == [threading.current_thread()]
