"""The process's costliest first visits, paid once in the background after its first run, so the readers who come
later find them done.

A lesson's first visit to a server process computes what every later reader shares: lesson 13's schedule model of
every measured call, lesson 14's masks against the model, lesson 6's real-precision study and its import of
ml_dtypes (NumPy ufunc-loop registration, the larger part of that lesson's first visit). None of them depends on
the reader's settings, so they are computed once, with the arguments the lessons themselves pass, through the same
caches (explorer/cache.py): a lesson then finds them there (tests/test_warm.py holds the calls alike).
BENCHMARKS.md ("First visits") gives each lesson's first visit cold and after the warming.

Each piece waits until no reader's run has ended for QUIET_S, then runs inside `threads.one_run_at_a_time`, so no
reader's run runs beside it (but one that has waited MOST_WAIT_S, as any run). Started at once after the first run,
the pieces held the GIL while the first reader's browser was still fetching the page's scripts from this process:
the cold start to the first screen went from 9.86 to 11.11 s (the floor 8.37 s); with the quiet, 9.05 s against
9.02 s (BENCHMARKS.md, "Many readers", "First visits"). A reader who opens a lesson during a piece waits for it; one
who opens lesson 6, 13 or 14 before its piece is done computes it in their own run, as before, and the piece then
finds it cached. A warmed process holds about 26 MB more.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from . import threads

_log = logging.getLogger(__name__)
QUIET_S = 5.0  # a piece starts only this long after a reader's run last ended
_started = threading.Event()
done = threading.Event()  # every piece tried (tests wait for it)


def _precision() -> None:
    from flashviz.run import precision  # imports ml_dtypes

    from . import cache
    cache.precision_study(precision.LESSON_N, precision.PAPER_D)


def _schedule() -> None:
    from .schedule_view import measured
    measured()


def _masks(pass_: str) -> Callable[[], None]:
    def piece() -> None:
        from . import cache
        cache.masks_measured(pass_)  # as the lesson passes it: a cache's key is the arguments as given, not defaults
    return piece


# (what it readies, the piece): each lesson's own arguments, nothing of a reader's settings
PIECES: list[tuple[str, Callable[[], None]]] = [
    ("lesson 6: real precisions", _precision),
    ("lesson 13: the measured calls against the schedule model", _schedule),
    ("lesson 14: the measured masks against the model", _masks("fwd")),
    ("lesson 14: the measured backward masks", _masks("bwd")),
]


def start() -> None:
    """Once a process (app.py, each run, inside the run lock): the pieces, in a thread of their own, each once no
    reader's run has ended for QUIET_S."""
    if _started.is_set():
        return
    _started.set()
    # the pieces and the event as they are now: a test that sets up its own leaves an earlier thread to its own
    threading.Thread(target=_run, args=(list(PIECES), done), name="flashviz-warm", daemon=True).start()


def _run(pieces: list[tuple[str, Callable[[], None]]], finished: threading.Event) -> None:
    for name, piece in pieces:
        while True:
            time.sleep(max(0.0, threads.last_run_end + QUIET_S - time.monotonic()))
            with threads.one_run_at_a_time(reader=False):
                if time.monotonic() - threads.last_run_end < QUIET_S:
                    continue  # a reader's run came and went while this waited for the lock: quiet again first
                try:
                    piece()
                except Exception:  # the lesson computes it itself, and shows its error there
                    _log.warning("flashviz: readying %s failed; the lesson computes it on its visit", name,
                                 exc_info=True)
                break
    finished.set()
