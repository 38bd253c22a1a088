"""Many readers on one process: the threads that run the readers' scripts hand the GIL on sooner.

Streamlit runs each session's script in a thread of its own, and one event-loop thread sends what every run
draws, a websocket message an element. CPython lets a thread that waits for the GIL take it from one that holds it
only after `sys.getswitchinterval()`, 5 ms by default. With many readers' runs in flight, the loop waited for the
GIL before almost every message it sent, and every run waited on the loop: 30 readers moving a slider every 3 s
kept the server's CPU under three quarters busy and still waited 2.2 s for a run at the median (bench/load.py,
BENCHMARKS.md "Many readers"). At 0.5 ms the loop keeps up, for a few per cent more switching.
"""
from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.0005


def hand_over_sooner() -> None:
    """Set the process's GIL switch interval (app.py, each run: it is one assignment)."""
    if sys.getswitchinterval() != SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)
