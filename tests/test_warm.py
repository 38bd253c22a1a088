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
    """A reader's run that ends while a piece waits for quiet (or for the lock) starts the quiet over."""
    quiet = []
    monkeypatch.setattr(warm, "PIECES", [("a", lambda: quiet.append(time.monotonic() - threads.last_run_end))])
    with threads.one_run_at_a_time():
        warm.start()
    ended = threads.last_run_end
    time.sleep(warm.QUIET_S / 3)  # not a wait for a state: the second reader comes a little after the first
    with threads.one_run_at_a_time():  # another reader, before the first's quiet is over
        pass
    assert warm.done.wait(WAIT_S)
    assert threads.last_run_end > ended  # the second run counted
    assert quiet and quiet[0] >= warm.QUIET_S


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
    assert threads._ONE_RUN.acquire(timeout=10)  # the lock is not left held
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
    into, depth = ["pieces"], [0]
    for module, name in ((cache, "precision_study"), (cache, "masks_measured"), (schedule_view, "measured")):
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            if not depth[0]:  # the outer call: one spied function calls another only on a cache miss
                calls[into[0]].append((_name, args, tuple(sorted(kwargs.items()))))
            depth[0] += 1
            try:
                return _real(*args, **kwargs)
            finally:
                depth[0] -= 1
        monkeypatch.setattr(module, name, spy)
    for _, piece in warm.PIECES:
        piece()
    into[0] = "lessons"
    monkeypatch.setattr(warm, "start", lambda: None)  # the app's own warming would call the pieces again
    for page in ("lessons/06_exact.py", "lessons/13_schedule.py", "lessons/14_masks.py"):
        assert not open_page(page).exception
    assert {c[0] for c in calls["pieces"]} == {"precision_study", "masks_measured", "measured"}
    missed = set(calls["pieces"]) - set(calls["lessons"])
    assert not missed, f"warmed, but no lesson asks for it: {missed}"
