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
every reader). The lock is reentrant, for a fragment drawn inside its page's run; a run that stops early (a rerun, a
page switch, a closed tab) leaves it by its exception.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

SWITCH_INTERVAL_S = 0.0005


def hand_over_sooner() -> None:
    """Set the process's GIL switch interval (app.py, each run: it is one assignment)."""
    if sys.getswitchinterval() != SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)


_ONE_RUN = threading.RLock()


# A run that waits longer than this runs anyway, beside the one that holds the lock: a run stuck by a fault does
# not stop every reader for good. Of 30 readers opening their lessons at once, the last waited 6.3-7.5 s for its
# page (BENCHMARKS.md, "Many readers").
MOST_WAIT_S = 30.0


last_run_end = 0.0  # time.monotonic() when a reader's run last left one_run_at_a_time (explorer/warm.py waits on it)


@contextlib.contextmanager
def one_run_at_a_time(reader: bool = True) -> Iterator[None]:
    """Inside: no other reader's run of the app (or of a fragment) runs; one that starts meanwhile waits (at most
    MOST_WAIT_S). (A widget's callback, and app.py's lines before it, run before the lock is taken.) `reader`
    False: work of the process's own (explorer/warm.py), which does not count as a reader's run."""
    global last_run_end
    alone = _ONE_RUN.acquire(timeout=MOST_WAIT_S)
    try:
        yield
    finally:
        if reader:
            last_run_end = time.monotonic()
        if alone:
            _ONE_RUN.release()


def runs_alone(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func` run inside one_run_at_a_time: for a fragment, which reruns without app.py (under @st.fragment). Not
    for a fragment that runs beside its page's run (a parallel one): it would wait for that run to end."""
    return one_run_at_a_time()(func)  # a context manager from contextlib decorates too, entered anew each call
