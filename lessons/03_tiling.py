"""Lesson 3: tiling gives the same answer in flat memory."""
import streamlit as st

from explorer import cache, ui
from explorer.params import Param
from explorer.player import player
from flashviz import animation, sweeps

st.title("Tiling: same answer, flat memory")
st.markdown("#### Cut Q into row blocks and K, V into column blocks; the n×n matrix never exists.")
cfg = ui.config()
sim = ui.simulable(cfg)
ns = sweeps.ns_around(cfg.n, 128, 2048, 2)
table = cache.over_n(cfg, ns)
here = table[table["n"] == cfg.n].iloc[0]
diff = cache.max_abs_diff(sim)

c = st.columns(4)
c[0].metric("max |diff|", f"{diff:.2e}", help=f"flash against standard attention, run at n = {sim.n}")
c[1].metric("standard peak, KB", f"{here['std peak KB']:,.1f}")
c[2].metric("flash peak, KB", f"{here['flash peak KB']:,.1f}")
c[3].metric("traffic cut", f"{here['traffic cut']:.1f}×",
            help=f"{here['std HBM MB']:,.2f} MB → {here['flash HBM MB']:,.2f} MB")
ui.explain(f"""
For each block of Br = {cfg.Br} query rows, the loop walks every block of Bc = {cfg.Bc} keys, carrying a
running max m, a running sum l and an unnormalised output O per row. When m moves, l and O are
rescaled together. The SRAM working set is one Q tile, one K tile, one V tile, one score tile and the
two statistics: Br·d + 2·Bc·d + Br·Bc + 2·Br elements, whatever n is. The difference from standard
attention is float noise: the order of additions changed, not the function.
""")
st.subheader("Watch it stream")
c1, c2, c3 = st.columns(3)
an_n = ui.bound(Param("an_n", "animation n", 256, animation.TEACHING_N), c1)
an_d = ui.bound(Param("an_d", "animation d", 16, animation.TEACHING_D), c2)
show_standard = ui.bound(Param("an_std", "standard attention instead", False, kind="bool"), c3,
                         help="The same n, moving the n × n matrices through HBM.")
acfg, note = animation.teaching_config(cfg, an_n, an_d)
if note:
    st.info(note)
ui.explain("Each step is one tile: its scores exist only in SRAM. Rows whose running max moved are "
           "highlighted; their l and O were rescaled by e^(m_old − m_new). Tiles use Br, Bc from the "
           "sidebar; ← → step, space plays.")
player(cache.player_html(acfg, "standard" if show_standard else "flash"))

ui.side_by_side((cache.figure("memory_over_n", table), "tiling_memory"),
                (cache.figure("traffic_over_n", table), "tiling_traffic"))
ui.table(table, "tiling", f"d = {cfg.d}, Br = {cfg.Br}, Bc = {cfg.Bc}, {cfg.dtype}"
         + (", causal" if cfg.causal else ""))
