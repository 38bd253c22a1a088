"""The deck and its links: a lesson's sections (slide, and section, a part drawn as a fragment), the
lessons a presenter steps through and where a link resumes, the previous / next buttons, and the
address bar kept equal to what the controls show."""
from __future__ import annotations

import functools
import html
import json
from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import live, threads
from .css import STICKY_ROWS
from .lessons import LESSONS, control
from .params import CUSTOM_GPU, SHARED, shown
from .widgets import LINK, NOTES, peek, presenting

SHARE_OPEN = "_share_open"  # whether the "Share this view" box is open


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
            live.note_section()  # the live figures' asks put every other control back where the page had it
            if st.session_state.get(SHARE_OPEN):
                st.rerun()  # scope "app"
            sync_url()
    return st.fragment(threads.runs_alone(part))


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


LEFTOVERS = "_link_leftovers"  # the lesson a link opened (its index), and its note on what no setting there takes
MOST_NAMED = 5  # keys the note names; past them, how many more
# Keys a link picks up on its way (a newsletter's or a social network's), not the reader's: left out without a word
TRACKING = ("utm_", "fbclid", "gclid", "msclkid", "mc_cid", "mc_eid")


def link_leftovers(at: int) -> None:
    """A link's keys that no setting of lesson `at` takes (a typo, say, or another lesson's setting): the address bar
    drops them at the run's end (sync_url), so they are named once, at the top of the lesson the link opened, for as
    long as the reader stays on it (a tracker's key, TRACKING, without a word); with the deck's note, if the link's
    deck named no lesson somewhere (its own control is folded in "Share this view", at the lesson's foot). Read at
    the session's first run, where the link is as it was opened (app.py runs deck() first)."""
    state = st.session_state
    if LEFTOVERS not in state:
        owner = {p.key: k for k, lesson in enumerate(LESSONS) for p in lesson.controls}
        takes = {*SHARED, *(p.key for p in CUSTOM_GPU), DECK, SECTION, *(p.key for p in LESSONS[at].controls)}
        left = [(f"`{shown(key)}`" if key.strip() else "an empty key") + " is "
                + (f"lesson {owner[key] + 1}'s setting, not this lesson's" if key in owner
                   else "not a setting of flashviz")
                for key in st.query_params if key not in takes and not key.lower().startswith(TRACKING)]
        if len(left) > MOST_NAMED:
            left = [*left[:MOST_NAMED], f"and {len(left) - MOST_NAMED} more keys"]
        said = [f"{'; '.join(left)}: left out."] if left else []
        deck_note = state.get(NOTES, {}).get(DECK)
        if deck_note:
            said.append(f"{deck_note[0]}.")
        state[LEFTOVERS] = (at, f"From the link: {' '.join(said)}" if said else "")
    opened, note = state[LEFTOVERS]
    if opened != at:
        state[LEFTOVERS] = (None, "")  # the reader has gone on: the note is history
    elif note:
        st.warning(note, icon=":material/link_off:")


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
    # what the sliders show at this step (the clicker waits for them before the next key: clicker.js `shows`)
    shows = json.dumps({key: control(key).input_value(value) for key, value in steps[now].items()
                        if control(key).kind in ("int", "float")} if now >= 0 else {})
    st.html(f'<div class="fv-slide" data-title="{title_attr}" data-slug="{slug}" data-steps="{len(steps)}" '
            f'data-step="{now}" data-values="{html.escape(shows, quote=True)}"></div>')
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


# Presenting: room under the last section, so that every section, the last included, can be
# scrolled to the top of the screen; and the screen's whole width (the sidebar is closed), where
# the tile player lays its notes beside its table.
# Presenting, PageDown first reveals the lesson's question: while it stands unanswered, the next-lesson button does not
# say "PageDown" (a teacher's walk read the hint as the key's next move).
_PRESENT_CSS = """<style>
[data-testid="stMainBlockContainer"] { padding-bottom: calc(100vh - 4rem); padding-left: 1.5rem; padding-right: 1.5rem;
  max-width: none; }
body:has(.st-key-reveal_answer) .st-key-next_lesson kbd { visibility: hidden; }
</style>"""


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
    st.html(_PRESENT_CSS if presenting() else STICKY_ROWS)
    left, right = st.columns(2)
    if before is not None and left.button(f"← {nav_title(LESSONS[before])}",
                                          key="prev_lesson", shortcut="PageUp", width="stretch"):
        back = {**shared_link(), SECTION: "end"} if presenting() else shared_link()
        st.switch_page(files[before], query_params=back)
    if after is not None and right.button(f"{nav_title(LESSONS[after])} →",
                                          key="next_lesson", shortcut="PageDown", width="stretch"):
        st.switch_page(files[after], query_params=shared_link())
