"""Lesson 2: online softmax, the running max m and running sum l."""
import numpy as np
import pandas as pd
import streamlit as st

from explorer import cache, charts, predict, ui
from explorer.lessons import control
from flashviz.run.attention import EXP_LIMIT, online_softmax, random_row, softmax

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
m3.metric("no rescale: sum", f"{broken.sum():.6f}", delta=f"{broken.sum() - 1:.6f}")
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
ui.table(weights, "online_softmax_weights", "Weights, three ways")

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
