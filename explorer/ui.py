"""The page layer's helpers: bound widgets, the shared config, tables, charts,
notes, links and lesson navigation. Pages stay thin by calling these."""
from __future__ import annotations

import functools
import html
from pathlib import Path
from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from flashviz.teach.claims import fitting_tiles, overflow_headline, overflow_note
from flashviz.model.config import CUSTOM, HARDWARE, Config, Hardware, custom_hardware, tensor_dtype
from flashviz.model.memory import clamp_tiles
from flashviz.teach.format import column_format
from flashviz.model.sources import ASSUMPTIONS, READING, SOURCES

from . import nav
from .lessons import LESSONS, chapters, control
from .params import CUSTOM_GPU, FIELDS, SHARED, UNITS, Param, shown

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
        custom_gpu_controls(side)
    gpu = hardware()
    sram = bound(SHARED["sram"], side, "M: the shared memory one thread block may use: "
                                       f"{gpu.smem_per_block_kb} KB on the {gpu.name}.")
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


def shared_link() -> dict:
    """The URL parameters of the sidebar's settings that are off their defaults, and the deck."""
    link = st.session_state.get(LINK, {})
    return {key: link[key] for key in (*SHARED, *(p.key for p in CUSTOM_GPU), DECK) if key in link}


def sync_url() -> None:
    """Make the address bar say exactly what the controls show (run last in app.py). While
    presenting, the section on screen (`sec`, written by the clicker in the browser) stays."""
    link = dict(st.session_state.get(LINK, {}))
    if presenting() and section_in_link():
        link[SECTION] = st.query_params[SECTION]
    if list(st.query_params.to_dict().items()) != list(link.items()):  # in order: the same text
        st.query_params.from_dict(link)


# ---- the deck: sections, the lessons a teacher steps through, and where a link resumes ----------
DECK = "deck"     # URL: the lessons a presenter steps through, in order ("1,3,5,9"); absent: all
SECTION = "sec"   # URL: the section on screen while presenting (written by the clicker in the browser)
DECK_STATE = "_deck"
RUNS = "_runs"     # whole runs of this session that drew a lesson (the deck marker's data-run)


def slide(title: str, steps: tuple[dict, ...] = (), on_step: Callable[[], None] | None = None) -> None:
    """Start a section of the lesson here: in presentation mode the clicker's PageDown scrolls this
    mark to the top of the screen. Everything up to the next mark is one screen (1280x720, the
    sidebar closed). The mark is an empty, invisible element; the title names it for a reader of
    the page's source and for the tests.

    `steps`: settings of the lesson's own controls (their URL keys) that the clicker walks through in
    this section, one per PageDown, instead of a mouse on the slider: the first is set when the
    section comes on screen. `on_step` runs after a step's values are set (e.g. to keep the
    lesson's question answered when it depends on them)."""
    title_attr = html.escape(title, quote=True)
    if not (steps and presenting()):
        st.html(f'<div class="fv-slide" data-title="{title_attr}"></div>')
        return
    slug = "".join(ch if ch.isalnum() else "_" for ch in title.lower())
    now = next((i for i, step in enumerate(steps) if all(peek(control(key)) == value for key, value in step.items())),
               -1)
    st.html(f'<div class="fv-slide" data-title="{title_attr}" data-slug="{slug}" data-steps="{len(steps)}" '
            f'data-step="{now}"></div>')
    for i, step in enumerate(steps):  # hidden: the clicker presses them (clicker.js)
        st.button(f"{title}: step {i + 1}", key=f"step_{slug}_{i}", on_click=_set_step, args=(step, on_step))


def _set_step(step: dict, on_step: Callable[[], None] | None) -> None:
    for key, value in step.items():
        st.session_state[key] = value
    if on_step is not None:
        on_step()


def parse_deck(raw: str) -> tuple[list[int], str | None]:
    """A deck from a link: lesson numbers, 1-based, in the presenter's order (each once).
    Returns the 0-based indices and a note for anything dropped."""
    picked, bad = [], []
    for part in raw.split(","):
        part = part.strip()
        if not part:
            continue
        if part.isascii() and part.isdigit() and 1 <= int(part) <= len(LESSONS):
            if int(part) - 1 not in picked:
                picked.append(int(part) - 1)
        else:
            bad.append(part)
    note = None
    if bad:
        note = (f"deck: {', '.join(f'`{shown(b)}`' for b in bad[:3])} {'is' if len(bad) == 1 else 'are'} not a lesson "
                f"number (1 to {len(LESSONS)}); left out")
    return picked, note


def deck() -> list[int]:
    """The lessons the clicker walks, as 0-based indices: the link's deck, or every lesson."""
    state = st.session_state
    if DECK_STATE not in state:
        picked, note = parse_deck(st.query_params.get(DECK, "")) if DECK in st.query_params else ([], None)
        state[DECK_STATE] = picked
        if note:
            state.setdefault(NOTES, {})[DECK] = (note, picked)
    picked = state[DECK_STATE]
    link = state.setdefault(LINK, {})
    if picked:
        link[DECK] = ",".join(str(k + 1) for k in picked)
    else:
        link.pop(DECK, None)
    return picked or list(range(len(LESSONS)))


def _neighbours(k: int) -> tuple[int | None, int | None]:
    """The lessons before and after lesson k in the deck (lesson order where k is not in it)."""
    order = deck()
    if k not in order:
        order = list(range(len(LESSONS)))
    at = order.index(k)
    return (order[at - 1] if at > 0 else None), (order[at + 1] if at + 1 < len(order) else None)


def section_in_link() -> bool:
    """Whether the link names a section past the question: a positive number, or "end" (the
    last, where PageUp from the next lesson lands). Anything else is dropped from the URL."""
    raw = st.query_params.get(SECTION, "")
    return raw == "end" or (raw.isascii() and raw.isdigit() and int(raw) > 0)


def resumes_inside(file: str) -> bool:
    """Whether this run opens a lesson at one of its sections past the question (a presenter link
    or PageUp from the next lesson): then its question counts as answered. Once per visit."""
    seen = st.session_state.setdefault("_resumed", set())
    if not presenting() or not section_in_link() or file in seen:
        return False
    seen.add(file)
    return True


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
/* the overflow banner: dark text for the back row, and its fix names its tiles in full (the label
   wraps instead of ending in "…") */
.st-key-overflow_banner [data-testid="stAlert"] p { color: #4a3800; }
.st-key-fix_tiles button, .st-key-fix_tiles button * { white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; height: auto; }
/* a button's key hint ("PageDown", "A"): Streamlit fades it to 60% */
button kbd { opacity: 1 !important; }
/* the guess after the reveal is disabled, and Streamlit greys a disabled widget out: keep it
   readable, it is what the answer is compared with */
[class*="st-key-question"] :is([data-testid="stSlider"], [data-testid="stRadio"]) :is(p, div, label, span) {
  color: #222 !important; }
/* touch screens: no hover, so the toolbars stay drawn. Plotly's modebar (zoom, pan: clumsy by
   finger) would sit over a chart's title; a table's toolbar sits 50 px above the grid, over its
   caption, so the grid moves down to leave it that room */
@media (hover: none) {
  .modebar-container { display: none !important; }
  [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]) { margin-top: 2.2rem; }
}
</style>"""

# The clicker (explorer/clicker.js says what it does): fixed code; of the URL it reads only whether `present` is set.
_CLICKER = '<script id="fv-clicker">\n' + (Path(__file__).parent / "clicker.js").read_text() + "</script>"


# The deck's marks, the phone and touch screens. Fixed CSS, no input.
_DECK_CSS = """<style>
/* a section's mark takes no room: the gap after it is taken back, so the mark sits at its section's top */
[data-testid="stElementContainer"]:has(.fv-slide), [data-testid="stElementContainer"]:has(.fv-deck) {
  margin-bottom: -1rem; height: 0; min-height: 0; }
[data-testid="stElementContainer"][class*="st-key-step_"] { display: none; }
/* touch screens: no keys to press, so the buttons' key hints say "tap" */
@media (hover: none) and (pointer: coarse) {
  [data-testid="stMain"] kbd { font-size: 0 !important; }
  [data-testid="stMain"] kbd::after { content: "tap"; font-size: 0.8rem; }
}
</style>"""
# Presenting: room under the last section, so that every section, the last included, can be
# scrolled to the top of the screen; and the screen's whole width (the sidebar is closed), where
# the tile player lays its notes beside its table.
_PRESENT_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-bottom: calc(100vh - 4rem); padding-left: 1.5rem; padding-right: 1.5rem;
  max-width: none; }
</style>"""


def style() -> None:
    st.html(_CSS + _DECK_CSS + nav.CSS)
    st.html(_CLICKER, unsafe_allow_javascript=True)


def about() -> None:
    """The first screen's line: what this is, above lesson 1's question."""
    st.markdown("**flashviz**: why FlashAttention is fast. Standard attention was never short of arithmetic; "
                f"it was short of bytes. {len(LESSONS)} lessons in {len(chapters(LESSONS))} chapters, over a NumPy "
                "engine that counts every byte between HBM and SRAM.")


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
    # The CSV is written when the button is clicked, not on every rerun of every table. The click
    # reruns nothing (on_click="ignore"): in Streamlit 1.67 a rerun that starts while the file is being
    # written clears the session's outgoing queue, the file's reply with it, and the button then waits
    # 180 s (AppSession._clear_queue keeps only lifecycle messages; README, "Test it").
    st.download_button("Download CSV" if show is None else "Download CSV (all columns)",
                       lambda: df.to_csv(index=False).encode(), file_name=f"{key}.csv",
                       mime="text/csv", key=f"{key}_csv", on_click="ignore")


def chart(fig, key: str) -> None:
    st.plotly_chart(fig, key=key, config={
        "displaylogo": False, "displayModeBar": "hover" if not presenting() else False,
        "toImageButtonOptions": {"format": "png", "filename": key, "scale": 2}})


def side_by_side(*charts_and_keys, widths=None) -> None:
    """Charts in columns: side_by_side((fig, "key"), (fig, "key"))."""
    for col, (fig, key) in zip(st.columns(widths or len(charts_and_keys)), charts_and_keys):
        with col:
            chart(fig, key)


def reading_list() -> None:
    """Where the ideas come from. Links only: nothing is fetched until a reader clicks."""
    st.subheader("Reading list")
    st.markdown("\n".join(f"- [{s.title}]({s.url}), {s.who}." for s in (SOURCES[k] for k in READING)))


def assumes(key: str) -> str:
    """A visible "model" mark for a sentence that rests on one of this model's assumptions: a link
    to its entry in the list every lesson ends with (assumptions). On a projector the list is not
    drawn, so the mark is the words alone."""
    if presenting():
        return f"*model: {ASSUMPTIONS[key].title}*"
    return f"[*model: {ASSUMPTIONS[key].title}*](#model-{key})"


# The mark's target: an anchor at the top of its entry, held clear of the fixed top navigation
# when the browser scrolls to it; the entry a mark led to is lined in the margin.
_ANCHOR = '<span id="model-{key}" class="fv-model"></span>'  # st.html: no markdown is rendered as HTML
_TARGET_CSS = """<style>
.fv-model { display: block; scroll-margin-top: 4.5rem; }
[data-testid="stElementContainer"]:has(.fv-model:target) + [data-testid="stElementContainer"]
  [data-testid="stMarkdownContainer"] { box-shadow: -0.75rem 0 0 -0.4rem #f0a020; }
</style>"""


def assumptions() -> None:
    """What this model assumes, and what a real kernel does instead: the list every "model" mark
    links to, at the foot of every lesson (not on a projector: it is reading, not a section)."""
    if presenting():
        return
    st.subheader("What this model assumes", anchor="what-this-model-assumes", divider="gray")
    st.html(_TARGET_CSS)
    for key, a in ASSUMPTIONS.items():
        st.html(_ANCHOR.format(key=key))
        st.markdown(f"**{a.title[0].upper() + a.title[1:]}.** {a.model}\n\n*On real GPUs:* {a.real}")


def _fix_tiles(Br: int, Bc: int) -> None:
    st.session_state[SHARED["Br"].key] = Br
    st.session_state[SHARED["Bc"].key] = Bc


def banner_config(file: str) -> Config | None:
    """The tiles a lesson's figures use, as the overflow banner checks them (explorer.lessons'
    `tiles`): the sidebar's, the sidebar's in the 16-bit type (lesson 1's roofline), or None
    where the lesson runs settings of its own."""
    tiles = next(lesson.tiles for lesson in LESSONS if lesson.file == file)
    if tiles == "own":
        return None
    cfg = config()
    return cfg.with_(dtype=tensor_dtype(cfg.dtype)) if tiles == "tensor" else cfg


def overflow_banner(file: str) -> None:
    """At the top of every lesson, presenting or not, while the sidebar's tiles do not fit the SRAM
    budget: what does not fit, what a real kernel does instead, what this model does, and one
    button that sets the largest square tiles that fit (a callback, before the sidebar is drawn)."""
    cfg = banner_config(file)
    headline = overflow_headline(cfg) if cfg is not None else ""
    if not headline:
        return
    fix = fitting_tiles(cfg)
    with st.container(key="overflow_banner"):
        text, button = st.columns([3, 1], vertical_alignment="center")
        text.warning(f"{headline} {assumes('spill')}", icon=":material/warning:")
        if fix is None:
            button.markdown("**No tile fits**: raise the SRAM budget M in the sidebar.")
        else:
            button.button(f"Use {fix[0]} × {fix[1]} tiles, the largest that fit", key="fix_tiles",
                          icon=":material/build:", type="primary", width="stretch", on_click=_fix_tiles,
                          args=fix)


def overflow_text(cfg: Config) -> str:
    """What a sentence about flash's traffic adds while the tiles overflow (claims.overflow_note),
    with its "model" mark; "" when they fit."""
    note = overflow_note(cfg)
    return f"{note} {assumes('spill')}" if note else ""


def _url(params: dict) -> str:
    return (st.context.url or "") + ("?" + urlencode(params) if params else "")


def _deck_changed() -> None:
    st.session_state[DECK_STATE] = list(st.session_state["deck_pick"])


def share_params(link: dict, section: str | None) -> tuple[dict, dict]:
    """The reader's link (the settings, no presentation mode, no deck) and the presenter's
    (presentation mode, the deck, the section on screen), from the address bar's parameters."""
    reader = {k: v for k, v in link.items() if k not in ("present", DECK, SECTION)}
    presenter = {**link, "present": "true"} | ({SECTION: section} if section else {})
    return reader, presenter


def share_link() -> None:
    """Two links: a reader's (this lesson and these settings, to read: no presentation mode) and
    a presenter's (presentation mode, the deck, and the section on screen)."""
    # Opening the box reruns the page (on_change), so its links are never older than the address bar,
    # even after a section's own rerun (see section). Closed, it draws no links: their two code blocks, unseen,
    # cost a tenth of the machine's CPU for a lesson's load in Chromium (bench/page_versions.py).
    with st.expander("Share this view", key=SHARE_OPEN, on_change="rerun"):
        if st.session_state.get(SHARE_OPEN):
            link = dict(st.session_state.get(LINK, {}))  # the same dict sync_url puts in the address bar
            reader, presenter = share_params(link, st.query_params.get(SECTION)
                                             if presenting() and section_in_link() else None)
            for key, params, says in (
                    ("reader_link", reader, "For readers: this lesson with every setting above, to read and explore."),
                    ("presenter_link", presenter, "Presenter link: presentation mode, the deck below and the "
                     "section on screen; PageDown walks each lesson section by section, then the next lesson of "
                     "the deck.")):
                with st.container(key=key):
                    st.caption(says)
                    st.code(_url(params) if st.context.url else "(the link appears when the app runs in a browser)",
                            language=None)
        titles = {k: f"{k + 1}. {lesson.title}" for k, lesson in enumerate(LESSONS)}
        st.multiselect(f"Deck: the lessons PageDown walks, in this order (none: all {len(LESSONS)})", list(titles),
                       default=st.session_state.get(DECK_STATE, []), format_func=lambda k: titles[k], key="deck_pick",
                       on_change=_deck_changed)
        note = st.session_state.get(NOTES, {}).get(DECK)
        if note and note[1] == st.session_state.get(DECK_STATE):
            st.warning(f"From the link: {note[0]}", icon=":material/link_off:")


def nav_title(lesson) -> str:
    """A lesson's title for a button half the page wide: the part before a colon ("Inference" for
    "Inference: one query, the whole cache"), whole beside its key hint at 1280 px."""
    return lesson.title.split(":")[0]


def lesson_nav(current: str) -> None:
    """Previous / next lesson buttons (in the deck's order when the lesson is in the deck);
    PageUp / PageDown work from a clicker. Presenting, the clicker walks a lesson's sections
    first (clicker.js), and going back opens the previous lesson at its last section."""
    files = [lesson.file for lesson in LESSONS]
    if current not in files:
        return
    k = files.index(current)
    before, after = _neighbours(k)
    # The lesson this run drew and the section its link names ("end", a number, or none): the
    # clicker resumes there when it first meets this lesson in the page, from what the page shows
    # rather than from the address bar, which Streamlit changes at other moments than it draws.
    raw = st.query_params.get(SECTION, "")
    resume = ("end" if raw == "end" else str(min(int(raw), 99))) if section_in_link() else ""
    # The run's number in this session: the clicker holds a press after a click that starts a run
    # until a whole run has drawn the page again (a fragment's run alone leaves this marker as it was).
    # And how many lesson buttons follow it: the clicker waits for them (none in a deck of one lesson).
    runs = st.session_state[RUNS] = st.session_state.get(RUNS, 0) + 1
    buttons = (before is not None) + (after is not None)
    st.html(f'<div class="fv-deck" data-present="{1 if presenting() else 0}" data-lesson="{k}"'
            f' data-resume="{resume}" data-run="{runs}" data-buttons="{buttons}"></div>')
    if presenting():
        st.html(_PRESENT_CSS)
    left, right = st.columns(2)
    if before is not None and left.button(f"← {nav_title(LESSONS[before])}",
                                          key="prev_lesson", shortcut="PageUp", width="stretch"):
        back = {**shared_link(), SECTION: "end"} if presenting() else shared_link()
        st.switch_page(files[before], query_params=back)
    if after is not None and right.button(f"{nav_title(LESSONS[after])} →",
                                          key="next_lesson", shortcut="PageDown", width="stretch"):
        st.switch_page(files[after], query_params=shared_link())
