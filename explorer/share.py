"""The share box: a reader's link and a presenter's, from the address bar's parameters, and the
deck a presenter picks."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from .deck import DECK, DECK_STATE, SECTION, SHARE_OPEN, section_in_link
from .lessons import LESSONS
from .widgets import LINK, NOTES, presenting


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
