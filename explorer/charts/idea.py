"""The idea's charts (lessons 1 and 2, and lesson 7's flops against bytes): bytes against flops as n
grows, the roofline (lessons 1, 10 and 12 draw it), softmax's weights and its running statistics."""
from __future__ import annotations

import math
from itertools import cycle

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from flashviz.model.sweeps import OverN
from flashviz.teach.claims import SAME, compare

from .labels import NARROW_FONT, NARROW_HEIGHT, PHONE, label_spots, phone_names
from .style import (BLACK, BROKEN, FLASH, GREEN, GREY, INK, ORANGE, PURPLE, SKY, STANDARD, _font, _line, _log_ticks,
                     _n_label, _style, on_a_phone)

def _flops_and_bytes_title(df: pd.DataFrame) -> str:
    """What the sweep shows, from its numbers: the same flops at every n (no mask), or, at the
    largest n, how flash's flops and bytes compare (causal: flash skips the masked tiles)."""
    c = OverN
    same = all(math.isclose(a, b, rel_tol=SAME) for a, b in zip(df[c.STD_GFLOPS], df[c.FLASH_GFLOPS]))
    if same:
        moved = all(math.isclose(a, b, rel_tol=SAME) for a, b in zip(df[c.STD_HBM_MB], df[c.FLASH_HBM_MB]))
        return "Same flops, " + ("the same bytes" if moved else "different bytes")
    top = df.loc[df[c.N].idxmax()]
    return (f"Flash at n = {_n_label(top[c.N])}: {compare(top[c.STD_GFLOPS], top[c.FLASH_GFLOPS], 'flops')}, "
            f"{compare(top[c.STD_HBM_MB], top[c.FLASH_HBM_MB])}")


def bytes_vs_flops(df: pd.DataFrame, dtype: str = "") -> go.Figure:
    """HBM traffic against arithmetic as n grows (log-log), standard and flash, from sweeps.over_n; the
    title is computed from the data, and names the storage type when given."""
    c = OverN
    labels = [f"n={n}" for n in df[c.N]]
    fig = go.Figure([
        _line(df[c.STD_GFLOPS], df[c.STD_HBM_MB], "standard", STANDARD, text=labels),
        _line(df[c.FLASH_GFLOPS], df[c.FLASH_HBM_MB], "flash", FLASH, text=labels, symbol="diamond"),
    ])
    fig.update_traces(hovertemplate="%{text}: %{x:.3g} GFLOPs, %{y:.3g} MB")
    title = _flops_and_bytes_title(df) + (f", {dtype}" if dtype else "")
    return _style(fig, "work (GFLOPs)", "HBM traffic (MB)", title, log_x=True, log_y=True)


_ROOF_DASHES = ("dot", "dash", "dashdot", "longdash", "longdashdot")
# cycles past six machines; no yellow: the MI300X's faint yellow line was lost on a projector (a teacher's walk)
_ROOF_COLOURS = (GREEN, ORANGE, SKY, PURPLE, BLACK, GREY)
_POINT_STYLE = {"standard": (STANDARD, "square"), "flash": (FLASH, "circle")}
_KERNEL_SYMBOL = {"softmax": "triangle-up"}  # standard's matmul kernels keep the square


def _roofline_marks(points) -> pd.DataFrame:
    """One mark per place on the chart, left to right, with its label. With a 'kernel' column
    (standard attention as its kernels), kernels at the same intensity and rate share a mark
    (S = QKᵀ and O = PV move and compute the same), and a label names the kernels and their
    bound (their times are the page's sentence and table: a label must stay short)."""
    marks = points.assign(x=points["flops per byte"].astype(float),
                          y=points["attainable TFLOP/s"].astype(float))
    if "kernel" not in marks.columns:
        method = marks["method"].astype(str)
        return marks.assign(label=method, phone=method, symbol="").sort_values("x", kind="stable")
    rows = []
    for _, group in marks.groupby(["method", marks["x"].round(9), marks["y"].round(9)], sort=False):
        first, names = group.iloc[0], list(group["kernel"].astype(str))
        # flash's verdict is the two-level count's (HBM and SRAM, no L2): its measured bytes are far fewer
        count = ("HBM/SRAM count",) if first["method"] == "flash" else ()
        bound = f"{first['bound']}-bound"
        rows.append({**first.to_dict(), "symbol": _KERNEL_SYMBOL.get(names[0], ""),
                     "label": f"{', '.join(names)}{''.join(f' ({c})' for c in count)}<br>{bound}",
                     # on a phone's narrow plot, a line for each name and a parenthesis of two
                     "phone": "<br>".join([",<br>".join(names), *(f"({c.replace(' ', '<br>')})" for c in count),
                                           bound])})
    return pd.DataFrame(rows).sort_values("x", kind="stable")


def _cuda_core_ceiling(fig: go.Figure, hw, ai) -> None:
    """The selected machine's non-matmul ceiling (FP32 on CUDA cores), where the softmax's
    max, exp, sum and divide run: thin, from where its bandwidth slope meets it."""
    knee = hw.fp32_flops / hw.hbm_bytes_per_s
    x = [knee, float(ai[-1])]
    fig.add_trace(go.Scatter(x=x, y=[hw.fp32_flops / 1e12] * 2, mode="lines", legendrank=1,
                             name="non-matmul (FP32)",  # short: a legend's columns take the longest name
                             line={"color": INK, "width": 2, "dash": "dot"}, hoverinfo="skip"))


ROOF_SAMPLES_PER_DECADE = 50  # a roof's points: where its hover reads off a rate
# The decades of intensity the roofs are drawn over: every preset GPU's axis falls within 10^-2 to 10^4 flops per
# byte at every setting (its right end at 10^2.97-10^3.91 with kernels), and within 10^6 with the H200's measured
# points (passed at every d, with no rows where none were measured: the axis ends at 10^5.42-10^5.50). A reader's
# own GPU may widen it.
ROOF_DECADES, MEASURED_ROOF_TOP = (-2, 4), 6


def roofline(points, hardware: dict, dtype: str, selected: str, measured=None) -> go.Figure:
    """Attainable rate against flops per byte, one roof per machine (any number of them),
    and attention's points at `dtype`: 16-bit types on tensor cores, as attention really
    runs; 32- and 64-bit ones on CUDA cores. With a 'kernel' column, standard attention is
    the kernels it runs (sweeps.roofline_points(kernels=True)), each labelled with its bound,
    and the selected machine's non-matmul ceiling is drawn: the softmax's own roof.
    Each mark is named by an arrow from its own coordinates, its label below the roof where
    it covers no other mark or label (labels.label_spots), so labels can neither swap nor overlap
    when the points cross or sit together. `measured` (measured.roofline_points' flash rows, the H200's):
    where the real kernel sits, its flops over the DRAM bytes Nsight Compute read, at its achieved rate (no rows:
    nothing measured at this setting, and no legend entry)."""
    xs, rates = points["flops per byte"].astype(float), points["attainable TFLOP/s"].astype(float)
    if measured is not None and len(measured):
        xs = pd.concat([xs, measured["flops per DRAM byte"].astype(float)])
        rates = pd.concat([rates, measured["achieved TFLOP/s"].astype(float)])
    kernels = "kernel" in points.columns
    lo, hi = math.log10(xs.min()), math.log10(xs.max()) + 1.5  # room on the right for a label
    if kernels:  # three labels to place: no more decades than the points and the ridges need
        ridge = max(h.peak_flops(dtype) / h.hbm_bytes_per_s for h in hardware.values())
        left, right = lo - 1.0, max(hi, math.log10(ridge) + 0.5)
    else:
        left, right = min(-2.0, lo - 1.5), max(3.0, hi)
    # The axis spans what the points need; the roofs are drawn at fixed intensities over ROOF_DECADES, or wider
    # where the axis is. So a slider that moves the points moves the axis and the marks, and the roofs (most of
    # the figure) stay as they are along it: drawn over the axis's own span, they weighed 1.3 MB along n, too much
    # for the figure to follow the slider live (explorer/live.py).
    top = ROOF_DECADES[1] if measured is None else MEASURED_ROOF_TOP
    if right > top and math.log10(xs.max()) + 0.5 <= top:  # the label's room cut to half a decade, not the roofs
        right = top  # widened: lesson 12's prefill at a query tile of 512 or more reached 10^4.16 and 10^4.41
    first = min(math.floor(left), ROOF_DECADES[0])
    last = max(math.ceil(right), top)
    ai = np.logspace(first, last, ROOF_SAMPLES_PER_DECADE * (last - first) + 1)
    fig = go.Figure()
    styles = zip(cycle(_ROOF_COLOURS), cycle(_ROOF_DASHES))  # a new pair for 30 machines
    for name, hw in hardware.items():
        colour, dash = next(styles)
        mine = name == selected
        roof = np.minimum(hw.peak_flops(dtype), hw.hbm_bytes_per_s * ai) / 1e12
        fig.add_trace(go.Scatter(  # y in float32: half its JSON, the hover prints 3 digits of 7
            x=ai, y=roof.astype(np.float32), mode="lines",
            name=name, legendrank=1 if mine else 2,  # the chosen machine first, and thick
            line={"color": colour, "width": 5 if mine else 2.5, "dash": None if mine else dash},
            hovertemplate="%{x:.3g} flops/byte: %{y:.3g} TFLOP/s<extra>" + name + "</extra>"))
    short = {}  # a trace's name on a phone (labels.phone_names)
    if kernels and selected in hardware and hardware[selected].peak_flops(dtype) != hardware[selected].fp32_flops:
        _cuda_core_ceiling(fig, hardware[selected], ai)
        short[len(fig.data) - 1] = "non-matmul"
    lowest = min(10 ** left * min(hw.hbm_bytes_per_s for hw in hardware.values()) / 1e12, rates.min())
    highest = max(hw.peak_flops(dtype) for hw in hardware.values()) / 1e12
    y_range = [math.log10(lowest) - 0.3, math.log10(highest) + 0.4]
    marks = _roofline_marks(points).reset_index(drop=True)
    ran = [] if measured is None else list(zip(measured["flops per DRAM byte"].astype(float),
                                               measured["achieved TFLOP/s"].astype(float)))
    spots = label_spots(marks, (left, right), y_range, avoid=ran)
    # flash under the others: at d = 64 it sits just right of the matmuls, and the smaller mark stays seen
    order = sorted(range(len(marks)), key=lambda k: marks["method"].iloc[k] != "flash")
    for k, row in ((k, marks.iloc[k]) for k in order):
        method = str(row["method"])
        colour, symbol = _POINT_STYLE.get(method, (BLACK, "diamond"))
        fig.add_trace(go.Scatter(
            x=[row["x"]], y=[row["y"]], name=row["label"].replace("<br>", ": "), mode="markers",
            showlegend=False,  # arrows name them
            marker={"size": 22 if method == "flash" else 16, "color": colour, "symbol": row["symbol"] or symbol,
                    "line": {"color": BLACK, "width": 1.5}},
            hovertemplate=f"{row['label'].replace('<br>', ', ')}: %{{x:.3g}} flops/byte, "
                          "%{y:.3g} TFLOP/s<extra></extra>"))
        ax, ay, anchor = spots[k]
        fig.add_annotation(  # on log axes an annotation's x and y are log10 of the data
            x=math.log10(row["x"]), y=math.log10(row["y"]), xref="x", yref="y", text=row["label"],
            showarrow=True, arrowhead=2, arrowwidth=2, arrowcolor=colour, standoff=10,
            ax=ax, ay=ay, xanchor=anchor,  # the whole label on one side of its point
            font=_font(color=colour), bgcolor="white", bordercolor=colour, borderpad=3)
    if measured is not None:  # none measured at this setting: an empty trace, so the chart keeps its traces along d
        fig.add_trace(go.Scatter(
            x=list(measured["flops per DRAM byte"]), y=list(measured["achieved TFLOP/s"]), mode="markers",
            name="flash measured (H200)", legendrank=1, showlegend=bool(len(measured)),
            marker={"size": 14, "color": FLASH, "symbol": "diamond-open", "line": {"width": 3}},
            hovertemplate="measured, n = %{text}: %{x:.3g} flops per DRAM byte, %{y:.3g} TFLOP/s<extra></extra>",
            text=[f"{int(n):,}" for n in measured["n"]]))
        short[len(fig.data) - 1] = "measured"
    fig.update_xaxes(range=[left, right])
    fig.update_yaxes(range=y_range)
    units = "FP32 units" if dtype in ("float32", "float64") else "matrix units"  # NVIDIA's and AMD's names differ
    fig = _style(fig, "arithmetic intensity (flops per byte)", "attainable rate (TFLOP/s)",
                 f"Roofline, {dtype} on {units}", log_x=True, log_y=True)
    fig.layout.xaxis.update(_log_ticks([10 ** left, 10 ** right]))  # the axis's ticks, not the roofs' whole span
    if kernels:  # three labels of two or three lines: a phone's chart lays them out anew (two short ones fit it)
        on_a_phone(fig, _roofline_on_a_phone(marks, order, (left, right), y_range, short, ran))
    return fig


def _roofline_on_a_phone(marks, order, x_range, y_range, short: dict[int, str], avoid) -> dict:
    """The kernel roofline's layout on a phone (labels.PHONE; explorer/plot.js puts it on a chart narrower than
    NARROW_BELOW px): each label in more, shorter lines (the marks' "phone" column) in a 14 px font, laid out on a
    phone's plot, in the order the labels are added (`order`, of marks' rows); `short`: the names its legend gives,
    by trace (labels.phone_names); `avoid`: as `label_spots` takes it."""
    spots = label_spots(marks.assign(label=marks["phone"]), x_range, y_range, PHONE, avoid)
    notes = [{"ax": spots[k][0], "ay": spots[k][1], "xanchor": spots[k][2], "text": marks["phone"].iloc[k],
              "font": {"size": NARROW_FONT}} for k in order]
    return {"annotations": notes, **phone_names(short), "layout": {"height": NARROW_HEIGHT}}


def weights_bars(df) -> go.Figure:
    idx = list(range(len(df)))
    fig = go.Figure([
        go.Bar(x=idx, y=df["softmax"], name="ordinary softmax", marker_color=GREEN),
        go.Bar(x=idx, y=df["online"], name="online (rescaled)", marker_color=FLASH),
        go.Bar(x=idx, y=df["no rescale"], name="no rescale (bug)", marker_color=BROKEN),
    ])
    fig.update_layout(barmode="group", bargap=0.15)
    return _style(fig, "position in the row (index)", "softmax weight (0 to 1)", "Weights, three ways")


def running_stats(steps) -> go.Figure:
    """Running max and sum after each block of the online softmax."""
    blocks = list(range(1, len(steps) + 1))
    fig = go.Figure([
        _line(blocks, [m for m, _ in steps], "running max m", ORANGE),
        _line(blocks, [l for _, l in steps], "running sum l", FLASH, symbol="diamond"),
    ])
    # whole blocks only: plotly's own ticks put 1.5, 2.5 and 3.5 on a count of four (a teacher's walk)
    fig.update_xaxes(tickmode="linear", tick0=1, dtick=max(1, math.ceil(len(blocks) / 8)))
    # m is a score; l is a sum of weights e^(s − m), a pure number: one axis, each named with its unit
    return _style(fig, "blocks seen (count)", "m (score units) · l (sum, no unit)", "m and l after each block",
                  height=360)
