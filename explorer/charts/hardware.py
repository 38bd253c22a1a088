"""Real hardware's charts (lessons 10 to 13): the H200's measured times and bytes beside the models,
the tile sweeps, the inference cache and split-KV, the whole GPU's reads, and the schedule."""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import cycle

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from flashviz.teach.format import count_text

from .labels import panels_on_a_phone, phone_names
from .style import (BLACK, BLUE, FLASH, FONT, GREEN, INK, ORANGE, PURPLE, SKY, STANDARD, TITLE, VERMILLION, _font,
                     _headroom, _hline, _line, _n_label, _style, on_a_phone)

IMPL_COLOURS = {"plain": STANDARD, "flash": FLASH, "mem_efficient": GREEN}
IMPL_NAMES = {"plain": "plain", "flash": "flash", "mem_efficient": "mem-efficient"}  # PyTorch SDPA's
IMPL_SYMBOLS = {"plain": "square", "flash": "circle", "mem_efficient": "diamond"}


def _measured_beside_model(df, measured: str, model: str) -> go.Figure:
    """Each kernel's measurement (solid) and the model (dotted, same colour), one legend
    entry per kernel plus one for what the dotted lines mean. Flash, the subject, is drawn
    last and narrow over the others' wide lines: where its measurement equals another
    kernel's (flash and mem-efficient read the same DRAM bytes), both stay in sight."""
    fig = go.Figure()
    parts = [(impl, part.sort_values("n")) for impl, part in df.groupby("impl", sort=False)]
    for impl, part in parts:
        colour, name = IMPL_COLOURS[impl], IMPL_NAMES[impl]
        fig.add_trace(_line(part["n"], part[model], f"{name}, model", colour, dash="dot",
                            symbol=IMPL_SYMBOLS[impl]))
        fig.data[-1].update(legendgroup=impl, showlegend=False)
    for rank, (impl, part) in sorted(enumerate(parts), key=lambda rp: rp[1][0] == "flash"):
        colour, name = IMPL_COLOURS[impl], IMPL_NAMES[impl]
        fig.add_trace(_line(part["n"], part[measured], name, colour, symbol=IMPL_SYMBOLS[impl]))
        fig.data[-1].update(legendgroup=impl, legendrank=rank + 1)
        if impl != "flash":
            fig.data[-1].update(line_width=7, marker_size=14)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name="model (dotted)",
                             line={"color": INK, "width": 3, "dash": "dot"}, hoverinfo="skip"))
    return fig


def measured_times(df) -> go.Figure:
    """Measured time (solid) and the roofline's prediction (dotted) over n."""
    fig = _measured_beside_model(df, "measured ms", "roofline ms")
    return _style(fig, "sequence length n (B·H·n² fixed)", "time per call (ms)", "Time: measured and model",
                  log_x=True, x_values=df["n"])


def measured_bytes(df) -> go.Figure:
    """DRAM bytes read + written (Nsight Compute) against the closed-form model."""
    fig = _measured_beside_model(df, "measured DRAM MB", "model MB")
    return _style(fig, "sequence length n (B·H·n² fixed)", "bytes per call (MB)", "DRAM bytes: measured and model",
                  log_x=True, log_y=True, x_values=df["n"])


def measured_roofline(points, bandwidth_tbs: float, peak_tflops: float, label: str) -> go.Figure:
    """The measured ceilings as a roof, and each kernel at its measured intensity and rate."""
    ai = np.logspace(0, 5, 200)
    fig = go.Figure([go.Scatter(x=ai, y=np.minimum(peak_tflops, bandwidth_tbs * ai), mode="lines",
                                name=f"measured roof ({label})", line={"color": BLACK, "width": 3})])
    for impl, part in points.groupby("impl", sort=False):
        # plain attention's points coincide (its bytes grow with n² like its flops): label the fused
        # ones, flash (the faster) above its points and the others below, so labels never meet
        fig.add_trace(go.Scatter(x=part["flops per DRAM byte"], y=part["achieved TFLOP/s"],
                                 mode="markers" if impl == "plain" else "markers+text", name=IMPL_NAMES[impl],
                                 text=[_n_label(n) for n in part["n"]],
                                 textposition="top center" if impl == "flash" else "bottom center",
                                 marker={"size": 14, "color": IMPL_COLOURS[impl], "symbol": IMPL_SYMBOLS[impl],
                                         "line": {"color": BLACK, "width": 1}},
                                 hovertemplate="n=%{text}: %{x:.3g} flops/byte, %{y:.3g} TFLOP/s"))
    return _style(fig, "flops per DRAM byte (measured bytes)", "achieved rate (TFLOP/s)",
                  "Kernels on the measured roofline (labels: n)", log_x=True, log_y=True)


def block_bytes(df) -> go.Figure:
    """Per tile shape: DRAM bytes measured (flat: L2 keeps K and V) against the model."""
    x = list(df["Br x Bc"])
    fig = go.Figure([go.Bar(x=x, y=df["model MB"], name="model: HBM ↔ SRAM", marker_color=ORANGE),
                     go.Bar(x=x, y=df["measured DRAM MB"], name="measured DRAM", marker_color=FLASH)])
    fig.update_layout(barmode="group")
    return _style(fig, "tile Br × Bc (rows × cols)", "bytes per call (MB)", "Bytes per tile: model and DRAM",
                  log_y=True)


def block_times(df) -> go.Figure:
    x = list(df["Br x Bc"])
    best = df["measured ms"].idxmin()
    colours = [GREEN if k == best else FLASH for k in df.index]
    fig = go.Figure([go.Bar(x=x, y=df["measured ms"], marker_color=colours, name="measured",
                            text=[f"{v:.2f}" for v in df["measured ms"]], textposition="outside")])
    fig.update_layout(showlegend=False)  # two decimals: nine labels side by side must not run together
    _headroom(fig, df["measured ms"], 1.25)
    fig = _style(fig, "tile Br × Bc (rows × cols)", "time per call (ms)", "Time per tile (green: fastest)")
    # on a chart narrower than labels.NARROW_BELOW (a phone's, or one of two in a row at 1280 beside the open sidebar:
    # explorer/plot.js) the nine labels in 13 px: at 18 px they ran into one another
    small = {"size": 13}
    on_a_phone(fig, {"data": {"0": {"textfont": small, "outsidetextfont": small}}})
    return fig


# ---- lesson 12, inference ----------------------------------------------------------------

_SHARING_STYLE = ((VERMILLION, "square", None), (BLUE, "circle", "dash"), (GREEN, "diamond", "dot"))


def cache_over_n(df, hbm_gb: float, gpu: str) -> go.Figure:
    """The whole model's K/V cache (GB) against cached tokens, one line per way of sharing
    heads (columns after "n"), with the GPU's HBM as a reference line."""
    lines = [c for c in df.columns if c != "n"]
    fig = go.Figure([_line(df["n"], df[c], c, colour, dash, symbol=symbol)
                     for c, (colour, symbol, dash) in zip(lines, cycle(_SHARING_STYLE))])
    _hline(fig, hbm_gb, f"{gpu}'s HBM, {hbm_gb:g} GB", BLACK)
    return _style(fig, "cached tokens n (per sequence)", "K/V cache (GB)", "The cache against the GPU's memory",
                  log_x=True, log_y=True, x_values=df["n"])


def split_times(df, best: int) -> go.Figure:
    """Split-KV: the modelled time of one decoding step against the number of chunks."""
    colours = [FLASH if s == best else SKY for s in df["splits"]]
    fig = go.Figure(go.Bar(x=[str(s) for s in df["splits"]], y=df["time us (model)"], marker_color=colours,
                           hovertemplate="%{x} chunks: %{y:.3g} µs<extra></extra>"))  # values: the table beside
    _headroom(fig, df["time us (model)"])
    return _style(fig, "chunks of the cache (splits)", "modelled time (µs)", "Split the cache to fill the GPU")


# ---- lesson 11, the whole GPU ----------------------------------------------------------------

@dataclass(frozen=True)
class ModelReads:
    """DRAM reads (bytes) the models give at each n: flash's three levels and plain attention's
    (None where its S would not fit)."""
    n: tuple[int, ...]
    three_level: tuple[float, ...]  # waves of blocks sharing the L2 (flashviz.hardware.gpu_model.whole_gpu)
    two_level: tuple[float, ...]    # one block against HBM, no L2
    floor: tuple[float, ...]        # Q + K + V once
    plain: tuple[float | None, ...]  # 4n² + 4nd per head


@dataclass(frozen=True)
class MeasuredReads:
    """DRAM reads (bytes) Nsight Compute measured at each n."""
    n: tuple[int, ...]
    reads: tuple[float, ...]


_MB = 2**20


def reads_figure(model: ModelReads, flash: MeasuredReads, cross: int | None, title: str,
                 plain: MeasuredReads | None = None, cache_name: str = "L2") -> go.Figure:
    """Reads (MB, log) against n (log): the floor, the two-level and three-level models,
    the H200's measured points, and the n where a head's K + V outgrow the share of the cache
    DRAM reads go through (`cache_name`); plain attention's model and measured points beside them."""
    fig = go.Figure()
    short = {}  # on a phone, by trace: names short enough for two to a row of the legend (`phone_names`)
    kept = [(n, r) for n, r in zip(model.n, model.plain) if r is not None]
    if kept:  # wide and pale, under the rest: at d = Br the two-level flash model lies right on it
        fig.add_scatter(x=[n for n, _ in kept], y=[r / _MB for _, r in kept], mode="lines",
                        name="plain attention, model (4n²+4nd)", line={"color": "#BBBBBB", "width": 9})
        short[len(fig.data) - 1] = "plain, model"
    if plain is not None and plain.n:
        fig.add_scatter(x=list(plain.n), y=[r / _MB for r in plain.reads], name="plain attention, H200",
                        mode="markers", marker={"color": "#666666", "size": 11, "symbol": "square"})
        short[len(fig.data) - 1] = "plain, H200"
    for values, name, phone, colour, dash in (
            (model.floor, "compulsory Q + K + V", "Q + K + V", GREEN, "dot"),
            (model.two_level, f"two-level model (one block, no {cache_name})", "two-level", VERMILLION, "dash"),
            (model.three_level, f"three-level model (waves, {cache_name})", "three-level", BLUE, None)):
        fig.add_scatter(x=list(model.n), y=[v / _MB for v in values], name=name, mode="lines",
                        line={"color": colour, "dash": dash, "width": 3})
        short[len(fig.data) - 1] = phone
    if flash.n:
        fig.add_scatter(x=list(flash.n), y=[r / _MB for r in flash.reads], name="H200, Nsight Compute",
                        mode="markers", marker={"color": BLACK, "size": 11, "symbol": "diamond"})
        short[len(fig.data) - 1] = "H200 (Nsight)"
    if cross:
        fig.add_vline(x=cross, line={"color": PURPLE, "width": 2, "dash": "dot"})
        # a log axis places annotations by log10 of the value; the label on the side of the line
        # with room for it (the axis runs from 2^10 to 2^20)
        fig.add_annotation(x=math.log10(cross), y=1, yref="paper", text=f"K + V in flight outgrow {cache_name}",
                           showarrow=False, xanchor="left" if cross <= 2**15 else "right",
                           font=_font(FONT, "#8B3A6B"))
    fig = _style(fig, "sequence length n (tokens)", "DRAM reads (MB)", title, log_x=True, log_y=True,
                 x_values=model.n)
    on_a_phone(fig, phone_names(short))
    return fig


# ---- lesson 13: the schedule ---------------------------------------------------------------------

SCHEDULE_COLOURS = {"K, V": "#9a9a9a", "QKᵀ": BLUE, "PV": SKY, "max": ORANGE, "exp": VERMILLION, "sum": ORANGE,
                    "poly": PURPLE, "rescale": "#b08a00", "operands": "#9a9a9a"}
SCHEDULE_KINDS = {"K, V": "copy K, V", "QKᵀ": "QKᵀ", "PV": "PV", "exp": "exp", "max": "FP32: max, sum",
                  "sum": "FP32: max, sum", "poly": "poly exp (FP32)", "rescale": "rescale O (FP32)",
                  "operands": "operands (smem)"}
BOTH_SCHEDULES = (("fa2", "FA2"), ("fa3", "FA3"))


def schedule_timeline(bars: pd.DataFrame, tile: int, lanes: dict[str, list[str]],
                      panels: tuple[tuple[str, str], ...] = BOTH_SCHEDULES, title: str | None = None,
                      fade: bool = True, room: float = 0.02) -> go.Figure:
    """Schedules' steps on their lanes, one panel each (by default FA2 above, FA3 below; `panels`: each
    panel's schedule in bars["schedule"] and its name) over the same time axis (µs): the steps of key
    tiles up to `tile` drawn, those of `tile` itself solid and the earlier ones faded, the axis fixed to
    the whole run so a step forward only adds (fade=False: every step solid; `room`: the axis's share past
    the last step, where each panel's name sits). `bars`: the columns of
    flashviz.players.schedule_lesson.bars_frame; `lanes`: each schedule's lanes, top to bottom."""
    from plotly.subplots import make_subplots
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        row_heights=[len(lanes[sched]) for sched, _ in panels])
    shown = bars[bars["tile"] <= tile]
    seen: set[str] = set()
    for row, (sched, _) in enumerate(panels, start=1):
        part = shown[shown["schedule"] == sched]
        for label, steps in part.groupby("label", sort=False):
            kind = SCHEDULE_KINDS[str(label)]
            fig.add_trace(go.Bar(
                # to the tenth of a ns: a live chart carries these for every value of its slider
                y=steps["lane"].tolist(), x=(steps["length_ns"] / 1e3).round(4).tolist(),
                base=(steps["start_ns"] / 1e3).round(4).tolist(), orientation="h",
                name=kind, legendgroup=kind, showlegend=kind not in seen,
                legendrank=list(SCHEDULE_KINDS).index(str(label)),
                marker={"color": SCHEDULE_COLOURS[str(label)], "line": {"color": INK, "width": 1},
                        "opacity": [1.0 if t == tile or not fade else 0.35 for t in steps["tile"]]},
                text=[f"{label} {t}" if label not in ("K, V", "operands") else
                      f"K,V {t}" if label == "K, V" else "" for t in steps["tile"]],
                textposition="inside", insidetextanchor="middle",
                customdata=np.stack([steps["tile"], steps["start_ns"].round(1), steps["length_ns"].round(1)], axis=1),
                hovertemplate=f"{label}, tile %{{customdata[0]}}: starts at %{{customdata[1]:.0f}} ns, "
                              "runs %{customdata[2]:.0f} ns<extra></extra>"), row=row, col=1)
            seen.add(kind)
        fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(lanes[sched])), row=row, col=1)
    end = float(bars["end_ns"].max()) / 1e3
    fig.update_layout(barmode="overlay", bargap=0.1, uniformtext={"minsize": 16, "mode": "hide"})
    fig = _style(fig, "", "", title or f"Key tiles 1–{tile} on one SM")
    # a label that does not fit its step is hidden (uniformtext), never turned or spilled over the next step
    fig.update_traces(textangle=0, constraintext="inside", textfont=_font(16), selector={"type": "bar"})
    fig.update_xaxes(range=[0, end * (1 + room)])
    fig.update_xaxes(title_text="time on one SM (µs)", row=len(panels), col=1)
    fig.update_yaxes(showgrid=False)
    for row, (_, name) in enumerate(panels, start=1):  # in each panel's top right, where no step is drawn
        top = fig.layout[f"yaxis{'' if row == 1 else row}"].domain[1]
        fig.add_annotation(text=f"<b>{name}</b>", xref="paper", yref="paper", x=1, y=top, xanchor="right",
                           yanchor="top", showarrow=False, font=_font(TITLE))
    return fig


def schedule_measured(df: pd.DataFrame, title: str) -> go.Figure:
    """Each kernel's measured time beside the schedule model's at one call: columns "kernel",
    "measured ms", "model ms"."""
    fig = go.Figure()
    for col, name, colour, pattern in (("measured ms", "measured on the H200", BLUE, ""),
                                       ("model ms", "schedule model", ORANGE, "/")):
        fig.add_trace(go.Bar(x=df["kernel"].tolist(), y=df[col].tolist(), name=name, marker_color=colour,
                             marker_pattern_shape=pattern, marker_line={"color": INK, "width": 1},
                             text=[count_text(v) for v in df[col]], textposition="outside",
                             hovertemplate="%{x}: %{y:.3g} ms<extra>" + name + "</extra>"))
    fig.update_layout(barmode="group")
    _headroom(fig, list(df["measured ms"]) + list(df["model ms"]))
    return _style(fig, "", "time per call (ms)", title, height=360)


# ---- lesson 14, windows, documents and sinks -----------------------------------------------------

_MASK_STYLE = ((STANDARD, "square", None), (ORANGE, "diamond", "dash"), (FLASH, "circle", None),
               (GREEN, "triangle-up", "dot"))
_KIND_COLOURS = ((0.0, "#F4F4F4"), (0.33, "#F4F4F4"), (0.33, ORANGE), (0.67, ORANGE), (0.67, BLUE), (1.0, BLUE))


_MASK_AXES = {"GFLOPs": ("matmul flops (GFLOP)", "Flops of each mask as n grows"),
              "HBM MB": ("HBM traffic (MB)", "HBM bytes of each mask as n grows")}


def mask_growth(df: pd.DataFrame, column: str) -> go.Figure:
    """One line per mask (flashviz.model.mask_sweeps.OverMasks: n, mask and `column`) against n, log-log:
    the full matrix and causal climb as n², a window and fixed-length documents as n."""
    masks = list(dict.fromkeys(df["mask"]))
    fig = go.Figure([_line(df.loc[df["mask"] == m, "n"], df.loc[df["mask"] == m, column], m, colour, dash,
                           symbol=symbol) for m, (colour, symbol, dash) in zip(masks, cycle(_MASK_STYLE))])
    y, title = _MASK_AXES.get(column, (column, f"{column} of each mask as n grows"))
    return _style(fig, "sequence length n (tokens)", y, title, log_x=True, log_y=True, x_values=df["n"])


def mask_tiles(maps: dict[str, list[list[int]]], n: int) -> go.Figure:
    """Each mask's tiles side by side: full (blue), partial (orange, masked inside) and empty (pale:
    never loaded, never computed). maps: name -> rows of masks.EMPTY, PARTIAL, FULL."""
    from plotly.subplots import make_subplots
    names = list(maps)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.03)
    for k, name in enumerate(names, 1):
        fig.add_trace(go.Heatmap(z=maps[name], zmin=0, zmax=2, colorscale=[list(c) for c in _KIND_COLOURS],
                                 showscale=False, xgap=1, ygap=1, customdata=np.array(maps[name]),
                                 hovertemplate="query block %{y}, key block %{x}<extra>" + name + "</extra>"),
                      row=1, col=k)
    for kind, colour in (("full", BLUE), ("partial: masked inside", ORANGE), ("empty: skipped", "#D9D9D9")):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=kind,
                                 marker={"size": 14, "symbol": "square", "color": colour}))
    fig.update_yaxes(autorange="reversed", showticklabels=False)
    fig.update_xaxes(showticklabels=False)
    fig = _style(fig, "key block (j, across)", "query block (i, down)", f"Each mask's tiles at n = {n:,}",
                 height=400)
    for note in fig.layout.annotations:
        note.font.size = FONT
    for k in range(2, len(names) + 1):  # one title for the row of panels: the first's
        fig.layout[f"yaxis{k}"].title.text = ""
    on_a_phone(fig, panels_on_a_phone(len(names)))
    return fig


_KIND_STYLE = {"full": (STANDARD, "square"), "causal": (ORANGE, "diamond"), "window": (FLASH, "circle"),
               "docs": (GREEN, "triangle-up"), "sink": (PURPLE, "x")}
_KIND_NAMES = {"full": "no mask", "causal": "causal", "window": "windows", "docs": "packed documents",
               "sink": "with a sink"}
_KIND_ON_A_PHONE = {"docs": "packed docs"}  # a name shorter on a phone (labels.phone_names), where it is long


def masks_measured(df: pd.DataFrame) -> go.Figure:
    """flash-attn-4's measured time against the engine's share of tiles computed (flashviz.hardware.
    masks_measured.Measured's columns), each as a share of the full matrix's, log-log, with the line where
    time would be in proportion to the tiles."""
    fig = go.Figure()
    low = float(min(df["share of tiles"].min(), df["share of full time"].min()))
    fig.add_trace(go.Scatter(x=[low, 1.0], y=[low, 1.0], mode="lines", name="time in proportion to tiles",
                             line={"color": BLACK, "width": 2, "dash": "dot"}, hoverinfo="skip"))
    short = {0: "time ∝ tiles"}  # on a phone (`phone_names`)
    for kind, (colour, symbol) in _KIND_STYLE.items():
        part = df[df["kind"] == kind]
        if len(part):
            fig.add_trace(go.Scatter(x=part["share of tiles"], y=part["share of full time"], mode="markers",
                                     name=_KIND_NAMES[kind], text=list(part["mask"]),
                                     marker={"color": colour, "symbol": symbol, "size": 11},
                                     hovertemplate="%{text}: %{x:.2%} of the tiles, %{y:.2%} of the time"
                                                   "<extra></extra>"))
            if kind in _KIND_ON_A_PHONE:
                short[len(fig.data) - 1] = _KIND_ON_A_PHONE[kind]
    fig = _style(fig, "share of the tiles computed (engine)", "share of the full time (measured)",
                 "flash-attn-4 on the H200: time against tiles", log_x=True, log_y=True)
    on_a_phone(fig, phone_names(short))
    return fig
