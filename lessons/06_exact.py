"""Lesson 6: exact, against a real approximation."""
import math

import streamlit as st

from explorer import cache, charts, ui
from explorer.params import OWN
from flashviz.bugs import NOISE
from flashviz.sources import cite

st.title("Exact means exact")
st.markdown("#### FlashAttention computes the same function. A local window computes a different one.")
cfg = ui.config()
n = ui.simulable(cfg.with_tiles(64, 64)).n
asked = ui.bound(OWN["ex_window"])
window = min(asked, n)
ui.own_setting(f"This lesson runs its own 64 × 64 tiles (cut to n), no mask, in float64, at n = {n}"
               + (f"; the window is cut to n = {n}" if window < asked else "")
               + ". Exactness does not depend on any of them.")
demo = cache.demo(6, n=n, d=cfg.d, window=window)
res = demo.tables["against standard attention"]
flash, local = res.iloc[0], res.iloc[1]

ui.slide("The numbers")
c = st.columns(3)
c[0].metric("flash: max |diff|", f"{flash['max abs diff']:.2e}")
c[1].metric(f"window {window}: max |diff|", f"{local['max abs diff']:.2e}")
if local["max abs diff"] > NOISE:
    gap = math.log10(local["max abs diff"] / max(flash["max abs diff"], 1e-300))
    c[2].metric("orders of magnitude apart", f"{max(0.0, gap):.0f}")
else:
    c[2].metric("orders of magnitude apart", "none", help="The window covers every key: both errors are "
                f"float noise, below {NOISE:g}.")
all_keys = " (all of them at this n, so it is exact as well)" if window >= n else ""
ui.explain(f"""
The "efficient attention" papers of 2020 (Reformer, Linformer, Performer, Longformer, BigBird; the
FlashAttention paper surveys them, {cite("fa1", "Appendix A")}) cut flops by computing a cheaper,
different function. The stand-in here is a local window like Longformer's, without its global
tokens: each query sees only the {window} keys around it{all_keys}.
FlashAttention's error is the order of floating-point additions: {flash['max abs diff']:.0e} here, in
float64 ({ui.assumes("fp64")}). The window's is the keys it never looked at. A real kernel rounds far more
coarsely: float16 inputs carry about three significant decimal digits, bfloat16 about two, and the
softmax runs in float32. There the
FlashAttention-3 paper measures its FP16 kernels' error below a plain FP16 implementation's, because the
scores, the row max and sum and the output accumulator stay in float32 registers instead of being stored in
16 bits between kernels; P is rounded to 16 bits only as the input of the P·V matmul, and never stored
({cite("fa3", "§4.3")}). Each picture below is |difference| per output
entry, on a log scale: dark is float noise, bright is a wrong answer.
""")
local_title = f"|local window {window} − standard|"
flash_title = "|flash − standard|"
ui.slide("The error, as a picture")
ui.side_by_side((cache.figure(charts.diff_heatmap, demo.arrays["flash - standard"], flash_title), "diff_flash"),
                (cache.figure(charts.diff_heatmap, demo.arrays["local - standard"], local_title), "diff_local"))
ui.table(res, "exact", f"n = {n}, d = {cfg.d}, float64 arithmetic")
