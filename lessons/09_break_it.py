"""Lesson 9: break it on purpose and watch what each bug does; then test a belief."""
import pandas as pd
import streamlit as st

from explorer import cache, charts, ui
from explorer.lessons import control
from explorer.player import player
from flashviz.teach import bugs
from flashviz.run import listing
from flashviz.players import symptoms
from flashviz.teach.bugs import BELIEFS, BUGS, SEED_SETTINGS, comparison, settings_text
from flashviz.teach.claims import tiles_overflow

st.title("Break it")
present = ui.presenting()  # on a projector: every bug at once, each player opened where its bug bites
if present:
    st.markdown(f"#### {len(BUGS)} real edits to the algorithm, each shown at the step where it bites; "
                "then a belief to test. Nothing raises.")
else:
    st.markdown(f"#### The first {len(BUGS)} toggles are real edits to the algorithm; the last is a belief to "
                "test. Nothing raises: read what changes.")
full = ui.config()
cfg = ui.simulable(full, block=16)  # the lab really runs each bug, tiles of 16 included


def toggles() -> tuple[list[str], list[str]]:
    """The bugs and beliefs the reader turned on."""
    cols = st.columns(3)
    chosen = [key for k, (key, bug) in enumerate(BUGS.items())
              if ui.bound(control(f"bug_{key}"), cols[k % 3], help=bug.change)]
    tested = [key for k, (key, belief) in enumerate(BELIEFS.items(), start=len(BUGS))
              if ui.bound(control(f"belief_{key}"), cols[k % 3],
                          help=belief.claim)]
    if not chosen and not tested:
        st.markdown("Turn on a row above. Each is a row of the seed's table:")
        for bug in BUGS.values():
            st.markdown(f"- **{bug.label}.** {bug.change} *The seed saw ({SEED_SETTINGS}):* {bug.symptom}")
        for belief in BELIEFS.values():
            st.markdown(f"- **{belief.label}.** {belief.claim} *The seed's figures ({belief.seed_settings}):* "
                        f"{belief.seed}")
    return chosen, tested


def _mark(key: str, lab: dict | None = None) -> str:
    """The "model" mark after a sentence whose traffic counts a spill (the seed's figures for the
    too-big tiles; here, where the lab's tiles overflow)."""
    spills = key == "tiles_too_big" if lab is None else not (lab["broken"]["fits SRAM"] and lab["correct"]["fits SRAM"])
    return f" {ui.assumes('spill')}" if spills else ""


def highlight(row):
    return ["background-color: #F6D8CC; font-weight: bold" if row["changed"] else ""] * len(row)


def draw_lab(key: str, lab: dict) -> None:
    """The lab's figures, correct against broken, and the one the bug is about as bars."""
    bug = BUGS[key]
    table = pd.DataFrame(comparison(lab))
    left, right = st.columns([3, 2])
    with left:
        st.dataframe(table.style.apply(highlight, axis=1), hide_index=True, key=f"lab_{key}",
                     column_order=["figure", "correct", "with the bug"])
    with right:
        std = lab["standard"]
        reference = {"HBM MB (with spill)": (f"standard {std['HBM MB']:.2f} MB", std["HBM MB"]),
                     "working set KB": (f"budget {cfg.sram_bytes / 1024:g} KB", cfg.sram_bytes / 1024),
                     "demo 2 weights sum": ("1.0", 1.0)}.get(bug.watch)
        ui.chart(cache.figure(charts.comparison_bars, [bug.watch], [lab["correct"][bug.watch]],
                              [lab["broken"][bug.watch]], bug.watch, bug.label, reference),
                 f"lab_chart_{key}")
    st.caption("Highlighted rows changed beyond float noise (errors and sums by more than "
               f"{bugs.NOISE:g}; counts and sizes at all). The demo 2 row and the scores near 800 are the "
               "seed's online-softmax examples, run with the same edit.")


def draw_bug(key: str) -> None:
    """One bug as a reader meets it: the edit, the lab, the diff, and the player on request."""
    bug, lab = BUGS[key], cache.break_it(cfg, key)
    ui.slide(bug.label)
    st.subheader(bug.label)
    st.markdown(f"**The edit:** {bug.change}  \n"
                f"**The seed's figures** ({SEED_SETTINGS}): {bug.symptom}{_mark(key)}  \n"
                f"**Here** ({settings_text(cfg)}): {bug.now(lab)}{_mark(key, lab)}")
    draw_lab(key, lab)
    st.markdown("**The edit, as a diff of the listing in the tile player** (the player runs the edited code):")
    st.code(listing.diff(key, cfg.loop_order), language="diff")
    if ui.bound(control(f"watch_{key}")):
        acfg, note = symptoms.player_config(cfg, key)
        if note:
            st.info(note, icon=ui.NO_ICON)
        page, _, watch = cache.bug_player(acfg, key, cfg)
        st.caption(watch)
        player(page)


def present_bug(key: str) -> None:
    """One bug on a projector: the edit, the player opened at the step where the bug shows and
    a line naming that step; the lab's figures and the diff folded below, so the block fits
    a 1280 x 720 screen."""
    bug, lab = BUGS[key], cache.break_it(cfg, key)
    acfg, note = symptoms.player_config(cfg, key)
    page, caption, _ = cache.bug_player(acfg, key, cfg, at_symptom=True)
    ui.slide(bug.label)
    st.markdown(f"**{bug.label}.** {bug.change} {caption}{_mark(key, lab)}" + (f" {note}" if note else ""))
    player(page)
    with st.expander(f"The edit as a diff, and the lab's figures ({settings_text(cfg)})", key=f"more_{key}"):
        st.code(listing.diff(key, cfg.loop_order), language="diff")
        st.markdown(f"**Here:** {bug.now(lab)}{_mark(key, lab)}  \n**The seed's figures** ({SEED_SETTINGS}): "
                    f"{bug.symptom}{_mark(key)}")
        draw_lab(key, lab)


def draw_belief(key: str) -> None:
    belief, check = BELIEFS[key], bugs.belief_check(full)
    ui.slide(belief.label)
    st.subheader(belief.label)
    st.markdown(f"**The belief:** {belief.claim}  \n**Check it:** {belief.check}  \n"
                f"**The seed's figures** ({belief.seed_settings}): {belief.seed}")
    st.dataframe(pd.DataFrame(bugs.belief_rows(check)), hide_index=True, key=f"belief_table_{key}")
    st.markdown(f"**Here** ({settings_text(full)}): {bugs.belief_verdict(check, full)}"
                + (f" {ui.assumes('spill')}" if tiles_overflow(full) else ""))


chosen, tested = (list(BUGS), list(BELIEFS)) if present else toggles()
for key in chosen:
    (present_bug if present else draw_bug)(key)
for key in tested:
    draw_belief(key)
