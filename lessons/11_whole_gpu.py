"""Lesson 11: the whole GPU. Waves of thread blocks, the L2 they share, and measured DRAM reads."""
import streamlit as st

from explorer import ui
from explorer.gpu_player import gpu_player, gpu_player_html
from explorer.whole_gpu import IMPL, PARAMS, crossover, kernel_named, model_curves, reads_figure
from flashviz import gpu_targets
from flashviz.claims import compare
from flashviz.config import HARDWARE
from flashviz.format import bytes_text
from flashviz.gpu_model import whole_gpu


@st.cache_data(max_entries=2, show_spinner=False)
def _measured():
    df, rates = gpu_targets.load()
    return df, rates, gpu_targets.targets(df, rates)


st.title("The whole GPU")
st.markdown("#### Many blocks run at once and share an L2. How many bytes does DRAM really see?")
c = st.columns(5)
n = ui.bound(PARAMS["wg_n"], c[0])
d = ui.bound(PARAMS["wg_d"], c[1])
bh = ui.bound(PARAMS["wg_bh"], c[2])
gpu = ui.bound(PARAMS["wg_gpu"], c[3])
kname = ui.bound(PARAMS["wg_kernel"], c[4])
ui.own_setting("This lesson has its own n, d, batch × heads, GPU and kernel (fp16): the sidebar's do not apply.")
hw, kernel = HARDWARE[gpu], kernel_named(kname, d)
w = whole_gpu(n, d, bh, kernel, hw)
per_sm = kernel.blocks_per_sm(d, hw)

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
gpu_player(gpu_player_html(n, d, bh, kname, gpu))

st.subheader("Measured on the H200")
df, rates, table = _measured()
impl = IMPL[kname]
pts = df[(df["impl"] == impl) & (df["d"] == d) & (df["batch_heads"] == bh)].sort_values("n")
cross = crossover(d, bh, kname, hw)
title = f"{kname}, d = {d}, batch × heads = {bh}, {gpu}"
ui.chart(reads_figure(model_curves(d, bh, kname, gpu), pts if gpu == "H200 SXM" else pts.iloc[0:0], cross, title),
         "wg_reads")
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

st.subheader("Why FlashAttention-2 splits the sequence over blocks")
small = whole_gpu(n, d, min(bh, 8), kernel, hw)
ui.explain(f"""
FlashAttention-1 gave each (batch, head) one thread block. With batch × heads = {min(bh, 8)} that is
{min(bh, 8)} busy SM{'s' if min(bh, 8) > 1 else ''} out of {hw.sms}. FlashAttention-2 also splits each head's
queries into blocks of {kernel.Br} rows, so the same work makes {small.blocks:,} blocks and fills
{min(small.blocks, small.resident):,} of the {hw.sms * per_sm:,} slots at once. The price is the one this page
measures: each wave reads its head's K and V again once they no longer fit in L2.
""")

st.subheader("The targets: model ÷ measured, every config")
ok_reads, ok_time = int(table["reads in 0.8–1.25"].sum()), int(table["time in 0.7–1.4"].sum())
misses = table[~table["reads in 0.8–1.25"]]
low, high = misses[misses["reads: model ÷ measured"] < 0.8], misses[misses["reads: model ÷ measured"] > 1.25]
ui.explain(f"""
**Reads: {ok_reads} of {len(table)} configs within 0.8–1.25×.** The model says too little at
{len(low)} configs (down to {low["reads: model ÷ measured"].min() if len(low) else 1:.2f}×), all with a head's
K + V of {low["K+V per head MB"].min() if len(low) else 0:.0f} MB or more: there the blocks of one wave drift
apart along K and V, so L2 loses a tile before the wave's last blocks read it; the model assumes the blocks of
a wave move together. It says too much at {len(high)} (up to
{high["reads: model ÷ measured"].max() if len(high) else 1:.2f}×), next to the crossover: it treats L2 as
all-or-nothing (LRU over a cycle longer than the cache), while the real L2 still keeps part of K and V.
**Time: {ok_time} of {len(table)} within 0.7–1.4×.** The roofline takes this H200's own ceilings,
{rates["bytes_per_s"] / 1e12:.2f} TB/s copy and {rates["flops_per_s"] / 1e12:.0f} TFLOP/s dense fp16 matmul
(both measured inputs); every config is compute-bound by it, and the kernels reach
{1 / table["time: model ÷ measured"].max():.1f}–{1 / table["time: model ÷ measured"].min():.1f}× of its time:
the softmax's exp units and these kernels' Ampere-style matmuls (no wgmma) keep them at about half the ceiling.
Nothing was fitted: the constants are the GPU's (SMs, L2, shared memory) and the kernels' (tiles, registers).
""")
ui.table(table.round(3), "wg_targets",
         "Every measured config: PyTorch's flash kernel and the Triton kernel at three tiles")
