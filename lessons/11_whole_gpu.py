"""Lesson 11: the whole GPU. Waves of thread blocks, the cache they share, and measured DRAM reads."""
import streamlit as st

from explorer import cache, charts, ui
from explorer.gpu_player import gpu_player, gpu_player_html
from explorer.lessons import control
from explorer.whole_gpu import (IMPL, crossover, figures_cited, gpu_named, kernel_named, launch_error,
                                measured_at, measured_bh, measured_reads, model_curves, plain_over_flash,
                                residency_text, time_bias, triton_128_slower)
from flashviz.hardware import gpu_targets
from flashviz.teach.claims import compare, other_cublas_runs
from flashviz.model.config import CUSTOM, HARDWARE
from flashviz.teach.format import bytes_text, figure_text
from flashviz.hardware.gpu_arch import arch_of, is_modelled
from flashviz.hardware.gpu_model import forward_time, whole_gpu
from flashviz.hardware.schedule import intra_group
from flashviz.model.sources import cite

H200 = "H200 SXM"

st.title("The whole GPU")
st.markdown("#### Many blocks run at once and share a cache. How many bytes does DRAM really see?")
c = st.columns([1.1, 0.8, 1, 1, 1.25])  # the kernel menu wide enough for "PyTorch flash"
n = ui.bound(control("wg_n"), c[0], help="The waves' player is built when you let go: its frames at every n are too "
                                                  "many to carry for a drag.")
d = ui.bound(control("wg_d"), c[1])
bh = ui.bound(control("wg_bh"), c[2])
gpu = ui.bound(control("wg_gpu"), c[3])
kname = ui.bound(control("wg_kernel"), c[4])
if gpu == CUSTOM and ui.value("hw") != CUSTOM:  # the sidebar draws them while its GPU is "custom"
    ui.custom_gpu_controls(st.columns([1, 2])[0])  # wide enough for the button's whole label
ui.own_setting("This lesson has its own n, d, batch × heads, GPU and kernel (fp16): the sidebar's do not apply.")
hw, kernel = gpu_named(gpu), kernel_named(kname, d)
arch, occ = arch_of(hw), kernel.occupancy(d, hw)
unit = arch.unit
if not is_modelled(hw):
    st.caption(f"A custom GPU is modelled as NVIDIA's ({cite('cuda')}: 64 K registers, 64 warps and 32 "
               "blocks per SM, 1 KB of shared memory kept per block; the L2 in two partitions): your figures set "
               "its SMs, the shared memory one block may use and its L2"
               + (", also the sidebar's." if ui.value("hw") == CUSTOM else "."))
if occ.launch:
    st.error(launch_error(kname, d, hw, occ), icon=ui.NO_ICON)
else:
    w = whole_gpu(n, d, bh, kernel, hw)
    per = occ.blocks
    ui.slide("The numbers")
    m = st.columns(4)
    m[0].metric("blocks in the grid", f"{w.blocks:,}", help="batch × heads × query blocks (Tr = n / Br)")
    m[1].metric("resident at once", f"{hw.sms} × {per}",
                help=f"{unit}s × blocks per {unit}: the least that {arch.smem}, registers and {arch.warp_name} "
                     "slots allow")
    m[2].metric("waves", f"{w.waves:,}")
    m[3].metric("DRAM reads ÷ floor", f"{w.over_floor:.2f}×", help="the three-level model over Q + K + V once")

    fits = "outgrow" if w.rereads else "fit in"
    per_head = w.passes / bh
    times = "once" if per_head == 1 else f"{per_head:.3g} times on average"
    kernels_from = "" if gpu == H200 else f" {ui.assumes('same_kernels')}"
    if w.l2_share == 0:
        cache_kept = "and with no L2 none of it is kept"
    elif arch.cache_parts > 1:
        cache_kept = (f"which {fits} the {bytes_text(w.l2_share)} share a wave gets (one of the {arch.cache}'s "
                      f"{arch.cache_parts} partitions)")
    else:
        cache_kept = f"which {fits} the {bytes_text(w.l2_share)} {arch.cache}"
    chiplets = "" if arch.chiplets == 1 else (
        f"The {hw.name} deals blocks out to its {arch.chiplets} chiplets (XCDs) in turn, {hw.sms // arch.chiplets} "
        f"CUs each; each XCD has a private {arch.chiplet_l2_mb} MB L2, and all {arch.chiplets} share a "
        f"{bytes_text(w.l2_share)} Infinity Cache in front of HBM, so that is the cache that decides DRAM reads. ")
    ui.explain(f"""
The grid has one {arch.block} per (head, query block of {kernel.Br} rows): {w.blocks:,} blocks. The {hw.name}
keeps {per} of them on each of its {hw.sms} {unit}s, the least of what each limit allows:
{residency_text(kernel, d, hw, occ)}{kernels_from}.
So {w.resident:,} run at once and the grid runs in {w.waves:,} wave{'s' if w.waves > 1 else ''}
({ui.assumes('occupancy')}), a head's query blocks one after another. {chiplets}The blocks of a wave read the
same K and V tiles at about the same time, so
one DRAM read serves them all through the {arch.cache}. Between two waves of a head, the {arch.cache} must also
take the wave's other heads and its Q and O tiles: {bytes_text(w.in_flight)} in flight, {cache_kept}
{ui.assumes('l2')}. So each head's K + V comes from DRAM {times}, and the reads come to {bytes_text(w.reads)}: the
two-level model (one block at a time, no cache) reads {compare(w.reads, w.two_level)}.
""")
    if arch.chiplets > 1:
        xcd_fits = "outgrows" if w.chiplet_rereads else "fits in"
        ui.explain(f"""
The XCDs' own L2s see more traffic, though not from DRAM. Each XCD holds its {w.resident // arch.chiplets} blocks
of a wave; between two waves of a head its L2 must keep {bytes_text(w.chiplet_in_flight)}, which
{xcd_fits} its {arch.chiplet_l2_mb} MB, so each XCD reads a head's K + V from the Infinity Cache
{"once per wave of the head" if w.chiplet_rereads else "once"}: {bytes_text(w.chiplet_fills)} of Infinity Cache
reads in all against {bytes_text(w.reads)} from DRAM.
""")
    st.caption(f"The tiles of Q, K and V sit in {arch.smem}; the scores S, the probabilities P and the O "
               "accumulator sit in registers. The papers' \"SRAM\" is shared memory "
               f"({cite('fa2', '§2.1')}); this model counts the registers' tiles in the same budget. Figures: "
               + figures_cited(hw) + ".")
    ui.slide("The waves")
    gpu_player(gpu_player_html(n, d, bh, kname, hw))

ui.slide("Measured on the H200")
st.subheader("Measured on the H200")
_, rates, table, _, plain_table = cache.gpu_measured()
impl = IMPL[kname]
pts = measured_at(impl, d, bh)[0]
on_h200 = gpu == H200
chart_hw = HARDWARE[H200] if occ.launch else hw  # a kernel that cannot launch here: the H200's models


def reads_figure():
    """The models' reads over n and the H200's measured ones, at the lesson's d, batch × heads, GPU and kernel."""
    d_, bh_, kname_ = (ui.peek(control(k)) for k in ("wg_d", "wg_bh", "wg_kernel"))
    hw_ = gpu_named(ui.peek(control("wg_gpu")))
    at_hw = HARDWARE[H200] if kernel_named(kname_, d_).occupancy(d_, hw_).launch else hw_
    ran, plain = measured_at(IMPL[kname_], d_, bh_)
    if hw_.name != H200:  # the measurements are the H200's
        ran, plain = ran.iloc[0:0], plain.iloc[0:0]
    return cache.figure(charts.reads_figure, model_curves(d_, bh_, kname_, at_hw), measured_reads(ran),
                        crossover(d_, bh_, kname_, at_hw), f"{kname_}, d = {d_}, batch × heads = {bh_}, {at_hw.name}",
                        measured_reads(plain), arch_of(at_hw).cache)


ui.chart(reads_figure, "wg_reads", ("wg_d", "wg_bh"))
have = measured_bh(impl, d)
if occ.launch:
    st.caption(f"{kname} cannot launch on the {hw.name} at d = {d}: the chart shows the models on the H200, "
               "where it was measured.")
elif not on_h200:
    st.caption(f"The measurements are the H200's; for the {hw.name} the chart shows the models only.")
elif pts.empty:
    st.caption(f"No measurements at batch × heads = {bh} for d = {d}: measured at {', '.join(map(str, have))}.")
ui.explain("""
Nsight Compute flushes the caches before each replay, so its reads are cold, as the model's are. Writes still
sitting in L2 when the kernel ends are never counted as DRAM writes, so this page compares reads only and
lists writes beside them.
""")

if not occ.launch:
    ui.slide("Why FlashAttention-2 splits the sequence")
    st.subheader("Why FlashAttention-2 splits the sequence over blocks")
    # The page's own batch × heads where FA1's one block per head leaves units idle; where it already fills
    # them, a small batch (8), named as the other setting it is
    few = bh if bh < hw.sms or hw.sms == 1 else min(8, hw.sms // 2)
    busy = min(few, hw.sms)
    small, slots = whole_gpu(n, d, few, kernel, hw), hw.sms * occ.blocks
    other = "" if few == bh else (
        f"At this page's batch × heads = {bh:,}, FlashAttention-1's one block per head already gives {bh:,} "
        f"blocks for {hw.sms} {unit}s; the split pays at a small batch, so take batch × heads = {few} instead. ")
    if ui.presenting():  # the paragraph below is hidden: its figures, in one line
        st.markdown(f"{other}At batch × heads = {few}, FlashAttention-1's one block per head keeps **{busy} of "
                    f"{hw.sms} {unit}s** busy. FlashAttention-2's query blocks of {kernel.Br} rows make "
                    f"**{small.blocks:,} blocks**, filling {min(small.blocks, small.resident):,} of the {slots:,} "
                    "slots at once.")
    ui.explain(f"""
{other}FlashAttention-1 gave each (batch, head) one thread block. With batch × heads = {few} that is
{busy} busy {unit}{'s' if busy > 1 else ''} out of {hw.sms}. FlashAttention-2 also splits each head's
queries into blocks of {kernel.Br} rows, so the same work makes {small.blocks:,} blocks and fills
{min(small.blocks, small.resident):,} of the {slots:,} slots at once. The price is the one this page
measures: each wave reads its head's K and V again once they no longer fit in the {arch.cache}.
""")

st.subheader("Plain attention, for scale")
pr, p4 = plain_table["reads: model ÷ measured"], plain_table["naive reads: count ÷ measured"]
low = plain_table.loc[pr.idxmin()]
extra = (low["measured reads MB"] - low["model reads MB (4n²+4nd moved)"]) / (low["B·H"] * low["S per head MB"])
same_line = "" if kernel.Br != d else (
    f" Here the grey band lies under the two-level model: with Br = d = {d}, the Tr = n / {d} passes over K + V"
    " read 2n² elements per head, as many as plain attention's passes over S and P.")
vs_flash = plain_over_flash()
slower = plain_table["time: naive ÷ plain"]
whole_s = plain_table["B·H"] * plain_table["S per head MB"]  # the S a kernel of plain attention writes or reads
ui.explain(f"""
The grey line and squares are plain attention as the FlashAttention paper's standard attention runs it, in
{plain_table["kernels"].max()} kernels: S = QKᵀ (the 1/√d scale rides in the matmul), the softmax, then P·V.
It was measured at the {len(plain_table)} configs where the scores S fit in 8 GB, each call profiled in its own
Nsight Compute run so that all its kernels are summed. Its model is the two-level one's: 4n² + 4nd elements
moved per head, of which 2n² + 3nd are reads (Q and K, S, P and V). It reads
**{pr.min():.2f}–{pr.max():.2f}×** of what the H200 measures. The low end is n = {int(low["n"]):,}, where S has
more than 2³¹ elements and the call reads about {extra:.1f} n² more than the count; which of its kernels reads
it was not recorded (the CSV keeps each call's sum). A naive script that writes
`(q @ k.transpose(-2, -1)) * scale` adds a fourth kernel, one more pass that reads S and writes it back
(PyTorch's own math path scales q and k instead, {cite("pytorch_sdpa_math")}): counting it (3n² + 3nd read per
head) gives {p4.min():.2f}–{p4.max():.2f}× of that script's measured reads, and it takes
{slower.min():.2f}–{slower.max():.2f}× plain attention's time. The L2 does not help plain attention: each of its
kernels runs over every head before the next begins, and the S of all B·H heads is {whole_s.min():,.0f} MB or more
at these configs, against the H200's {HARDWARE[H200].l2_mb} MB L2. At the same configs, PyTorch's flash kernel reads
{vs_flash[0]:.0f}–{vs_flash[1]:.0f}× less.{same_line}
""")
_mb = ("S per head MB", "measured reads MB", "model reads MB (4n²+4nd moved)", "naive reads MB",
       "four-kernel count MB")
_heads = {"S per head MB": "S", "measured reads MB": "H200", "model reads MB (4n²+4nd moved)": "model",
          "reads: model ÷ measured": "model ÷ H200", "naive reads MB": "naive: H200",
          "four-kernel count MB": "naive: count", "naive reads: count ÷ measured": "count ÷ H200",
          "time: naive ÷ plain": "time ÷ plain"}
# Two tables, each narrow enough for its box at 1280 px with the sidebar open.
ui.table(plain_table.round(3), "wg_plain", "Plain attention, three kernels: the H200's measured DRAM reads against "
         "the model, in MB (S: one head's scores; the model moves 4n² + 4nd elements per head). Writes are in "
         "the CSV.",
         show=["n", "d", "B·H", "S per head MB", "measured reads MB", "model reads MB (4n²+4nd moved)",
               "reads: model ÷ measured"], headers=_heads, formats={c: ".0f" for c in _mb})
ui.table(plain_table.round(3), "wg_naive", "The naive script's four kernels at the same configs: its measured reads "
         "against the three-kernel count plus one more pass over S, in MB, and its time over plain attention's.",
         show=["n", "d", "B·H", "naive reads MB", "four-kernel count MB", "naive reads: count ÷ measured",
               "time: naive ÷ plain"], headers=_heads, formats={c: ".0f" for c in _mb})

ui.slide("The targets")
st.subheader("The targets: model ÷ measured, every config")
ok_reads, ok_time = int(table["reads in 0.8–1.25"].sum()), int(table["time in 0.7–1.4"].sum())
ok_before = int(table["matmul-only ÷ measured"].between(*gpu_targets.TIME_OK).sum())
misses = table[~table["reads in 0.8–1.25"]]
low, high = misses[misses["reads: model ÷ measured"] < 0.8], misses[misses["reads: model ÷ measured"] > 1.25]
slow = table[~table["time in 0.7–1.4"]]
# The time model's parts at the reader's n, d, batch × heads and kernel, on this H200 (its rates are the H200's).
at_h200 = whole_gpu(n, d, bh, kernel, HARDWARE[H200])
here = forward_time(n, d, bh, kernel, at_h200.reads + at_h200.writes, rates)
matmul_ms, exp_ms, other_ms, arithmetic_ms = (figure_text(t * 1e3) for t in (here.matmul_s, here.exp_s,
                                                                              here.other_s, here.arithmetic_s))
dram_bound = int((table["model bound"] == "DRAM").sum())
slow_text = [f"{r['kernel']} at n = {r['n']:,}, d = {r['d']}, B·H = {r['B·H']}: {r['time: model ÷ measured']:.2f}×"
             for _, r in slow.iterrows()]
one_wave = slow[slow["waves"] == 1]
under_text = "" if one_wave.empty else (
    "Where the grid is less than one wave (PyTorch's kernel at n = 16,384 with one head: 128 blocks for 264 "
    "slots), every busy SM runs one block instead of two and the model, which assumes every SM full, says too "
    f"little ({ui.assumes('occupancy')}). ")
slower_lo, slower_hi, t128_lo, t128_hi = triton_128_slower()
t128_text = "" if slow[slow["kernel"] == "Triton 128×128"].empty else (
    f"Triton 128×128 at d = 64 takes {slower_lo - 1:.0%}–{slower_hi - 1:.0%} longer than the other Triton "
    f"tiles on the same work and sits at the edge ({t128_lo:.2f}–{t128_hi:.2f}×); the counts cannot see "
    "why (the operations are the same), and nothing is tuned to hide it. ")
bias = "; ".join(f"{kernel} {ratio:.2f}×" for kernel, ratio in time_bias())
ui.explain(f"""
**Reads: {ok_reads} of {len(table)} configs within 0.8–1.25×.** The model says too little at
{len(low)} configs (down to {low["reads: model ÷ measured"].min() if len(low) else 1:.2f}×), all with a head's
K + V of {low["K+V per head MB"].min() if len(low) else 0:.0f} MB or more: there the blocks of one wave drift
apart along K and V, so L2 loses a tile before the wave's last blocks read it; the model assumes the blocks of
a wave move together. It says too much at {len(high)} (up to
{high["reads: model ÷ measured"].max() if len(high) else 1:.2f}×), next to the crossover: it treats L2 as
all-or-nothing (LRU over a cycle longer than the cache) {ui.assumes('l2')}, while the real L2 still keeps part
of K and V.

**Time: {ok_time} of {len(table)} within 0.7–1.4×** ({ok_before} with the matmuls alone). The time model
counts three kinds of work and divides each by a rate of this H200 measured in the same run as the kernels
(the measured inputs): the two matmuls, 4n²d flops per head, at cuBLAS's {rates.matmul / 1e12:.0f} TFLOP/s
({other_cublas_runs("lesson 11", cache.cublas_fp16_runs())});
one exponential per score (and one per row and tile for the rescale) at {rates.exp / 1e12:.2f} T/s, what a
simple elementwise kernel of exponentials reaches on the special-function units ({cite('fa3', '§3.1')} gives
3.9 TFLOP/s for the H100, the same chip); and the softmax's other work (row max, subtraction, row sum,
rescaling l and O, as the tile counter counts it) at {rates.fp32 / 1e12:.1f} T FP32 instructions/s, measured
the same way. These kernels are built like FlashAttention-2: the warps that run a tile's matmuls also run its
softmax, so the model **adds** the softmax time to the matmul time {ui.assumes('softmax_added')}.
FlashAttention-3 hides most of it on Hopper: two warpgroups take turns, one's softmax running while the other's
matmuls do (ping-pong scheduling, {cite('fa3', '§3.1')}), and inside a warpgroup {intra_group()}
({cite('fa3', '§3.2, Algorithm 2')}); for such a kernel the model would take the larger of
the two. DRAM time ({rates.dram / 1e12:.2f} TB/s copy) overlaps both, and is the larger at
{"none" if dram_bound == 0 else f"{dram_bound}"} of the {len(table)} configs.
At your n, d, batch × heads and kernel on this H200: matmuls {matmul_ms} ms + exponentials {exp_ms} ms + other
softmax work {other_ms} ms = {arithmetic_ms} ms; the exponentials alone are
{here.exp_s / here.matmul_s:.0%} of the matmul time, though they are {1 / (4 * d):.2%} as many operations.
Misses ({len(slow)}): {"; ".join(slow_text) or "none"}. {under_text}{t128_text}
Nothing was fitted: the constants are the GPU's (SMs, L2, shared memory, the four rates) and the kernels'
(tiles, registers). Nor is the model the same for every kernel: one matmul rate serves them all, though PyTorch's
flash kernel multiplies with mma.sync and Triton's with wgmma (lesson 10), and the softmax is added in full. Its time
÷ the measured, at the median over each kernel's configs: {bias}.
""")
_CONFIG = ["kernel", "n", "d", "B·H"]
ui.table(table.round(3), "wg_targets", "Every measured config's reads: PyTorch's flash kernel and the Triton kernel "
         "at three tiles. Bytes in MB (K+V: one head's); H200: measured; ok: model ÷ H200 within 0.8–1.25.",
         show=[*_CONFIG, "K+V per head MB", "waves", "measured reads MB", "model reads MB", "reads: model ÷ measured",
               "reads in 0.8–1.25"],
         headers={"K+V per head MB": "K+V", "measured reads MB": "H200", "model reads MB": "model",
                  "reads: model ÷ measured": "model ÷ H200", "reads in 0.8–1.25": "ok"})
ui.table(table.round(3), "wg_times", "The same configs' times in ms: the model's matmul and softmax times add up "
         "to its time; H200: measured; ok: model ÷ H200 within 0.7–1.4. The matmul-only ratio is in the CSV.",
         show=[*_CONFIG, "measured ms", "matmul ms", "softmax ms", "model ms", "time: model ÷ measured",
               "time in 0.7–1.4"],
         headers={"measured ms": "H200", "matmul ms": "matmul", "softmax ms": "softmax", "model ms": "model",
                  "time: model ÷ measured": "model ÷ H200", "time in 0.7–1.4": "ok"})
