"""Bound widgets and the settings they make: a control whose value lives in the URL (bound), the
sidebar every lesson shares, the reader's own GPU, and the shared settings as an engine Config."""
from __future__ import annotations

import streamlit as st

from flashviz.model.config import CUSTOM, HARDWARE, Config, Hardware, custom_hardware
from flashviz.model.memory import clamp_tiles

from . import live
from .params import CUSTOM_GPU, FIELDS, SHARED, UNITS, Param

SIMULATE_MAX = 2048  # largest n a page runs in NumPy on a slider move
NOTES = "_link_notes"   # key -> (note, the value the note explains)
SAVED = "_saved_values"  # key -> last value: a lesson's own controls survive a visit elsewhere
LINK = "_link_values"   # key -> URL text of every control shown in this run that is off its default
# An alert's icon, said outright: given none, Streamlit looks for a leading emoji in any text that
# is not ASCII ("×", "≤"), and loading its emoji catalog took 0.2-0.5 s of a page's first run.
NO_ICON = ""


def _url_text(p: Param, value) -> str:
    return str(value).lower() if p.kind == "bool" else str(value)


def bound(p: Param, where=None, help: str | None = None, note_where=None):
    """A widget whose value lives in the URL under its key.

    The app writes the URL itself (see sync_url) instead of binding the widget
    with bind="query-params": Streamlit leaves a bound value out of the URL at a
    slider's first option and after a correction, and a bound parameter makes
    st.switch_page raise. The first time a session meets the key, the raw URL
    value is parsed here (clamped, or refused) and any note is shown right
    under the control (or in `note_where`, e.g. the full width under a row of
    narrow columns), for as long as the control still holds that value.
    """
    where = where if where is not None else st
    state = st.session_state
    notes, saved = state.setdefault(NOTES, {}), state.setdefault(SAVED, {})
    if p.key not in state:
        value, note = saved.get(p.key, p.default), None
        if p.key in st.query_params:
            value, note = p.parse(st.query_params.get_all(p.key))
        state[p.key] = value
        if note:
            notes[p.key] = (note, value)
    common = {"key": p.key, "help": help}
    if p.kind == "bool":
        value = where.toggle(p.label, **common)
    elif p.widget == "number":
        value = where.number_input(p.label, p.lo, p.hi, step=p.step, **common)
    elif p.kind in ("int", "float"):
        value = where.slider(p.label, p.lo, p.hi, step=p.step, **common)
    elif all(isinstance(o, (int, float)) for o in p.options):
        value = where.select_slider(p.label, options=list(p.options), **common)
    elif len(p.options) <= 2:
        value = where.radio(p.label, list(p.options), horizontal=True, **common)
    else:
        value = where.selectbox(p.label, list(p.options), **common)
    saved[p.key] = value
    if p.key in notes:
        note, applies_to = notes[p.key]
        if value == applies_to:
            (note_where or where).warning(f"From the link: {note}", icon=":material/link_off:")
        else:  # the reader has moved the control since: the note is history
            del notes[p.key]
    link = state.setdefault(LINK, {})
    if value != p.default:
        link[p.key] = _url_text(p, value)
    else:  # back at its default: out of the URL (a section's own rerun does not start LINK afresh)
        link.pop(p.key, None)
    return value


def keep_from_link(params) -> None:
    """A lesson's own settings from the link, kept while its controls are not drawn: a presenter's question
    stands alone until its answer is out, and the address bar would otherwise lose them at the run's end (the
    link is written from the controls drawn). Parsed as bound() parses them, they stay in the address bar and
    the controls start at them when they are drawn, with the note of a value the link had wrong."""
    state = st.session_state
    notes, saved, link = state.setdefault(NOTES, {}), state.setdefault(SAVED, {}), state.setdefault(LINK, {})
    for p in params:
        if p.key in state or p.key not in st.query_params:
            continue
        value, note = p.parse(st.query_params.get_all(p.key))
        saved[p.key] = value
        if note:
            notes[p.key] = (note, value)
        if value != p.default:
            link[p.key] = _url_text(p, value)


def peek(p: Param):
    """A control's value before it is drawn this run (what bound() will start it at), or after:
    what it holds. Inside live.at, the value a live chart is being built at."""
    set_here, at = live.overridden(p.key)
    if set_here:
        return at
    state = st.session_state
    if p.key in state:
        return state[p.key]
    if p.key in st.query_params:
        return p.parse(st.query_params.get_all(p.key))[0]
    return state.get(SAVED, {}).get(p.key, p.default)


def _use_gpu_budget(kb: int) -> None:
    st.session_state["sram"] = kb


def shared_controls() -> None:
    """The sidebar every lesson shares (rendered by app.py on every run)."""
    st.session_state[LINK] = {}
    st.session_state[live.PENDING] = {}  # the live charts of this whole run, gathered as the lesson draws
    side = st.sidebar
    n = bound(SHARED["n"], side, "Past 2048 the pages stop running NumPy and use the exact closed forms.")
    c1, c2, c3 = side.columns(3)
    bound(SHARED["d"], c1, note_where=side)
    for name, col, what in (("Br", c2, "query"), ("Bc", c3, "key/value")):
        if bound(SHARED[name], col, f"Rows of a {what} tile.", note_where=side) > n:
            col.caption(f"above n: lessons use {n}")
    hw_col, dtype_col = side.columns(2)
    chosen = bound(SHARED["hw"], hw_col, "Sets the bandwidth, the arithmetic rates and the shared memory one "
                                     "block may use. \"custom\": type your own GPU's figures.", note_where=side)
    bound(SHARED["dtype"], dtype_col, "Sets the bytes per element moved; NumPy computes in float64.", note_where=side)
    if chosen == CUSTOM:
        custom_gpu_controls(side)
    gpu = hardware()
    sram = bound(SHARED["sram"], side, "M: the shared memory one thread block may use: "
                                       f"{gpu.smem_per_block_kb} KB on the {gpu.name}. Charts redraw when you let go: "
                                       "its 505 values are too many to carry for a drag (they follow n, d and the "
                                       "tiles as you drag).")
    if sram > gpu.smem_per_block_kb:
        side.caption(f"{sram} KB is more than one block may use on the {gpu.name} ({gpu.smem_per_block_kb} KB).")
    if sram != gpu.smem_per_block_kb:
        side.button(f"Set M to the {gpu.name}'s {gpu.smem_per_block_kb} KB", key="gpu_budget",
                    icon=":material/memory:", on_click=_use_gpu_budget, args=(gpu.smem_per_block_kb,),
                    type="tertiary")
    c1, c2 = side.columns(2)
    bound(SHARED["order"], c1, "fa2: outer loop over query blocks. fa1: the paper's Algorithm 1, "
                               "outer loop over key/value blocks.", note_where=side)
    bound(SHARED["causal"], c2, note_where=side)
    bound(SHARED["present"], side, "Hides the longer explanations and caveats, for a projector.")


def custom_gpu_controls(side) -> None:
    """The reader's GPU: its figures behind a button under the GPU's name, so the sidebar still
    fits a 1280x720 screen (a third column beside the menus cut "custom" to "custon"). A note
    about a figure from a link shows beside the button itself, seen without opening anything.
    Drawn once a run: in the sidebar when its GPU is "custom", else by a lesson that offers it."""
    box = side.popover("Your GPU's figures", icon=":material/edit:", width="stretch")
    box.caption("Your GPU's figures, from its sheet: dense rates, no sparsity.")
    for k in range(0, len(CUSTOM_GPU), 2):
        cols = box.columns(2)
        for col, p in zip(cols, CUSTOM_GPU[k:k + 2]):
            bound(p, col, note_where=side)


def value(key: str):
    set_here, at = live.overridden(key)
    return at if set_here else st.session_state.get(key, SHARED[key].default)


def presenting() -> bool:
    return bool(value("present"))


def config(**overrides) -> Config:
    """The shared settings as an engine Config (each knob's control value times its unit);
    tiles larger than n are cut to n."""
    fields = {name: value(key) * UNITS[key] if UNITS[key] != 1 else value(key) for key, name in FIELDS.items()}
    fields.update(overrides)
    n = fields["n"]
    fields["Br"], fields["Bc"] = clamp_tiles(n, fields["Br"], fields["Bc"])
    return Config(**fields)


def sweep_config(ns) -> Config:
    """The shared settings for a sweep over n: tiles as the reader set them (each n of the
    sweep cuts them to n for itself), not as cut to the sidebar's n."""
    return config(n=max(max(ns), value("Br"), value("Bc")))


def own_setting(text: str, where=None) -> None:
    """Say, beside a lesson's control, where the lesson departs from the sidebar."""
    (where if where is not None else st).caption(f":material/tune: {text}")


def hardware() -> Hardware:
    """The GPU the sidebar names: a preset, or the reader's own figures."""
    if value("hw") != CUSTOM:
        return HARDWARE[value("hw")]
    return custom_gpu()


def custom_gpu() -> Hardware:
    """The reader's own GPU from its typed figures, drawn this run or not (then the link's, or
    the last ones typed)."""
    return custom_hardware(*(peek(p) for p in CUSTOM_GPU))


def simulable(cfg: Config, max_tiles: int = 4096, block: int | None = None, quiet: bool = False) -> Config:
    """The config a page really runs in NumPy: n cut so that the run stays
    interactive (n <= SIMULATE_MAX and at most max_tiles tile steps).
    `block` is the smallest tile the page will run with, if smaller than Br, Bc."""
    b = min(cfg.Br, cfg.Bc, block or cfg.Br)
    n = min(cfg.n, SIMULATE_MAX, int((max_tiles ** 0.5) * b))
    if n < cfg.n and not quiet:
        st.info(f"Running n = {cfg.n} with {cfg.Br} × {cfg.Bc} tiles in NumPy would stall the page, so "
                f"the measured figures use n = {n}. Every traffic and flop figure is still exact at "
                f"n = {cfg.n} (closed forms).", icon=NO_ICON)
    return cfg.at_n(n) if n < cfg.n else cfg
