"""The page layer's helpers: bound widgets, the shared config, tables, charts,
notes, links and lesson navigation. Pages stay thin by calling these."""
from __future__ import annotations

import functools
from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from flashviz.config import CUSTOM, HARDWARE, Config, Hardware, custom_hardware
from flashviz.memory import clamp_tiles
from flashviz.format import column_format

from .lessons import LESSONS
from .params import CUSTOM_GPU, FIELDS, SHARED, UNITS, Param

SIMULATE_MAX = 2048  # largest n a page runs in NumPy on a slider move
NOTES = "_link_notes"   # key -> (note, the value the note explains)
SAVED = "_saved_values"  # key -> last value: a lesson's own controls survive a visit elsewhere
LINK = "_link_values"   # key -> URL text of every control shown in this run that is off its default
SHARE_OPEN = "_share_open"  # whether the "Share this view" box is open
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


def section(draw: Callable[[], None]) -> Callable[[], None]:
    """A part of a lesson whose own controls feed nothing else on the page (not the lesson's
    question, not another part), drawn as a fragment: moving one of its controls reruns this
    part alone, not the whole lesson. Then the address bar is brought up to date here (app.py's
    sync_url runs only on whole runs), and if the share box is open the whole page reruns so
    that its link stays equal to the address bar."""
    @functools.wraps(draw)
    def part() -> None:
        draw()
        ctx = get_script_run_ctx()
        if ctx is not None and ctx.fragment_ids_this_run:
            if st.session_state.get(SHARE_OPEN):
                st.rerun()  # scope "app"
            sync_url()
    return st.fragment(part)


def peek(p: Param):
    """A control's value before it is drawn this run: what bound() will start it at."""
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
        _custom_gpu_controls(side)
    gpu = hardware()
    sram = bound(SHARED["sram"], side, "M: the shared memory one thread block may use: "
                                       f"{gpu.smem_per_block_kb} KB on the {gpu.name}.")
    if sram > gpu.smem_per_block_kb:
        side.caption(f"More than one block may use on the {gpu.name} ({gpu.smem_per_block_kb} KB).")
    if sram != gpu.smem_per_block_kb:
        side.button(f"Set M to the {gpu.name}'s {gpu.smem_per_block_kb} KB", key="gpu_budget",
                    icon=":material/memory:", on_click=_use_gpu_budget, args=(gpu.smem_per_block_kb,),
                    type="tertiary")
    c1, c2 = side.columns(2)
    bound(SHARED["order"], c1, "fa2: outer loop over query blocks. fa1: the paper's Algorithm 1, "
                               "outer loop over key/value blocks.", note_where=side)
    bound(SHARED["causal"], c2, note_where=side)
    bound(SHARED["present"], side, "Hides the longer explanations and caveats, for a projector.")


def _custom_gpu_controls(side) -> None:
    """The reader's GPU: its figures behind a button under the GPU's name, so the sidebar still
    fits a 1280x720 screen (a third column beside the menus cut "custom" to "custon"). A note
    about a figure from a link shows in the sidebar itself, seen without opening anything."""
    box = side.popover("Your GPU's figures", icon=":material/edit:", width="stretch")
    box.caption("Your GPU's figures, from its sheet: dense rates, no sparsity.")
    for k in range(0, len(CUSTOM_GPU), 2):
        cols = box.columns(2)
        for col, p in zip(cols, CUSTOM_GPU[k:k + 2]):
            bound(p, col, note_where=side)


def shared_link() -> dict:
    """The URL parameters of the sidebar's settings that are off their defaults."""
    link = st.session_state.get(LINK, {})
    return {key: link[key] for key in (*SHARED, *(p.key for p in CUSTOM_GPU)) if key in link}


def sync_url() -> None:
    """Make the address bar say exactly what the controls show (run last in app.py)."""
    link = st.session_state.get(LINK, {})
    if list(st.query_params.to_dict().items()) != list(link.items()):  # in order: the same text
        st.query_params.from_dict(link)


# Fixed CSS, no user input: pull the lesson up under the top navigation (Streamlit
# leaves a tall empty band above the title) and let a metric's value wrap instead of
# ending in "…".
_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.6rem; padding-bottom: 2rem; }
[data-testid="stSidebarUserContent"] { padding-top: 0.5rem; padding-bottom: 1rem; }
[data-testid="stSidebarHeader"] { height: 2.2rem; margin-bottom: 0; }
[data-testid="stMetricValue"] > div { overflow: visible; text-overflow: clip; white-space: normal; }
h1 { padding-top: 0.2rem; }
/* captions and the buttons' key hints: dark, full size, for the back row */
[data-testid="stCaptionContainer"] { color: #222; opacity: 1; font-size: 1rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] li { font-size: 1.05rem; }
/* the top navigation: twelve lessons across 1280 px */
[data-testid="stTopNavLink"] { padding-left: 0.35rem !important; padding-right: 0.35rem !important; }
[data-testid="stTopNavLinkContainer"] { margin: 0 !important; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricLabel"] p { font-size: 0.95rem; }
/* a long metric label wraps onto a second line instead of ending in "…" */
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; }
[data-testid="stElementContainer"]:has(#fv-clicker) { display: none; }
/* formulas a little larger than Streamlit's 1.21em, and KaTeX's smallest size (a subscript's
   subscript, half the formula's size: 10.9 px) held at 14 px or more, for the back row */
.katex { font-size: 1.25em; }
.katex .sizing.reset-size1.size1 { font-size: max(14px, 1em); }
.katex .sizing.reset-size2.size1 { font-size: max(14px, 0.8333em); }
.katex .sizing.reset-size3.size1 { font-size: max(14px, 0.7143em); }
.katex .sizing.reset-size4.size1 { font-size: max(14px, 0.625em); }
.katex .sizing.reset-size5.size1 { font-size: max(14px, 0.5556em); }
.katex .sizing.reset-size6.size1 { font-size: max(14px, 0.5em); }
/* a button's key hint ("PageDown", "A"): Streamlit fades it to 60% */
button kbd { opacity: 1 !important; }
/* the guess after the reveal is disabled, and Streamlit greys a disabled widget out: keep it
   readable, it is what the answer is compared with */
[class*="st-key-question"] :is([data-testid="stSlider"], [data-testid="stSelectSlider"],
  [data-testid="stRadio"]) :is(p, div, label, span) { color: #222 !important; }
/* touch screens: no hover, so the toolbars stay drawn. Plotly's modebar (zoom, pan: clumsy by
   finger) would sit over a chart's title; a table's toolbar sits 50 px above the grid, over its
   caption, so the grid moves down to leave it that room */
@media (hover: none) {
  .modebar-container { display: none !important; }
  [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]) { margin-top: 2.2rem; }
}
</style>"""

# The clicker's keys must work wherever the focus is. A focused slider or toggle takes
# PageDown for itself (the slider moves, the lesson stays), and Streamlit's shortcuts skip
# keys typed into a control; so, before anything else sees the key, hand focus back to
# the page and press the lesson button. Fixed code, no input from the URL or the reader.
_CLICKER = """<script id="fv-clicker">
(function () {
  if (window.__fvClicker) return;
  window.__fvClicker = true;
  const CONTROL = 'input, select, textarea, [role="slider"], [role="switch"], [role="radio"], [role="combobox"]';
  window.addEventListener("keydown", function (e) {
    if (e.key !== "PageDown" && e.key !== "PageUp") return;
    const t = e.target;
    if (!(t && t.closest && t.closest(CONTROL))) return;  // Streamlit's own shortcut will take it
    e.preventDefault();
    e.stopImmediatePropagation();
    if (t.blur) t.blur();
    const keys = e.key === "PageDown" ? ["reveal_then_next", "next_lesson"] : ["prev_lesson"];
    for (const k of keys) {
      const b = document.querySelector(".st-key-" + k + " button");
      if (b) { b.click(); return; }
    }
  }, true);
})();
</script>"""


def style() -> None:
    st.html(_CSS)
    st.html(_CLICKER, unsafe_allow_javascript=True)


def value(key: str):
    return st.session_state.get(key, SHARED[key].default)


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
    figures = [_typed(p) for p in CUSTOM_GPU]
    return custom_hardware(*figures)


def _typed(p: Param):
    """A custom-GPU field's value, drawn this run or not (then the last one the reader typed)."""
    return st.session_state.get(p.key, st.session_state.get(SAVED, {}).get(p.key, p.default))


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


def explain(markdown: str) -> None:
    """Longer teaching text: hidden in presentation mode."""
    if not presenting():
        st.markdown(markdown)


def _column_config(df, headers: dict, formats: dict) -> dict:
    """Each column's header (short where `headers` says, the units then in the caption) and the
    seed's precision per column (or the page's, from `formats`), unless it would print a nonzero
    value as 0.00: then three significant figures, so a tiny figure never reads as nothing."""
    out = {}
    for col in df.columns:
        label = headers.get(col, col)
        if df[col].dtype.kind == "f":
            spec = formats.get(col) or column_format(col)  # by the full name: the precision follows the unit
            values = df[col].abs()
            decimals = int(spec[1:-1]) if spec.endswith("f") else None
            if decimals is not None and ((values > 0) & (values < 0.5 * 10 ** -decimals)).any():
                spec = ".3g"
            out[col] = st.column_config.NumberColumn(label, format="%" + spec)
        elif label != col:
            out[col] = st.column_config.Column(label)
    return out


def table(df, key: str, caption: str | None = None, show=None, headers: dict | None = None,
          formats: dict | None = None) -> None:
    """A table with units in its headers (or, where `headers` shortens them, in its caption) and a CSV
    download of every column. `show`: the columns the page shows, key columns first (a phone sees
    those and scrolls to the rest), so that the table fits 1280 px beside the sidebar; the CSV keeps
    the others. (A pinned column would stay in sight on a phone, but the grid draws it faded.)
    `formats`: a format spec for a column whose default precision is noise (".0f" for thousands of MB)."""
    if caption:
        st.caption(caption)
    st.dataframe(df, hide_index=True, column_order=show, column_config=_column_config(df, headers or {}, formats or {}),
                 key=f"{key}_table")
    # The CSV is written when the button is clicked, not on every rerun of every table.
    st.download_button("Download CSV" if show is None else "Download CSV (all columns)",
                       lambda: df.to_csv(index=False).encode(), file_name=f"{key}.csv",
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


READING = (
    ("FlashAttention: fast and memory-efficient exact attention with IO-awareness", "Dao et al., 2022",
     "https://arxiv.org/abs/2205.14135"),
    ("FlashAttention-2: faster attention with better parallelism and work partitioning", "Dao, 2023",
     "https://arxiv.org/abs/2307.08691"),
    ("Online normalizer calculation for softmax", "Milakov and Gimelshein, 2018",
     "https://arxiv.org/abs/1805.02867"),
    ("FlashAttention-3: fast and accurate attention with asynchrony and low precision", "Shah et al., 2024",
     "https://arxiv.org/abs/2407.08608"),
)


def reading_list() -> None:
    """Where the ideas come from. Links only: nothing is fetched until a reader clicks."""
    st.subheader("Reading list")
    st.markdown("\n".join(f"- [{title}]({url}), {who}." for title, who, url in READING))


def share_link() -> None:
    """A copyable link that reopens this page with these settings."""
    params = dict(st.session_state.get(LINK, {}))  # the same dict sync_url puts in the address bar
    base = st.context.url or ""
    url = base + ("?" + urlencode(params) if params else "")
    # Opening the box reruns the page (on_change), so its link is never older than the address bar,
    # even after a section's own rerun (see section).
    with st.expander("Share this view", key=SHARE_OPEN, on_change="rerun"):
        st.caption("Copy this link: it reopens this lesson with every setting above.")
        st.code(url or "(the link appears when the app runs in a browser)", language=None)


def nav_title(lesson) -> str:
    """A lesson's title for a button half the page wide: the part before a colon ("Inference" for
    "Inference: one query, the whole cache"), whole beside its key hint at 1280 px."""
    return lesson.title.split(":")[0]


def lesson_nav(current: str, reveal_first=None) -> None:
    """Previous / next lesson buttons; PageUp / PageDown work from a clicker.
    `reveal_first`, a callback, makes the next button reveal the lesson's answer instead
    (a question on a projector: the clicker's first PageDown reveals, the next moves on)."""
    files = [lesson.file for lesson in LESSONS]
    if current not in files:
        return
    k = files.index(current)
    left, right = st.columns(2)
    if k > 0 and left.button(f"← {nav_title(LESSONS[k - 1])}", key="prev_lesson", shortcut="PageUp",
                             help="PageUp", width="stretch"):
        st.switch_page(files[k - 1], query_params=shared_link())
    if reveal_first is not None:
        right.button("Reveal the answer ↓", key="reveal_then_next", shortcut="PageDown", help="PageDown",
                     width="stretch", type="primary", on_click=reveal_first)
    elif k < len(files) - 1 and right.button(f"{nav_title(LESSONS[k + 1])} →", key="next_lesson",
                                             shortcut="PageDown", help="PageDown", width="stretch"):
        st.switch_page(files[k + 1], query_params=shared_link())
