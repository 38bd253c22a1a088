"""Lesson 9: break it on purpose and watch what each bug does; then test a belief."""
import pandas as pd
import streamlit as st

from explorer import cache, charts, ui
from explorer.params import Param
from explorer.player import player
from flashviz import animation, bugs, listing
from flashviz.bugs import BELIEFS, BUGS, SEED_SETTINGS, comparison, settings_text

st.title("Break it")
st.markdown(f"#### The first {len(BUGS)} toggles are real edits to the algorithm; the last is a belief to test. "
            "Nothing raises: read what changes.")
full = ui.config()
cfg = ui.simulable(full, block=16)  # the lab really runs each bug, tiles of 16 included

cols = st.columns(3)
chosen = [key for k, (key, bug) in enumerate(BUGS.items())
          if ui.bound(Param(f"bug_{key}", bug.label, False, kind="bool"), cols[k % 3], help=bug.change)]
tested = [key for k, (key, belief) in enumerate(BELIEFS.items(), start=len(BUGS))
          if ui.bound(Param(f"belief_{key}", belief.label, False, kind="bool"), cols[k % 3],
                      help=belief.claim)]
if not chosen and not tested:
    st.markdown("Turn on a row above. Each is a row of the seed's table:")
    for bug in BUGS.values():
        st.markdown(f"- **{bug.label}.** {bug.change} *The seed saw ({SEED_SETTINGS}):* {bug.symptom}")
    for belief in BELIEFS.values():
        st.markdown(f"- **{belief.label}.** {belief.claim} *The seed's figures ({belief.seed_settings}):* "
                    f"{belief.seed}")


def highlight(row):
    return ["background-color: #F6D8CC; font-weight: bold" if row["changed"] else ""] * len(row)


for key in chosen:
    bug, lab = BUGS[key], cache.break_it(cfg, key)
    st.subheader(bug.label)
    st.markdown(f"**The edit:** {bug.change}  \n"
                f"**The seed's figures** ({SEED_SETTINGS}): {bug.symptom}  \n"
                f"**Here** ({settings_text(cfg)}): {bug.now(lab)}")
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
    st.markdown("**The edit, as a diff of the listing in the tile player** (the player runs the edited code):")
    st.code(listing.diff(key, cfg.loop_order), language="diff")
    if ui.bound(Param(f"watch_{key}", "watch it happen, tile by tile", False, kind="bool")):
        acfg, note = animation.teaching_config(cfg, min(cfg.n, 256), min(cfg.d, 16))
        if note:
            st.info(note)
        st.caption(cache.watch_note(key, acfg))
        player(cache.player_html(acfg, bug=key))

for key in tested:
    belief, check = BELIEFS[key], bugs.belief_check(full)
    st.subheader(belief.label)
    st.markdown(f"**The belief:** {belief.claim}  \n**Check it:** {belief.check}  \n"
                f"**The seed's figures** ({belief.seed_settings}): {belief.seed}")
    st.dataframe(pd.DataFrame(bugs.belief_rows(check)), hide_index=True, key=f"belief_table_{key}")
    st.markdown(f"**Here** ({settings_text(full)}): {bugs.belief_verdict(check, full.causal)}")
