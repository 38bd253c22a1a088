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

tests/nav_app.py draws the same strip over twenty stand-in lessons.
"""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from .lessons import Lesson, chapters

# Fixed CSS, no input. Keys: "lesson_nav" (the strip), "nav_chapter_<i>" (a chapter, from 1),
# "nav_here" (the chapter on screen), "nav_current" (the box of the link to the lesson on screen).
CSS = """<style>
/* at a projector's width or more: the strip lies in the top bar (3.75rem, over the main area), held
   there while the lesson scrolls (sticky in the scrolling main area), and takes no room below it:
   the lesson starts where it did under Streamlit's top navigation. It may reach into the main
   area's side padding; only its links take the pointer, so the bar's own buttons stay usable. */
@media (min-width: 1200px) {
  [data-testid="stLayoutWrapper"]:has(> .st-key-lesson_nav) { position: sticky; top: 0.25rem; z-index: 999991;
    height: 0; overflow: visible; margin: -3.35rem -4rem calc(3.35rem - 1rem) -4rem; pointer-events: none; }
  .st-key-lesson_nav { flex-wrap: nowrap; }
  .st-key-lesson_nav a { pointer-events: auto; }
  /* the sidebar closed (as when presenting, where the main area's padding is 1.5rem): clear the
     sidebar's open button at the bar's left (20-52 px), and stay inside the screen on the right */
  /* (the sidebar and the main area are siblings: no `:has()` of .stApp, which would restyle the page on every
     change inside it) */
  [data-testid="stSidebar"][data-collapsed="true"] ~ *
    [data-testid="stLayoutWrapper"]:has(> .st-key-lesson_nav) { margin-left: 2.1rem; margin-right: 0; }
  /* with the whole width to itself, a size larger for the back row */
  [data-testid="stSidebar"][data-collapsed="true"] ~ * .st-key-lesson_nav [data-testid="stPageLink"] p {
    font-size: 1.05rem; line-height: 1.45; }
  [data-testid="stSidebar"][data-collapsed="true"] ~ * .st-key-lesson_nav
    [data-testid="stMarkdown"] p { font-size: 0.9rem; }
}
.st-key-lesson_nav { column-gap: 1rem; row-gap: 0.4rem; }
.st-key-lesson_nav [data-testid="stElementContainer"], .st-key-lesson_nav [data-testid="stVerticalBlock"],
.st-key-lesson_nav [data-testid="stLayoutWrapper"] { flex-shrink: 0; }
/* Streamlit pulls a page link's box 0.375rem into its neighbours' and a paragraph's box 1rem up
   (its margin): here the chapter's name and its links stack without overlapping */
.st-key-lesson_nav [data-testid="stElementContainer"], .st-key-lesson_nav [data-testid="stMarkdownContainer"] {
  margin: 0; }
.st-key-lesson_nav [data-testid="stHorizontalBlock"] { gap: 0.2rem; flex-wrap: nowrap; }
/* the chapter's name over its numbers; the chapter on screen in bold, in the theme's blue */
.st-key-lesson_nav [data-testid="stMarkdown"] p { font-size: 0.8rem; line-height: 1.15; margin: 0;
  color: #333; white-space: nowrap; }
.st-key-nav_here [data-testid="stMarkdown"] p { color: #0072B2; font-weight: 700; }
.st-key-lesson_nav [data-testid="stPageLink"] a { padding: 0 0.3rem; margin: 0; min-width: 1.75rem;
  justify-content: center; border: 1px solid #b8c4d0; border-radius: 0.3rem; background: #fff; }
.st-key-lesson_nav [data-testid="stPageLink"] a:hover { border-color: #0072B2; }
.st-key-lesson_nav [data-testid="stPageLink"] p { font-size: 0.9rem; line-height: 1.5; color: #000; font-weight: 400; }
/* a finger's width on a touch screen */
@media (pointer: coarse) { .st-key-lesson_nav [data-testid="stPageLink"] p { line-height: 2.1; } }
.st-key-nav_current [data-testid="stPageLink"] a { background: #0072B2; border-color: #0072B2; }
.st-key-nav_current [data-testid="stPageLink"] p { color: #fff; font-weight: 700; }
</style>"""


def draw(pages: Sequence, lessons: Sequence[Lesson], current: int, query_params: dict) -> None:
    """The strip: every lesson of `lessons` (whose pages are `pages`, in order) as a link under its
    chapter's name, carrying `query_params` (the shared settings); lesson `current` (0-based)
    spelled out. Call it first in the main area: on a phone it heads the page."""
    with st.container(key="lesson_nav", horizontal=True, gap=None):
        for i, chapter in enumerate(chapters(lessons), start=1):
            with st.container(key="nav_here" if current in chapter.lessons else f"nav_chapter_{i}", width="content",
                              gap=None):
                st.markdown(chapter.name)
                with st.container(horizontal=True, gap=None, width="content"):
                    for k in chapter.lessons:
                        if k == current:  # its own box: the one link drawn apart (Streamlit marks none)
                            with st.container(key="nav_current", width="content"):
                                _link(pages[k], lessons[k], k, query_params, spelled=True)
                        else:
                            _link(pages[k], lessons[k], k, query_params, spelled=False)


def _link(page, lesson: Lesson, k: int, query_params: dict, spelled: bool) -> None:
    st.page_link(page, label=f"{k + 1}. {lesson.short}" if spelled else str(k + 1), help=f"{k + 1}. {lesson.title}",
                 query_params=query_params)
