"""What a page says beside its figures: the longer explanations, the first screen's line, the
overflow banner, the model's assumptions and the marks that link to them, the reading list."""
from __future__ import annotations

import streamlit as st

from flashviz.model.config import Config, tensor_dtype
from flashviz.model.sources import ASSUMPTIONS, READING, SOURCES
from flashviz.teach.claims import fitting_tiles, overflow_headline, overflow_note

from .lessons import LESSONS, chapters
from .params import SHARED
from .widgets import config, presenting


def about() -> None:
    """The first screen's line: what this is, above lesson 1's question."""
    st.markdown("**flashviz**: why FlashAttention is fast. Standard attention was never short of arithmetic; "
                f"it was short of bytes. {len(LESSONS)} lessons in {len(chapters(LESSONS))} chapters, over a NumPy "
                "engine that counts every byte between HBM and SRAM.")


def explain(markdown: str) -> None:
    """Longer teaching text: hidden in presentation mode."""
    if not presenting():
        st.markdown(markdown)


PLAYER_KEYS = "← → step, space plays; PageDown still moves on."  # what a player's keys do, under it (`keys`)


def keys(hint: str, key: str, presented: bool = False) -> None:
    """What the keys do to the player or chart above, in a line of its own, under the container key
    fv_keys_<key>: a touch screen has no keys, and there the line is not drawn (css.py). `presented`: drawn in
    presentation mode too (a line of its own there, not the longer text explain() hides)."""
    if presented or not presenting():
        with st.container(key=f"fv_keys_{key}"):
            st.caption(hint)


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


# The mark's target: each entry is a block with the mark's anchor as its id (css.py holds it clear of the fixed
# top navigation and lines the entry a mark led to). The whole list is one markdown element of fixed text, built
# once here from ASSUMPTIONS, no input in it: each element a rerun sends costs the server and the page time (the
# lessons' strip, 28 elements, took 18 ms of a release: BENCHMARKS.md "Interaction"), and the list was 37.
ASSUMPTIONS_MARKDOWN = "\n\n".join(
    f'<div id="model-{key}" class="fv-model">\n\n**{a.title[0].upper() + a.title[1:]}.** {a.model}\n\n'
    f"*On real GPUs:* {a.real}\n\n</div>" for key, a in ASSUMPTIONS.items())


def assumptions() -> None:
    """What this model assumes, and what a real kernel does instead: the list every "model" mark
    links to, at the foot of every lesson (not on a projector: it is reading, not a section)."""
    if presenting():
        return
    st.subheader("What this model assumes", anchor="what-this-model-assumes", divider="gray")
    st.markdown(ASSUMPTIONS_MARKDOWN, unsafe_allow_html=True)


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
