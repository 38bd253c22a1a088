"""Lesson 1: attention is short of bytes, not of arithmetic."""
import streamlit as st

from explorer import cache, charts, ui
from flashviz.model import costs, sweeps
from flashviz.teach.claims import compare, overflow_cause, regime
from flashviz.model.config import HARDWARE, MB, tensor_dtype
from flashviz.hardware.measured import TILES
from flashviz.hardware.gpu_arch import arch_of
from flashviz.teach.format import bytes_text, count_text, figure_text
from flashviz.model.sources import cite, preset_sources

st.title("Where the time goes")
cfg = ui.config()
hw = ui.hardware()
gpus = HARDWARE if hw.name in HARDWARE else {**HARDWARE, hw.name: hw}  # the reader's own GPU among them
# The roofline's headline is the precision attention runs in: 16-bit on tensor cores.
# A float32/float64 sidebar keeps the seed's tables; its comparison becomes the side note.
roof = cfg.with_(dtype=tensor_dtype(cfg.dtype))
points = cache.roofline_points(roof, hw)  # standard attention as one point: the seed's comparison
H200 = "H200 SXM"  # the GPU this project measured on
MEASURED_D = sorted({d for _, d in TILES})  # the head dims it measured flash at
kernels = cache.roofline_points(roof, hw, kernels=True)  # as the kernels it runs, and flash's one
std_k, flash_pt = kernels[kernels["method"] == "standard"], kernels.iloc[-1]
times = cache.standard_time(roof, hw)
need, feed = points.iloc[0]["bytes per flop"], hw.balance(roof.dtype)
waiting, bound_here = times["waiting"], times["bound"]  # kernel by kernel, as its question judges
share = f"{times['memory-bound us'] / times['kernels us']:.0%}"

ui.slide("The numbers")
if bound_here == "memory":
    st.markdown(f"#### Standard attention's flops and its bytes both grow as n². On the {hw.name} in "
                f"{roof.dtype}, the bytes are what it waits on.")
else:
    st.markdown(f"#### Standard attention's flops and its bytes both grow as n². At n = {roof.n}, d = {roof.d} "
                f"on the {hw.name} in {roof.dtype}, the arithmetic is what it waits on.")
if roof.dtype != cfg.dtype:
    st.caption(f"This lesson's roofline uses {roof.dtype}, the precision attention runs in on {arch_of(hw).matrix}; "
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
cols[2].metric("needs, bytes/flop", f"{need:.3g}",
               help="all of standard attention's bytes over all of its matmul flops: one point for its "
                    "three kernels, the seed's comparison")
cols[3].metric("feeds, bytes/flop", f"{feed:.3g}",
               help=f"{hw.name}, machine balance: HBM bandwidth over the {roof.dtype} matmul rate. "
                    "A kernel that needs more bytes per flop than this waits on memory.")

if len(waiting) == len(std_k):
    names = f"all {len(std_k)} of its kernels wait"
else:
    names = (" and ".join(f"the {k}" for k in waiting) or "none of its kernels") + (
        " waits" if len(waiting) <= 1 else " wait")
if bound_here == "memory":
    st.success(f"Memory-bound: {names} on HBM, {share} of standard attention's "
               f"{figure_text(times['kernels us'])} µs on the {hw.name}'s roofline in {roof.dtype}. The arithmetic "
               "units wait on the moving.", icon=ui.NO_ICON)
else:
    st.warning(f"Compute-bound here: the matmuls keep the units busy for most of standard attention's "
               f"{figure_text(times['kernels us'])} µs; {names} on HBM, {share} of it. Larger n and d give the "
               "matmuls more flops per byte; the softmax's never change.", icon=ui.NO_ICON)

softmax = std_k[std_k["kernel"] == "softmax"].iloc[0]
softmax_regime = (f"It is memory-bound whatever the sizes: the first paper's own argument "
                  f"({cite('fa1', '§2.1–2.2 and Figure 1, right')})."
                  if softmax["bound"] == "memory" else
                  f"On this GPU the FP32 units are slow enough that it is compute-bound instead, at any n and d, "
                  f"unlike on the GPUs the first paper measured ({cite('fa1', '§2.1–2.2 and Figure 1, right')}).")
fp32_units = "vector ALUs" if arch_of(hw).unit == "CU" else "CUDA cores"  # AMD's name, or NVIDIA's
ui.explain(f"""
Standard attention writes the n×n score matrix S to HBM, reads it back for the softmax, writes the
probabilities P and reads them again for P·V: **4nd + 4n²** elements. At n = {cfg.n} the n² terms are
**{(4 * cfg.n**2) / (4 * cfg.n * cfg.d + 4 * cfg.n**2):.1%}** of the traffic. The flops are the two
matmuls, 4n²d. Per flop, standard attention needs **{need:.3g} bytes** in {roof.dtype}; the {hw.name}
delivers **{feed:.3g}** at its {roof.dtype} {arch_of(hw).matrix_rate}.

That average is over three kernels, one per line of the paper's Algorithm 0, each reading its inputs from
HBM and writing its output back: **S = QKᵀ** reads Q and K and writes S; the **softmax** reads S and writes
P; **O = PV** reads P and V and writes O. The softmax does no matmul at all: {costs.SOFTMAX_OPS} operations
per score (max, subtract, exp, sum, divide) for two elements moved, {softmax['flops per byte']:.3g} operations
per byte in {roof.dtype} at any n and d, where the {hw.name}'s FP32 units ({fp32_units}) need
{hw.fp32_flops / hw.hbm_bytes_per_s:.3g} per byte to stay busy. That rate counts a fused multiply-add as two
operations; the softmax's five are not fused, and its exp runs on a slower unit of its own, so the true margin is
smaller than these two figures say, which this count leaves out {ui.assumes("roofline")}. {softmax_regime}
The count masks S as the first kernel writes it; PyTorch's attention in that figure runs the mask and
dropout as kernels of their own, more passes over n² elements of the same kind.
""")



def bytes_figure():
    """The sweep around the sidebar's n, at its d, tiles and 16-bit type."""
    at = ui.config()
    around, dtype = sweeps.ns_around(at.n, 128, 8192, 4), tensor_dtype(at.dtype)
    return cache.figure(charts.bytes_vs_flops, cache.over_n(ui.sweep_config(around).with_(dtype=dtype), around), dtype)


ui.slide("Bytes against flops")
ui.chart(bytes_figure, "bytes_vs_flops", ui.SIZES)
# Where the real kernel sits, on the chart of the GPU it was measured on (float16 forward, d = 64 and 128).
measured_pts = cache.h200_flash(cfg.d)[0] if hw.name == H200 and cfg.d in MEASURED_D else None
ui.slide("The kernels on the roofline")  # full width: three labelled marks and a roof per GPU


def roofline_figure():
    """The three kernels and flash's one on every GPU's roof, at the sidebar's sizes."""
    at, gpu = ui.config(), ui.hardware()
    at = at.with_(dtype=tensor_dtype(at.dtype))
    ran = None
    if gpu.name == H200:  # its measured kernel, no rows at a d it was not measured at: the chart follows d live
        rows = cache.h200_flash(at.d if at.d in MEASURED_D else MEASURED_D[0])[0]
        ran = rows if at.d in MEASURED_D else rows.iloc[:0]
    return cache.figure(charts.roofline, cache.roofline_points(at, gpu, kernels=True), gpus, at.dtype, gpu.name, ran)


ui.chart(roofline_figure, "roofline", ui.SIZES)
measured_note = ""
if measured_pts is not None:
    least = float(measured_pts["flops per DRAM byte"].min())
    vendor, ceilings = 1 / hw.balance(roof.dtype), cache.h200_flash(cfg.d)[3]  # flops per byte at each ridge
    by_vendor, by_ceilings = regime(1 / least, 1 / vendor), regime(1 / least, 1 / ceilings)
    verdict = (f"it is **{by_vendor}-bound** by either" if by_vendor == by_ceilings else
               f"it is **{by_vendor}-bound** by the sheet's ridge, **{by_ceilings}-bound** by the measured one")
    measured_note = (f" Measured on this H200 (float16 forward, not causal, d = {cfg.d}; the hollow diamonds), "
                     f"PyTorch's kernel does {least:,.0f} flops per DRAM byte or more, against a ridge at "
                     f"{vendor:,.0f} by the sheet's rates and at {ceilings:,.0f} by this machine's measured "
                     f"ceilings (lesson 10): by the bytes it really moves {verdict}.")

cause = overflow_cause(roof)
flash_cost = costs.flash_cost(roof)
overflow = (f" ({cause}: {bytes_text(flash_cost.spilled * roof.element_bytes)} of its "
            f"{bytes_text(flash_cost.hbm_bytes)} is that spill {ui.assumes('spill')})" if cause else "")
rereads = (f"reads K and V from HBM once per block of {roof.Br} query rows" if roof.loop_order == "fa2" else
           f"reads Q, O, m and l from HBM and writes O, m and l back once per block of {roof.Bc} keys (the paper's "
           "order)")
steps = "; ".join(f"{k['kernel']} **{k['bound']}-bound**, {figure_text(k['time us (roofline)'])} µs"
                  for _, k in std_k.iterrows())
st.markdown(f"**On the roofline** ({hw.name}, {roof.dtype}): standard attention runs {len(std_k)} kernels, "
            f"one after another: {steps}; **{figure_text(times['kernels us'])} µs** in all. Flash runs one kernel "
            f"and moves {compare(std_cost['std HBM MB'], std_cost['flash HBM MB'])}{overflow}: "
            f"**{flash_pt['bound']}-bound** at {flash_pt['attainable TFLOP/s']:.1f} TFLOP/s, "
            f"**{figure_text(flash_pt['time us (roofline)'])} µs** by the two-level count, HBM and SRAM with no L2 "
            f"between ({ui.assumes('two_level')}; {ui.assumes('roofline')})."
            + (f" The count {rereads} and leaves the L2 out; measured on the H200, FlashAttention's forward is "
               "compute-bound, its re-reads served by the L2 (lesson 10)." if flash_pt["bound"] == "memory" else "")
            + measured_note)

wide = cfg.with_(dtype="float32")
wide_need = cache.roofline_points(wide, hw).iloc[0]["bytes per flop"]
SEED_NEED, SEED_FEED = 0.06, 0.08  # the seed's own rounded figures (its demo 1, and 19.5 TFLOP/s against 1.5 TB/s)
wide_feed = hw.balance("float32")
wide_k = cache.roofline_points(wide, hw, kernels=True)
wide_k = wide_k[wide_k["method"] == "standard"]
wide_t = cache.standard_time(wide, hw)
mixed = wide_k["bound"].nunique() > 1
ui.explain(f"""
**The seed's comparison, in float32.** On its FP32 units, without tensor cores, the {hw.name} feeds {wide_feed:.3g}
bytes per flop and standard attention at n = {cfg.n}, d = {cfg.d} needs {wide_need:.3g}:
**{regime(wide_need, wide_feed)}-bound** by this count. The seed (the blog post this explorer grew from,
"FlashAttention from scratch", whose nine NumPy demos count bytes by hand; "demo N" is its N-th table) made
this comparison at n = 1024, d = 64 on an A100, {SEED_NEED} bytes needed per flop against {SEED_FEED} fed,
and read it as memory-bound ("the multiplying waits on the moving"). Its own figures say the opposite: a kernel
that needs fewer bytes per flop than the GPU feeds is **{regime(SEED_NEED, SEED_FEED)}-bound**. It matters
which units do the matmuls: the matrix units (NVIDIA's tensor cores, AMD's matrix cores) in 16-bit are about
{hw.fp16_tensor_flops / hw.fp32_flops:.0f}× faster than the FP32 units, while the bytes only halve.

One point for the whole of standard attention gives **{figure_text(wide_t['one point us'])} µs** on this float32
roofline; its kernels, each on its own, give **{figure_text(wide_t['kernels us'])} µs** ({" + ".join(
    figure_text(t) for t in wide_k["time us (roofline)"])} µs){
    ": the single point lets the matmuls' spare bandwidth pay for the softmax's bytes, which the kernels, one "
    "after another, cannot do" if mixed else ""}. {ui.assumes('roofline')}
""")
ui.slide("The seed's table and the kernels")
ui.table(seed_table, "where_time_goes", f"Standard attention, d = {cfg.d}, {cfg.dtype} "
         "(the seed's table is d = 64, float32)")
ui.table(kernels, "roofline_points", f"Standard attention's kernels and flash on the roofline, {roof.dtype}: "
         "times in µs, each the larger of its bytes at the HBM bandwidth and its work at the peak rate")

ui.slide("HBM and SRAM")
st.subheader("HBM and SRAM")
ui.explain(f"""
A GPU has two memories that matter here. **HBM** (high-bandwidth memory) is the big one off the chip:
tens of gigabytes, where Q, K, V and O live, read at a few terabytes a second. **SRAM** is the memory on
the chip, inside each streaming multiprocessor: its shared memory, a couple of hundred kilobytes per SM
and about ten times faster, and its registers, beside the arithmetic units. FlashAttention-2 calls its
on-chip memory "SRAM (aka shared memory)" ({cite('fa2', '§2.1')}), yet in FlashAttention-2 and -3 kernels the
scores S, the probabilities P and the output accumulator O live in registers, while shared memory holds the
tiles of Q, K and V ({cite('fa3', '§3.1')}). This model counts the two as one budget
({ui.assumes('sram_registers')}). A kernel copies a tile from HBM into SRAM, works on it, and writes results
back. One thread block may use at most the "per block" column of shared memory; that is the budget M of
lesson 4 (the sidebar's is {cfg.sram_bytes // 1024} KB).
""")
gpu_table = cache.hardware_table(gpus)  # its "source" column names each row's sheet in the CSV; the caption links them
ui.table(gpu_table, "hardware", "Vendor figures; SRAM is shared memory, in KB per SM and per "
         "block; rates are dense, in TFLOP/s. The papers' \"192 KB per SM\" is L1 and shared memory together.",
         show=[c for c in gpu_table.columns if c != "source"],
         headers={"SRAM/block KB": "per block KB", "bf16 TFLOP/s": "bf16 rate",
                  "fp32 TFLOP/s": "fp32 rate"})
st.caption(preset_sources(gpus))
arch = arch_of(hw)
# the part of the cache the blocks running at once share, in lesson 11's model: the whole cache holds more, but the
# H200's reads grow past this share (flashviz/data/h200/whole_gpu.csv)
wave_share = arch.shared_cache_bytes(hw)
tokens = costs.kv_tokens_within(wave_share, roof.d, roof.element_bytes)
part = (f"{wave_share / MB:.0f} MB of the {hw.name}'s {arch.cache_bytes(hw) // MB} MB {arch.cache}, one of its "
        f"{arch.cache_parts} partitions" if arch.cache_parts > 1
        else f"the {hw.name}'s {arch.cache_bytes(hw) // MB} MB {arch.cache}")
l2 = (f" In lesson 11's model the blocks that run at once share {part} ({ui.assumes('l2')}), which "
      f"could hold one head's K and V (d = {roof.d}, {roof.dtype}) "
      f"for up to {count_text(tokens)} tokens, so at n = {cfg.n} flash's re-reads of them "
      f"{'could' if cfg.n <= tokens else 'could not all'} come from it instead of HBM; lesson 11 sets that model "
      "against the H200's measured reads." if tokens else "")
_, dram_lo, dram_hi, _ = cache.h200_flash(MEASURED_D[-1])
ui.explain(f"""
**What this model leaves out.** It counts bytes between HBM and on-chip SRAM and nothing else: no L2
cache, no kernel launch cost, no overlap of copy and compute.{l2} A roofline bounds the rate of a kernel that
moves the bytes it is given; flash's roof here is the two-level count's, not the GPU's. A real flash kernel
moves fewer: on the H200, lesson 10 measures its DRAM bytes at {dram_lo:.2f}–{dram_hi:.2f} of this count (float16
forward, d = {" and ".join(map(str, MEASURED_D))} together), so it runs above the roof this count gives it.
""")
if not row.empty:
    st.caption(f"n² share of the traffic at n = {cfg.n}: {row['n^2 share %'].iloc[0]:.1f}%")
if not ui.presenting():
    ui.reading_list()
