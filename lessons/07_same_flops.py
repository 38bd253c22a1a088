"""Lesson 7: the flops are identical; only the traffic moves."""
import streamlit as st

from explorer import cache, ui
from flashviz import sweeps

st.title("Same flops, less traffic")
st.markdown("#### Every multiply standard attention does, the tiled version does too.")
cfg = ui.config()
ns = sweeps.ns_around(cfg.n, 512, 4096, 2)
full = cache.over_n(cfg, ns)
table = full[["n", "std GFLOPs", "flash GFLOPs", "std HBM MB", "flash HBM MB", "traffic cut"]]
here = table[table["n"] == cfg.n].iloc[0]
c = st.columns(3)
c[0].metric("standard GFLOPs", f"{here['std GFLOPs']:.3f}")
c[1].metric("flash GFLOPs", f"{here['flash GFLOPs']:.3f}")
c[2].metric("traffic cut", f"{here['traffic cut']:.1f}×")
if cfg.causal:
    st.warning("With the causal mask on, flash skips every fully masked tile and does about half the "
               "flops; standard attention, as written here, computes the whole matrix and then masks "
               "it. Turn causal off to compare like with like.")
ui.explain("""
Without a mask the flop columns agree to the last digit. The cut is modest at Br = Bc = d: each query
block re-reads all of K and V, so flash moves about (2 + 2n/Br)·n·d elements against 4n² + 4nd. It grows
with the block size over the head dimension, which is exactly what the SRAM budget limits (lesson 4).
""")
cut_n = max(cfg.n, 512)
cut = sweeps.cut_by_block(cut_n, (32, 64, 128), (16, 32, 64, 128, 256, 512), cfg.dtype)
ui.side_by_side((cache.figure("bytes_vs_flops", full), "same_flops_chart"),
                (cache.figure("cut_vs_block", cut), "cut_vs_block"))
ui.table(table, "same_flops", f"d = {cfg.d}, Br = {cfg.Br}, Bc = {cfg.Bc}, {cfg.dtype}")
ui.table(cut, "cut_vs_block", f"Traffic cut at n = {cut_n}, spill not counted")
