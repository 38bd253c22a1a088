"""Lesson 9: break it on purpose and watch what each bug does."""
import pandas as pd
import streamlit as st

from explorer import cache, ui
from explorer.params import Param
from explorer.player import player
from flashviz import animation
from flashviz.bugs import BUGS, comparison

st.title("Break it")
st.markdown("#### Each toggle is one real edit to the algorithm. Nothing raises: read what changes.")
cfg = ui.simulable(ui.config(), block=16)  # the lab really runs each bug, tiles of 16 included

cols = st.columns(3)
chosen = [key for k, (key, bug) in enumerate(BUGS.items())
          if ui.bound(Param(f"bug_{key}", bug.label, False, kind="bool"), cols[k % 3], help=bug.change)]
if not chosen:
    st.markdown("Turn on a bug above. Each is a row of the seed's table of edits:")
    for bug in BUGS.values():
        st.markdown(f"- **{bug.label}.** {bug.change} *Watch for:* {bug.symptom}")


WATCH = {
    "no_rescale": "Black ticks mark the correct running sum: the bars drift away from them each time a "
                  "row's max moves and nothing rescales.",
    "tiles_too_big": "The working-set gauge turns red: the tile does not fit the budget.",
    "tiles_too_small": "Many more steps, and K and V stream in again for every query block.",
    "keep_full_S": "Purple tiles are score tiles written to HBM: the n × n block grows in memory.",
    "no_max": f"Scores scaled ×{animation.OVERFLOW_SCALE:g} in float32 arithmetic (largest exp: e^88.7): "
              "watch for the step where inf or nan first appears.",
}


def highlight(row):
    return ["background-color: #F6D8CC; font-weight: bold" if row["changed"] else ""] * len(row)


for key in chosen:
    bug, lab = BUGS[key], cache.break_it(cfg, key)
    st.subheader(bug.label)
    st.markdown(f"**The edit:** {bug.change}  \n**The seed says to watch for:** {bug.symptom}")
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
        ui.chart(cache.figure("comparison_bars", [bug.watch], [lab["correct"][bug.watch]],
                                        [lab["broken"][bug.watch]], bug.watch, bug.label, reference),
                 f"lab_chart_{key}")
    st.caption(f"n = {cfg.n}, d = {cfg.d}, {cfg.dtype}, SRAM {cfg.sram_bytes // 1024} KB. The demo 2 row "
               "and the scores near 800 are the seed's online-softmax examples, run with the same edit.")
    if ui.bound(Param(f"watch_{key}", "watch it happen, tile by tile", False, kind="bool")):
        acfg, note = animation.teaching_config(cfg, min(cfg.n, 256), min(cfg.d, 16))
        if note:
            st.info(note)
        st.caption(WATCH[key])
        player(cache.player_html(acfg, bug=key))
