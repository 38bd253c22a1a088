"""Live figures: a chart follows its slider while the slider is dragged, in the browser, from figures the engine
computed at every value the slider offers.

A lesson draws a chart with `ui.chart(make, key, ("n", "d"))`: `make` builds the chart from the settings (through
ui.config(), ui.hardware() and ui.peek(control(key)), never from a variable read before), and each named slider is a URL
key. At the end of the run (`flush`, so the page is drawn first) every such chart is built again at each value its
sliders offer, the other settings as they are (`at`), and the page carries what changes along the slider: per trace the
attributes that differ between its values, per layout key the same, each value's as its differences from one value's
(`steps`). Those hold wherever the slider stands, so they are built once for every reader whose other settings are the
same, and not again when the slider is let go. A slider that changes none of a chart's values is not carried for it; one
with more than MOST_VALUES values, or whose differences would weigh more than MOST_BYTES_PER_VALUE a value, stays on the
rerun path (the server's log says so, and tests/test_live_fill.py holds that no chart does at the defaults). In the
browser, explorer/live.js watches each named slider (Streamlit's own: a native, labelled range input that sends its
value to the server only when it is let go), marks it `data-live-knob`, and as it moves redraws the chart from the
carried values: JavaScript chooses among the engine's figures, it computes none. On release Streamlit reruns the page
once, as for any control.

The figures along the sliders cost more than the page itself (a chart built at every value of three sliders), so the
page's run builds none: it carries those built already (`_built`, shared by every reader) and names the sliders whose
figures are missing. The browser asks for a slider's figures when the reader shows the intent to move it, before the
drag: the pointer over it, or the keyboard's focus (on a touch screen, and for a player's slider, at once). The ask is a
trigger that reruns only the fragment that holds them (`_carry`), and builds that slider's figures alone. The reader
sees the page settle first; nothing goes to the server while a slider moves; and the sliders nobody moves cost nothing.
"""
from __future__ import annotations

import contextlib
import contextvars
import json
import hashlib
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.utils import PlotlyJSONEncoder

from . import threads

HERE = Path(__file__).parent
_log = logging.getLogger(__name__)
# A slider whose chart would carry more figures than this stays on the rerun path (the page says so
# beside it): a 1 KB step over the SRAM budget's 8-512 KB would be 505 figures, lesson 12's layers 128.
MOST_VALUES = 64
SIZES = ("n", "d", "Br", "Bc")  # the sidebar's sliders a chart of sizes follows (the SRAM budget has 505 values)
# Beside a player's own n: why the player does not follow it live.
PLAYER_ON_RELEASE = ("The player's frames are built when you let go: its frames at every value are too many to carry "
                     "for a drag.")
PENDING = "_live_pending"  # this run's live charts: key -> (make, knobs, the slider the keys play)
CHARTS = "_live_charts"  # the last whole run's live charts, which a fill (a fragment run) builds
SETTINGS = "_live_settings"  # the settings of that run (`_settings`)
RUN = "_live_run"  # the run's page and settings, hashed: the browser tells a new run from a fill of the same one
PAGE = "_live_page"  # the run's lesson: the figures along a slider are named by it with the rest (`_carry`)
BUILD = secrets.token_hex(4)  # and by this process: a page that outlived a restart (new code, say) keeps none
MOST_BUILT = 512  # figures along a slider kept for every reader (LRU): bounded, as every cache here is
# The most a value's difference from the chart may weigh on average (JSON); past it, the rerun path (a heatmap, say)
MOST_BYTES_PER_VALUE = 12_000

_override: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar("live_override", default=None)

# explorer/snapshots.js, the drawings made ahead for a drag, and pointer.js, a drag's value from its pointer, are put
# before live.js: one script
_component = st.components.v2.component("flashviz.live", js="".join((HERE / f).read_text() for f in (
                                            "snapshots.js", "pointer.js", "live.js")),
                                        isolate_styles=False)


@contextlib.contextmanager
def at(values: Mapping[str, Any]) -> Iterator[None]:
    """Inside: the settings read as if the sliders named (URL keys) stood at these values."""
    token = _override.set({**(_override.get() or {}), **values})
    try:
        yield
    finally:
        _override.reset(token)


def overridden(key: str) -> tuple[bool, Any]:
    """(True, value) while `at` sets this key, else (False, None)."""
    values = _override.get() or {}
    return (True, values[key]) if key in values else (False, None)


def follow(key: str, make: Callable[[], go.Figure], knobs: Sequence[str], player: str | None = None) -> None:
    """Have the chart drawn under `key` follow these sliders (URL keys) live; built at `flush`. `player`: one of them
    that the keys play, as a player's: → and ← step it, Home and End, space plays it through."""
    st.session_state.setdefault(PENDING, {})[key] = (make, tuple(knobs), player)


def _figure_json(fig: go.Figure) -> dict:
    """The figure's own data and layout, not copied: only what differs is encoded (`_plain`)."""
    return {"data": fig._data, "layout": fig._layout}


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and \
            bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f" and b.dtype.kind == "f"))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _diff(base: Mapping[str, Any], other: Mapping[str, Any]) -> dict:
    """The keys whose values differ, with other's value (None: gone from other)."""
    return {k: other.get(k) for k in base.keys() | other.keys() if not _same(base.get(k), other.get(k))}


def _plain(value: Any) -> Any:
    """As JSON has it (NumPy arrays and numbers as lists and numbers), the way plotly encodes them."""
    return json.loads(json.dumps(value, cls=PlotlyJSONEncoder))


def steps(make: Callable[[], go.Figure], key: str, values: Sequence[Any], default: Any = None,
          chart: str = "") -> dict | None:
    """The chart at each of a slider's values, whatever value the slider stands at (the other settings as they are),
    as differences from the chart at one of them, the reference: the slider's default, first or last value, whichever
    carries least. `ref` holds the attributes that change along the slider at the reference ({"data": {trace index:
    {attr: value}}, "layout": {key: value}}, None where the figure there has none); `data` and `layout` each value's
    differences from it (one entry per value; a whole list of traces where traces come and go). The browser sets
    every attribute `ref` names on the chart the run drew, to the value's own or else the reference's: so the figures
    hold wherever the slider stands, are not built again when it is let go elsewhere, and one build serves every
    reader whose other settings are these. None when no value changes the chart, or when the figures pass
    MOST_BYTES_PER_VALUE on average."""
    figures = []
    for value in values:
        with at({key: value}):
            figures.append(_figure_json(make()))
    candidates = dict.fromkeys(i for i in (values.index(default) if default in values else 0, 0, len(values) - 1))
    sized = [(len(json.dumps(p)), p) for p in (_along(figures, i) for i in candidates) if p is not None]
    if not sized:
        return None  # the chart does not depend on this slider
    size, payload = min(sized, key=lambda pair: pair[0])
    if size > MOST_BYTES_PER_VALUE * len(values):
        _log.warning("flashviz: chart %s along %s would carry %d KB, over the %d KB its slider may: it follows on "
                     "release", chart, key, size // 1000, MOST_BYTES_PER_VALUE * len(values) // 1000)
        return None
    return payload


def _along(figures: Sequence[dict], reference: int) -> dict | None:
    """`steps`' figures as differences from the one at index `reference` (None: they are all the same)."""
    first = figures[reference]
    traces = len(first.get("data", []))
    whole = any(len(fig.get("data", [])) != traces for fig in figures)  # traces come and go: carry them all
    data, layout = [], []
    for fig in figures:
        if whole:
            data.append(_plain(fig.get("data", [])))
        else:
            data.append({str(t): _plain(d) for t, tr in enumerate(fig["data"]) if (d := _diff(first["data"][t], tr))})
        layout.append(_plain(_diff(first.get("layout", {}), fig.get("layout", {}))))
    if not any(data) and not any(layout):
        return None
    varying = {} if whole else {t: set().union(*(change.get(t, {}) for change in data))
                                for t in map(str, range(traces))}
    return {"ref": {"data": {t: _plain({a: first["data"][int(t)].get(a) for a in attrs})
                             for t, attrs in varying.items() if attrs},
                    "layout": _plain({k: first.get("layout", {}).get(k) for k in set().union(*layout)})},
            "data": data, "layout": layout}


def param(key: str):
    """The control a URL key names: the sidebar's, or a lesson's own."""
    from .lessons import control
    from .params import CUSTOM_GPU, SHARED
    own = {p.key: p for p in CUSTOM_GPU}
    return SHARED.get(key) or own.get(key) or control(key)


def _settings() -> dict[str, Any]:
    """Every setting a chart may read, as it stands at the end of the page's run (the fill builds the
    figures at these, whatever the fragment's own run holds)."""
    state = st.session_state
    return {k: v for k, v in state.items() if isinstance(k, str) and not k.startswith("_")
            and isinstance(v, (int, float, str, bool))}


def _snapshot(settings: Mapping[str, Any], but: str | None = None) -> tuple:
    """The settings as a key (of the run's token; `but` one: of the figures along that slider, which hold
    for every value it stands at)."""
    return tuple(sorted((k, repr(v)) for k, v in settings.items() if k != but))


class _Built:
    """The figures along each slider built so far, shared by every session, the least recently used
    dropped past MOST_BUILT; a page's run asks whether they are here without building them."""

    def __init__(self, most: int):
        self.most, self.lock = most, threading.Lock()
        self.items: OrderedDict[tuple, dict | None] = OrderedDict()

    def get(self, key: tuple) -> tuple[bool, dict | None]:
        with self.lock:
            if key not in self.items:
                return False, None
            self.items.move_to_end(key)
            return True, self.items[key]

    def put(self, key: tuple, payload: dict | None) -> None:
        with self.lock:
            self.items[key] = payload
            self.items.move_to_end(key)
            while len(self.items) > self.most:
                self.items.popitem(last=False)


_built = _Built(MOST_BUILT)


def flush(page: str) -> None:
    """Carry this run's live charts to the page: run at the end of a whole run, after the lesson (`page`,
    its script)."""
    state = st.session_state
    state[CHARTS] = state.pop(PENDING, {})
    state[SETTINGS] = _settings()
    state[PAGE] = page
    # the same lesson at the same settings: the same token, so an unchanged component is not sent again
    run = repr((page, sorted(state[CHARTS]), _snapshot(state[SETTINGS])))
    state[RUN] = hashlib.sha1(run.encode()).hexdigest()[:12]
    _carry()


@st.fragment
@threads.runs_in_line  # an ask: as long as a first visit (explorer/threads.py)
def _carry() -> None:
    """The component with the figures along the sliders: those built already, and the sliders whose
    figures are missing; in a run the browser triggered, the figures of the sliders it asked for."""
    state = st.session_state
    pending, settings = state.get(CHARTS, {}), state.get(SETTINGS, {})
    fill = _fill()
    if fill is not None:
        _settle(fill, settings, {knob for _, names, _ in pending.values() for knob in names})
    asked = _asked(fill)
    charts: dict[str, dict] = {}
    knobs: dict[str, dict] = {}  # key -> how its input counts, and where it stood for this run's figures
    players = {chart: player for chart, (_, _, player) in pending.items() if player}
    missing: set[str] = set()
    snapshots: dict[str, tuple] = {}  # per slider, the settings but its own: the key of its figures
    for chart, (make, names, _) in pending.items():
        for knob in names:
            p = param(knob)
            values, mode = p.offered()
            if len(values) > MOST_VALUES:
                continue
            now = settings.get(knob, p.default)
            stands = {"mode": mode, "at": p.input_value(now)}
            if knob not in snapshots:
                snapshots[knob] = _snapshot(settings, but=knob)
            key = (chart, knob, snapshots[knob], tuple(values))
            found, payload = _built.get(key)
            if not found and knob in asked:
                with at(settings):
                    payload = steps(make, knob, values, p.default, chart)
                _built.put(key, payload)
            elif not found:
                missing.add(knob)
                knobs[knob] = stands  # live, its figures not built yet
                continue
            if payload is None:
                continue
            # `id`: the same at every run whose other settings are these, so the browser keeps what it drew along the
            # slider (explorer/snapshots.js) when it is let go and the page runs again at its new value
            ident = hashlib.sha1(repr((BUILD, state.get(PAGE), key)).encode()).hexdigest()[:12]
            charts.setdefault(chart, {})[knob] = {"values": values, "id": ident, **payload}
            knobs[knob] = stands
    _component(data={"charts": charts, "knobs": knobs, "players": players, "run": state.get(RUN, ""),
                     "missing": sorted(missing)},
               key="fv_live", height="content", on_fill_change=_filled)


def _settle(fill: Mapping, settings: Mapping[str, Any], sliders: set[str]) -> None:
    """The controls after an ask: the browser sends its record of every control with it.

    - An ask for the run the page drew last: a key pressed on a slider as the ask went out (the focus came to it,
      then an arrow) reaches the server only with the ask, in one message, and the page reruns whole at it. Only
      for the live sliders: a button's value is True in the run its click starts, and a rerun from here would lose
      the click. The browser sends an ask only once every live slider shows the run's value (live.js `recorded`):
      right after a run that set a slider on the server (a step of the clicker's sets the key tile), the record
      can still hold the old value, and a rerun at it undid the step.
    - An ask for an older run left before the browser had drawn the last one: its record is the older run's, and
      each control goes back to where the page's last run (or a section's since: `note_section`) had it
      (tests/test_live_fill.py)."""
    now = _settings()
    if fill.get("run") == st.session_state.get(RUN):
        if any(k in now and now[k] != settings.get(k) for k in sliders if k in settings):
            st.rerun()
        return
    for key, value in settings.items():
        if key in now and now[key] != value and _is_control(key):
            st.session_state[key] = value


def note_section() -> None:
    """A section's own run (deck.section) has moved one of its controls: it is part of the page as drawn."""
    state = st.session_state
    if SETTINGS in state:
        state[SETTINGS] = {**state[SETTINGS], **_settings()}


def _is_control(key: str) -> bool:
    """Whether a URL key names a control (the sidebar's, the reader's GPU's, a lesson's own): a button's state
    cannot be set."""
    try:
        param(key)
    except KeyError:
        return False
    return True


def _fill() -> Mapping | None:
    """The browser's ask, in the run it triggered (None in the page's own run)."""
    value = st.session_state.get("fv_live")
    fill = value.get("fill") if isinstance(value, Mapping) else None
    return fill if isinstance(fill, Mapping) else None


def _asked(fill: Mapping | None) -> set[str]:
    """The sliders whose figures the browser asked for (their URL keys): only for the page's current run,
    whose settings the figures are built at."""
    if fill is None or fill.get("run") != st.session_state.get(RUN):
        return set()
    return {str(k) for k in fill.get("knobs") or () if isinstance(k, str)}


def _filled() -> None:
    """The browser asked for a slider's figures: this fragment's run builds them (`_asked`)."""
