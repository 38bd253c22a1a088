"""Lesson 12: decoding reads the whole K/V cache for one query row per head."""
import numpy as np
import pandas as pd
import streamlit as st

from explorer import cache, charts, predict, ui
from explorer.lessons import control
from flashviz.run import decode
from flashviz.teach.claims import cache_fit, compare, regime
from flashviz.model.config import CUSTOM, HARDWARE
from flashviz.teach.format import bytes_text, times_text
from flashviz.hardware.gpu_arch import arch_of
from flashviz.model.sources import cite, figure_source

st.title("Inference: one query, the whole cache")


# Beside the layers: why the cache's chart does not follow them live (128 values, the chart built at each).
LAYERS_ON_RELEASE = "The cache's chart redraws when you let go: 128 values are too many to carry for a drag."


def inference_controls():
    """The model and batch being decoded (this lesson's own settings, in the URL)."""
    cols = st.columns(5)
    for col, key in zip(cols, ("inf_ctx", "inf_batch", "inf_heads", "inf_kv", "inf_layers")):
        ui.bound(control(key), col, note_where=st, help=LAYERS_ON_RELEASE if key == "inf_layers" else None)
    cfg = predict.inference_config()
    if st.session_state.get("inf_kv", 0) > cfg.heads:
        cols[3].caption(f"above the query heads: MHA uses {cfg.heads}")
    return cfg


cfg = inference_controls()
# The charts follow the model's sliders live, and the sidebar's d and query tile, which the model takes (the key
# tile moves none of them: a step reads all of K and V, 2·n·d, whatever its blocks).
MODEL = ("inf_ctx", "inf_batch", "inf_heads", "inf_kv", "d", "Br")
layers = st.session_state["inf_layers"]
hw = ui.hardware()
gpus = {**HARDWARE, hw.name: hw} if ui.value("hw") == CUSTOM else HARDWARE
name = decode.sharing_name(cfg.heads, cfg.kv_heads)
ui.own_setting(f"d = {cfg.d} and the tiles come from the sidebar; the cache is stored in {cfg.dtype}"
               + (f" (the sidebar's {ui.value('dtype')} is for the training lessons)"
                  if ui.value("dtype") != cfg.dtype else "") + ".")

step = decode.decode_cost(cfg)
need, feed = step.bytes_per_flop, hw.balance(cfg.dtype)
model_cache = decode.cache_bytes(cfg.n_kv, cfg.batch, cfg.kv_heads, cfg.d, layers, cfg.element_bytes)
per_sequence, per_step = decode.step_reads(cfg, layers)
fit = cache_fit(model_cache, hw.hbm_gb)
hbm_source = f" ({figure_source(hw.name, 'hbm_gb')})" if ui.value("hw") != CUSTOM else " (as typed in)"
batch_text = (f"; one decoding step of the batch of {cfg.batch} reads {cfg.batch} such caches, "
              f"{bytes_text(per_step)}," if cfg.batch > 1 else "")
ui.slide("The numbers")
st.markdown(f"#### Each new token's query reads its own sequence's cache once, {bytes_text(per_sequence)} over "
            f"{layers} layers{batch_text} and does {1 / need:.3g} flop{'' if f'{1 / need:.3g}' == '1' else 's'} "
            f"per byte with it: on the {hw.name}, decoding is {regime(need, feed)}-bound.")
if fit == "does not fit":
    st.error(f"**This cache does not fit on one {hw.name}**: {bytes_text(model_cache)} for batch {cfg.batch} at "
             f"n = {cfg.n_kv:,} against its {hw.hbm_gb} GB of HBM{hbm_source}, {bytes_text(hw.hbm_gb * 1e9)} in "
             "this page's binary units. The figures below count bytes one such GPU could not hold; the section "
             "on the GPU's memory says how long a context fits.", icon=ui.NO_ICON)
cols = st.columns(4)
cols[0].metric("K/V cache, whole model", bytes_text(model_cache),
               help=f"K and V, {layers} layers, batch {cfg.batch}, {cfg.kv_heads} K/V heads, n = {cfg.n_kv:,}; "
               f"it {fit} in the {hw.name}'s {hw.hbm_gb} GB")
cols[1].metric("read per step, whole batch" if cfg.batch > 1 else "read per token, all layers", bytes_text(per_step),
               help=f"one decoding step, {layers} layers, batch {cfg.batch}: {bytes_text(per_sequence)} per "
               "sequence's new token")
cols[2].metric("decode needs, bytes/flop", f"{need:.3g}")
cols[3].metric("GPU feeds, bytes/flop", f"{feed:.3g}", help=f"{hw.name}: HBM bandwidth over its {cfg.dtype} "
               "matmul rate")

# --- decode against prefill -------------------------------------------------------------
ui.slide("Decode against prefill")
st.subheader("Decode against prefill")
points = cache.decode_roofline_points(cfg, hw)
dec, pre = points.iloc[0], points.iloc[1]
ui.explain(f"""
Prefill runs all n = {cfg.n_kv:,} prompt tokens at once: each K/V block that reaches SRAM meets a block of
{cfg.Br} query rows, as in training. Decoding has one new row per query head: {
    f"the {cfg.group} query rows of the heads that share a K/V head are all the reuse a cached byte gets"
    if cfg.group > 1 else "with a K/V head for each query head, no other row reuses a cached byte"}. Same cache,
same kernel: prefill does **{pre['flops per byte']:.3g}** flops per byte, decode
**{dec['flops per byte']:.3g}**. Prefill is counted here without its causal mask, which in a real prompt
halves both its flops and its reads of K and V ({ui.assumes("prefill_full")}).
""")
table = cache.decode_bounds(cfg, gpus)
left, right = st.columns([4, 3])  # the table wide enough for its four columns at 1280 px
with left:
    def roofline_figure():
        """Decode and prefill on every GPU's roof. On the H200's, where PyTorch's flash forward (prefill's kernel)
        was measured to sit: no rows at a d it was not measured at, so the chart keeps its traces along d."""
        at = predict.inference_config()
        ran = None
        if hw.name == "H200 SXM":
            rows = cache.h200_flash(at.d if at.d in (64, 128) else 64)[0]
            ran = rows if at.d in (64, 128) else rows.iloc[:0]
        return cache.figure(charts.roofline, cache.decode_roofline_points(at, hw), gpus, at.dtype, hw.name, ran)
    ui.chart(roofline_figure, "inference_roofline", MODEL)
with right:
    ui.table(table, "decode_prefill_by_gpu", f"{cfg.dtype}, n = {cfg.n_kv:,}, {name}: where each GPU's roof "
             "puts the two by the two-level count (HBM and SRAM, no L2: every re-read of the prefill's K and V comes "
             "from HBM; measured on the H200, FlashAttention's forward is compute-bound, lesson 10); balance in bytes "
             "per flop",
             headers={"balance, bytes/flop": "balance", "decode bound": "decode", "prefill bound": "prefill"})
st.markdown(f"On the {hw.name}: decode is **{dec['bound']}-bound** at {dec['attainable TFLOP/s']:.3g} TFLOP/s, "
            f"prefill **{pre['bound']}-bound** at {pre['attainable TFLOP/s']:.3g} TFLOP/s, by the two-level count, "
            f"HBM and SRAM with no L2 between ({ui.assumes('two_level')}; {ui.assumes('roofline')})."
            + (f" That count reads K and V from HBM once per block of {cfg.Br} query rows and leaves the L2 out; "
               "a real kernel finds most of those re-reads in L2, and measured on the H200 FlashAttention's forward "
               "is compute-bound (lesson 10)." if pre["bound"] == "memory" else ""))

# --- the cache against the GPU's memory ---------------------------------------------------
ui.slide("The cache against the GPU's memory")
st.subheader("The cache against the GPU's memory")
ns = tuple(2**k for k in range(10, 21))
longest = decode.longest_context(hw, cfg.batch, cfg.kv_heads, cfg.d, layers, cfg.element_bytes)
st.markdown(f"At batch {cfg.batch} with {name} the cache takes **{bytes_text(model_cache)}** "
            f"({model_cache / 1e9:,.1f} GB in the sheet's decimal units) of the {hw.name}'s {hw.hbm_gb} GB: it "
            + (fit if fit == "fits" else f"**{fit}**")
            + f". The longest context that fits is about **{longest:,} tokens** per sequence, before any "
            "weights. It grows with n, with the batch and with the K/V heads, each in proportion.")
ui.chart(lambda: cache.figure(charts.cache_over_n, cache.decode_cache_over_n(ns, predict.inference_config(),
                                                                            ui.peek(control("inf_layers"))),
                              hw.hbm_gb, hw.name), "inference_cache", MODEL)

# --- MHA, GQA, MQA ------------------------------------------------------------------------
ui.slide("MHA, GQA, MQA")
st.subheader("MHA → GQA → MQA")
sharing = cache.decode_sharing_table(cfg, hw, layers)


def _than_mha(row) -> str:
    said = compare(sharing.iloc[0]["read per step MB"], row["read per step MB"])
    return f"{said} per token {'as' if said.startswith('the same') else 'than'} MHA"



mha, here, mqa = sharing.iloc[0], sharing[sharing["K/V heads"] == cfg.kv_heads].iloc[0], sharing.iloc[-1]
if cfg.kv_heads == cfg.heads:  # MHA itself: only the other end says something
    grouping = (f"This is MHA, a K/V head for each of the {cfg.heads} query head{'s' if cfg.heads > 1 else ''}; "
                f"MQA reads {_than_mha(mqa)}.")
elif cfg.kv_heads == 1:  # MQA itself
    grouping = f"With one K/V head for all {cfg.heads} query heads, MQA reads {_than_mha(mqa)}."
else:
    grouping = (f"Grouping the {cfg.heads} query heads onto {cfg.kv_heads} K/V heads reads {_than_mha(here)}; "
                f"MQA reads {_than_mha(mqa)}.")
st.markdown(f"{grouping} The flops stay the same: every query head still meets every cached key.")
ui.explain(f"""
Fewer K/V heads is a choice made for the model, not the kernel: multi-query attention ({cite("mqa")}) and
grouped-query attention ({cite("gqa")}) train with them, or uptrain an existing multi-head model with a few
percent of its pre-training compute. Fewer K/V heads means fewer numbers to cache and to read, at some cost in
quality that the GQA paper finds small. The key/value heads slider above walks from MHA (one K/V
head per query head) through GQA to MQA (one for all).
""")
ui.table(sharing, "kv_sharing", f"One decoding step, {layers} layers, batch {cfg.batch}, n = {cfg.n_kv:,}; the "
         "roofline time assumes every SM busy")

# --- split-KV -----------------------------------------------------------------------------
ui.slide("Split-KV")
st.subheader("Split-KV: when one query is too little work")
sweep = cache.decode_split_sweep(cfg, hw)
best = decode.best_splits(sweep)
one, chosen = sweep.iloc[0], sweep[sweep["splits"] == best].iloc[0]
blocks, unit = cfg.thread_blocks, arch_of(hw).unit  # "SM", "CU"
ui.explain(f"""
This model gives each (sequence, K/V head) pair one thread block, its query heads stacked as the rows of one
tile, as FlashAttention-2's decoding path does when it packs a group's heads ({ui.assumes("decode_blocks")}): here
{cfg.batch} × {cfg.kv_heads} = **{blocks}** block{'s' if blocks > 1 else ''} for the {hw.name}'s **{hw.sms}** {unit}s.
Flash-Decoding ({cite("flashdecoding")}) cuts the cache into chunks, one block per chunk; each writes a partial
result, and a separate reduction kernel merges them. This model gives a kernel that fills k of S {unit}s k/S of
the HBM bandwidth ({ui.assumes("bandwidth_share")}); on a real GPU a fraction of the {unit}s can already keep HBM
busy, so the model overstates what splitting gains.
""")
if best > 1:
    st.markdown(f"Unsplit, the work fills {one['SMs busy %']:.0f}% of the {unit}s. Split into **{best}** chunks it "
                f"fills {chosen['SMs busy %']:.0f}% and the modelled step is "
                f"{times_text(one['time us (model)'] / chosen['time us (model)'])} shorter, "
                f"for {chosen['extra %']:.2f}% more bytes (the partials and the query read again).")
else:
    st.markdown(f"{blocks} blocks already fill the {hw.sms} {unit}s: splitting would only add bytes "
                "(the partials and the query read again), so the best is not to split.")
left, right = st.columns(2)
with left:
    def splits_figure():
        split = cache.decode_split_sweep(predict.inference_config(), hw)
        return cache.figure(charts.split_times, split, decode.best_splits(split))
    ui.chart(splits_figure, "inference_splits", MODEL)
with right:
    ui.table(sweep, "split_kv", "Split-KV for this batch and model, one layer; time in µs, by the model. "
             "Chunk sizes, blocks and extra KB are in the CSV.",
             show=["splits", "SMs busy %", "extra %", "time us (model)"],
             headers={"time us (model)": "time µs", "SMs busy %": f"{unit}s busy %"})

# --- the merge, step by step --------------------------------------------------------------


@ui.section
def _merge() -> None:
    """The worked merge and its number of chunks: it reruns this part alone."""
    ui.slide("The merge, step by step", steps=tuple({"inf_split": k} for k in (2, 4, 8)))
    st.subheader("The merge, step by step")
    chunks = ui.bound(control("inf_split"), st.columns(3)[0])
    steps, (m, l, O), unsplit = cache.decode_merge_walkthrough(n_kv=16, d=4, splits=chunks)
    size = decode.DecodeConfig(n_kv=16, splits=chunks).chunk  # keys a chunk, rounded up
    cut = (f"cut into {len(steps)} chunks" if len(steps) == chunks else
           f"asked for {chunks} chunks: chunks of ⌈16/{chunks}⌉ = {size} keys cut it into {len(steps)}")
    st.markdown(f"One query row against 16 cached keys (d = 4, random values), {cut}. Each "
                "chunk returns its own max m_i, sum l_i and unnormalised output O_i; the merge puts them on one "
                f"baseline, m = max m_i = **{m:.6f}**, scaling each by e^(m_i − m):")
    # on a projector the conclusion stands above the table: under 8 chunks' rows it fell below the screen, and the
    # next press opened lesson 13 (a teacher's walk)
    above = st.container() if ui.presenting() else None
    ui.table(pd.DataFrame([{k: v for k, v in s.items() if k != "O_i"} | {f"O_i[{j}]": s["O_i"][j] for j in range(4)}
                           for s in steps]), "merge_steps")
    err = float(np.abs(O - unsplit).max())
    (above or st).markdown(f"l = Σ e^(m_i − m) l_i = **{l:.6f}**; O = Σ e^(m_i − m) O_i / l = "
                           f"[{', '.join(f'{x:.6f}' for x in O)}]. Unsplit attention gives "
                           f"[{', '.join(f'{x:.6f}' for x in unsplit)}]: the largest difference is **{err:.1e}**, "
                           "float noise.")
    lse, O_lse = decode.merge_lse([(np.float64(s["lse_i"]), s["O_i"] / s["l_i"]) for s in steps])
    st.markdown(f"Flash-Decoding as published writes the same numbers in another form: each chunk's normalised "
                f"output O_i / l_i and one log-sum-exp, lse_i = m_i + log l_i (the lse_i column). Its reduction "
                f"takes lse = log Σ e^(lse_i) = **{float(lse):.6f}** (= m + log l) and O = Σ e^(lse_i − lse) "
                f"O_i / l_i, which differs from the merge above by at most {float(np.abs(O_lse - O).max()):.1e}.")


_merge()

arch = arch_of(hw)
cache_said = (f"the {hw.name}'s {arch.cache_bytes(hw) // 2**20} MB {arch.cache}" if arch.cache_mb is not None
              else f"a {hw.l2_mb} MB L2")
ui.explain(f"""
**What this model leaves out.** The merge's launch: FlashAttention's split-KV path runs the merge as a
separate combine kernel; this model counts the partials written and read back and times the merge as a
second kernel, with no launch cost, and takes the partials from HBM where a real combine kernel may find
them in L2 ({ui.assumes("split_merge")}). The cache in front of HBM: {cache_said} can hold a short K/V cache
outright. This counts HBM bytes and a roofline, as the other lessons do ({ui.assumes("roofline")}). The
model's weights are read at every step too; they are not counted here.
""")
