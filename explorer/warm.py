"""The process's costliest first visits, paid once in the background after its first run, so the readers who come
later find them done.

A lesson's first visit to a server process computes what every later reader shares: lesson 13's schedule model of
every measured call, lesson 14's masks against the model, lesson 6's real-precision study and its import of
ml_dtypes (NumPy ufunc-loop registration, the larger part of that lesson's first visit). None of them depends on
the reader's settings, so they are computed once, with the arguments the lessons themselves pass, through the same
caches (explorer/cache.py): a lesson then finds them there (tests/test_warm.py holds the calls alike).
BENCHMARKS.md ("First visits") gives each lesson's first visit cold and after the warming.

The pieces run after the run that starts them, one at a time, each inside `threads.one_run_at_a_time`: no reader's
run runs beside one. A reader who opens a lesson meanwhile waits for the piece in progress (and, the lock not being
first come first served, perhaps the next). One who opens lesson 6, 13 or 14 before its piece is done computes it in
their own run, as before, and the piece then finds it cached.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from . import threads

_log = logging.getLogger(__name__)
_started = threading.Event()
done = threading.Event()  # every piece tried (tests wait for it)


def _precision() -> None:
    from flashviz.run import precision  # imports ml_dtypes

    from . import cache
    cache.precision_study(precision.LESSON_N, precision.PAPER_D)


def _schedule() -> None:
    from .schedule_view import measured
    measured()


def _masks() -> None:
    from . import cache
    cache.masks_measured("fwd")  # as the lesson passes it: a cache's key is the arguments as given, not their defaults
    cache.masks_measured("bwd")


# (what it readies, the piece): each lesson's own arguments, nothing of a reader's settings
PIECES: list[tuple[str, Callable[[], None]]] = [
    ("lesson 6: real precisions", _precision),
    ("lesson 13: the measured calls against the schedule model", _schedule),
    ("lesson 14: the measured masks against the model", _masks),
]


def start() -> None:
    """Once a process (app.py, each run): the pieces, in a thread of their own, each once no run is in progress."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_run, name="flashviz-warm", daemon=True).start()


def _run() -> None:
    for name, piece in PIECES:
        with threads.one_run_at_a_time():
            try:
                piece()
            except Exception:  # the lesson computes it itself, and shows its error there
                _log.warning("flashviz: readying %s failed; the lesson computes it on its visit", name, exc_info=True)
    done.set()
