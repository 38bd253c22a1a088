"""Lesson 10: the model beside an H200's measurements (committed CSVs; no GPU needed)."""
import pandas as pd
import streamlit as st

from explorer import cache, charts, ui
from explorer.lessons import control
from flashviz.hardware.measured import TILES
from flashviz.teach.claims import other_cublas_runs
from flashviz.model.config import HARDWARE
from flashviz.model.sources import cite
from flashviz.teach import claims
from flashviz.teach.format import span_text

st.title("On real hardware")
st.markdown("#### An H200 ran plain attention and PyTorch's fused kernels. Does the byte model hold?")


prov = cache.measured_provenance()
H200_L2_MB = HARDWARE["H200 SXM"].l2_mb  # what PyTorch reads on the H200 measured here
c1, c2, c3 = st.columns(3)
d = ui.bound(control("hw_d"), c1)
dtype = ui.bound(control("hw_dtype"), c2)
pass_ = ui.bound(control("hw_pass"), c3)
ui.own_setting("This lesson has its own head dim and data type: those the H200 was measured at. "
               "The sidebar's settings do not apply here.")


def measured():
    """The H200's measurements at the lesson's head dim, data type and pass (or the head dim a live drag sets)."""
    return cache.measured_view(ui.peek(control("hw_d")), ui.peek(control("hw_dtype")), ui.peek(control("hw_pass")))


def measured_dram():
    """Nsight Compute's bytes at the head dim, for the chart of bytes."""
    at = measured()
    return at.dram[at.dram["d"] == ui.peek(control("hw_d"))]


hw = measured()
view, sp, mem = hw.table, hw.kernel("flash"), hw.kernel("mem_efficient")

m = st.columns(4)
if len(sp):
    m[0].metric("flash speed-up", f"{span_text(sp['measured speed-up'].min(), sp['measured speed-up'].max())}×",
                help="plain time over SDPA flash time, across n")
    m[1].metric("model's speed-up", f"{span_text(sp['predicted speed-up'].min(), sp['predicted speed-up'].max())}×")
else:
    m[0].metric("flash speed-up", "n/a", help="PyTorch's flash kernel takes float16 and bfloat16 only")
plain_ratio = hw.dram_over_model("plain")
m[2].metric("plain: DRAM ÷ model", f"{plain_ratio.mean():.2f}", help="Nsight Compute bytes over 4n² + 4nd per head")
flash_ratio = hw.dram_over_model("flash")
dims = " and ".join(str(x) for x in sorted(hw.dram["d"].unique()))
m[3].metric(f"flash: DRAM ÷ model, d = {dims}", f"{flash_ratio.min():.2f}–{flash_ratio.max():.2f}",
            help="Nsight Compute bytes over the tile model's bytes, n = 1024 to 16384, both head dims together "
                 "(the table below gives each call's)")

ui.explain(f"""
Each call runs B·H heads with B·H·n² fixed at 2³⁰, so every point does the same arithmetic
(4·2³⁰·d flops forward). The model's time is a roofline with this machine's own ceilings, measured
in the same run: {hw.copy_tbs:.2f} TB/s copy bandwidth and
{hw.matmul_tflops:.0f} TFLOP/s for a dense {dtype} matmul (cuBLAS; in float16,
{other_cublas_runs("lesson 10", cache.cublas_fp16_runs())}). Model bytes are
the closed forms of this app at the kernels' own tiles (flash: 128 × {TILES[("flash", d)][1]} at
d = {d}; memory-efficient: {" × ".join(map(str, TILES[("mem_efficient", d)]))}).
""")
if view.empty:
    st.warning("No measurements for this choice.")
else:
    ui.slide("Measured against the model")
    ui.side_by_side((lambda: cache.figure(charts.measured_times, measured().table), "hw_times", ("hw_d",)),
                    (lambda: cache.figure(charts.measured_bytes, measured_dram()), "hw_bytes", ("hw_d",)))

flash_pts = hw.flash_points
wins, mem_wins = hw.wins("flash"), hw.wins("mem_efficient")
if len(sp) == 0:
    ranking = ("**No flash kernel for this data type.**", "Only the memory-efficient kernel is compared.")
elif wins == len(sp):
    ranking = ("**The ranking holds for flash.**", f"In this view it beats plain attention at all {len(sp)} "
               "sizes, as the byte count predicts.")
else:
    ranking = (f"**Flash beats plain attention at {wins} of {len(sp)} sizes.**",
               "The byte count predicts a gain at every size.")
model_wins = hw.wins("mem_efficient", "predicted speed-up")
if mem_wins == model_wins:
    mem_why = f"The model predicts a gain at {model_wins} of {len(mem)}: they agree."
elif mem_wins < model_wins:
    mem_why = (f"The model predicts a gain at {model_wins} of {len(mem)}: fewer bytes do not make a kernel fast "
               "when it keeps the arithmetic units less busy.")
else:
    mem_why = (f"The model predicts a gain at only {model_wins} of {len(mem)}: the roofline counts bytes and "
               "flops, not how well each kernel uses the chip.")
# Each headline is a whole sentence: on a projector the headlines show alone.
mem_line = (f"**The memory-efficient kernel is faster than plain at {mem_wins} of {len(mem)} sizes here.**", mem_why)
model_bound, measured_bound = hw.flash_bound()
best_rate, best_n = hw.best_flash_rate()
steps = cache.hopper_steps(d)
plain_bytes = plain_ratio.mean()
naive_time = hw.naive["time: naive ÷ plain"]
naive_cost = (f"it moves {hw.naive_dram.min():.2f}–{hw.naive_dram.max():.2f}× plain attention's DRAM bytes "
              "(float16 forward)" + (f" and takes {naive_time.min():.2f}–{naive_time.max():.2f}× its time in this "
                                     "view" if len(naive_time) else ""))
findings = [
    ranking, mem_line,
    (f"**Plain attention moves about {plain_bytes:.1f}× the model's bytes.**",
     "Plain attention here is the paper's standard attention, three kernels: S = QKᵀ (the 1/√d scale rides in "
     "the matmul), the softmax, then P·V, each reading its input from HBM and writing its result back: the "
     "model's 4n² + 4nd elements per head. A naive script that writes `(q @ k.transpose(-2, -1)) * scale` "
     f"launches a fourth kernel, one more pass that reads S and writes it back: {naive_cost}. PyTorch's own "
     f"unfused path (SDPA's math backend) spends no pass on the scale: it scales q and k before the matmul "
     f"({cite('pytorch_sdpa_math')}). In PyTorch {prov['torch'].split('+')[0]} that path has passes of its own, "
     "scores in float32 and a check of every row for −∞ (`_safe_softmax`); `bench/gpu/measure.py --math-path` "
     "lists its kernels."),
    (("**Flash moves far fewer bytes than the model says:**" if flash_ratio.max() < 1 else
      "**Flash moves more bytes than the model says at some sizes, fewer at others:**")
     + f" down to {flash_ratio.min():.1%} of it at n = {hw.least_flash_ratio_n()} (float16 forward, the "
     f"calls Nsight Compute profiled at d = {dims}, whatever the view above).",
     f"The model re-reads K and V from HBM once per query block; on an H200 the {H200_L2_MB} MB L2 cache holds "
     "them, so DRAM "
     "sees Q, K and V about once. The tile model counts HBM ↔ SRAM traffic as if there were no cache in between."),
    ("**Writes can hide in L2, too.**", "When the output fits in L2, part of it is still there when the kernel "
     "ends, and Nsight Compute's DRAM write count comes out below the size of O."),
    (f"**By the model's bytes flash is {model_bound}-bound; by the measured bytes it is {measured_bound}-bound** "
     "(float16 forward, as profiled).",
     f"With DRAM bytes from Nsight Compute it sits at {flash_pts['flops per DRAM byte'].min():,.0f} flops per "
     f"byte or more against a ridge at {hw.ridge:,.0f}, the measured ceilings' ({hw.float16_tflops:.0f} TFLOP/s "
     f"over {hw.copy_tbs:.2f} TB/s in float16; the vendor's rates put it at "
     f"{1 / HARDWARE['H200 SXM'].balance('float16'):,.0f}), "
     f"and reaches {best_rate:.0f} TFLOP/s at its best n "
     f"({best_n:,}; d = {d}): about {best_rate / hw.float16_tflops:.0%} of the dense-matmul ceiling. Two steps "
     "lie between it and a Hopper kernel. One is the instruction: PyTorch's flash kernel is FlashAttention-2's "
     "code for Ampere, whose matmuls issue mma.sync, with no TMA copies and no wgmma; run unchanged on an H100 "
     "it reached 335 TFLOP/s on the forward and backward passes together (the paper's Figure 7), a rate not "
     "comparable with the forward alone measured here, and its author expected another 1.5–2× from Hopper's "
     f"instructions ({cite('fa2', '§4.1')}). The other is the schedule. "
     f"{claims.hopper_steps_text(steps, TILES[('flash', d)])}. "
     "The rest is the softmax's exp units and how the kernel schedules "
     "them against the matmuls: lesson 13, and the FlashAttention-3 paper's subject."),
    ("**fp16 and bf16 move 2 bytes an element, fp32 4.**", "PyTorch's flash kernel takes no fp32 at all."),
]
ui.slide("Where the model and the hardware part")
st.subheader("Where the model and the hardware part")
# On a projector, the findings' headlines only; the reasons are for a reader.
st.markdown("\n".join(f"- {head}" if ui.presenting() else f"- {head} {why}" for head, why in findings))
ui.explain("What the model leaves out: L2 (above), register pressure, occupancy, the exp units, launch cost.")
ui.slide("The measured roofline")
ui.chart(lambda: cache.figure(charts.measured_roofline, (at := measured()).points, at.copy_tbs, at.float16_tflops,
                              "float16"), "hw_roofline", ("hw_d",))
ui.slide("The measurements")
profiled = ", ".join(f"{n:,}" for n in sorted(hw.dram["n"].unique()))


NOT_MEASURED = "—"  # as narrow as a number: the table fits its box at 1280 px


def _or_not_measured(column: pd.Series, spec: str) -> pd.Series:
    """A DRAM column as text: Nsight Compute read float16 forward calls at a few n only."""
    return column.map(lambda x: NOT_MEASURED if pd.isna(x) else format(x, spec))


ui.table(view.drop(columns=["dtype", "pass", "d"]).assign(**{
             "measured DRAM MB": _or_not_measured(view["measured DRAM MB"], ",.0f"),
             "DRAM / model": _or_not_measured(view["DRAM / model"], ".3f")}), "hw_measured",
         f"d = {d}, {dtype}, {pass_}, B·H = 2³⁰ / n² heads; times in ms (÷ roofline: measured over the roofline's), "
         f"bytes in MB (DRAM: Nsight Compute's reads and writes, float16 forward at n = {profiled} only; "
         "— where Nsight Compute did not run); model's: the bound where the model's bytes put the kernel on the "
         "roofline, not the measured bytes",
         show=["impl", "n", "measured ms", "roofline ms", "measured / roofline", "model MB",
               "measured DRAM MB", "DRAM / model", "bound"],
         headers={"measured ms": "measured", "roofline ms": "roofline",
                  "measured / roofline": "÷ roofline", "model MB": "model", "measured DRAM MB": "DRAM",
                  "DRAM / model": "DRAM ÷ model", "bound": "model's"}, formats={"model MB": ".0f"})


@ui.section
def _tile_sweep() -> None:
    """The Triton tile sweep at the sequence length chosen here: it reruns this part alone."""
    ui.slide("Block size on hardware")
    st.subheader("Block size on hardware")
    block_n = ui.bound(control("hw_block_n"), help="The sweep's charts and table redraw when you let go: this part "
                                                   "of the page reruns alone, at the length you pick.")
    sweep = cache.measured_blocks(block_n)
    bt, best, slowest, spread = sweep.table, sweep.best, sweep.slowest, sweep.spread
    ui.explain(f"""
    Lesson 4's table, on the chip: a Triton flash forward written for this app (`bench/gpu/triton_blocks.py`,
    checked against PyTorch's attention) run with each tile shape, d = 64, float16. The model says bigger
    tiles re-read K and V less: {bt["model MB"].max():,.0f} MB at {sweep.most_model["Br x Bc"]}
    down to {bt["model MB"].min():,.0f} MB. DRAM disagrees: every shape moves about the same
    {bt["measured DRAM MB"].median():,.0f} MB (a spread of {spread:.3f}×). It reads
    {bt["DRAM read MB"].median():,.0f} MB, Q, K and V ({bt["QKV MB"].iloc[0]:,.0f} MB) once each, since the
    {H200_L2_MB} MB L2 serves the re-reads, and writes {bt["DRAM write MB"].median():,.0f} MB of O's
    {bt["O MB"].iloc[0]:,.0f} MB (writes still in the L2 when the kernel ends are never counted). What the tile
    changes on this chip is time: from
    {slowest["measured ms"]:.2f} ms at {slowest["Br x Bc"]} to {best["measured ms"]:.2f} ms at
    {best["Br x Bc"]} ({best["TFLOP/s"]:.0f} TFLOP/s), through how well the tensor cores are fed and how many
    warps fit, not through HBM traffic.
    """)
    ui.side_by_side((cache.figure(charts.block_times, bt), "hw_block_times"),
                    (cache.figure(charts.block_bytes, bt), "hw_block_bytes"))
    ui.slide("The tile sweep's table")
    ui.table(bt.drop(columns=["Br", "Bc"]), "hw_blocks", f"Triton flash forward, n = {block_n}, d = 64, float16; "
             "bytes in MB", show=[c for c in bt.columns if c not in ("n", "Br", "Bc", "DRAM read MB", "DRAM write MB",
                                                                   "QKV MB", "O MB")],
             headers={"measured ms": "ms", "measured DRAM MB": "DRAM", "model MB": "model",
                      "model working set KB": "working set KB"})


_tile_sweep()

ui.slide("Speed-ups")
ui.table(hw.speedups, "hw_speedups", "Speed-up over plain attention, measured and predicted")
st.caption(f"Measured on {prov['gpu']}, driver {prov['driver']}, CUDA {prov['cuda']}, PyTorch {prov['torch']}, "
           f"cuDNN {prov['cudnn']}, "
           f"{prov['date']}, by bench/gpu/measure.py (CUDA events, median of 20 runs; DRAM bytes by Nsight "
           "Compute, one forward call per config, float16).")
ui.reading_list()
