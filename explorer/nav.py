"""The lessons' navigation: a numbered strip grouped by chapter, every lesson one click away.

Streamlit's own navigation does not hold twenty lessons: across the top it folds what does not
fit into a "N more" menu (at 1280 px a 13th lesson hid the 12th and 13th, the one on screen
included), with sections it shows only the chapters' names (a lesson two clicks away, the one on
screen not named), and in the sidebar it folds after ten and is gone when presenting. So app.py
hides Streamlit's (st.navigation(..., position="hidden"), which still gives every lesson its
address) and draws this: each chapter's name over its lessons' numbers, the lesson on screen
spelled out ("12. Inference") under its chapter's name in bold. On a wide screen the strip sits
in the top bar, where Streamlit's navigation was, so it stays in sight while a lesson scrolls and
takes no room from a section; on a phone it heads the page and wraps by chapter.

The strip is one element, a component (nav.js) whose links are the lessons' addresses: drawn with
Streamlit's page links in containers it was 28, and a run sends every element again: those 28 took 18 ms
of lesson 1's release, timed in the page (BENCHMARKS.md, "Interaction"). A click
reruns the page, which goes on to the lesson before drawing more (`draw`), as Streamlit's own links
ask the server for the lesson.

tests/nav_app.py draws the same strip over twenty stand-in lessons.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from .lessons import Lesson, chapters

KEY = "lesson_nav"
_component = st.components.v2.component("flashviz.nav", js=(Path(__file__).parent / "nav.js").read_text(),
                                         isolate_styles=False)

# Fixed CSS, no input. The strip is the element keyed "lesson_nav"; nav.js draws in it a chapter (.fv-chapter,
# .fv-here for the one on screen) of a name (.fv-chapter-name) over links (.fv-links), the one on screen .fv-current.
CSS = """<style>
.fv-nav { display: flex; flex-wrap: wrap; column-gap: 1rem; row-gap: 0.4rem; }
.fv-chapter { display: flex; flex-direction: column; flex-shrink: 0; }
.fv-links { display: flex; gap: 0.2rem; flex-wrap: nowrap; }
/* the chapter's name over its numbers; the chapter on screen in bold, in the theme's blue */
.fv-chapter-name { font-size: 0.8rem; line-height: 1.15; margin: 0; color: #333; white-space: nowrap; }
.fv-here .fv-chapter-name { color: #0072B2; font-weight: 700; }
.fv-nav a { display: inline-flex; justify-content: center; min-width: 1.75rem; padding: 0 0.3rem;
  border: 1px solid #b8c4d0; border-radius: 0.3rem; background: #fff;
  font-size: 0.9rem; line-height: 1.5; color: #000; text-decoration: none; white-space: nowrap; }
.fv-nav a:hover { border-color: #0072B2; color: #000; }
.fv-nav a:focus-visible { outline: 2px solid #0072B2; outline-offset: 1px; }
/* a finger's width on a touch screen; where the strip is over the lesson (narrower than the top bar's 1200 px), 44 px
   tall (the height WCAG 2.5.5 asks of a fingertip's target) and 5 px apart. Widths unchanged: wider links put a
   20-lesson strip over a third of a phone's screen (tests/test_nav_browser.py) */
@media (pointer: coarse) { .fv-nav a { line-height: 2.1; } }
@media (pointer: coarse) and (max-width: 1199px) {
  .fv-nav a { min-height: 44px; align-items: center; line-height: 1.2; }
  .fv-links { gap: 5px; } }
.fv-nav a.fv-current, .fv-nav a.fv-current:hover { background: #0072B2; border-color: #0072B2; color: #fff;
  font-weight: 700; }
/* no connection to the server (nav.js): the links look as disabled as they are */
.fv-nav a[aria-disabled="true"] { opacity: 0.45; cursor: not-allowed; }
/* at a projector's width or more: the strip lies in the top bar (3.75rem, over the main area), held
   there while the lesson scrolls (sticky in the scrolling main area), and takes no room below it:
   the lesson starts where it did under Streamlit's top navigation. It may reach into the main
   area's side padding; only its links take the pointer, so the bar's own buttons stay usable. */
@media (min-width: 1200px) {
  [data-testid="stElementContainer"].st-key-lesson_nav { position: sticky; top: 0.25rem; z-index: 999991;
    height: 0; overflow: visible; margin: -3.35rem -4rem calc(3.35rem - 1rem) -4rem; pointer-events: none; }
  .fv-nav { flex-wrap: nowrap; }
  .fv-nav a { pointer-events: auto; }
  /* the sidebar closed (as when presenting, where the main area's padding is 1.5rem): clear the
     sidebar's open button at the bar's left (20-52 px), and stay inside the screen on the right */
  /* (the sidebar and the main area are siblings: no `:has()` of .stApp, which would restyle the page on every
     change inside it) */
  [data-testid="stSidebar"][data-collapsed="true"] ~ * .st-key-lesson_nav { margin-left: 2.1rem; margin-right: 0; }
  /* with the whole width to itself, a size larger for the back row */
  [data-testid="stSidebar"][data-collapsed="true"] ~ * .fv-nav a { font-size: 1.05rem; line-height: 1.45; }
  [data-testid="stSidebar"][data-collapsed="true"] ~ * .fv-chapter-name { font-size: 0.9rem; }
}
</style>"""


def draw(pages: Sequence, lessons: Sequence[Lesson], current: int, query_params: dict) -> None:
    """The strip: every lesson of `lessons` (whose pages are `pages`, in order) as a link under its
    chapter's name, carrying `query_params` (the shared settings); lesson `current` (0-based)
    spelled out. Call it first in the main area: on a phone it heads the page. A click on a link
    reruns this page, which goes on to the lesson from here, before drawing anything more."""
    query = urlencode(query_params, doseq=True)
    strip = [{"name": chapter.name, "here": current in chapter.lessons,
              "links": [{"lesson": k, "current": k == current, "title": f"{k + 1}. {lessons[k].title}",
                         "label": f"{k + 1}. {lessons[k].short}" if k == current else str(k + 1),
                         "href": (pages[k].url_path or ".") + ("?" + query if query else "")}
                        for k in chapter.lessons]}
             for chapter in chapters(lessons)]
    # The click's trigger is read from what the strip returns, not from st.session_state: a session that is new
    # to this server (a reconnection to another replica) maps no key to the strip until it is drawn.
    clicked = _component(data={"chapters": strip}, key=KEY, on_go_change=_surface_the_click)
    go = lesson_clicked(clicked.go, len(pages))
    if go is not None:
        st.switch_page(pages[go], query_params=query_params)


def lesson_clicked(go: object, count: int) -> int | None:
    """The lesson a click's trigger names (0-based, of `count`), or None: none was clicked in this run, or the
    value names no lesson."""
    return go if isinstance(go, int) and not isinstance(go, bool) and 0 <= go < count else None


def _surface_the_click() -> None:
    """Nothing to do before the run: a component returns a trigger's value only for an event given a callback."""
