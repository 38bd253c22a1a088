"""Many readers on one process: the threads that run the readers' scripts hand the GIL on sooner, and take turns.

Streamlit runs each session's script in a thread of its own, and one event-loop thread sends what every run
draws, a websocket message an element. CPython lets a thread that waits for the GIL take it from one that holds it
only after `sys.getswitchinterval()`, 5 ms by default. With many readers' runs in flight, the loop waited for the
GIL before almost every message it sent, and every run waited on the loop: 30 readers moving a slider every 3 s
kept the server's CPU under three quarters busy and still waited 2.2 s for a run at the median (bench/load.py,
BENCHMARKS.md "Many readers"). At 0.5 ms the loop keeps up, for a few per cent more switching.

The readers' runs also take turns with each other: one runs at a time (`one_run_at_a_time`, app.py and every
fragment). They share one GIL, so 30 runs in flight at once made no more progress than one: each waited for all the
others, and the event-loop thread that sends their messages competed with 30 threads for the GIL instead of one.
Taken in turn, a run is over in about its own time: with 30 dragging readers the median round trip went from
305-314 to 80-95 ms, the p95 from 1,066-1,218 to 668-1,226 ms (three runs before, five after), and the server's
CPU per rerun from 90 to 65-69 ms (BENCHMARKS.md, "Many readers", which says what it costs too: a slow run holds
every reader). A run that stops early (a rerun, a page switch, a closed tab) leaves the lock by its exception.

Turns are taken in the order the runs came (`Turns`): with Python's own lock, a thread that asked later, and held
the GIL when the lock came free, could take it before one that had waited for seconds. But a reader's run on the
page it already has (a slider let go: tens of ms) goes before the first visits and the asks for a slider's live
figures in line (hundreds of ms each), at most MOST_PASSES of them before each: while a class of 30 opened their
lessons at once, a move let go waited 2.0-2.4 s at the median behind the first visits in line, and these moves, 5% of
a minute's, set its p95 (BENCHMARKS.md, "Many readers"). A switch to another lesson is a first visit there.

A thread passes the lock once: a fragment drawn inside its page's run does not ask again, and neither does one of
a run that had waited MOST_WAIT_S and went on beside the holder. Each of those fragments once waited MOST_WAIT_S more:
CI saw a presenter's link to lesson 9 (its sections are fragments) take 58 s to draw.
"""
from __future__ import annotations

import collections
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import streamlit as st

SWITCH_INTERVAL_S = 0.0005


def hand_over_sooner() -> None:
    """Set the process's GIL switch interval (app.py, each run: it is one assignment)."""
    if sys.getswitchinterval() != SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)


_log = logging.getLogger(__name__)


# How many runs of the short line (`Turns`: readers' runs on the page they have) may go, one after another, before the
# first of the long one (first visits, asks for live figures): the long line still moves while readers move.
MOST_PASSES = 2


class Turns:
    """A lock its waiters get in the order they asked for it, in two lines: the short one (`soon`) before the long
    one, but at most MOST_PASSES in a row while the long one waits. Not reentrant (one_run_at_a_time counts a thread's
    passes itself)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._owner: int | None = None
        self._since = 0.0
        self._line: collections.deque[object] = collections.deque()  # the long line's tickets, first come first
        self._soon: collections.deque[object] = collections.deque()  # the short line's
        self._passes = 0  # short-line turns taken in a row while the long line waited

    def _next(self) -> object | None:
        """The ticket whose turn comes next (None: no one waits)."""
        if self._soon and (not self._line or self._passes < MOST_PASSES):
            return self._soon[0]
        return self._line[0] if self._line else None

    def acquire(self, timeout: float, soon: bool = False) -> bool:
        """Wait for this thread's turn, at most `timeout` s: whether it came. `soon`: in the short line."""
        with self._cond:
            ticket, line = object(), self._soon if soon else self._line
            line.append(ticket)
            deadline = time.monotonic() + timeout
            try:
                while self._owner is not None or self._next() is not ticket:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError
                    self._cond.wait(left)
            except BaseException as gone:  # out of the line (a ticket left in it would stop every later run)
                line.remove(ticket)
                if not self._line:
                    self._passes = 0  # no one in the long line is passed any more
                self._cond.notify_all()  # the next may now be first, and the lock free
                if isinstance(gone, TimeoutError):
                    return False
                raise
            line.popleft()  # its own ticket: the next waits for release()
            self._passes = self._passes + 1 if soon and self._line else 0
            self._owner, self._since = threading.get_ident(), time.monotonic()
            return True

    def release(self) -> None:
        with self._cond:
            if self._owner != threading.get_ident():
                raise RuntimeError("released by a thread that does not hold it")
            self._owner = None
            self._cond.notify_all()

    def _is_owned(self) -> bool:
        return self._owner == threading.get_ident()

    def held_for(self) -> float:
        """How long its holder has held it (0 if free)."""
        return time.monotonic() - self._since if self._owner is not None else 0.0


_ONE_RUN = Turns()
_passed = threading.local()  # .depth: how many one_run_at_a_time this thread is inside


# A run that waits longer than this runs anyway, beside the one that holds the lock: a run stuck by a fault does
# not stop every reader for good. Of 30 readers opening their lessons at once, the last waited 7.3-8.4 s for its
# page (BENCHMARKS.md, "Many readers", session 60).
MOST_WAIT_S = 30.0


last_run_end = 0.0  # time.monotonic() when a reader's run last left one_run_at_a_time (explorer/warm.py waits on it)


# The session state's key that holds the address of the lesson a run of the app last drew to its end (app.py).
HAS_PAGE = "_fv_has_page"


def on_its_page(url_path: str) -> bool:
    """Whether this run of the app, of the lesson at `url_path` (st.navigation's choice), is of the page its reader
    already has (a slider let go, not a first visit nor a switch to another lesson): in the short line (`Turns`)."""
    return st.session_state.get(HAS_PAGE) == url_path


def page_drawn(url_path: str) -> None:
    """Record the lesson this run drew, to its end."""
    st.session_state[HAS_PAGE] = url_path


@contextlib.contextmanager
def one_run_at_a_time(reader: bool = True, soon: bool = False) -> Iterator[None]:
    """Inside: no other reader's run of the app (or of a fragment) runs; one that starts meanwhile waits (at most
    MOST_WAIT_S). (A widget's callback, and app.py's lines before it, run before the lock is taken.) `reader`
    False: work of the process's own (explorer/warm.py), which does not count as a reader's run. `soon`: a reader's
    run on the page it has, in the short line (`Turns`)."""
    global last_run_end
    depth = getattr(_passed, "depth", 0)
    if depth:  # a fragment inside its page's run: this thread has had its turn (or has waited it out)
        _passed.depth = depth + 1
        try:
            yield
        finally:
            _passed.depth = depth
        return
    asked = time.monotonic()
    alone = _ONE_RUN.acquire(timeout=MOST_WAIT_S, soon=soon)
    if not alone:
        _log.warning("flashviz: a run waited %.1f s for its turn and goes on beside the run that has held it for "
                     "%.1f s", time.monotonic() - asked, _ONE_RUN.held_for())
    _passed.depth = 1
    try:
        yield
    finally:
        _passed.depth = 0
        if reader:
            last_run_end = time.monotonic()
        if alone:
            _ONE_RUN.release()


def runs_alone(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` run inside one_run_at_a_time: for a fragment, which reruns without app.py (under @st.fragment), on the
    page its reader has: in the short line. Not for a fragment that runs beside its page's run (a parallel one): it
    would wait for that run to end."""
    return one_run_at_a_time(soon=True)(func)  # a context manager from contextlib decorates too, entered anew each call


def runs_in_line(func: Callable[..., Any]) -> Callable[..., Any]:
    """As runs_alone, for a fragment whose run is as long as a first visit (the figures along a slider a reader asked
    for: explorer/live.py): in the long line, with the first visits."""
    return one_run_at_a_time()(func)
