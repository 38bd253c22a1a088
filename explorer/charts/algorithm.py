"""The algorithm's charts (lessons 3 to 6): memory and traffic over n, the tile-size sweeps and the
I/O theorem, the backward pass, and what exact means (the difference heatmap, the real precisions)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from flashviz.model.config import KB, MB
from flashviz.model.sweeps import OverBlocks, OverN
from flashviz.teach.format import bytes_text

from .style import (BLACK, BLUE, BROKEN, FLASH, GREEN, ORANGE, SKY, STANDARD, TICK, VERMILLION, _font, _hline, _line,
                     _n_label, _style, on_a_phone)


def _over_n(df: pd.DataFrame, std: tuple[str, str], flash: tuple[str, str], y: str, title: str) -> go.Figure:
    """Standard attention's and flash's (column, name) against n, on log axes."""
    fig = go.Figure([_line(df[OverN.N], df[std[0]], std[1], STANDARD),
                     _line(df[OverN.N], df[flash[0]], flash[1], FLASH, symbol="diamond")])
    return _style(fig, "sequence length n (tokens)", y, title, log_x=True, log_y=True, x_values=df[OverN.N])


def memory_over_n(df: pd.DataFrame) -> go.Figure:
    """Peak memory against n, from sweeps.over_n."""
    return _over_n(df, (OverN.STD_PEAK_KB, "standard: n×n scores"), (OverN.FLASH_PEAK_KB, "flash: one tile"),
                   "peak memory (KB)", "Quadratic against flat")


def traffic_over_n(df: pd.DataFrame) -> go.Figure:
    """HBM traffic against n, from sweeps.over_n."""
    return _over_n(df, (OverN.STD_HBM_MB, "standard"), (OverN.FLASH_HBM_MB, "flash"), "HBM traffic (MB)",
                   "Bytes moved")


def block_sweep(df: pd.DataFrame, standard_mb: float, best: int | None) -> go.Figure:
    """Flash's traffic against square tile sizes, from sweeps.over_blocks, with standard attention's
    and the best tile that fits."""
    c = OverBlocks
    fits = df[c.FITS]
    fig = go.Figure([
        _line(df[c.BLOCK], df[c.HBM_MB], "tile traffic", FLASH),
        _line(df[c.BLOCK], df[c.HBM_MB_WITH_SPILL], "with spill", BROKEN, dash="dash", symbol="diamond"),
        go.Scatter(x=list(df[c.BLOCK][~fits]), y=list(df[c.HBM_MB_WITH_SPILL][~fits]),
                   mode="markers", name="spills", marker={"symbol": "x", "size": 16,
                                                          "color": VERMILLION}),
    ])
    _hline(fig, standard_mb, f"standard: {bytes_text(standard_mb * MB)}", STANDARD)
    if best is not None:
        row = df[df[c.BLOCK] == best].iloc[0]
        fig.add_trace(go.Scatter(x=[best], y=[row[c.HBM_MB]], mode="markers",
                                 name=f"best that fits: {best}",
                                 marker={"size": 22, "color": GREEN, "symbol": "star",
                                         "line": {"color": BLACK, "width": 1}}))
    return _style(fig, "block size Br = Bc (rows)", "HBM traffic (MB)", "Traffic against tile size",
                  log_x=True, log_y=True, x_values=df[c.BLOCK])


def working_set_sweep(df: pd.DataFrame, budget_kb: float) -> go.Figure:
    """Each square tile's working set against the SRAM budget, from sweeps.over_blocks."""
    c = OverBlocks
    blocks, sizes, fits = [str(b) for b in df[c.BLOCK]], list(df[c.WORKING_SET_KB]), list(df[c.FITS])
    # a trace for those that fit and one for those over, each its colour in the legend (one trace's swatch showed
    # the first bar's blue beside "red: over"); both always drawn, one empty where none is over, so a live chart's
    # traces stay the same; bars in one place each, in the blocks' order
    fig = go.Figure([go.Bar(x=[b for b, f in zip(blocks, fits) if f == fit],
                            y=[kb for kb, f in zip(sizes, fits) if f == fit], marker_color=colour, name=name,
                            showlegend=True)
                     for fit, colour, name in ((True, FLASH, "working set: fits"),
                                               (False, VERMILLION, "working set: over the budget"))])
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(categoryorder="array", categoryarray=blocks)
    _hline(fig, budget_kb, f"SRAM budget: {bytes_text(budget_kb * KB)}", BLACK, dash="solid")
    return _style(fig, "block size Br = Bc (rows)", "tile working set (KB)",
                  "Does the tile fit?", log_y=True)


def io_theorem(df) -> go.Figure:
    fig = go.Figure([
        _line(df["n"], df["std counted"], "standard, counted", STANDARD),
        # Θ with constant 1: an order, not a count; said on the chart, where a projector hides the text that says so
        _line(df["n"], df["Nd + N^2"], "Θ(Nd + N²), constant 1", STANDARD, dash="dot", symbol="square"),
        _line(df["n"], df["flash fa1"], "flash, counted, paper's order (fa1)", FLASH, symbol="diamond"),
        _line(df["n"], df["flash fa2"], "flash, counted, FA2's order", FLASH, dash="dash", symbol="circle-open"),
        _line(df["n"], df["N^2 d^2 / M"], "Θ(N²d²/M), constant 1", FLASH, dash="dot", symbol="triangle-up"),
    ])
    return _style(fig, "sequence length N (tokens)", "HBM accesses (elements)",
                  "Theorem 2 (dotted) beside the counts",
                  log_x=True, log_y=True, x_values=df["n"])


def backward_bars(df) -> go.Figure:
    ns = [_n_label(n) for n in df["n"]]
    fig = go.Figure([go.Bar(x=ns, y=df["std stored MB"], name="standard: keeps P", marker_color=STANDARD),
                     go.Bar(x=ns, y=df["flash stored + O MB"], name="flash: keeps O, m and l",
                            marker_color=FLASH)])
    fig.update_layout(barmode="group")
    return _style(fig, "sequence length n (tokens)", "stored for backward (MB)", "What the forward keeps",
                  log_y=True)


def flops_bars(df) -> go.Figure:
    ns = [_n_label(n) for n in df["n"]]
    fig = go.Figure([go.Bar(x=ns, y=df["std GFLOPs"], name="standard", marker_color=STANDARD),
                     go.Bar(x=ns, y=df["flash GFLOPs"], name="flash (recompute)", marker_color=FLASH)])
    fig.update_layout(barmode="group")
    return _style(fig, "sequence length n (tokens)", "fwd + bwd work (GFLOPs)", "What recomputing costs",
                  log_y=True)


def diff_heatmap(diff: np.ndarray, title: str, max_rows: int = 256) -> go.Figure:
    """log10 |difference|, rows max-pooled down to max_rows for the browser."""
    step = max(1, -(-diff.shape[0] // max_rows))
    pooled = np.maximum.reduceat(diff, np.arange(0, diff.shape[0], step), axis=0)
    with np.errstate(divide="ignore"):
        z = np.log10(np.maximum(pooled, 1e-18))
    exponents = list(range(-18, 1, 3))
    fig = go.Figure(go.Heatmap(  # z in float32: half the JSON; colours span 18 decades, the hover prints 0.1
        z=z.astype(np.float32), y=np.arange(0, diff.shape[0], step), zmin=-18, zmax=0, colorscale="Viridis",
        colorbar={"title": {"text": "|diff| (log scale)", "font": _font(), "side": "right"},
                  "tickfont": _font(TICK), "tickvals": exponents,
                  "ticktext": ["1" if e == 0 else f"1e{e}" for e in exponents],
                  "outlinewidth": 0, "thickness": 18},
        hovertemplate="row %{y}, col %{x}: 10^%{z:.1f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return _style(fig, "output column (of d)", "query row (0 to n−1)", title, height=420)


# ---- lesson 6, real precisions -----------------------------------------------------------------

_PRECISION_SHORT = {"standard_fp16": "fp16<br>standard", "flash_fp16": "fp16<br>flash",
                    "standard_bf16": "bf16<br>standard", "flash_bf16": "bf16<br>flash",
                    "fp8_baseline": "FP8<br>baseline", "fp8_neither": "FP8 flash<br>neither",
                    "fp8_no_incoherent": "FP8<br>blocks", "fp8_no_block": "FP8<br>rotation",
                    "fp8_fa3": "FP8 both<br>(FA3)"}
_MEASURED_STYLE = (("plain (3 kernels)", "plain", STANDARD, "square", 0.0),
                   ("SDPA flash", "flash", FLASH, "circle", -0.24),
                   ("SDPA cuDNN", "cuDNN", GREEN, "diamond", 0.0),
                   ("SDPA mem-efficient", "mem-efficient", ORANGE, "x", 0.24))


def precision_bars(df) -> go.Figure:
    """Each method's RMSE against float64 (log): the emulation as bars, the H200's kernels on the same
    inputs as marks on them, the three fused kernels side by side across the bar (they agree, and would
    hide each other) (flashviz.run.precision.side_by_side's table)."""
    rows = df.set_index("key").loc[[k for k in _PRECISION_SHORT if k in set(df["key"])]]
    at = list(range(len(rows)))
    fig = go.Figure(go.Bar(x=at, y=rows["emulated RMSE"], name="emulated", marker_color=SKY, width=0.8,
                           text=[_PRECISION_SHORT[k].replace("<br>", " ") for k in rows.index], textposition="none",
                           hovertemplate="%{text}: %{y:.3g}<extra>emulated</extra>"))
    for column, name, colour, symbol, shift in _MEASURED_STYLE:
        y = rows[f"H200 {column} RMSE"]
        fig.add_trace(go.Scatter(x=[k + shift for k in at], y=y, mode="markers", name=f"H200 {name}",
                                 marker={"size": 14, "color": colour, "symbol": symbol,
                                         "line": {"color": BLACK, "width": 1}},
                                 hovertemplate="%{y:.3g}<extra>H200 " + name + "</extra>"))
    _style(fig, "", "RMSE (log)", "RMSE against float64: emulated, H200", log_y=True)
    fig.update_xaxes(tickmode="array", tickvals=at, ticktext=[_PRECISION_SHORT[k] for k in rows.index],
                     showgrid=False)
    # a phone's plot has about 24 px a bar: each name on one line, turned upright (two lines turned were 45 px wide,
    # and neighbours covered each other: a phone walk)
    on_a_phone(fig, {"layout": {"xaxis": {"ticktext": [_PRECISION_SHORT[k].replace("<br>", " ") for k in rows.index],
                                          "tickangle": -90}}})
    return fig


def precision_row(values, rotated) -> go.Figure:
    """One row of Q as stored and after the random Hadamard rotation: the outlier spread out."""
    k = list(range(len(values)))
    fig = go.Figure([go.Scatter(x=k, y=list(map(float, values)), mode="markers", name="as stored",
                                marker={"size": 9, "color": VERMILLION, "symbol": "circle"},
                                hovertemplate="coordinate %{x}: %{y:.3g}<extra>as stored</extra>"),
                     go.Scatter(x=k, y=list(map(float, rotated)), mode="markers", name="rotated",
                                marker={"size": 9, "color": BLUE, "symbol": "diamond"},
                                hovertemplate="coordinate %{x}: %{y:.3g}<extra>rotated</extra>")])
    return _style(fig, "coordinate (0 to d−1)", "entry of the row (value)", "One row of Q, before and after")


def precision_score_errors(df) -> go.Figure:
    """One row's FP8 score errors against its exact scores, one scale per tensor, without and with the
    rotation (flashviz.run.precision.row_scores)."""
    fig = go.Figure([go.Scatter(x=df["score"], y=df["per tensor, rotated"], mode="markers", name="FP8, rotated",
                                marker={"size": 7, "color": BLUE, "symbol": "diamond"},
                                hovertemplate="score %{x:.3g}: error %{y:.3g}<extra>rotated</extra>"),
                     go.Scatter(x=df["score"], y=df["per tensor"], mode="markers", name="FP8, no rotation",
                                marker={"size": 7, "color": VERMILLION, "symbol": "circle"},
                                hovertemplate="score %{x:.3g}: error %{y:.3g}<extra>no rotation</extra>")])
    return _style(fig, "exact score (QKᵀ/√d)", "FP8 error (score units)", "That row's score errors")
