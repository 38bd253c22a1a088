"""Lesson 8: FlashAttention-2's loop order, causal tiles, delayed normalisation."""
import streamlit as st

from explorer import cache, charts, ui
from flashviz.model import costs, sweeps
from flashviz.teach.claims import compare
from flashviz.teach.format import bytes_text
from flashviz.model.memory import clamp_tiles
from flashviz.model.sources import cite

st.title("FlashAttention-2 and -1")
st.markdown("#### Same tiles, same exact answer. FlashAttention-2 changed which loop is outside, "
            "what each step redoes, and how the work spreads over the GPU.")
cfg = ui.config()
orders = cache.loop_orders(cfg)
fa2, fa1 = orders.iloc[0], orders.iloc[1]
causal = cache.causal_savings(cfg)
other_Br, other_Bc = clamp_tiles(cfg.n, cfg.Br // 2 or 2, cfg.Bc // 2 or 2)  # halved; 1 becomes 2
# Tile traffic without spill: does halving the inner tile change it? Without a mask it never
# does (2nd + Tr·2nd; 3nd + 2n + Tc·(3nd + 4n)); with one, the diagonal's tiles depend on both.
fa2_without_Bc = not cfg.causal and costs.flash_cost(cfg.with_(loop_order="fa2", Bc=other_Bc)).moved == \
    costs.flash_cost(cfg.with_(loop_order="fa2")).moved
fa1_without_Br = not cfg.causal and costs.flash_cost(cfg.with_(loop_order="fa1", Br=other_Br)).moved == \
    costs.flash_cost(cfg.with_(loop_order="fa1")).moved

ui.slide("The numbers")
c = st.columns(4)
c[0].metric("FA2 order moves", bytes_text(fa2["HBM MB"] * 2**20))
c[1].metric("FA1 order moves", bytes_text(fa1["HBM MB"] * 2**20),
            help=f"{compare(fa2['HBM MB'], fa1['HBM MB'])} than the FA2 order")
c[2].metric("non-matmul, FA1 ÷ FA2", f"{fa1['non-matmul Mops'] / fa2['non-matmul Mops']:.2f}×",
            help=f"{fa2['non-matmul Mops']:.2f} → {fa1['non-matmul Mops']:.2f} million operations")
c[3].metric("a causal mask skips", f"{causal['tiles skipped']} / {causal['tiles']} tiles",
            help="Tiles whose keys all come after their queries: never loaded, never computed.")
st.markdown(f"With {cfg.Br} × {cfg.Bc} tiles, the paper's order (FA1) moves "
            f"**{compare(fa2['HBM MB'], fa1['HBM MB'])}** than FlashAttention-2's. "
            + ("Spill aside, the FA2 order's traffic does not depend on Bc (halving it changes nothing): "
               "K and V stream once per query block, whatever their tiles. " if fa2_without_Bc else "")
            + ("Spill aside, the FA1 order's does not depend on Br: Q, O, m and l stream once per "
               "key/value block. " if fa1_without_Br else "")
            + ("So traffic alone does not say which order is better; with a wide Bc, FA1 can even move less."
               if fa2_without_Bc or fa1_without_Br else
               "Traffic alone does not say which order is better: with a wide Bc, FA1 can even move less."))
ui.explain(f"""
**What FlashAttention-2 changed, and why** ({cite("fa2", "§3")}).
- **The outer loop runs over query blocks.** Algorithm 1 of the first paper keeps a K/V block in SRAM and
  streams the query blocks past it, so every inner step reads Qᵢ, Oᵢ, mᵢ, lᵢ from HBM and writes Oᵢ, mᵢ,
  lᵢ back. FA2 keeps a query block and streams K and V past it, so **O is written once**
  (here the FA1 order moves {compare(fa2['HBM MB'], fa1['HBM MB'])}).
- **Parallel over the sequence, too.** With the query block outside, each block of output rows is
  independent, so the GPU runs one thread block per (batch, head, query block). FA1 parallelised over
  batch × heads only, which leaves SMs idle when there are fewer (batch, head) pairs than the A100's 108
  SMs, as with long sequences at small batch (FlashAttention-2 calls it efficient from about 80).
  The FlashAttention-2 paper credits both of these, the swapped loops and the parallelism over the
  sequence, to Phil Tillet's Triton implementation, which had them first ({cite("fa2", "§3.2")}).
- **Fewer non-matmul operations.** FA2 keeps O unnormalised and divides by l once at the end (delayed
  normalisation); Algorithm 1 rescales by l at every step. Here that is
  {fa1['non-matmul Mops'] / fa2['non-matmul Mops']:.2f}× the non-matmul work, and on an A100 those run at
  19.5 TFLOP/s against 312 for 16-bit matmuls ({cite("fa2", "§3.1")}). For the backward it stores one
  log-sum-exp L = m + log l per row instead of m and l (lesson 5).
- **Split-Q inside a block.** In the forward pass the warps of a thread block split the query rows, not K
  and V, so they never have to exchange and add partial results through shared memory; the backward pass still
  needs some synchronization between them ({cite("fa2", "§3.3")}).

**Causal masking is older.** The first paper already skips the tiles a mask hides entirely: its
block-sparse FlashAttention computes only the blocks a block mask keeps ({cite("fa1", "§3.3")}), and a
causal mask is such a mask. FlashAttention-2 spells out the causal case: skip the tiles above the diagonal,
apply the mask only on the tiles the diagonal crosses, about 1.7–1.8× faster than without a mask on its
A100s ({cite("fa2", "§3.1.1")}).
""")


def by_n():
    """Both loop orders over n around the sidebar's n, at its d and tiles."""
    ns = sweeps.ns_around(ui.config().n, 256, 4096, 2)
    return cache.figure(charts.loop_orders_over_n, cache.loop_orders_over_n(ui.sweep_config(ns), ns))


ui.slide("The two loop orders")
ui.side_by_side((lambda: cache.figure(charts.loop_order_bars, cache.loop_orders(ui.config())), "loop_order",
                 ui.SIZES),
                (by_n, "loop_order_over_n", ui.SIZES))
ui.slide("The table")
ui.table(orders, "loop_orders", f"n = {cfg.n}, d = {cfg.d}, Br = {cfg.Br}, Bc = {cfg.Bc}, {cfg.dtype}"
         + (", causal" if cfg.causal else ""))
st.subheader("Causal masking")
st.markdown(f"With the mask {'(on now)' if cfg.causal else '(off now; these are the figures with it on)'}, "
            f"**{causal['tiles computed (causal)']}** of **{causal['tiles']}** tiles are "
            f"computed: flops × {causal['flops ratio']:.3f}, traffic × {causal['traffic ratio']:.3f} "
            f"({cfg.loop_order} order). The diagonal tiles are computed in full and masked inside.")
