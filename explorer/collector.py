"""Keep long-lived objects out of Python's full garbage collections.

A full collection walks every object the collector tracks, and a server that has imported
Streamlit, pandas, Plotly and PyArrow holds about 150,000 of them, almost all code and module
data that live as long as the process. Streamlit used to run one after every script run
(`runner.postScriptGC`, off in .streamlit/config.toml): that walk was about 60-70 ms of the
110-170 ms of server CPU a rerun cost. Python still runs one now and then on its own.
gc.freeze() moves every object tracked now into a permanent generation the collector skips;
what a rerun creates afterwards is still collected as before.

Frozen objects are never collected as cyclic garbage, so freezing is done only at the start
of a run that follows one which imported modules (a page's first visit: a dozen times at
most in a process's life), never on an ordinary rerun. What is frozen beside the modules (a
session's state, cached values, garbage not yet collected) is bounded, not a leak that grows
with use; a full collection first would have cost the first visit about 60 ms.
"""
from __future__ import annotations

import gc
import sys

_modules_frozen = 0  # len(sys.modules) at the last freeze


def freeze_new_modules() -> None:
    """At the start of a run (app.py's first line after its imports): if modules were
    imported since the last freeze, freeze every object that exists now."""
    global _modules_frozen
    if len(sys.modules) > _modules_frozen:
        gc.freeze()
        _modules_frozen = len(sys.modules)
