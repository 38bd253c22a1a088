"""Lesson 1: attention is short of bytes, not of arithmetic."""
import streamlit as st

from explorer import cache, charts, ui
from flashviz import sweeps
from flashviz.claims import compare, regime
from flashviz.config import HARDWARE, tensor_dtype
from flashviz.format import bytes_text, count_text
from flashviz.sources import preset_sources

st.title("Where the time goes")
cfg = ui.config()
hw = ui.hardware()
gpus = HARDWARE if hw.name in HARDWARE else {**HARDWARE, hw.name: hw}  # the reader's own GPU among them
# The roofline's headline is the precision attention runs in: 16-bit on tensor cores.
# A float32/float64 sidebar keeps the seed's tables; its comparison becomes the side note.
roof = cfg.with_(dtype=tensor_dtype(cfg.dtype))
points = cache.roofline_points(roof, hw)
std_pt, flash_pt = points.iloc[0], points.iloc[1]
need, feed = std_pt["bytes per flop"], hw.balance(roof.dtype)
bound_here = regime(need, feed)

ui.slide("The numbers")
if bound_here == "memory":
    st.markdown(f"#### Attention does n² work and moves n² bytes. On the {hw.name} in {roof.dtype}, "
                "the bytes are what it waits on.")
else:
    st.markdown(f"#### Attention does n² work and moves n² bytes. At n = {roof.n}, d = {roof.d} on the "
                f"{hw.name} in {roof.dtype}, the arithmetic is what it waits on.")
if roof.dtype != cfg.dtype:
    st.caption(f"This lesson's roofline uses {roof.dtype}, the precision attention runs in on tensor cores; "
               f"the sidebar's {cfg.dtype} sets the seed's table below"
               + ("." if ui.presenting() else " and the side note."))  # the side note is hidden on a projector

ns = sweeps.ns_around(cfg.n, 128, 8192, 4)
seed_table = cache.demo(1, ns=ns, d=cfg.d, dtype=cfg.dtype).tables["standard"]
row = seed_table[seed_table["n"] == cfg.n]
std_cost = cache.over_n(roof, (cfg.n,)).iloc[0]

cols = st.columns(4)
cols[0].metric(f"{roof.dtype} traffic", bytes_text(std_cost["std HBM MB"] * 2**20),
               help=f"standard attention, n = {cfg.n}, d = {cfg.d}, {roof.dtype}")
cols[1].metric("work", count_text(std_cost["std GFLOPs"] * 1e9, "flop"))
cols[2].metric("needs, bytes/flop", f"{need:.3g}")
cols[3].metric("feeds, bytes/flop", f"{feed:.3g}",
               help=f"{hw.name}, machine balance: HBM bandwidth over the {roof.dtype} matmul rate. "
                    "A kernel that needs more bytes per flop than this waits on memory.")

if bound_here == "memory":
    st.success(f"Memory-bound: standard attention asks for {need / feed:.1f}× more bytes per flop than the "
               f"{hw.name} feeds in {roof.dtype}. The arithmetic units wait on the moving.", icon=ui.NO_ICON)
else:
    st.warning(f"Compute-bound here: {need:.3g} ≤ {feed:.3g} bytes per flop. At this n and d the matmuls "
               "are big enough to keep the units busy; a longer row of scores per byte tips the balance.",
               icon=ui.NO_ICON)

ui.explain(f"""
Standard attention writes the n×n score matrix S to HBM, reads it back for the softmax, writes the
probabilities P and reads them again for P·V: **4nd + 4n²** elements. At n = {cfg.n} the n² terms are
**{(4 * cfg.n**2) / (4 * cfg.n * cfg.d + 4 * cfg.n**2):.1%}** of the traffic. The flops are the two
matmuls, 4n²d. Per flop, standard attention needs **{need:.3g} bytes** in {roof.dtype}; the {hw.name}
delivers **{feed:.3g}** at its {roof.dtype} tensor-core rate.
""")

sweep = ui.sweep_config(ns).with_(dtype=roof.dtype)
ui.slide("Bytes against flops, and the roofline")
ui.side_by_side((cache.figure(charts.bytes_vs_flops, cache.over_n(sweep, ns)), "bytes_vs_flops"),
                (cache.figure(charts.roofline, points, gpus, roof.dtype, hw.name), "roofline"))

st.markdown(f"**On the roofline** ({hw.name}, {roof.dtype}): standard attention is "
            f"**{std_pt['bound']}-bound** at {std_pt['attainable TFLOP/s']:.1f} TFLOP/s; flash moves "
            f"{compare(std_cost['std HBM MB'], std_cost['flash HBM MB'])} and is "
            f"**{flash_pt['bound']}-bound** at {flash_pt['attainable TFLOP/s']:.1f} TFLOP/s.")

wide = cfg.with_(dtype="float32")
wide_need = cache.roofline_points(wide, hw).iloc[0]["bytes per flop"]
wide_feed = hw.balance("float32")
ui.explain(f"""
**The seed's comparison, in float32.** On CUDA cores in float32 the {hw.name} feeds {wide_feed:.3g}
bytes per flop and standard attention at n = {cfg.n}, d = {cfg.d} needs {wide_need:.3g}:
**{regime(wide_need, wide_feed)}-bound** by this count. The seed (the blog post this explorer grew from,
"FlashAttention from scratch", whose nine NumPy demos count bytes by hand; "demo N" is its N-th table) made
this comparison at n = 1024, d = 64 on an A100: 0.06 needed against 0.08 fed, compute-bound. It matters
which units do the matmuls: tensor cores in 16-bit are about {hw.fp16_tensor_flops / hw.fp32_flops:.0f}×
faster than CUDA cores in float32, while the bytes only halve.
""")
ui.slide("The seed's table and the two points")
ui.table(seed_table, "where_time_goes", f"Standard attention, d = {cfg.d}, {cfg.dtype} "
         "(the seed's table is d = 64, float32)")
ui.table(points, "roofline_points", f"The two points on the roofline, {roof.dtype}")

ui.slide("HBM and SRAM")
st.subheader("HBM and SRAM")
ui.explain(f"""
A GPU has two memories that matter here. **HBM** (high-bandwidth memory) is the big one off the chip:
tens of gigabytes, where Q, K, V and O live, read at a few terabytes a second. **SRAM** is the shared
memory inside each streaming multiprocessor: a couple of hundred kilobytes per SM, about ten times
faster, and the only place the arithmetic units read from quickly. A kernel copies a tile from HBM into
SRAM, works on it, and writes results back. One thread block may use at most the "per block" column;
that is the budget M of lesson 4 (the sidebar's is {cfg.sram_bytes // 1024} KB).
""")
gpu_table = cache.hardware_table(gpus)  # its "source" column names each row's sheet in the CSV; the caption links them
ui.table(gpu_table, "hardware", "Vendor figures; SRAM is shared memory, in KB per SM and per "
         "block; rates are dense, in TFLOP/s. The papers' \"192 KB per SM\" is L1 and shared memory together; "
         f"registers are on-chip too, and this model counts one budget for all ({ui.assumes('sram_registers')}).",
         show=[c for c in gpu_table.columns if c != "source"],
         headers={"SRAM/block KB": "per block KB", "bf16 TFLOP/s": "bf16 rate",
                  "fp32 TFLOP/s": "fp32 rate"})
st.caption(preset_sources(gpus))
ui.explain("""
**What this model leaves out.** It counts bytes between HBM and on-chip SRAM and nothing else: no L2
cache (which on an H100 or H200 can hold K and V for a few thousand tokens), no registers, no kernel
launch cost, no overlap of copy and compute. The roofline is an upper bound on the rate, not a
prediction of the time.
""")
if not row.empty:
    st.caption(f"n² share of the traffic at n = {cfg.n}: {row['n^2 share %'].iloc[0]:.1f}%")
if not ui.presenting():
    ui.reading_list()
