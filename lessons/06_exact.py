"""Lesson 6: exact, against a real approximation."""
import math

import streamlit as st

from explorer import cache, charts, predict, ui
from explorer.lessons import control
from flashviz.run import precision
from flashviz.teach import questions
from flashviz.run.attention import EXP_LIMIT
from flashviz.run.rescale import KERNEL_TAU
from flashviz.teach.bugs import NOISE
from flashviz.teach.claims import compare
from flashviz.teach.format import value_text
from flashviz.model.sources import cite

st.title("Exact means exact")
st.markdown("#### FlashAttention computes the same function. A local window computes a different one.")
cfg = ui.config()
n = ui.simulable(cfg.with_tiles(64, 64)).n
asked = ui.bound(control("ex_window"), help="The heatmaps redraw when you let go: a heatmap at each of 128 widths is "
                                           "too much to carry for a drag.")
window = min(asked, n)
ui.own_setting(f"This lesson runs its own 64 × 64 tiles (cut to n), no mask, in float64, at n = {n}"
               + (f"; the window is cut to n = {n}" if window < asked else "")
               + ". Exactness does not depend on any of them.")
demo = cache.demo(6, n=n, d=cfg.d, window=window)
res = demo.tables["against standard attention"]
flash, local = res.iloc[0], res.iloc[1]

ui.slide("The numbers")
c = st.columns(3)
c[0].metric("flash: max |diff|", f"{flash['max abs diff']:.2e}")
c[1].metric(f"window {window}: max |diff|", f"{local['max abs diff']:.2e}")
if local["max abs diff"] > NOISE:
    gap = math.log10(local["max abs diff"] / max(flash["max abs diff"], 1e-300))
    c[2].metric("orders of magnitude apart", f"{max(0.0, gap):.0f}")
else:
    c[2].metric("orders of magnitude apart", "none", help="The window covers every key: both errors are "
                f"float noise, below {NOISE:g}.")
all_keys = " (all of them at this n, so it is exact as well)" if window >= n else ""
ui.explain(f"""
The "efficient attention" papers of 2020 (Reformer, Linformer, Performer, Longformer, BigBird; the
FlashAttention paper surveys them, {cite("fa1", "Appendix A")}) cut flops by computing a cheaper,
different function. The stand-in here is a local window like Longformer's, without its global
tokens: each query sees only the {window} keys around it{all_keys}.
FlashAttention's error is the order of floating-point additions: {flash['max abs diff']:.0e} here, in
float64 ({ui.assumes("fp64")}). The window's is the keys it never looked at. A real kernel rounds far more
coarsely: float16 inputs carry about three significant decimal digits, bfloat16 about two, and the
softmax runs in float32. There the
FlashAttention-3 paper measures its FP16 kernels' error below a plain FP16 implementation's, because the
scores, the row max and sum and the output accumulator stay in float32 registers instead of being stored in
16 bits between kernels; P is rounded to 16 bits only as the input of the P·V matmul, and never stored
({cite("fa3", "§4.3")}). Each picture below is |difference| per output
entry, on a log scale: dark is float noise, bright is a wrong answer.
""")
local_title = f"|local window {window} − standard|"
flash_title = "|flash − standard|"
ui.slide("The error, as a picture")
ui.side_by_side((cache.figure(charts.diff_heatmap, demo.arrays["flash - standard"], flash_title), "diff_flash"),
                (cache.figure(charts.diff_heatmap, demo.arrays["local - standard"], local_title), "diff_local"))
st.caption("The pictures redraw when you let go of the sidebar's n or d too: each holds up to 256 rows of d numbers, "
           "too many to carry for a drag at every value.")
ui.table(res, "exact", f"n = {n}, d = {cfg.d}, float64 arithmetic")

# ---- the second half: the same question in the precisions kernels run in --------------------------
pn, pd_, top = precision.LESSON_N, precision.PAPER_D, precision.TOP
ui.slide("Exact, in real precisions")
st.subheader("Exact, in real precisions")
ui.own_setting(f"This half runs its own setting: n = {pn}, d = {pd_}, the FlashAttention-3 paper's inputs (each "
               "entry N(0, 1), plus N(0, 100) on 0.1% of them), one draw (seed 0): the inputs the H200 ran.")
ui.explain(f"""
No kernel computes in float64. FlashAttention takes fp16 or bf16 inputs, keeps the running max, sum and output in
fp32 registers and casts P to 16 bits before multiplying by V; FlashAttention-3 adds FP8 ({cite("fa3", "§3.3")}).
The engine rounds every value to the type a kernel stores it in, through `ml_dtypes`, and compares against float64
on the same inputs, as the FlashAttention-3 paper does ({cite("fa3", "§4.3, Table 3")}) {ui.assumes("emulated")}.
""")
study = cache.precision_study(pn, pd_)
err = study.errors
if predict.inline(questions.flash_fp16_error(pn, pd_, err["standard_fp16"].rmse, err["flash_fp16"].rmse),
                  "precision_fp16"):
    side = cache.precision_side_by_side(pn, pd_)
    measured = cache.precision_measured()
    ui.slide("Errors per precision and method")
    ui.chart(cache.figure(charts.precision_bars, side), "precision_bars")
    std16, fl16 = err["standard_fp16"].rmse, err["flash_fp16"].rmse
    std_bf, fl_bf = err["standard_bf16"].rmse, err["flash_bf16"].rmse
    base8, fa3 = err["fp8_baseline"].rmse, err["fp8_fa3"].rmse
    kernels = side[[c for c in side.columns if c.startswith("H200 ")]]
    ratios = (kernels.div(side["emulated RMSE"], axis=0)).stack()
    worst = float((ratios - 1).abs().max())
    st.markdown(
        f"**Flash makes {compare(std16, fl16, 'error', fewer='less')} than standard attention in fp16** "
        f"({fl16:.2e} against {std16:.2e}) and {compare(std_bf, fl_bf, 'error', fewer='less')} in bf16 "
        f"({fl_bf:.2e} against {std_bf:.2e}). FP8 with both of FlashAttention-3's techniques makes "
        f"{compare(base8, fa3, 'error', fewer='less')} than the baseline FP8 ({fa3:.2e} against {base8:.2e}; "
        f"the paper: {precision.PAPER_RATIO:g}× less, at a size it does not print). The H200's kernels, on the "
        f"same inputs, measure within {100 * worst:.2g}% of the emulation (bars: emulated; marks: measured).")
    ui.slide("The paper's Table 3, reproduced")
    table = precision.paper_table_from(err)
    ui.table(table, "precision_table", f"n = {pn}, d = {pd_}, seed 0; RMSE and largest error against float64. The "
             "paper prints RMSE only, and not its n or d; BENCHMARKS.md sets n = 4096 beside it and over seeds.",
             formats={"RMSE": ".2e", "max error": ".2e"})

    ui.slide("Where each type overflows")
    at = {s: precision.measured_at(measured, pn, pd_, s).set_index(["dtype", "impl"]) for s in (8.0, 64.0)}
    top8, top64 = float(at[8.0]["max_score"].iloc[0]), float(at[64.0]["max_score"].iloc[0])
    limits = cache.precision_limits(round(top8))
    gap_column = f"gap at a score of {round(top8):,}"
    ui.table(limits, "precision_limits", f"Each type's largest value and exp's limit in it; the gap between stored "
             f"values at a score of {round(top8):,}, this setting's largest with Q and K 8× the paper's.",
             texts={col: value_text for col in ("largest value", "exp(x) overflows past x", gap_column,
                                                "exp of it off by a factor up to")})
    plain64 = at[64.0].loc[("float16", "plain")]
    plain8, flash8 = at[8.0].loc[("float16", "plain"), "rmse"], at[8.0].loc[("float16", "flash"), "rmse"]
    plain8_bf, flash8_bf = at[8.0].loc[("bfloat16", "plain"), "rmse"], at[8.0].loc[("bfloat16", "flash"), "rmse"]
    flash64 = at[64.0].loc[("float16", "flash"), "rmse"]
    outputs = pn * pd_
    st.markdown(
        f"exp overflows float32 past {EXP_LIMIT['float32']:.2f} and float16 past {EXP_LIMIT['float16']:.2f}, but "
        "the kernels measured here subtract the row's max first, in fp32, so exp only ever sees scores at or "
        "below 0 (FlashAttention-4's lagging max lets the exponent reach τ in log2 units, a weight of up to 2^τ: "
        "lesson 2). What "
        f"16-bit storage must hold is S itself. float16's largest value is {precision.largest('float16'):,.0f}: "
        f"with Q and K 64× the paper's the largest score here is {top64:,.0f}, and on the H200 PyTorch's plain "
        f"path stored inf in S: **{int(plain64['nonfinite']):,} of the {outputs:,} outputs came out NaN** (the "
        f"emulation: {int(plain64['emulated_nonfinite']):,}). bfloat16 reaches "
        f"{value_text(precision.largest('bfloat16'))} "
        "with 8 significant bits: at 8× "
        f"(largest score {top8:,.0f}) the plain path makes {compare(flash8_bf, plain8_bf, 'error', fewer='less')} "
        f"than flash in bf16, and {compare(flash8, plain8, 'error', fewer='less')} in fp16.")
    ui.explain(f"""
Flash never stores S or P, and that is also why it never stores them in 16 bits: they stay on chip, in fp32
registers, and the only 16-bit copy of P is the input of P·V, after the max is subtracted, so in FlashAttention-2's
kernel (PyTorch's flash backend, measured here) every entry of it lies between 0 and 1, where float16 and bfloat16
space their values most finely. FlashAttention-4's lagging max lets an entry reach 2^τ, {2 ** KERNEL_TAU:,.0f} at its
τ = {KERNEL_TAU:g} (lesson 2), still far below fp16's {precision.largest('float16'):,.0f}. At 64× the paper's Q and
K flash's fp16 RMSE on the H200 is {flash64:.1e}. Standard attention writes S and P to HBM as tensors of the inputs'
own type, rounded to a gap that grows with the score.
""")

    ui.slide("FP8's two techniques on one row")
    row, q = study.row, study.values
    qmax, rmax = float(abs(q).max()), float(abs(study.rotated).max())
    scores = cache.precision_row_scores(pn, pd_, 0, row)
    ui.side_by_side((cache.figure(charts.precision_row, q, study.rotated), "precision_row"),
                    (cache.figure(charts.precision_score_errors, scores), "precision_score_errors"))
    v = study.variants.set_index("key")
    c0, cr = v.loc["fp8_neither", "error-score correlation"], v.loc["fp8_no_block", "error-score correlation"]
    top_col = f"score error, top {top} keys (RMS)"
    t0, tr = v.loc["fp8_neither", top_col], v.loc["fp8_no_block", top_col]
    a0 = v.loc["fp8_neither", "score error, every key (RMS)"]
    follows = "grow with the scores" if abs(c0) >= 0.3 else "barely follow the scores"
    st.markdown(
        f"Row {row} of Q holds an outlier, {qmax:.3g}. The rotation spreads it over all {pd_} coordinates: the "
        f"row's largest entry falls from {qmax:.3g} to {rmax:.3g}. Without it the row's FP8 score errors {follows} "
        f"(correlation {c0:+.2f}), and the {top} keys that win the softmax carry {t0:.3f} RMS against {a0:.3f} over "
        f"every key; rotated, {tr:.3f} (correlation {cr:+.2f}): {compare(t0, tr, 'error', fewer='less')} where "
        "the softmax looks.")
    per_tile = precision.TILE * pd_ * precision.OUTLIER_P
    ui.explain(f"""
The row is the one holding Q's largest entry that FP8 rounds (the very largest maps onto FP8's top value, 448,
exactly). One scale per tensor lets Q's largest entry set the FP8 step for every entry. Block quantisation gives
each tile of {precision.TILE} rows its own scale, but at 0.1% outliers a tile of {precision.TILE} × {pd_} entries
holds about {per_tile:.0f} of them: {study.outlier_tiles} of Q's {study.tiles} tiles have an outlier as their
largest entry, and the smallest tile scale is {study.smallest_tile_scale:.0%} of the tensor's. FP8's rounding error
is relative to each value anyway (a finer scale helps only values near the bottom of its range), which is why the
paper's "no block quant" row is almost as good as both. The rotation (a random ±1 diagonal times a Hadamard matrix)
is what breaks an outlier up: unrotated, one rounding of one large coordinate moves every score it dominates in
proportion, a temperature error on the row's winners; rotated, each score's error is a sum of {pd_} small,
independent ones.
""")
    ui.slide("The four FP8 variants on that row")
    ui.table(study.variants.drop(columns=["key"]), "precision_row_variants",
             f"Row {row}: its FP8 scale and the error of its {pn:,} scores (Q and K quantised, the product in "
             f"float64), per tensor or per tile of {precision.TILE} rows, without or with the rotation.",
             formats={"the row's scale": ".4f", "score error, every key (RMS)": ".3f", top_col: ".3f",
                      "error-score correlation": ".2f"})
