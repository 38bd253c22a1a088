"""Pure figure builders: data in, plotly Figure out. No Streamlit here.

Colours are Okabe and Ito's colour-blind-safe palette; fonts are sized for a
projector at 1280x720; every axis title carries its unit.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# Okabe-Ito
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
STANDARD, FLASH, BROKEN = VERMILLION, BLUE, PURPLE
FONT = 17


def _n_ticks(values, most: int = 6) -> dict:
    """Tick marks at the n values themselves (thinned), readable as numbers."""
    values = sorted(set(int(v) for v in values))
    step = -(-len(values) // most)
    shown = values[::step]
    text = [f"{v // 1024}k" if v >= 4096 and v % 1024 == 0 else str(v) for v in shown]
    return {"tickmode": "array", "tickvals": shown, "ticktext": text}


def _style(fig: go.Figure, x: str, y: str, title: str = "", height: int = 440,
           log_x: bool = False, log_y: bool = False, x_values=None) -> go.Figure:
    fig.update_layout(
        title={"text": title, "font": {"size": FONT + 3}},
        font={"size": FONT, "color": BLACK}, height=height, template="plotly_white",
        margin={"l": 70, "r": 20, "t": 50 if title else 20, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.3, "xanchor": "left", "x": 0},
        hoverlabel={"font_size": FONT},
    )
    log = {"type": "log", "dtick": 1, "exponentformat": "power"}
    fig.update_xaxes(title_text=x, gridcolor="#ddd", linecolor=BLACK, automargin=True,
                     **(log if log_x else {}))
    if x_values is not None:
        fig.update_xaxes(**_n_ticks(x_values))
    fig.update_yaxes(title_text=y, gridcolor="#ddd", linecolor=BLACK, automargin=True,
                     **(log if log_y else {}))
    return fig


def _hline(fig: go.Figure, y: float, text: str, color: str, log_y: bool, dash: str = "dot") -> None:
    """A labelled horizontal line. On a log axis plotly puts shapes in data units but
    annotations in log10 units, hence the two calls."""
    fig.add_shape(type="line", xref="paper", x0=0, x1=1, yref="y", y0=y, y1=y,
                  line={"color": color, "width": 3, "dash": dash})
    fig.add_annotation(xref="paper", x=0.02, xanchor="left", yref="y", yanchor="bottom",
                       y=float(np.log10(y)) if log_y else y, text=text, showarrow=False,
                       font={"size": FONT, "color": color})


def _line(x, y, name, color, dash=None, text=None):
    return go.Scatter(x=list(x), y=list(y), name=name, mode="lines+markers",
                      line={"color": color, "width": 3, "dash": dash}, marker={"size": 9},
                      text=text, hovertemplate="%{y:.3g}<extra>" + name + "</extra>")


def bytes_vs_flops(df) -> go.Figure:
    """HBM traffic against arithmetic as n grows (log-log), standard and flash."""
    labels = [f"n={n}" for n in df["n"]]
    fig = go.Figure([
        _line(df["std GFLOPs"], df["std HBM MB"], "standard", STANDARD, text=labels),
        _line(df["flash GFLOPs"], df["flash HBM MB"], "flash", FLASH, text=labels),
    ])
    fig.update_traces(hovertemplate="%{text}: %{x:.3g} GFLOPs, %{y:.3g} MB")
    return _style(fig, "work (GFLOPs)", "HBM traffic (MB)", "Same flops, different bytes",
                  log_x=True, log_y=True)


def roofline(points, hardware: dict, dtype: str, selected: str) -> go.Figure:
    """Attainable rate against flops per byte, one roof per machine."""
    ai = np.logspace(-2, 3, 200)
    fig = go.Figure()
    colours = [GREEN, ORANGE, SKY]
    for (name, hw), colour in zip(hardware.items(), colours):
        peak = hw.fp32_flops if dtype in ("float32", "float64") else hw.fp16_tensor_flops
        roof = np.minimum(peak, hw.hbm_bytes_per_s * ai) / 1e12
        fig.add_trace(go.Scatter(x=ai, y=roof, name=name, mode="lines",
                                 line={"color": colour, "width": 4 if name == selected else 2,
                                       "dash": None if name == selected else "dot"}))
    for _, row in points.iterrows():
        colour = STANDARD if row["method"] == "standard" else FLASH
        fig.add_trace(go.Scatter(
            x=[row["flops per byte"]], y=[row["attainable TFLOP/s"]], name=row["method"],
            mode="markers+text", text=[row["method"]],
            textposition="bottom center" if row["method"] == "standard" else "top center",
            marker={"size": 18, "color": colour, "line": {"color": BLACK, "width": 1}}))
    return _style(fig, "arithmetic intensity (flops per byte)", "attainable rate (TFLOP/s)",
                  f"Roofline, {dtype}", log_x=True, log_y=True)


def weights_bars(df) -> go.Figure:
    idx = list(range(len(df)))
    fig = go.Figure([
        go.Bar(x=idx, y=df["softmax"], name="ordinary softmax", marker_color=GREEN),
        go.Bar(x=idx, y=df["online"], name="online (rescaled)", marker_color=FLASH),
        go.Bar(x=idx, y=df["no rescale"], name="no rescale (bug)", marker_color=BROKEN),
    ])
    fig.update_layout(barmode="group", bargap=0.15)
    return _style(fig, "position in the row", "softmax weight", "Weights, three ways")


def running_stats(steps) -> go.Figure:
    """Running max and sum after each block of the online softmax."""
    blocks = list(range(1, len(steps) + 1))
    fig = go.Figure([
        _line(blocks, [m for m, _ in steps], "running max m", ORANGE),
        _line(blocks, [l for _, l in steps], "running sum l", FLASH),
    ])
    return _style(fig, "blocks seen", "value", "m and l after each block", height=340)


def memory_over_n(df) -> go.Figure:
    fig = go.Figure([_line(df["n"], df["std peak KB"], "standard: n x n scores", STANDARD),
                     _line(df["n"], df["flash peak KB"], "flash: one tile's working set", FLASH)])
    return _style(fig, "sequence length n", "peak memory (KB)", "Quadratic against flat",
                  log_x=True, log_y=True, x_values=df["n"])


def traffic_over_n(df) -> go.Figure:
    fig = go.Figure([_line(df["n"], df["std HBM MB"], "standard", STANDARD),
                     _line(df["n"], df["flash HBM MB"], "flash", FLASH)])
    return _style(fig, "sequence length n", "HBM traffic (MB)", "Bytes moved",
                  log_x=True, log_y=True, x_values=df["n"])


def block_sweep(df, standard_mb: float, best) -> go.Figure:
    fits = df["fits SRAM"]
    fig = go.Figure([
        _line(df["block"], df["HBM MB"], "tile traffic", FLASH),
        _line(df["block"], df["HBM MB with spill"], "with spill", BROKEN, dash="dash"),
        go.Scatter(x=list(df["block"][~fits]), y=list(df["HBM MB with spill"][~fits]),
                   mode="markers", name="spills", marker={"symbol": "x", "size": 16,
                                                          "color": VERMILLION}),
    ])
    _hline(fig, standard_mb, f"standard {standard_mb:.2f} MB", STANDARD, log_y=True)
    if best is not None:
        row = df[df["block"] == best].iloc[0]
        fig.add_trace(go.Scatter(x=[best], y=[row["HBM MB"]], mode="markers+text",
                                 name="best that fits", text=[f"best: {best}"],
                                 textposition="bottom center",
                                 marker={"size": 22, "color": GREEN, "symbol": "star"}))
    return _style(fig, "block size Br = Bc (rows)", "HBM traffic (MB)", "Traffic against tile size",
                  log_x=True, log_y=True)


def working_set_sweep(df, budget_kb: float) -> go.Figure:
    colours = [FLASH if f else VERMILLION for f in df["fits SRAM"]]
    fig = go.Figure([go.Bar(x=[str(b) for b in df["block"]], y=df["tile working set KB"],
                            marker_color=colours, name="working set")])
    _hline(fig, budget_kb, f"SRAM budget {budget_kb:g} KB", BLACK, log_y=True, dash="solid")
    return _style(fig, "block size Br = Bc (rows)", "tile working set (KB)",
                  "Does the tile fit?", log_y=True)


def io_theorem(df) -> go.Figure:
    fig = go.Figure([
        _line(df["n"], df["std counted"], "standard, counted", STANDARD),
        _line(df["n"], df["Nd + N^2"], "Θ(Nd + N²)", STANDARD, dash="dot"),
        _line(df["n"], df["flash counted"], "flash, counted", FLASH),
        _line(df["n"], df["N^2 d^2 / M"], "Θ(N²d²/M)", FLASH, dash="dot"),
    ])
    return _style(fig, "sequence length N", "HBM accesses (elements)", "Theorem 2 beside the counts",
                  log_x=True, log_y=True, x_values=df["n"])


def backward_bars(df) -> go.Figure:
    ns = [str(n) for n in df["n"]]
    fig = go.Figure([go.Bar(x=ns, y=df["std stored MB"], name="standard: keeps P", marker_color=STANDARD),
                     go.Bar(x=ns, y=df["flash stored MB"], name="flash: keeps m and l",
                            marker_color=FLASH)])
    fig.update_layout(barmode="group")
    return _style(fig, "sequence length n", "stored for backward (MB)", "What the forward keeps",
                  log_y=True)


def flops_bars(df) -> go.Figure:
    ns = [str(n) for n in df["n"]]
    fig = go.Figure([go.Bar(x=ns, y=df["std GFLOPs"], name="standard", marker_color=STANDARD),
                     go.Bar(x=ns, y=df["flash GFLOPs"], name="flash (recompute)", marker_color=FLASH)])
    fig.update_layout(barmode="group")
    return _style(fig, "sequence length n", "forward + backward (GFLOPs)", "What recomputing costs",
                  log_y=True)


def diff_heatmap(diff: np.ndarray, title: str, max_rows: int = 256) -> go.Figure:
    """log10 |difference|, rows max-pooled down to max_rows for the browser."""
    step = max(1, -(-diff.shape[0] // max_rows))
    pooled = np.maximum.reduceat(diff, np.arange(0, diff.shape[0], step), axis=0)
    with np.errstate(divide="ignore"):
        z = np.log10(np.maximum(pooled, 1e-18))
    fig = go.Figure(go.Heatmap(
        z=z, y=np.arange(0, diff.shape[0], step), zmin=-18, zmax=0, colorscale="Viridis",
        colorbar={"title": {"text": "log10 |diff|"}},
        hovertemplate="row %{y}, col %{x}: 10^%{z:.1f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return _style(fig, "output column (of d)", "query row", title, height=420)


def cut_vs_block(df) -> go.Figure:
    fig = go.Figure()
    for (d, part), colour in zip(df.groupby("d"), [GREEN, FLASH, ORANGE, PURPLE, VERMILLION]):
        fig.add_trace(_line(part["block / d"], part["traffic cut"], f"d = {d}", colour))
    return _style(fig, "block size / head dim", "traffic cut (standard / flash)",
                  "The cut grows with block over head dim", log_x=True, log_y=True)


def loop_order_bars(df) -> go.Figure:
    fig = go.Figure([go.Bar(x=df["loop order"], y=df["HBM MB"], marker_color=[FLASH, ORANGE],
                            text=[f"{v:.2f} MB" for v in df["HBM MB"]], textposition="outside")])
    return _style(fig, "", "HBM traffic (MB)", "Loop order changes the bytes", height=360)


def comparison_bars(labels, correct, broken, y: str, title: str, reference=None) -> go.Figure:
    fig = go.Figure([go.Bar(x=labels, y=correct, name="correct", marker_color=FLASH),
                     go.Bar(x=labels, y=broken, name="with the bug", marker_color=BROKEN)])
    if reference is not None:
        _hline(fig, reference[1], reference[0], STANDARD, log_y=False)
    fig.update_layout(barmode="group")
    return _style(fig, "", y, title, height=360)


def loop_orders_over_n(df) -> go.Figure:
    fig = go.Figure([_line(df["n"], df["std HBM MB"], "standard", STANDARD),
                     _line(df["n"], df["FA1 HBM MB"], "FA1 order (K/V outer)", ORANGE),
                     _line(df["n"], df["FA2 HBM MB"], "FA2 order (Q outer)", FLASH)])
    return _style(fig, "sequence length n", "HBM traffic (MB)", "Traffic by loop order",
                  log_x=True, log_y=True, x_values=df["n"])


IMPL_COLOURS = {"plain": STANDARD, "flash": FLASH, "mem_efficient": GREEN}
IMPL_NAMES = {"plain": "plain (S in HBM)", "flash": "SDPA flash", "mem_efficient": "SDPA memory-efficient"}


def measured_times(df) -> go.Figure:
    """Measured time (solid) and the roofline's prediction (dotted) over n."""
    fig = go.Figure()
    for impl, part in df.groupby("impl", sort=False):
        part = part.sort_values("n")
        fig.add_trace(_line(part["n"], part["measured ms"], IMPL_NAMES[impl] + ", measured", IMPL_COLOURS[impl]))
        fig.add_trace(_line(part["n"], part["roofline ms"], "model", IMPL_COLOURS[impl], dash="dot"))
    return _style(fig, "sequence length n (B·H·n² fixed)", "time per call (ms)", "Measured beside the model",
                  log_x=True, x_values=df["n"])


def measured_bytes(df) -> go.Figure:
    """DRAM bytes read + written (Nsight Compute) against the closed-form model."""
    fig = go.Figure()
    for impl, part in df.groupby("impl", sort=False):
        part = part.sort_values("n")
        fig.add_trace(_line(part["n"], part["measured DRAM MB"], IMPL_NAMES[impl] + ", DRAM", IMPL_COLOURS[impl]))
        fig.add_trace(_line(part["n"], part["model MB"], "model", IMPL_COLOURS[impl], dash="dot"))
    return _style(fig, "sequence length n (B·H·n² fixed)", "bytes per call (MB)", "DRAM bytes beside the model",
                  log_x=True, log_y=True, x_values=df["n"])


def measured_roofline(points, bandwidth_tbs: float, peak_tflops: float, label: str) -> go.Figure:
    """The measured ceilings as a roof, and each kernel at its measured intensity and rate."""
    ai = np.logspace(0, 5, 200)
    fig = go.Figure([go.Scatter(x=ai, y=np.minimum(peak_tflops, bandwidth_tbs * ai), mode="lines",
                                name=f"measured roof ({label})", line={"color": BLACK, "width": 3})])
    for impl, part in points.groupby("impl", sort=False):
        # plain attention's points coincide (its bytes grow with n² like its flops): label the fused ones
        fig.add_trace(go.Scatter(x=part["flops per DRAM byte"], y=part["achieved TFLOP/s"],
                                 mode="markers" if impl == "plain" else "markers+text", name=IMPL_NAMES[impl],
                                 text=[f"n={n}" for n in part["n"]], textposition="top center",
                                 marker={"size": 14, "color": IMPL_COLOURS[impl],
                                         "line": {"color": BLACK, "width": 1}}))
    return _style(fig, "flops per DRAM byte (measured bytes)", "achieved rate (TFLOP/s)",
                  "The kernels on the measured roofline", log_x=True, log_y=True)


def block_bytes(df) -> go.Figure:
    """Per tile shape: DRAM bytes measured (flat: L2 keeps K and V) against the model."""
    x = list(df["Br x Bc"])
    fig = go.Figure([go.Bar(x=x, y=df["model MB"], name="model: HBM ↔ SRAM", marker_color=ORANGE),
                     go.Bar(x=x, y=df["measured DRAM MB"], name="measured DRAM", marker_color=FLASH)])
    fig.update_layout(barmode="group")
    fig = _style(fig, "tile Br × Bc", "bytes per call (MB)", "Bytes: the model against DRAM", log_y=True)
    fig.update_layout(legend_y=-0.5)  # below the slanted tile labels
    return fig


def block_times(df) -> go.Figure:
    x = list(df["Br x Bc"])
    best = df["measured ms"].idxmin()
    colours = [GREEN if k == best else FLASH for k in df.index]
    fig = go.Figure([go.Bar(x=x, y=df["measured ms"], marker_color=colours, name="measured",
                            text=[f"{v:.2f}" for v in df["measured ms"]], textposition="outside")])
    fig.update_layout(showlegend=False)
    return _style(fig, "tile Br × Bc", "time per call (ms)", "Time: what the tile really changes (green: fastest)")
