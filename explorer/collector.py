"""Keep long-lived objects out of the full garbage collection Streamlit runs after every rerun.

Streamlit calls gc.collect(2) when each script run ends (`runner.postScriptGC`). A full
collection walks every object the collector tracks, and a server that has imported
Streamlit, pandas, Plotly and SciPy holds about 150,000 of them, almost all code and module
data that live as long as the process: that walk was about 60 ms of the 110-170 ms of server
CPU a rerun cost. gc.freeze() moves every object tracked now into a permanent generation
the collector skips; what a rerun creates afterwards is still collected as before.

Frozen objects are never collected as cyclic garbage, so freezing is done only when a run
imported modules (the first visit to a page that needs new ones, a dozen times at most in
a process's life), never on an ordinary rerun: what else it catches then (that run's
session state and cached values) is bounded, not a leak that grows with use.
"""
from __future__ import annotations

import gc
import sys

_modules_frozen = 0  # len(sys.modules) at the last freeze


def freeze_new_modules() -> None:
    """After a run that imported modules: collect once, then freeze what is left."""
    global _modules_frozen
    if len(sys.modules) > _modules_frozen:
        gc.collect()
        gc.freeze()
        _modules_frozen = len(sys.modules)
