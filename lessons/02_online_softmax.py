"""Lesson 2: online softmax, the running max m and running sum l."""
import numpy as np
import pandas as pd
import streamlit as st

from explorer import cache, charts, predict, ui
from explorer.lessons import control
from flashviz.model.sources import cite
from flashviz.run.attention import EXP_LIMIT, online_softmax, random_row, softmax
from flashviz.run.rescale import lagging_row, overflow_tau
from flashviz.teach import questions

st.title("Online softmax")
st.markdown("#### Stream a row in blocks, carry two numbers: the largest score so far, m, and a running sum, l.")

ui.slide("The row and the rule")
c1, c2, c3, c4 = st.columns(4)
length = ui.bound(control("os_len"), c1)
block = ui.bound(control("os_block"), c2)
spread = ui.bound(control("os_spread"), c3)
seed = ui.bound(control("os_seed"), c4, help="A new random row: the charts redraw when you let go (100 rows are too "
                                             "many to carry for a drag).")

st.latex(r"m_{\text{new}} = \max(m_{\text{old}}, \max_j s_j) \qquad "
         r"l_{\text{new}} = \underbrace{e^{\,m_{\text{old}} - m_{\text{new}}}}_{\text{the rescale}}\, l_{\text{old}}"
         r" + \sum_j e^{\,s_j - m_{\text{new}}}")


def streamed():
    """The row at the lesson's controls: its softmax, online and without the rescale, and the
    running (m, l) after each block, rescaled and not."""
    row = random_row(ui.peek(control("os_len")), ui.peek(control("os_seed")), ui.peek(control("os_spread")))
    by = ui.peek(control("os_block"))
    steps: list[tuple[float, float]] = []  # (m, l) after each block
    broken_steps: list[tuple[float, float]] = []
    online = online_softmax(row, by, steps=steps)
    broken = online_softmax(row, by, rescale=False, steps=broken_steps)
    weights = pd.DataFrame({"score": row, "softmax": softmax(row), "online": online, "no rescale": broken})
    return weights, steps, broken_steps


ROW = ("os_len", "os_block", "os_spread")  # its charts follow these live; a new random row (os_seed) redraws on release
weights, steps, broken_steps = streamed()
row, exact, online, broken = (weights[k].to_numpy() for k in ("score", "softmax", "online", "no rescale"))

# On a projector the clicker shows the row twice: at the default spread, then a wide one, where the
# max moves far more often and dropping the rescale costs far more.
spread_p = control("os_spread")
ui.slide("The row, streamed", steps=({"os_spread": spread_p.default}, {"os_spread": spread_p.hi}),
         on_step=predict.keep_revealed("lessons/02_online_softmax.py"))
if ui.presenting():  # the sliders above are off the screen: say what this step set
    st.caption(f"A row of {length} scores, spread (std) {spread:g}, streamed in blocks of {block}.")
m1, m2, m3 = st.columns(3)
m1.metric("online: max |diff|", f"{np.abs(online - exact).max():.2e}",
          help="Both computed in float64: this is the float64 rounding of a different order of additions.")
m2.metric("no rescale: max |diff|", f"{np.abs(broken - exact).max():.2e}")
off = broken.sum() - 1  # no arrow where it rounds to nothing: a red "-0.000000" reads as an error (a reader's walk)
m3.metric("no rescale: sum", f"{broken.sum():.6f}", delta=f"{off:.6f}" if abs(off) >= 5e-7 else None)
ui.explain("""
When a later block holds a bigger score, everything summed so far was measured against the old
maximum. Multiplying by e^(m_old − m_new) moves it to the new baseline: it is the identity
e^(a−c) = e^(a−b)·e^(b−c), nothing more. Delete that factor and no error is raised: the sum simply
adds numbers on different baselines, like adding prices in three currencies. (The trick is Milakov and
Gimelshein's, 2018; FlashAttention carries O through it as well.)
""")

ui.side_by_side((lambda: cache.figure(charts.weights_bars, streamed()[0]), "weights", ROW),
                (lambda: cache.figure(charts.running_stats, streamed()[1]), "running_stats", ROW), widths=[3, 2])
blocks = pd.DataFrame({"block": range(1, len(steps) + 1), "m": [m for m, _ in steps],
                       "l (rescaled)": [l for _, l in steps], "l (no rescale)": [l for _, l in broken_steps]})
ui.slide("The running statistics")
ui.table(blocks, "online_softmax_blocks", "Running statistics after each block")
ui.slide("The weights, three ways")
# on a projector, the rows whose weights are seen: the first ones of a row are near zero; their position last, so a
# phone's screen keeps the bug's column
ui.table(weights.assign(position=np.arange(len(weights))), "online_softmax_weights", "Weights, three ways",
         largest="softmax")

ui.slide("Without the max: overflow")
st.subheader("Without the max: overflow")
offset = ui.bound(control("os_offset"))
scores = np.array([0.0, 1.5, -0.8, 2.3]) + offset
safe = online_softmax(scores, 2)
with np.errstate(over="ignore"):
    unsafe = online_softmax(scores, 2, subtract_max=False)
with np.errstate(over="ignore"):
    overflows = bool(np.isinf(np.exp(scores.max())))
over = [t for t in ("float64", "float32", "bfloat16", "float16") if scores.max() > EXP_LIMIT[t]]
st.markdown(f"exp({scores.max():g}) {'overflows' if overflows else 'still fits in'} float64, the type this "
            f"demo computes in, whose largest value is about 1.8·10³⁰⁸ = e^{EXP_LIMIT['float64']:.1f}. "
            + ("Of the types a GPU kernel computes or stores in, it overflows "
               + ", ".join(over[over[0] == "float64":])
               + "." if over else "It fits every type a GPU kernel uses as well.")
            + f" A real kernel takes 16-bit inputs and keeps its softmax in float32 registers, where exp "
            f"overflows past {EXP_LIMIT['float32']:.1f}; an exponential stored in float16 overflows past "
            f"e^{EXP_LIMIT['float16']:.2f} (65,504), in bfloat16 past e^{EXP_LIMIT['bfloat16']:.1f} "
            f"({ui.assumes('fp64')}).")
# As text: a table widget shows NaN as an empty "None", which hides the point of the demo.
with np.errstate(over="ignore"):
    raw = np.exp(scores)


def shown_value(w: float) -> str:
    return f"{w:.6g}" if np.isfinite(w) else str(w)


ui.table(pd.DataFrame({"score": scores, "exp(score)": [shown_value(w) for w in raw],
                       "weight, with the max": [shown_value(w) for w in safe],
                       "weight, without the max": [shown_value(w) for w in unsafe]}),
         "overflow", "Subtracting the running max keeps every exponent at or below zero")

# ---- FlashAttention-4: the lagging max ------------------------------------------------------------
ui.slide("Rescale only when it must")
st.subheader("Rescale only when it must: FlashAttention-4's lagging max")
tau = ui.bound(control("os_tau"), st.columns(2)[0],
               help="0: a rescale at every new max, the rescales that change anything (FlashAttention-2 multiplies "
                    "at every block after the first, by 1 where the max stayed)")
ui.explain(f"""
FlashAttention-4 keeps the max it already uses until a block's max is more than τ above it, τ in log2
units (the kernel computes 2^x, not e^x); its Blackwell forward uses τ = 8 for 16-bit inputs
({cite("fa4_fwd", "rescale_threshold")}; the test is in {cite("fa4_softmax", "SoftmaxSm100.update_row_max")}).
It stays exact: every term of l and of O is taken against the same max, the one in use, and the final O / l
cancels it, whichever it was ({cite("fa4", "conditional softmax rescaling")}).
""")
lag_weights, lag_steps = lagging_row(row, block, tau)
k0 = sum(1 for a, b in zip(steps, steps[1:]) if b[0] > a[0])
done_row, skipped_row = sum(s.rescaled for s in lag_steps), sum(s.skipped for s in lag_steps)
st.markdown(f"In the row above, FlashAttention-2 multiplies l and O by e^(m_old − m_new) at each of the "
            f"{len(steps) - 1} blocks after the first, with no test ({cite('fa_code', 'softmax_rescale_o')}); the "
            f"factor is other than 1 where the max rose, {k0} time{'s' if k0 != 1 else ''}. Those are the rescales "
            f"that change anything; at τ = {tau:g}, {done_row} of them {'is' if done_row == 1 else 'are'} done and "
            f"{skipped_row} skipped, and the weights still match softmax to "
            f"{np.abs(lag_weights - exact).max():.1e}.")
ui.table(pd.DataFrame({"block": [s.block + 1 for s in lag_steps], "block max": [s.block_max for s in lag_steps],
                       "true max": [s.m_true for s in lag_steps], "max in use": [s.m_use for s in lag_steps],
                       f"τ = {tau:g}": ["rescaled" if s.rescaled else "skipped" if s.skipped else "—"
                                        for s in lag_steps],
                       "l": [s.l for s in lag_steps]}),
         "lagging_blocks", f"Each block at τ = {tau:g}: rescaled (the max in use moved), skipped (the true max rose, "
         "the max in use stayed), or — (no new max)")
lim16, lim_bf = overflow_tau("float16"), overflow_tau("bfloat16")
fp16_text = (f"τ = {tau:g} leaves {lim16 - tau:.2f} log2 units to spare" if tau < lim16 else
             f"τ = {tau:g} overflows it: the largest weights saturate while the float32 sum l counts them whole, so "
             f"O comes out too small, which is why the kernel asserts τ stays below {lim16:.4f} "
             f"({cite('fa4_fwd', 'Note [Low Precision Scaling]')})")
st.markdown(f"The price is headroom. A weight e^(s − m) is at most 1 when m is the true max; a max that lags by up "
            f"to τ lets it reach 2^τ = {2 ** tau:,.6g}. The kernel stores P in the input's 16-bit type before PV: "
            f"fp16's largest value, 65,504, is 2^{lim16:.4f}, so {fp16_text}. bf16's is 2^{lim_bf:.2f}, "
            f"{lim_bf - tau:.2f} log2 units above 2^τ. In this row the largest weight reached "
            f"2^{max(s.peak_log2 for s in lag_steps):.2f}.")
lag_cfg = ui.simulable(ui.config())
lag = cache.lagging_run(lag_cfg, spread, tau)
if predict.inline(questions.lagging_max_skips(lag_cfg, spread, tau, lag), "os_lagging"):
    c = st.columns(4)
    c[0].metric("rescales at τ = 0", f"{lag.every_new_max:,}", help="One per tile that raised a row's max.")
    c[1].metric(f"done at τ = {tau:g}", f"{lag.done:,}")
    c[2].metric(f"skipped at τ = {tau:g}", f"{lag.skips:,}")
    c[3].metric("largest weight", f"2^{lag.peak_log2:.2f}", help=f"τ allows 2^{tau:g}")
    st.caption(f"Random attention at the sidebar's n = {lag_cfg.n}, d = {lag_cfg.d}, {lag_cfg.Br} × {lag_cfg.Bc} "
               f"tiles{', causal' if lag_cfg.causal else ''}, its scores scaled to std {spread:g} (the spread "
               f"slider above); `python -m flashviz rescale` prints the same counts. FlashAttention-2 multiplies l "
               f"and O at every tile after a row's first, {lag.every_tile:,} times here.")

# ---- a learnable sink (lesson 14's; kept apart from the rest of this lesson) ---------------------------
ui.slide("A sink in the sum")
st.subheader("A sink in the sum")
sink = ui.bound(control("os_sink"))


def sink_figure():
    """The running (m, l) with the sink, at the lesson's controls: it follows the row's sliders and the sink's live."""
    at: list[tuple[float, float]] = []
    online_softmax(streamed()[0]["score"].to_numpy(), ui.peek(control("os_block")), steps=at,
                   sink=ui.peek(control("os_sink")))
    return cache.figure(charts.running_stats, at)


# the chart right under its slider, so the two are on the screen together as the sink is dragged; the text catches up
# on release
ui.chart(sink_figure, "running_stats_sink", (*ROW, "os_sink"))
sink_steps: list[tuple[float, float]] = []
with_sink = online_softmax(row, block, steps=sink_steps, sink=sink)
reference = softmax(np.append(row, sink))[:-1]  # gpt-oss: the sink as one more score, dropped after the softmax
m_end, l_end = sink_steps[-1]
st.markdown(
    f"gpt-oss gives each head one learnable logit, a sink, that sits in the softmax's denominator only "
    f"({cite('gpt_oss', 'sdpa')}). Streamed, the running sum starts from it: before the first block m = {sink:g} "
    f"and l = e^(sink − m) = 1, and each rescale carries it like any other term. After the last block "
    f"m = {m_end:.4g} and l = {l_end:.4g}: the row's weights add to {with_sink.sum():.4f} and the sink keeps "
    f"e^(sink − m)/l = {np.exp(sink - m_end) / l_end:.4f}. Against the softmax with the sink as one more score, "
    f"max |diff| = {np.abs(with_sink - reference).max():.2e}. flash-attn-4's `learnable_sink` adds e^(sink − m) "
    f"to l once, after the last tile ({cite('fa_sink', 'finalize')}): the same sum.")

