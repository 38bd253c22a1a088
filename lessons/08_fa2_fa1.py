"""Lesson 8: FlashAttention-2's loop order, causal tiles, delayed normalisation."""
import streamlit as st

from explorer import cache, ui
from flashviz import sweeps

st.title("FlashAttention-2 and -1")
st.markdown("#### Same tiles, same exact answer. The order of the loops decides what crosses HBM.")
cfg = ui.config()
orders = sweeps.loop_orders(cfg)
fa2, fa1 = orders.iloc[0], orders.iloc[1]
causal = sweeps.causal_savings(cfg)

c = st.columns(4)
c[0].metric("FA2 order, MB", f"{fa2['HBM MB']:,.2f}")
c[1].metric("FA1 order, MB", f"{fa1['HBM MB']:,.2f}",
            delta=f"{fa1['HBM MB'] / fa2['HBM MB']:.2f}× FA2", delta_color="inverse")
c[2].metric("non-matmul, FA1 ÷ FA2", f"{fa1['non-matmul Mops'] / fa2['non-matmul Mops']:.2f}×",
            help=f"{fa2['non-matmul Mops']:.2f} → {fa1['non-matmul Mops']:.2f} million operations")
c[3].metric("a causal mask skips", f"{causal['tiles skipped']} / {causal['tiles']}",
            help="Tiles whose keys all come after their queries: never loaded, never computed.")
ui.explain("""
**Loop order.** The paper's Algorithm 1 keeps a K/V block in SRAM and streams the query blocks past it,
so every inner step reads Qᵢ, Oᵢ, mᵢ, lᵢ from HBM and writes Oᵢ, mᵢ, lᵢ back. FlashAttention-2 turns the
loops around: a query block stays, K/V blocks stream, and O is written once.

**Delayed normalisation.** Algorithm 1 keeps O normalised, so each step divides by the new l and
multiplies back the old one; FlashAttention-2 keeps O unnormalised and divides once at the end. Those
are non-matmul operations, and on an A100 they run at 19.5 TFLOP/s against 312 for fp16 matmuls, so
FA2 cuts them. **Causal masking**: tiles whose keys all come after their queries are skipped,
with no loads and no flops.
""")
by_n = sweeps.loop_orders_over_n(cfg, sweeps.ns_around(cfg.n, 256, 4096, 2))
ui.side_by_side((cache.figure("loop_order_bars", orders), "loop_order"),
                (cache.figure("loop_orders_over_n", by_n), "loop_order_over_n"))
ui.table(orders, "loop_orders", f"n = {cfg.n}, d = {cfg.d}, Br = {cfg.Br}, Bc = {cfg.Bc}, {cfg.dtype}"
         + (", causal" if cfg.causal else ""))
st.subheader("Causal masking")
st.markdown(f"With the mask {'(on now)' if cfg.causal else '(off now; these are the figures with it on)'}, "
            f"**{causal['tiles computed (causal)']}** of **{causal['tiles']}** tiles are "
            f"computed: flops × {causal['flops ratio']:.3f}, traffic × {causal['traffic ratio']:.3f} "
            "(FA2 order). The diagonal tiles are computed in full and masked inside.")
