"""Lesson 3: tiling gives the same answer in flat memory."""
import streamlit as st

from explorer import cache, charts, ui
from explorer.lessons import control
from explorer.player import player
from flashviz.players import animation
from flashviz.run import listing
from flashviz.model import sweeps
from flashviz.teach.claims import compare, overflow_cause, tiles_overflow
from flashviz.teach.format import bytes_text
from flashviz.model.sources import cite

st.title("Tiling: same answer, flat memory")
st.markdown("#### Cut Q into row blocks and K, V into column blocks; the n×n matrix never goes to HBM.")
cfg = ui.config()
sim = ui.simulable(cfg)


def over_n():
    """Memory and traffic over n around the sidebar's n, at its d and tiles."""
    ns = sweeps.ns_around(ui.config().n, 128, 2048, 2)
    return cache.over_n(ui.sweep_config(ns), ns)


table = over_n()
here = table[table["n"] == cfg.n].iloc[0]
diff = cache.max_abs_diff(sim)

ui.slide("The numbers")
c = st.columns(4)
c[0].metric("max |diff|", f"{diff:.2e}", help=f"flash against standard attention, run at n = {sim.n}")
c[1].metric("standard peak", bytes_text(here["std peak KB"] * 1024), help="the n × n matrix, in HBM")
c[2].metric("flash peak", bytes_text(here["flash peak KB"] * 1024), help="one tile step's working set, in SRAM")
c[3].metric("flash moves, bytes", compare(here["std HBM MB"], here["flash HBM MB"], noun=""),
            help=f"{bytes_text(here['std HBM MB'] * 2**20)} standard → "
                 f"{bytes_text(here['flash HBM MB'] * 2**20)} flash")
if overflow := ui.overflow_text(cfg):  # flash's bytes above are partly the seed's overflow charge
    st.markdown(overflow)
if cfg.loop_order == "fa2":
    loops = (f"For each block of Br = {cfg.Br} query rows, the loop walks "
             + (f"the blocks of Bc = {cfg.Bc} keys up to the diagonal (the causal mask hides the rest), "
                if cfg.causal else f"every block of Bc = {cfg.Bc} keys, ")
             + "carrying a running max m, a running sum l and an unnormalised output O per row.")
else:
    loops = (f"In the paper's order (fa1), each block of Bc = {cfg.Bc} keys and values stays while "
             + ("the blocks " if cfg.causal else "every block ")
             + f"of Br = {cfg.Br} query rows "
             + ("at or below the diagonal pass it" if cfg.causal else "passes it")
             + ", reading that block's Q, O, m and l from HBM and writing O, "
             "m and l back.")
ui.explain(f"""
{loops} When a row's max moves, its l and
O are multiplied by the same factor e^(m_old − m_new), so everything summed so far sits on the new
baseline. The SRAM working set, as the seed counts it, is one Q tile, one K tile, one V tile, one score
tile and the two statistics: Br·d + 2·Bc·d + Br·Bc + 2·Br elements, whatever n is ({ui.assumes("sram_registers")}).
The output block Oᵢ is left out, as if it sat in registers; Algorithm 1 holds it in SRAM too, Br·d more
({cite("fa1", "Algorithm 1")}). The difference from standard
attention is float noise: the order of additions changed, not the function.
""")
ui.slide("The update")
with st.expander("The update, with the shape of every array", expanded=True):
    st.latex(r"""
\begin{aligned}
S_{ij} &= Q_i K_j^{\top} / \sqrt{d} && (B_r \times B_c) \\
\tilde m &= \operatorname{rowmax}(S_{ij}), \quad m^{\text{new}} = \max(m, \tilde m) && (B_r) \\
\tilde P &= e^{\,S_{ij} - m^{\text{new}}} && (B_r \times B_c) \\
\alpha &= e^{\,m - m^{\text{new}}} \quad \text{(the rescale)} && (B_r) \\
l &\leftarrow \alpha\, l + \operatorname{rowsum}(\tilde P) && (B_r) \\
O_i &\leftarrow \operatorname{diag}(\alpha)\, O_i + \tilde P\, V_j && (B_r \times d) \\
m &\leftarrow m^{\text{new}} \\
\text{after the last } j:\quad O_i &\leftarrow \operatorname{diag}(l)^{-1} O_i && (B_r \times d)
\end{aligned}""")
    st.caption(f"Here Qᵢ is {cfg.Br} × {cfg.d}, Kⱼ and Vⱼ are {cfg.Bc} × {cfg.d}, Sᵢⱼ is {cfg.Br} × {cfg.Bc}; "
               "m, l and α hold one number per query row; α is 1 where a row's max did not move. "
               "O stays unnormalised until the end "
               "(FlashAttention-2); Algorithm 1 of the first paper divides at every step instead (lesson 8).")


@ui.section
def _player() -> None:
    """The player and its own n, d and standard toggle: they rerun this part alone."""
    st.subheader("Watch it stream")
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1.3])  # the toggle's label whole at 1280 px beside the sidebar
    an_n = ui.bound(control("an_n"), c1, help=ui.PLAYER_ON_RELEASE)
    an_d = ui.bound(control("an_d"), c2, help=ui.PLAYER_ON_RELEASE)
    an_tau = ui.bound(control("an_tau"), c3, help="FlashAttention-4's rescale threshold, in log2 units (lesson 2). "
                                                  + ui.PLAYER_ON_RELEASE)
    show_standard = ui.bound(control("an_std"), c4,
                             help="The same n, moving the n × n matrices through HBM.")
    acfg, note = animation.teaching_config(cfg, an_n, an_d)
    ui.slide("The tile player")
    ui.own_setting(note or f"The player runs its own n = {acfg.n} and d = {acfg.d}, small enough to watch; "
                           "tiles, budget, data type, mask and loop order come from the sidebar.")
    kept = ("its scores never reach HBM" if not tiles_overflow(acfg) else
            f"its scores would stay on chip, but here {overflow_cause(acfg)} ({ui.assumes('spill')})")
    ui.explain(f"Each step is one tile: {kept}. In FlashAttention-2's kernels the scores sit in registers, not "
               f"in the shared memory the papers call SRAM ({cite('fa2', '§2.1')}); this model counts them in the same "
               "SRAM budget. Rows whose running max moved are highlighted with their rescale factor; a row's "
               "number, coloured, says what FlashAttention-4's lagging max "
               f"would do there at τ = {an_tau:g} (lesson 2): skip the rescale, or do it.")
    ui.keys(ui.PLAYER_KEYS, "tiling_player")
    player(cache.player_html(acfg, "standard" if show_standard else "flash", tau=an_tau))
    st.download_button("Download the listing", listing.script(cfg.loop_order), file_name="flash_listing.py",
                       mime="text/x-python", key="download_listing", on_click="ignore",
                       help="The code beside the player as one script that needs only NumPy: it prints "
                            "the tiling and tile-size tables from counted runs.")


_player()

ui.slide("Memory and traffic over n")
ui.side_by_side((lambda: cache.figure(charts.memory_over_n, over_n()), "tiling_memory", ui.SIZES),
                (lambda: cache.figure(charts.traffic_over_n, over_n()), "tiling_traffic", ui.SIZES))
ui.slide("The table")
ui.table(table, "tiling", f"d = {cfg.d}, Br = {ui.value('Br')}, Bc = {ui.value('Bc')} (each cut to the row's n where n "
         f"is smaller), {cfg.dtype}"
         + (", causal" if cfg.causal else "") + "; HBM traffic in MB, peak memory in KB; cut: std HBM ÷ flash HBM"
         + (f"; flash HBM includes the overflow of tiles over the budget {ui.assumes('spill')}"
            if overflow else ""),
         headers={"std HBM MB": "std HBM", "flash HBM MB": "flash HBM", "std peak KB": "std peak",
                  "flash peak KB": "flash peak", "traffic cut": "cut"})
