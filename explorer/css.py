"""The app's CSS and the clicker's script, added once a run (app.py): fixed text, no user input."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import nav

# Fixed CSS, no user input: pull the lesson up under the top navigation (Streamlit
# leaves a tall empty band above the title) and let a metric's value wrap instead of
# ending in "…".
_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.6rem; padding-bottom: 2rem; }
[data-testid="stSidebarUserContent"] { padding-top: 0.5rem; padding-bottom: 1rem; }
[data-testid="stSidebarHeader"] { height: 2.2rem; margin-bottom: 0; }
[data-testid="stMetricValue"] > div { overflow: visible; text-overflow: clip; white-space: normal; }
h1 { padding-top: 0.2rem; }
/* an entry of "What this model assumes" (notes.assumptions): clear of the top navigation when a "model" mark scrolls
   to it, and lined in the margin once there */
.fv-model { scroll-margin-top: 4.5rem; }
.fv-model:target { box-shadow: -0.75rem 0 0 -0.4rem #f0a020; }
/* captions and the buttons' key hints: dark, full size, for the back row */
[data-testid="stCaptionContainer"] { color: #222; opacity: 1; font-size: 1rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] li { font-size: 1.05rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricLabel"] p { font-size: 0.95rem; }
/* a long metric label wraps onto a second line instead of ending in "…" */
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; }
[data-testid="stElementContainer"]:has(#fv-clicker) { display: none; }
/* formulas a little larger than Streamlit's 1.21em, and KaTeX's smaller sizes (a subscript's
   subscript, half the formula's size: 10.9 px; a subscript, 14 px) held at 16 px or more, for the back row */
.katex { font-size: 1.25em; }
.katex .sizing.reset-size1.size1 { font-size: max(16px, 1em); }
.katex .sizing.reset-size2.size1 { font-size: max(16px, 0.8333em); }
.katex .sizing.reset-size3.size1 { font-size: max(16px, 0.7143em); }
.katex .sizing.reset-size4.size1 { font-size: max(16px, 0.625em); }
.katex .sizing.reset-size5.size1 { font-size: max(16px, 0.5556em); }
.katex .sizing.reset-size6.size1 { font-size: max(16px, 0.5em); }
/* code in the text and in captions (13.5-14.2 px at Streamlit's size): 16 px or more */
[data-testid="stMain"] :is([data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]) code {
  font-size: max(16px, 0.85em); }
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
/* an expander's height follows its content at once. Streamlit animates it as it opens and as its content redraws,
   and each animation ended with one frame at the height it started from: the page 1,000 px shorter for a frame, and
   the browser's scroll anchoring then left a presented lesson 636 px on, past its last section (lesson 9) */
[data-testid="stExpander"] details { height: auto !important; }
/* the top bar, where the lessons' strip lies, opaque: the lesson scrolls under it, not through it */
[data-testid="stHeader"] { background: #fff; }
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
# Tables and displayed equations wider than their box marked (explorer/wide_tables.js), and the mark's cue. Fixed
# code, no input.
_WIDE_TABLES = ('<script id="fv-wide-tables">\n' + (Path(__file__).parent / "wide_tables.js").read_text() + "</script>")
# A swipe that starts on a slider's track scrolls on a touch screen (explorer/touch.js). Fixed code, no input.
_TOUCH = '<script id="fv-touch">\n' + (Path(__file__).parent / "touch.js").read_text() + "</script>"
# Moving a setting replaces the browser's history entry instead of adding one (explorer/history.js). Fixed code.
_HISTORY = '<script id="fv-history">\n' + (Path(__file__).parent / "history.js").read_text() + "</script>"
_WIDE_CSS = """<style>
[data-fv-wide]::after { display: block; font-size: 0.9rem; color: #31333f; }
[data-fv-wide="table"]::after { content: "The table scrolls sideways: swipe it ⟷"; }
[data-fv-wide="equation"]::after { content: "The equation scrolls sideways: swipe it ⟷"; }
</style>"""


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
/* and the line that says what the keys do to a player or chart (notes.keys) is not drawn where a player hides its
   own (explorer/player_common.css) */
@media (hover: none), (pointer: coarse) { [data-testid="stMain"] [class*="st-key-fv_keys_"] { display: none; } }
/* a slider's track pans the page on a touch screen, and its thumb (react-aria's inline styles: the track relative,
   the thumb absolute) takes a touch 12 px around it (explorer/touch.js) */
@media (pointer: coarse) {
  [data-testid="stSlider"] [style*="position: relative"][style*="touch-action"] { touch-action: pan-y !important; }
  [data-testid="stSlider"] [style*="position: absolute"][style*="touch-action"]::before {
    content: ""; position: absolute; inset: -12px; }
}
</style>"""

# A row of a lesson's own sliders that charts follow live (explorer/live.js marks them) stays on screen under the
# top bar while the lesson scrolls, so a chart a screen below its sliders can be watched while they move. Not on a
# touch screen or a narrow one (the room is the chart's), nor when presenting (a section is a slide: deck.py adds
# this only when not presenting). No selector here asks `:has()` of an element as high as .stApp: Chrome then
# restyles the whole page on every change inside it, and a live redraw's SVG changes took 50 ms more a move.
STICKY_ROWS = """<style>
@media (hover: hover) and (min-width: 1000px) {
  [data-testid="stMain"] [data-testid="stLayoutWrapper"]:has(> [data-testid="stHorizontalBlock"]
    input[data-live-knob]) {
    /* the bottom room holds the ends of a slider's range, which Streamlit draws under the track while the pointer
       is on it: 0.4rem left them over the lesson scrolling beneath */
    position: sticky; top: 3.75rem; z-index: 99; background: #fff; padding: 0.2rem 0 1.1rem;
    box-shadow: 0 6px 6px -6px rgba(0, 0, 0, 0.35); }
  /* what is scrolled into view (a player focused by Tab, a link's anchor) comes to rest under such a row: the rows
     end 171 px (one line of labels: lessons 2, 13, 14) to 231 px (lesson 12's) from the top of the screen */
  [data-testid="stMain"] :is(iframe, .fv-plot) { scroll-margin-top: 15rem; }
}
</style>"""


def style() -> None:
    st.html(_CSS + _DECK_CSS + _WIDE_CSS + nav.CSS)
    st.html(_CLICKER + _WIDE_TABLES + _TOUCH + _HISTORY, unsafe_allow_javascript=True)
