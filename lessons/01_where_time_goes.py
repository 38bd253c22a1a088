"""Lesson 1: attention is short of bytes, not of arithmetic."""
import streamlit as st

from explorer import cache, ui
from flashviz import sweeps
from flashviz.config import HARDWARE

st.title("Where the time goes")
st.markdown("#### Attention does n² work, but it moves n² **bytes** — and the bytes are what it waits on.")
cfg = ui.config()
hw = ui.hardware()

ns = sweeps.ns_around(cfg.n, 128, 8192, 4)
seed_table = cache.demo(1, ns=ns, d=cfg.d, dtype=cfg.dtype).tables["standard"]
row = seed_table[seed_table["n"] == cfg.n]
points = sweeps.roofline_points(cfg, hw)
std_pt, flash_pt = points.iloc[0], points.iloc[1]

cols = st.columns(4)
std_cost = sweeps.over_n(cfg, (cfg.n,)).iloc[0]
cols[0].metric("traffic, MB", f"{std_cost['std HBM MB']:,.2f}", help=f"standard attention, n = {cfg.n}")
cols[1].metric("work, GFLOPs", f"{std_cost['std GFLOPs']:,.3f}")
cols[2].metric("needs, bytes/flop", f"{std_pt['bytes per flop']:.3f}")
cols[3].metric("GPU feeds, bytes/flop", f"{hw.balance(cfg.dtype):.3f}",
               help=f"{hw.name}, machine balance: HBM bandwidth over peak arithmetic rate. "
                    "Above it, a kernel waits on memory.")

need, feed = std_pt["bytes per flop"], hw.balance(cfg.dtype)
ui.explain(f"""
Standard attention writes the n×n score matrix S to HBM, reads it back for the softmax, writes the
probabilities P and reads them again for P·V: **4nd + 4n²** elements. At n = {cfg.n} the n² terms are
**{(4 * cfg.n**2) / (4 * cfg.n * cfg.d + 4 * cfg.n**2):.1%}** of the traffic. The flops are the two
matmuls, 4n²d. Per flop, standard attention needs **{need:.3f} bytes**; the {hw.name} can deliver
**{feed:.3f}** at its {cfg.dtype} rate.
""")
if need > feed:
    st.success(f"Memory-bound: attention asks for {need / feed:.1f}× more bytes per flop than the "
               f"{hw.name} can feed. The arithmetic units wait on the moving.")
else:
    st.warning(f"By this count, {cfg.dtype} on the {hw.name} keeps up: {need:.3f} ≤ {feed:.3f} bytes per flop. "
               "The seed's 0.06 against 0.08 comparison lands on the compute side for fp32 matmuls. "
               "Real attention runs in float16 or bfloat16 on tensor cores, where the balance falls "
               "about sixteenfold: switch the data type and watch the point cross the ridge. The "
               "softmax's exp also runs on slower, non-tensor units that this count leaves out.")

ui.side_by_side((cache.figure("bytes_vs_flops", cache.over_n(cfg, ns)), "bytes_vs_flops"),
                (cache.figure("roofline", points, HARDWARE, cfg.dtype, hw.name), "roofline"))

st.markdown(f"**On the roofline** ({hw.name}, {cfg.dtype}): standard attention is "
            f"**{std_pt['bound']}-bound** at {std_pt['attainable TFLOP/s']:.1f} TFLOP/s; flash moves "
            f"{std_cost['std HBM MB'] / std_cost['flash HBM MB']:.1f}× fewer bytes and is "
            f"**{flash_pt['bound']}-bound** at {flash_pt['attainable TFLOP/s']:.1f} TFLOP/s.")
ui.table(seed_table, "where_time_goes", f"Standard attention, d = {cfg.d}, {cfg.dtype} "
         "(the seed's table at d = 64, float32)")
ui.table(points, "roofline_points", "The two points on the roofline")
ui.explain("""
**What this model leaves out.** It counts bytes between HBM and on-chip SRAM and nothing else: no L2
cache (which on an H100 or H200 can hold K and V for a few thousand tokens), no registers, no kernel
launch cost, no overlap of copy and compute. The roofline is an upper bound on the rate, not a
prediction of the time.
""")
if not row.empty:
    st.caption(f"n² share of the traffic at n = {cfg.n}: {row['n^2 share %'].iloc[0]:.1f}%")
