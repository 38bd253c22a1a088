"""Lesson 11: the whole GPU. Waves of thread blocks, the L2 they share, and measured DRAM reads."""
import pandas as pd
import streamlit as st

from explorer import cache, ui
from explorer.gpu_player import gpu_player, gpu_player_html
from explorer.whole_gpu import IMPL, PARAMS, crossover, kernel_named, model_curves, reads_figure
from flashviz import gpu_targets
from flashviz.claims import compare
from flashviz.config import HARDWARE
from flashviz.format import bytes_text
from flashviz.gpu_model import forward_time, whole_gpu


st.title("The whole GPU")
st.markdown("#### Many blocks run at once and share an L2. How many bytes does DRAM really see?")
c = st.columns([1.1, 0.8, 1, 1, 1.25])  # the kernel menu wide enough for "PyTorch flash"
n = ui.bound(PARAMS["wg_n"], c[0])
d = ui.bound(PARAMS["wg_d"], c[1])
bh = ui.bound(PARAMS["wg_bh"], c[2])
gpu = ui.bound(PARAMS["wg_gpu"], c[3])
kname = ui.bound(PARAMS["wg_kernel"], c[4])
ui.own_setting("This lesson has its own n, d, batch × heads, GPU and kernel (fp16): the sidebar's do not apply.")
hw, kernel = HARDWARE[gpu], kernel_named(kname, d)
w = whole_gpu(n, d, bh, kernel, hw)
per_sm = kernel.blocks_per_sm(d, hw)

ui.slide("The numbers")
m = st.columns(4)
m[0].metric("blocks in the grid", f"{w.blocks:,}", help="batch × heads × query blocks (Tr = n / Br)")
m[1].metric("resident at once", f"{hw.sms} × {per_sm}", help="SMs × blocks per SM (shared memory and registers)")
m[2].metric("waves", f"{w.waves:,}")
m[3].metric("DRAM reads ÷ floor", f"{w.over_floor:.2f}×", help="the three-level model over Q + K + V once")

fits = "outgrow" if w.rereads else "fit in"
ui.explain(f"""
The grid has one thread block per (head, query block of {kernel.Br} rows): {w.blocks:,} blocks. The {hw.name}
keeps {per_sm} of them on each of its {hw.sms} SMs (shared memory: {kernel.smem_bytes(d) // 1024} KB per block from
the tiles; registers: {kernel.regs_per_thread} per thread, read off Nsight Compute), so {w.resident:,} run at once
and the grid runs in {w.waves:,} wave{'s' if w.waves > 1 else ''}, a head's query blocks one after another.
The blocks of a wave read the same K and V tiles at about the same time, so one DRAM read serves them all
through L2. Between two waves of a head, L2 must also take the wave's other heads and its Q and O tiles:
{bytes_text(w.in_flight)} in flight, which {fits} the {bytes_text(w.l2_share)} share a wave gets (one of the
L2's two partitions). So each head's K + V comes from DRAM {w.passes / bh:.3g} times on average, and the
reads come to {bytes_text(w.reads)}: the two-level model (one block at a time, no L2) reads
{compare(w.reads, w.two_level)}.
""")
ui.slide("The waves")
gpu_player(gpu_player_html(n, d, bh, kname, gpu))

ui.slide("Measured on the H200")
st.subheader("Measured on the H200")
df, rates, table, plain_df, plain_table = cache.gpu_measured()
impl = IMPL[kname]
pts = df[(df["impl"] == impl) & (df["d"] == d) & (df["batch_heads"] == bh)].sort_values("n")
plain_pts = plain_df[(plain_df["d"] == d) & (plain_df["batch_heads"] == bh)].sort_values("n")
cross = crossover(d, bh, kname, hw)
title = f"{kname}, d = {d}, batch × heads = {bh}, {gpu}"
on_h200 = gpu == "H200 SXM"
ui.chart(cache.figure(reads_figure, model_curves(d, bh, kname, gpu), pts if on_h200 else pts.iloc[0:0], cross, title,
                      plain_pts if on_h200 else plain_pts.iloc[0:0]), "wg_reads")
have = sorted(int(x) for x in df[(df["impl"] == impl) & (df["d"] == d)]["batch_heads"].unique())
if gpu != "H200 SXM":
    st.caption(f"The measurements are the H200's; for the {gpu} the chart shows the models only.")
elif pts.empty:
    st.caption(f"No measurements at batch × heads = {bh} for d = {d}: measured at {', '.join(map(str, have))}.")
ui.explain("""
Nsight Compute flushes the caches before each replay, so its reads are cold, as the model's are. Writes still
sitting in L2 when the kernel ends are never counted as DRAM writes, so this page compares reads only and
lists writes beside them.
""")

ui.slide("Why FlashAttention-2 splits the sequence")
st.subheader("Why FlashAttention-2 splits the sequence over blocks")
small = whole_gpu(n, d, min(bh, 8), kernel, hw)
if ui.presenting():  # the paragraph below is hidden: its figures, in one line
    st.markdown(f"At batch × heads = {min(bh, 8)}, FlashAttention-1's one block per head keeps **{min(bh, 8)} of "
                f"{hw.sms} SMs** busy. FlashAttention-2's query blocks of {kernel.Br} rows make **{small.blocks:,} "
                f"blocks**, filling {min(small.blocks, small.resident):,} of the {hw.sms * per_sm:,} slots at once.")
ui.explain(f"""
FlashAttention-1 gave each (batch, head) one thread block. With batch × heads = {min(bh, 8)} that is
{min(bh, 8)} busy SM{'s' if min(bh, 8) > 1 else ''} out of {hw.sms}. FlashAttention-2 also splits each head's
queries into blocks of {kernel.Br} rows, so the same work makes {small.blocks:,} blocks and fills
{min(small.blocks, small.resident):,} of the {hw.sms * per_sm:,} slots at once. The price is the one this page
measures: each wave reads its head's K and V again once they no longer fit in L2.
""")

st.subheader("Plain attention, for scale")
pr, p4 = plain_table["reads: model ÷ measured"], plain_table["reads: four-kernel ÷ measured"]
same_line = "" if kernel.Br != d else (
    f" Here the grey band lies under the two-level model: with Br = d = {d}, the Tr = n / {d} passes over K + V"
    " read 2n² elements per head, as many as plain attention's passes over S and P.")
flash_reads = df[df["impl"] == "flash"].set_index(["n", "d", "batch_heads"])["dram_read_bytes"]
vs_flash = plain_df.set_index(["n", "d", "batch_heads"])["dram_read_bytes"] / flash_reads.reindex(
    plain_df.set_index(["n", "d", "batch_heads"]).index)
ui.explain(f"""
The grey line and squares are plain attention (matmul, scale, softmax, matmul), measured at the
{len(plain_table)} configs where the scores S fit in 8 GB, each call profiled in its own Nsight Compute run
so that all its kernels are summed. Its model is the two-level one's: 4n² + 4nd elements moved per head, of
which 2n² + 3nd are reads (Q and K, S, P and V). It reads **{pr.min():.2f}–{pr.max():.2f}×** of what the H200
measures, because PyTorch runs the scale as a kernel of its own: one more pass that reads S and writes it
back. Counting that fourth kernel (3n² + 3nd read per head) gives {p4.min():.2f}–{p4.max():.2f}×. The low
end is n = 65,536, where S has more than 2³¹ elements: PyTorch splits the scale into four kernels and the
call reads about one more n² than the count; which kernel reads it was not recorded (the CSV keeps each
call's sum). The L2 does not help plain attention: one head's S is 32 MB at n = 4,096 and 8 GB at 65,536.
At the same configs, PyTorch's flash kernel reads {vs_flash.min():.0f}–{vs_flash.max():.0f}× less.{same_line}
""")
ui.table(plain_table.round(3), "wg_plain", "Plain attention: the H200's measured DRAM reads against both counts, "
         "in MB (S: one head's scores); the model moves 4n² + 4nd elements per head, the four-kernel count one "
         "more pass over S. Writes and times are in the CSV.",
         show=["n", "d", "B·H", "S per head MB", "kernels", "measured reads MB", "model reads MB (4n²+4nd moved)",
               "reads: model ÷ measured", "four-kernel count MB", "reads: four-kernel ÷ measured"],
         headers={"S per head MB": "S", "measured reads MB": "H200", "model reads MB (4n²+4nd moved)": "model",
                  "reads: model ÷ measured": "model ÷ H200", "four-kernel count MB": "4-kernel",
                  "reads: four-kernel ÷ measured": "4-kernel ÷ H200"},
         formats={c: ".0f" for c in ("S per head MB", "measured reads MB", "model reads MB (4n²+4nd moved)",
                                     "four-kernel count MB")})

ui.slide("The targets")
st.subheader("The targets: model ÷ measured, every config")
ok_reads, ok_time = int(table["reads in 0.8–1.25"].sum()), int(table["time in 0.7–1.4"].sum())
ok_before = int(table["matmul-only ÷ measured"].between(*gpu_targets.TIME_OK).sum())
misses = table[~table["reads in 0.8–1.25"]]
low, high = misses[misses["reads: model ÷ measured"] < 0.8], misses[misses["reads: model ÷ measured"] > 1.25]
slow = table[~table["time in 0.7–1.4"]]
here = forward_time(n, d, bh, kernel, w.reads + w.writes, rates)
slow_text = [f"{r['kernel']} at n = {r['n']:,}, d = {r['d']}, B·H = {r['B·H']}: {r['time: model ÷ measured']:.2f}×"
             for _, r in slow.iterrows()]
one_wave = slow[slow["waves"] == 1]
under_text = "" if one_wave.empty else (
    "Where the grid is less than one wave (PyTorch's kernel at n = 16,384 with one head: 128 blocks for 264 "
    "slots), every busy SM runs one block instead of two and the model, which assumes every SM full, says too "
    "little. ")
t = table[table["d"] == 64].pivot_table(index=["n", "B·H"], columns="kernel", values="measured ms")
t128 = table[(table["kernel"] == "Triton 128×128") & (table["d"] == 64)]["time: model ÷ measured"]
slower = pd.concat([t["Triton 128×128"] / t["Triton 128×64"], t["Triton 128×128"] / t["Triton 64×64"]])
t128_text = "" if slow[slow["kernel"] == "Triton 128×128"].empty else (
    f"Triton 128×128 at d = 64 takes {slower.min() - 1:.0%}–{slower.max() - 1:.0%} longer than the other Triton "
    f"tiles on the same work and sits at the edge ({t128.min():.2f}–{t128.max():.2f}×); the counts cannot see "
    "why (the operations are the same), and nothing is tuned to hide it. ")
ui.explain(f"""
**Reads: {ok_reads} of {len(table)} configs within 0.8–1.25×.** The model says too little at
{len(low)} configs (down to {low["reads: model ÷ measured"].min() if len(low) else 1:.2f}×), all with a head's
K + V of {low["K+V per head MB"].min() if len(low) else 0:.0f} MB or more: there the blocks of one wave drift
apart along K and V, so L2 loses a tile before the wave's last blocks read it; the model assumes the blocks of
a wave move together. It says too much at {len(high)} (up to
{high["reads: model ÷ measured"].max() if len(high) else 1:.2f}×), next to the crossover: it treats L2 as
all-or-nothing (LRU over a cycle longer than the cache), while the real L2 still keeps part of K and V.

**Time: {ok_time} of {len(table)} within 0.7–1.4×** ({ok_before} with the matmuls alone). The time model
counts three kinds of work and divides each by a rate of this H200 measured in the same run as the kernels
(the measured inputs): the two matmuls, 4n²d flops per head, at cuBLAS's {rates.matmul / 1e12:.0f} TFLOP/s;
one exponential per score (and one per row and tile for the rescale) at {rates.exp / 1e12:.2f} T/s, what a
simple elementwise kernel of exponentials reaches on the special-function units (FlashAttention-3's paper
gives 3.9 TFLOP/s for the H100, the same chip); and the softmax's other work (row max, subtraction, row sum,
rescaling l and O, as the tile counter counts it) at {rates.fp32 / 1e12:.1f} T FP32 instructions/s, measured
the same way. These kernels are built like FlashAttention-2: the warps that run a tile's matmuls also run its
softmax, so the softmax time is **added** to the matmul time, not hidden under it. FlashAttention-3 overlaps
them on Hopper (one warp group's softmax while another's matmul runs), and for it the model would take the
larger of the two. DRAM time ({rates.dram / 1e12:.2f} TB/s copy) overlaps both and is never the larger here.
At your settings: matmuls {here.matmul_s * 1e3:.3g} ms + exponentials {here.exp_s * 1e3:.3g} ms + other
softmax work {here.other_s * 1e3:.3g} ms = {here.arithmetic_s * 1e3:.3g} ms; the exponentials alone are
{here.exp_s / here.matmul_s:.0%} of the matmul time, though they are {1 / (4 * d):.2%} as many operations.
Misses ({len(slow)}): {"; ".join(slow_text) or "none"}. {under_text}{t128_text}
Nothing was fitted: the constants are the GPU's (SMs, L2, shared memory, the four rates) and the kernels'
(tiles, registers).
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
