"""explorer/warm.py: the process's costliest first visits, readied once after its first run, one piece at a time
between readers' runs, and exactly the calls the lessons make."""
import logging
import threading
import time

import pytest

from explorer import threads, warm
from tests.test_app import PAGES, open_page

WAIT_S = 600  # for the warming thread to end: a state waited for, not a time asserted


@pytest.fixture
def fresh(monkeypatch):
    """warm's once-a-process state as a new process has it."""
    monkeypatch.setattr(warm, "_started", threading.Event())
    monkeypatch.setattr(warm, "done", threading.Event())
    monkeypatch.setattr(warm, "QUIET_S", 0.3)


def test_the_pieces_wait_for_the_run_and_hold_the_lock_each(fresh, monkeypatch):
    """Each piece runs in the warming thread, holding the run lock, and only once no reader's run has ended for
    QUIET_S (the first reader's browser is still fetching the page from this process just after its run)."""
    seen, quiet = [], []

    def piece(name):
        def run():
            seen.append((name, threading.current_thread().name, threads._ONE_RUN._is_owned()))  # type: ignore[attr-defined]
            quiet.append(time.monotonic() - threads.last_run_end)
        return run

    monkeypatch.setattr(warm, "PIECES", [("a", piece("a")), ("b", piece("b"))])
    with threads.one_run_at_a_time():  # a reader's run in progress: it started the warming, which waits for it
        warm.start()
        warm.start()  # a second run of the app starts nothing more
        seen.append(("run over", threading.current_thread().name, True))
    assert warm.done.wait(WAIT_S)
    assert seen == [("run over", threading.main_thread().name, True),
                    ("a", "flashviz-warm", True), ("b", "flashviz-warm", True)]
    assert len(quiet) == 2 and min(quiet) >= warm.QUIET_S


def test_a_run_that_comes_while_a_piece_waits_puts_it_off(fresh, monkeypatch):
    """A reader's run that ends while a piece waits for quiet (or for the lock) starts the quiet over: the piece
    runs QUIET_S after the later run, not after the first."""
    monkeypatch.setattr(warm, "QUIET_S", 1.0)
    events, quiet = [], []

    def piece():
        events.append("piece")
        quiet.append(time.monotonic() - threads.last_run_end)
    monkeypatch.setattr(warm, "PIECES", [("a", piece)])
    with threads.one_run_at_a_time():
        warm.start()
    with threads.one_run_at_a_time():  # a second reader at once, whose run takes half the quiet
        time.sleep(warm.QUIET_S / 2)  # the run's length, not a wait for a state
        events.append("second run over")
    assert warm.done.wait(WAIT_S)
    assert events == ["second run over", "piece"]
    assert quiet[0] >= warm.QUIET_S  # from the second run's end (after the first's, it would be about half)


def test_a_piece_that_fails_is_logged_and_the_rest_still_run(fresh, monkeypatch, caplog):
    ran = []

    def broken():
        raise OSError("a data file is missing")

    monkeypatch.setattr(warm, "PIECES", [("the broken one", broken), ("the next", lambda: ran.append(1))])
    with caplog.at_level(logging.WARNING, logger="explorer.warm"):
        warm.start()
        assert warm.done.wait(WAIT_S)
    assert ran == [1]
    assert "readying the broken one failed" in caplog.text
    assert threads._ONE_RUN.acquire(timeout=WAIT_S)  # the lock is not left held
    threads._ONE_RUN.release()


def test_a_run_of_the_app_starts_the_warming(fresh, monkeypatch):
    monkeypatch.setattr(warm, "PIECES", [])
    at = open_page(PAGES[0])
    assert not at.exception
    assert warm.done.wait(WAIT_S)


def test_every_piece_is_a_call_the_lessons_make(fresh, monkeypatch):
    """A piece readies a cache only if a lesson asks it for the same thing: each call the pieces make, to the
    cached functions they call, is one the lessons (6, 13, 14, opened at their defaults) make too."""
    from explorer import cache, schedule_view
    calls: dict[str, list] = {"pieces": [], "lessons": []}
    into, depth = ["pieces"], threading.local()
    for module, name in ((cache, "precision_study"), (cache, "masks_measured"), (schedule_view, "measured")):
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            outer = not getattr(depth, "n", 0)  # one spied function calls another only on a cache miss
            if outer and threading.current_thread().name != "flashviz-warm":
                calls[into[0]].append((_name, args, tuple(sorted(kwargs.items()))))
            depth.n = getattr(depth, "n", 0) + 1
            try:
                return _real(*args, **kwargs)
            finally:
                depth.n -= 1
        monkeypatch.setattr(module, name, spy)
    for _, piece in warm.PIECES:
        piece()
    into[0] = "lessons"
    monkeypatch.setattr(warm, "start", lambda: None)  # the app's own warming would call the pieces again
    for page in ("lessons/06_exact.py", "lessons/13_schedule.py", "lessons/14_masks.py"):
        assert not open_page(page).exception
    assert {c[0] for c in calls["pieces"]} == {"precision_study", "masks_measured", "measured"}
    assert len(calls["pieces"]) == len(warm.PIECES)
    missed = set(calls["pieces"]) - set(calls["lessons"])
    assert not missed, f"warmed, but no lesson asks for it: {missed}"
