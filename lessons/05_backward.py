"""Lesson 5: the backward pass trades flops for bytes."""
import streamlit as st

from explorer import cache, ui

st.title("The backward pass")
st.markdown("#### Standard attention stores P for the backward. FlashAttention keeps m and l and recomputes.")
cfg = ui.config()
ns = tuple(sorted({512, 2048, 8192, cfg.n}))
demo = cache.demo(5, ns=ns, d=cfg.d, block=min(cfg.Br, 512), dtype=cfg.dtype, causal=cfg.causal)
mem, traffic = demo.tables["memory and flops"], demo.tables["traffic"]
here = mem[mem["n"] == cfg.n].iloc[0]

c = st.columns(4)
c[0].metric("standard keeps, MB", f"{here['std stored MB']:,.2f}", help=f"n = {cfg.n}")
c[1].metric("flash keeps, MB", f"{here['flash stored MB']:,.2f}")
c[2].metric("extra flops", f"{here['extra flops %']:.1f}%")
seed_extra = here["seed's extra %"]
c[3].metric("seed's extra", f"{seed_extra:.0f}%")
ui.explain("""
Forward and backward together: standard attention does two matmuls forward and four backward
(dV = PᵀdO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q), 12·n²d flops. The recomputing backward redoes
S = QKᵀ per tile first: five matmuls, 14·n²d in all, **+16.7%**. The seed quotes 10 against 12 n²d
(+20%); its standard count leaves out one of the four backward matmuls. Stored memory follows the
seed's rule: Q, K, V plus P, or plus m and l. Our backward also reads O to form D = rowsum(dO ∘ O)
(the "+ O" column). It is the trade `gradient_checkpointing=True` makes, for one operator.
""")
ui.side_by_side((cache.figure("backward_bars", mem), "backward_memory"),
                (cache.figure("flops_bars", mem), "backward_flops"))
ui.table(mem, "backward_memory", f"d = {cfg.d}, {cfg.dtype}")
ui.table(traffic, "backward_traffic", "HBM traffic of forward + backward")
for note in demo.notes:
    st.caption(note)
