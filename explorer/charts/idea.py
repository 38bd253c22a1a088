"""The idea's charts (lessons 1 and 2, and lesson 7's flops against bytes): bytes against flops as n
grows, the roofline (lessons 1, 10 and 12 draw it), softmax's weights and its running statistics."""
from __future__ import annotations

import math
from itertools import combinations, cycle

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from flashviz.model.sweeps import OverN
from flashviz.teach.claims import SAME, compare

from .style import (BLACK, BROKEN, FLASH, GREEN, INK, ORANGE, PURPLE, SKY, STANDARD, YELLOW, _font, _line, _log_ticks,
                     _n_label, _style)

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
_ROOF_COLOURS = (GREEN, ORANGE, SKY, PURPLE, BLACK, YELLOW)  # cycles past six machines
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
        return marks.assign(label=marks["method"].astype(str), symbol="").sort_values("x", kind="stable")
    rows = []
    for _, group in marks.groupby(["method", marks["x"].round(9), marks["y"].round(9)], sort=False):
        first, names = group.iloc[0], list(group["kernel"].astype(str))
        # flash's verdict is the two-level count's (HBM and SRAM, no L2): its measured bytes are far fewer
        count = " (HBM/SRAM count)" if first["method"] == "flash" else ""
        rows.append({**first.to_dict(), "symbol": _KERNEL_SYMBOL.get(names[0], ""),
                     "label": f"{', '.join(names)}{count}<br>{first['bound']}-bound"})
    return pd.DataFrame(rows).sort_values("x", kind="stable")


# Where a roofline label may go: (ax, ay) in px from its point (ay down), and its xanchor ("left":
# it hangs to the right of its arrow). In order of preference: below the roof first, where nothing
# else is drawn, above it last.
_LABEL_SPOTS = ((30, 50, "left"), (-30, 50, "right"), (30, 25, "left"), (-30, 25, "right"),
                (0, 60, "center"), (30, 105, "left"), (-30, 105, "right"), (0, 115, "center"),
                (30, 160, "left"), (-30, 160, "right"), (-30, -50, "right"), (30, -50, "left"))
_LABEL_PLOT_PX = (470, 210)  # the plot area of a 560 px chart: labels that clear there clear wider
_CHAR_PX, _LINE_PX = 10.5, 22  # an 18 px font, as drawn
_MEET = 2  # two labels that meet, arrows that cross, a label above or below the plot: against one out at a side (1)
# A phone's chart (a 390 px screen: 358 px of chart) takes a layout of its own, carried in the figure's meta and put
# on it by the page where the chart is narrower than NARROW_BELOW px (explorer/plot.js): NARROW_HEIGHT px tall (a
# phone's screen holds it), labels and legend in a 14 px font, the legend in two columns (plotly.js gives a legend
# the plot area's width, so the FP32 ceiling is named "non-matmul" there, the H200's measured kernel "measured"),
# and the labels laid out on that chart's plot area, with shorter arrows, where a label out at a side is as bad as
# two that meet. Lesson 12's roofline, two short labels, fits a phone as it is.
NARROW_BELOW, NARROW_FONT, NARROW_HEIGHT = 480, 14, 520
_NARROW_PLOT_PX = (265, 300)
_NARROW_SPOTS = (tuple((round(ax / 2), round(ay * 0.7), anchor) for ax, ay, anchor in _LABEL_SPOTS)
                 + ((0, -50, "center"),))
_NARROW_CHAR_PX, _NARROW_LINE_PX = _CHAR_PX * NARROW_FONT / 18, _LINE_PX * NARROW_FONT / 18


def _crosses(a, b) -> bool:
    """Whether segments a and b, each ((x, y), (x, y)), cross."""
    def side(seg, r) -> float:  # which side of seg the point r is on
        (p, q) = seg
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b[0]) * side(a, b[1]) < 0 and side(b, a[0]) * side(b, a[1]) < 0


def _label_spots(marks, x_range, y_range, plot_px: tuple[int, int] = _LABEL_PLOT_PX, char_px: float = _CHAR_PX,
                 line_px: float = _LINE_PX, side: int = 1,
                 choices: tuple[tuple[int, int, str], ...] = _LABEL_SPOTS, avoid=()) -> list[tuple[int, int, str]]:
    """(ax, ay, xanchor) for each mark's label: of every choice of _LABEL_SPOTS, the one whose
    labels leave the plot, cover another mark, meet each other or cross arrows least often,
    then the most preferred. Laid out on the plot of a 560 px chart: the spots are in px, so on
    a wider chart the marks only move further apart. A label that leaves the plot at a side
    costs 1, as a wider chart may still hold it; two labels that meet, two arrows that cross, or
    a label above or below the plot (over the legend or the axis) cost _MEET. With every cost 1,
    on the H200 with its measured points (a wider span of intensity) flash's label and the
    matmuls' covered each other. `plot_px`, `char_px` and `line_px`: another chart's plot area and font (a
    phone's), and `side` what a label out at a side costs there (no wider chart holds it on a phone); `avoid`:
    other points, (x, y) in data, that a label covers at the cost of a mark (the H200's measured kernel)."""
    width, height = plot_px
    sx, sy = width / (x_range[1] - x_range[0]), height / (y_range[1] - y_range[0])
    def px(x: float, y: float) -> tuple[float, float]:  # y up
        return sx * (math.log10(x) - x_range[0]), sy * (math.log10(y) - y_range[0])
    at = [px(x, y) for x, y in zip(marks["x"], marks["y"])]
    others = at + [px(x, y) for x, y in avoid]

    def box(k: int, spot: tuple[int, int, str]) -> tuple[float, float, float, float]:
        lines = str(marks["label"].iloc[k]).split("<br>")
        (ax, ay, anchor), w, h = spot, char_px * max(map(len, lines)) + 8, line_px * len(lines) + 6
        x0 = at[k][0] + ax - {"left": 0, "center": w / 2, "right": w}[anchor]
        return x0, at[k][1] - ay - h / 2, x0 + w, at[k][1] - ay + h / 2

    def with_arrow(k: int, b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        (x, y), r = at[k], 10  # the arrow reaches its point, less the standoff
        return min(b[0], x + r), min(b[1], y + r), max(b[2], x - r), max(b[3], y - r)
    boxes = [[box(k, spot) for spot in choices] for k in range(len(at))]
    drawn = [[with_arrow(k, b) for b in boxes[k]] for k in range(len(at))]  # label and arrow
    arrows = [[(at[k], (at[k][0] + ax, at[k][1] - ay)) for ax, ay, _ in choices] for k in range(len(at))]
    # per mark and spot: what its leaving the plot costs, plus the other marks (and points to avoid) it covers
    alone = [[(_MEET if not (b[1] >= 0 and b[3] <= height) else side * int(not (b[0] >= 0 and b[2] <= width)))
              + sum(b[0] - 12 < x < b[2] + 12 and b[1] - 12 < y < b[3] + 12
                    for j, (x, y) in enumerate(others) if j != k)
              for b in boxes[k]] for k in range(len(at))]

    # The cost of every choice at once: one axis per mark, its spots along it (C order is product()'s
    # order, so argmin's first minimum is the choice min() over product() took).
    spots, marks_n = len(choices), len(at)
    bad = np.zeros((spots,) * marks_n, dtype=np.int64)
    for k in range(marks_n):
        bad += np.asarray(alone[k]).reshape([spots if axis == k else 1 for axis in range(marks_n)])
    for j, k in combinations(range(marks_n), 2):
        pair = np.array([[_MEET * ((a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
                                    + _crosses(arrows[j][i], arrows[k][m])) for m, b in enumerate(drawn[k])]
                          for i, a in enumerate(drawn[j])], dtype=np.int64)
        bad += pair.reshape([spots if axis in (j, k) else 1 for axis in range(marks_n)])
    index_sum = sum(np.arange(spots).reshape([spots if axis == k else 1 for axis in range(marks_n)])
                    for k in range(marks_n))
    best = np.unravel_index(np.argmin(bad * (spots * marks_n + 1) + index_sum), bad.shape) if marks_n else ()
    return [choices[int(i)] for i in best]


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
    it covers no other mark or label (_label_spots), so labels can neither swap nor overlap
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
    first = min(math.floor(left), ROOF_DECADES[0])
    last = max(math.ceil(right), ROOF_DECADES[1] if measured is None else MEASURED_ROOF_TOP)
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
    narrow_traces = {}  # a trace's name on a phone, where a legend of two columns has room for short ones alone
    if kernels and selected in hardware and hardware[selected].peak_flops(dtype) != hardware[selected].fp32_flops:
        _cuda_core_ceiling(fig, hardware[selected], ai)
        narrow_traces[str(len(fig.data) - 1)] = {"name": "non-matmul"}
    lowest = min(10 ** left * min(hw.hbm_bytes_per_s for hw in hardware.values()) / 1e12, rates.min())
    highest = max(hw.peak_flops(dtype) for hw in hardware.values()) / 1e12
    y_range = [math.log10(lowest) - 0.3, math.log10(highest) + 0.4]
    marks = _roofline_marks(points).reset_index(drop=True)
    ran = [] if measured is None else list(zip(measured["flops per DRAM byte"].astype(float),
                                               measured["achieved TFLOP/s"].astype(float)))
    spots = _label_spots(marks, (left, right), y_range, avoid=ran)
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
        narrow_traces[str(len(fig.data) - 1)] = {"name": "measured"}
    fig.update_xaxes(range=[left, right])
    fig.update_yaxes(range=y_range)
    units = "FP32 units" if dtype in ("float32", "float64") else "matrix units"  # NVIDIA's and AMD's names differ
    fig = _style(fig, "arithmetic intensity (flops per byte)", "attainable rate (TFLOP/s)",
                 f"Roofline, {dtype} on {units}", log_x=True, log_y=True)
    fig.layout.xaxis.update(_log_ticks([10 ** left, 10 ** right]))  # the axis's ticks, not the roofs' whole span
    if kernels:  # three labels of two or three lines: a phone's chart lays them out anew (two short ones fit it)
        fig.layout.meta = _on_a_phone(marks, order, (left, right), y_range, narrow_traces, ran)
    return fig


def _on_a_phone(marks, order, x_range, y_range, traces: dict, avoid) -> dict:
    """The kernel roofline's layout on a phone (NARROW_BELOW; explorer/plot.js puts it on the figure there): each
    label broken before its parenthesis and after its commas too ("flash", "(HBM/SRAM", "count)", "memory-bound"),
    in the order the labels are added (`order`, of marks' rows), laid out on a phone's plot; `traces`: the names
    its legend gives, by trace; `avoid`: as `_label_spots` takes it."""
    labels = (marks["label"].str.replace(" (", "<br>(", regex=False).str.replace(", ", ",<br>", regex=False)
              .str.replace("(HBM/SRAM count)", "(HBM/SRAM<br>count)", regex=False))
    spots = _label_spots(marks.assign(label=labels), x_range, y_range, _NARROW_PLOT_PX, _NARROW_CHAR_PX,
                         _NARROW_LINE_PX, side=_MEET, choices=_NARROW_SPOTS, avoid=avoid)
    notes = [{"ax": spots[k][0], "ay": spots[k][1], "xanchor": spots[k][2], "text": labels.iloc[k],
              "font": {"size": NARROW_FONT}} for k in order]
    return {"narrow": {"below": NARROW_BELOW, "annotations": notes, "data": traces,
                       "layout": {"height": NARROW_HEIGHT, "legend": {"font": {"size": NARROW_FONT}}}}}


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
    # m is a score; l is a sum of weights e^(s − m), a pure number: one axis, each named with its unit
    return _style(fig, "blocks seen (count)", "m (score units) · l (sum, no unit)", "m and l after each block",
                  height=360)
