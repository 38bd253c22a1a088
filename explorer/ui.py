"""The page layer's helpers: bound widgets, the shared config, tables, charts,
notes, links and lesson navigation. Pages stay thin by calling these."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from flashviz.config import HARDWARE, KB, Config
from flashviz.format import column_format

from .lessons import LESSONS
from .params import SHARED, Param

SIMULATE_MAX = 2048  # largest n a page runs in NumPy on a slider move
NOTES = "_link_notes"
LINK = "_link_values"


def bound(p: Param, where=None, help: str | None = None):
    """A widget whose value lives in the URL under its key.

    The first time a session meets the key, the raw URL value is parsed here
    (clamped, or refused with a note) instead of being silently dropped.
    """
    where = where if where is not None else st
    if p.key not in st.session_state:
        value, note = p.default, None
        if p.key in st.query_params:
            value, note = p.parse(st.query_params.get_all(p.key))
        st.session_state[p.key] = value
        if note:
            st.session_state.setdefault(NOTES, []).append(note)
    common = {"key": p.key, "bind": "query-params", "help": help}
    if p.kind == "bool":
        value = where.toggle(p.label, **common)
    elif p.kind in ("int", "float"):
        value = where.slider(p.label, p.lo, p.hi, step=p.step, **common)
    elif all(isinstance(o, (int, float)) for o in p.options):
        value = where.select_slider(p.label, options=list(p.options), **common)
    elif len(p.options) <= 2:
        value = where.radio(p.label, list(p.options), horizontal=True, **common)
    else:
        value = where.selectbox(p.label, list(p.options), **common)
    if value != p.default:
        st.session_state.setdefault(LINK, {})[p.key] = str(value).lower() if p.kind == "bool" else str(value)
    return value


def shared_controls() -> None:
    """The sidebar every lesson shares (rendered by app.py on every run)."""
    st.session_state[LINK] = {}
    side = st.sidebar
    side.markdown("### Settings")
    bound(SHARED["n"], side, "Past 2048 the pages stop running NumPy and use the exact closed forms.")
    bound(SHARED["d"], side)
    c1, c2 = side.columns(2)
    bound(SHARED["Br"], c1)
    bound(SHARED["Bc"], c2)
    bound(SHARED["sram"], side, "What one kernel may use of shared memory: about 96 KB on an A100.")
    bound(SHARED["dtype"], side, "Sets the bytes per element moved; NumPy computes in float64.")
    bound(SHARED["hw"], side)
    bound(SHARED["causal"], side)
    bound(SHARED["order"], side, "fa2: outer loop over query blocks. fa1: the paper's Algorithm 1, "
                                  "outer loop over key/value blocks.")
    bound(SHARED["present"], side, "Hides the longer explanations, for a projector.")


def value(key: str):
    return st.session_state.get(key, SHARED[key].default)


def presenting() -> bool:
    return bool(value("present"))


def config(**overrides) -> Config:
    """The shared settings as an engine Config; tiles larger than n are cut to n."""
    n = overrides.pop("n", value("n"))
    Br, Bc = value("Br"), value("Bc")
    for name, b in (("Br", Br), ("Bc", Bc)):
        if b > n:
            st.info(f"{name} = {b} is larger than n = {n}; this page uses {name} = {n}.")
    fields = dict(n=n, d=value("d"), Br=min(Br, n), Bc=min(Bc, n), sram_bytes=value("sram") * KB,
                  dtype=value("dtype"), causal=value("causal"), loop_order=value("order"))
    fields.update(overrides)
    return Config(**fields)


def hardware():
    return HARDWARE[value("hw")]


def simulable(cfg: Config, max_tiles: int = 4096, block: int | None = None) -> Config:
    """The config a page really runs in NumPy: n cut so that the run stays
    interactive (n <= SIMULATE_MAX and at most max_tiles tile steps).
    `block` is the smallest tile the page will run with, if smaller than Br, Bc."""
    b = min(cfg.Br, cfg.Bc, block or cfg.Br)
    n = min(cfg.n, SIMULATE_MAX, int((max_tiles ** 0.5) * b))
    if n < cfg.n:
        st.info(f"Running n = {cfg.n} with {cfg.Br} × {cfg.Bc} tiles in NumPy would stall the page, so "
                f"the measured figures use n = {n}. Every traffic and flop figure is still exact at "
                f"n = {cfg.n} (closed forms).")
        return cfg.with_(n=n, Br=min(cfg.Br, n), Bc=min(cfg.Bc, n))
    return cfg


def link_notes() -> None:
    notes = st.session_state.get(NOTES)
    if notes:
        with st.container(border=True):
            st.warning("Some settings in the link could not be used as given:\n\n"
                       + "\n".join(f"- {n}" for n in notes))
            if st.button("Dismiss", key="dismiss_link_notes"):
                st.session_state[NOTES] = []
                st.rerun()


def explain(markdown: str) -> None:
    """Longer teaching text: hidden in presentation mode."""
    if not presenting():
        st.markdown(markdown)


def _column_config(df):
    out = {}
    for col in df.columns:
        if df[col].dtype.kind == "f":
            out[col] = st.column_config.NumberColumn(col, format="%" + column_format(col))
    return out


def table(df, key: str, caption: str | None = None) -> None:
    """A table with units in its headers and a CSV download."""
    if caption:
        st.caption(caption)
    st.dataframe(df, hide_index=True, column_config=_column_config(df), key=f"{key}_table")
    st.download_button("Download CSV", df.to_csv(index=False).encode(), file_name=f"{key}.csv",
                       mime="text/csv", key=f"{key}_csv")


def chart(fig, key: str) -> None:
    st.plotly_chart(fig, key=key, config={
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": key, "scale": 2}})


def side_by_side(*charts_and_keys, widths=None) -> None:
    """Charts in columns: side_by_side((fig, "key"), (fig, "key"))."""
    for col, (fig, key) in zip(st.columns(widths or len(charts_and_keys)), charts_and_keys):
        with col:
            chart(fig, key)


def share_link() -> None:
    """A copyable link that reopens this page with these settings."""
    params = dict(st.session_state.get(LINK, {}))
    base = st.context.url or ""
    url = base + ("?" + urlencode(params) if params else "")
    with st.expander("Share this view"):
        st.caption("Copy this link: it reopens this lesson with every setting above.")
        st.code(url or "(the link appears when the app runs in a browser)", language=None)


def lesson_nav(current: str) -> None:
    """Previous / next lesson buttons; PageUp / PageDown work from a clicker."""
    files = [lesson.file for lesson in LESSONS]
    if current not in files:
        return
    k = files.index(current)
    left, right = st.columns(2)
    if k > 0 and left.button(f"← {LESSONS[k - 1].title}", key="prev_lesson", shortcut="PageUp",
                             help="PageUp", width="stretch"):
        st.switch_page(files[k - 1])
    if k < len(files) - 1 and right.button(f"{LESSONS[k + 1].title} →", key="next_lesson",
                                           shortcut="PageDown", help="PageDown", width="stretch"):
        st.switch_page(files[k + 1])
