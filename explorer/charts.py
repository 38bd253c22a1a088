"""Pure figure builders: engine results in, plotly Figure out. The app layer's pictures:
no Streamlit here, and the engine (flashviz/) never imports this module or plotly.

Sized for a classroom projector at 1280x720, read from the back row: every piece of
text is at least 16 px and near-black, set explicitly on each axis, legend, annotation,
colour bar and hover label, because st.plotly_chart's default theme="streamlit" paints
whatever a figure leaves unset grey and small. Legends sit between the title and the
plot, where neither data nor axis labels can cover them; reference lines are named in
the legend. Colours are Okabe and Ito's colour-blind-safe palette; every axis title
carries its unit; no chart is taller than 440 px, so one fits a 720 px screen.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from itertools import combinations, cycle, product

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from flashviz.teach.claims import SAME, compare
from flashviz.model.config import KB, MB
from flashviz.teach.format import bytes_text, count_text
from flashviz.model.sweeps import OverBlocks, OverN

# Okabe-Ito
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
STANDARD, FLASH, BROKEN = VERMILLION, BLUE, PURPLE
INK = "#111111"   # every piece of text: Streamlit's theme would make it #808495 grey
GRID = "#d0d0d0"
FONT = 18         # axis titles, legend, annotations, hover (px)
TICK = 17         # tick labels
LEGEND = 17
TITLE = 21
HEIGHT = 440      # the tallest chart: a 720 px screen holds it with the page title
TITLE_CHARS = 38  # a title longer than this wraps: two charts side by side are ~560 px wide


def _font(size: int = FONT, color: str = INK) -> dict:
    return {"size": size, "color": color}


# ---- numbers short enough for a label ---------------------------------------------------

_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_BYTE_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")  # binary, as the seed counts: 1 KB = 1024 B
_BYTE_UNIT = {unit: 1024**k for k, unit in enumerate(_BYTE_UNITS)}


def _compact_numbers(text: str) -> str:
    """Numbers of five or more digits in a caller's label, followed by a byte unit, made compact."""
    return re.sub(r"(\d{5,}(?:\.\d+)?) ?(B|KB|MB|GB|TB)\b",
                  lambda m: bytes_text(float(m.group(1)) * _BYTE_UNIT[m.group(2)]), text)


def _tick(value: float) -> str:
    """A log-axis tick: 1, 20, 500, 1k, 10M, 0.01, 1e-5."""
    if value >= 1000:
        for size, prefix in _SI:
            if value >= size:
                return f"{value / size:g}{prefix}"
    if value >= 1e-3:
        return f"{value:g}"
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _log_ticks(values) -> dict:
    """Tick values and compact labels for a log axis over these data, at most about 7.
    Decades only, unless the data span under two of them (then 1, 2, 5 per decade)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if not len(v):
        return {}
    lo, hi = math.floor(math.log10(v.min())), math.ceil(math.log10(v.max()))
    if hi - lo <= 2:
        vals = [m * 10.0 ** e for e in range(lo, hi + 1) for m in (1, 2, 5)]
    else:
        step = -(-(hi - lo + 1) // 7)
        vals = [10.0 ** e for e in range(lo, hi + 1, step)]
    return {"tickmode": "array", "tickvals": vals, "ticktext": [_tick(t) for t in vals]}


def _n_label(n) -> str:
    """A sequence length as people say it: 512, 4k, 1M (powers of two, binary k and M)."""
    n = int(n)
    if n >= 2**20 and n % 2**20 == 0:
        return f"{n >> 20}M"
    if n >= 2048 and n % 1024 == 0:
        return f"{n >> 10}k"
    return count_text(n) if n >= 10_000 else str(n)


def _n_ticks(values, most: int = 6) -> dict:
    """Tick marks at the n values themselves (thinned), readable as numbers."""
    values = sorted(set(int(v) for v in values))
    step = -(-len(values) // most)
    shown = values[::step]
    return {"tickmode": "array", "tickvals": shown, "ticktext": [_n_label(v) for v in shown]}


# ---- one style for every chart ------------------------------------------------------------

def _wrap(title: str, width: int = TITLE_CHARS) -> str:
    """Break a long title at spaces with <br>, so that it is never cut off at ~560 px."""
    if "<br>" in title or len(title) <= width:
        return title
    lines, line = [], ""
    for word in title.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "<br>".join(lines + [line])


# plotly_white, cut to what a chart here can use: its layout less the subplot kinds no chart
# draws, and the defaults of the trace types the figure holds. A template applies to nothing
# else, so the figure looks the same; the whole one was 7 KB, 80% of a typical chart's JSON,
# sent again whenever the chart moved.
_NO_SUBPLOTS_OF_KIND = ("polar", "ternary", "scene", "geo")


@functools.cache
def _template(trace_types: tuple[str, ...]) -> go.layout.Template:
    white = pio.templates["plotly_white"]
    layout = {k: v for k, v in white.layout.to_plotly_json().items() if k not in _NO_SUBPLOTS_OF_KIND}
    data = {t: white.data[t] for t in trace_types if white.data[t]}
    return go.layout.Template(layout=layout, data=data)


def _axis_values(fig: go.Figure, letter: str) -> list:
    """Every number plotted on the x or y axis, reference lines included (for log ticks)."""
    out = []
    for trace in fig.data:
        values = getattr(trace, letter, None)
        if values is not None and trace.type in ("scatter", "bar"):
            out += [v for v in values if isinstance(v, (int, float, np.number))]
    for shape in fig.layout.shapes or ():
        if getattr(shape, f"{letter}ref") == letter:
            out += [getattr(shape, f"{letter}0"), getattr(shape, f"{letter}1")]
    return out


def _style(fig: go.Figure, x: str, y: str, title: str = "", height: int = HEIGHT,
           log_x: bool = False, log_y: bool = False, x_values=None) -> go.Figure:
    height, title = min(height, HEIGHT), _wrap(title)
    lines = title.count("<br>") + 1
    title_px = 14 + 28 * lines if title else 6
    # plotly anchors a title of several lines by its middle line, whatever yanchor says
    title_y = 1 - (lines - 1) * 0.65 * TITLE / height
    fig.update_layout(
        # the tool icons stand down the right edge, never over the title
        modebar={"orientation": "v"},
        template=_template(tuple(sorted({trace.type for trace in fig.data}))), height=height,
        font=_font(), paper_bgcolor="white", plot_bgcolor="white",
        title={"text": title, "font": _font(TITLE), "x": 0, "xanchor": "left", "xref": "container",
               "y": title_y, "yanchor": "top", "yref": "container", "pad": {"t": 10, "l": 10}},
        # Under the title, above the plot: it grows downwards and plotly pushes the plot down.
        legend={"orientation": "h", "x": 0, "xanchor": "left", "xref": "container",
                "y": 1 - title_px / height, "yanchor": "top", "yref": "container",
                "font": _font(LEGEND), "title": {"text": ""}, "bgcolor": "rgba(255,255,255,0)"},
        margin={"l": 10, "r": 24, "t": title_px + 6, "b": 10, "pad": 2},  # axes push out as needed
        hoverlabel={"font": _font(), "bgcolor": "white", "bordercolor": INK},
    )
    axis = {"tickfont": _font(TICK), "title_font": _font(), "title_standoff": 8,
            "color": INK, "linecolor": INK, "tickcolor": INK, "ticks": "outside", "showline": True,
            "gridcolor": GRID, "showgrid": True, "zeroline": False, "automargin": True}
    fig.update_xaxes(title_text=x, **axis)
    fig.update_yaxes(title_text=_wrap(y, 24) if len(y) > 26 else y, **axis)  # a tall title is cut
    if log_x:
        fig.update_xaxes(type="log", **(_n_ticks(x_values) if x_values is not None
                                        else _log_ticks(_axis_values(fig, "x"))))
    elif x_values is not None:
        fig.update_xaxes(**_n_ticks(x_values))
    if log_y:
        fig.update_yaxes(type="log", **_log_ticks(_axis_values(fig, "y")))
    fig.update_traces(textfont=_font(), selector={"type": "scatter"})
    fig.update_traces(textfont=_font(), outsidetextfont=_font(), constraintext="none",
                      cliponaxis=False, selector={"type": "bar"})
    for note in fig.layout.annotations or ():
        note.font.size = max(note.font.size or FONT, FONT)
        note.font.color = note.font.color or INK
    return fig


def _hline(fig: go.Figure, y: float, text: str, color: str, dash: str = "dot") -> None:
    """A horizontal reference line across the plot, named in the legend (where no data can
    cover its label); the legend entry shows the same line style."""
    line = {"color": color, "width": 3, "dash": dash}
    fig.add_shape(type="line", xref="paper", x0=0, x1=1, yref="y", y0=y, y1=y, line=line)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=text, line=line,
                             hoverinfo="skip"))


def _line(x, y, name, color, dash=None, text=None, symbol="circle"):
    return go.Scatter(x=list(x), y=list(y), name=name, mode="lines+markers",
                      line={"color": color, "width": 3, "dash": dash},
                      marker={"size": 9, "symbol": symbol},
                      text=text, hovertemplate="%{y:.3g}<extra>" + name + "</extra>")


# ---- the charts ---------------------------------------------------------------------------

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


def _crosses(a, b) -> bool:
    """Whether segments a and b, each ((x, y), (x, y)), cross."""
    def side(seg, r) -> float:  # which side of seg the point r is on
        (p, q) = seg
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b[0]) * side(a, b[1]) < 0 and side(b, a[0]) * side(b, a[1]) < 0


def _label_spots(marks, x_range, y_range) -> list[tuple[int, int, str]]:
    """(ax, ay, xanchor) for each mark's label: of every choice of _LABEL_SPOTS, the one whose
    labels leave the plot, cover another mark, meet each other or cross arrows least often,
    then the most preferred. Laid out on the plot of a 560 px chart: the spots are in px, so on
    a wider chart the marks only move further apart."""
    width, height = _LABEL_PLOT_PX
    sx, sy = width / (x_range[1] - x_range[0]), height / (y_range[1] - y_range[0])
    at = [(sx * (math.log10(x) - x_range[0]), sy * (math.log10(y) - y_range[0]))  # px, y up
          for x, y in zip(marks["x"], marks["y"])]

    def box(k: int, spot: tuple[int, int, str]) -> tuple[float, float, float, float]:
        lines = str(marks["label"].iloc[k]).split("<br>")
        (ax, ay, anchor), w, h = spot, _CHAR_PX * max(map(len, lines)) + 8, _LINE_PX * len(lines) + 6
        x0 = at[k][0] + ax - {"left": 0, "center": w / 2, "right": w}[anchor]
        return x0, at[k][1] - ay - h / 2, x0 + w, at[k][1] - ay + h / 2

    def with_arrow(k: int, b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        (x, y), r = at[k], 10  # the arrow reaches its point, less the standoff
        return min(b[0], x + r), min(b[1], y + r), max(b[2], x - r), max(b[3], y - r)
    boxes = [[box(k, spot) for spot in _LABEL_SPOTS] for k in range(len(at))]
    drawn = [[with_arrow(k, b) for b in boxes[k]] for k in range(len(at))]  # label and arrow
    arrows = [[(at[k], (at[k][0] + ax, at[k][1] - ay)) for ax, ay, _ in _LABEL_SPOTS] for k in range(len(at))]
    # per mark and spot: 1 if the label leaves the plot, plus the other marks it covers
    alone = [[int(not (b[0] >= 0 and b[2] <= width and b[1] >= 0 and b[3] <= height))
              + sum(b[0] - 12 < x < b[2] + 12 and b[1] - 12 < y < b[3] + 12 for j, (x, y) in enumerate(at) if j != k)
              for b in boxes[k]] for k in range(len(at))]

    def cost(choice: tuple[int, ...]) -> tuple[int, int]:
        bad = sum(alone[k][i] for k, i in enumerate(choice))
        for (j, i), (k, m) in combinations(enumerate(choice), 2):
            a, b = drawn[j][i], drawn[k][m]
            bad += (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]) + _crosses(arrows[j][i], arrows[k][m])
        return bad, sum(choice)
    best = min(product(range(len(_LABEL_SPOTS)), repeat=len(at)), key=cost)
    return [_LABEL_SPOTS[i] for i in best]


def _cuda_core_ceiling(fig: go.Figure, hw, ai) -> None:
    """The selected machine's non-matmul ceiling (FP32 on CUDA cores), where the softmax's
    max, exp, sum and divide run: thin, from where its bandwidth slope meets it."""
    knee = hw.fp32_flops / hw.hbm_bytes_per_s
    x = [knee, float(ai[-1])]
    fig.add_trace(go.Scatter(x=x, y=[hw.fp32_flops / 1e12] * 2, mode="lines", legendrank=1,
                             name="non-matmul (FP32)",  # short: a legend's columns take the longest name
                             line={"color": INK, "width": 2, "dash": "dot"}, hoverinfo="skip"))


def roofline(points, hardware: dict, dtype: str, selected: str, measured=None) -> go.Figure:
    """Attainable rate against flops per byte, one roof per machine (any number of them),
    and attention's points at `dtype`: 16-bit types on tensor cores, as attention really
    runs; 32- and 64-bit ones on CUDA cores. With a 'kernel' column, standard attention is
    the kernels it runs (sweeps.roofline_points(kernels=True)), each labelled with its bound,
    and the selected machine's non-matmul ceiling is drawn: the softmax's own roof.
    Each mark is named by an arrow from its own coordinates, its label below the roof where
    it covers no other mark or label (_label_spots), so labels can neither swap nor overlap
    when the points cross or sit together. `measured` (measured.roofline_points' flash rows, the H200's):
    where the real kernel sits, its flops over the DRAM bytes Nsight Compute read, at its achieved rate."""
    xs, rates = points["flops per byte"].astype(float), points["attainable TFLOP/s"].astype(float)
    if measured is not None and len(measured):
        xs = pd.concat([xs, measured["flops per DRAM byte"].astype(float)])
        rates = pd.concat([rates, measured["achieved TFLOP/s"].astype(float)])
    kernels = "kernel" in points.columns
    lo, hi = math.log10(xs.min()), math.log10(xs.max()) + 1.5  # room on the right for a label
    if kernels:  # three labels to place: no more decades than the points and the ridges need
        ridge = max(h.peak_flops(dtype) / h.hbm_bytes_per_s for h in hardware.values())
        ai = np.logspace(lo - 1.0, max(hi, math.log10(ridge) + 0.5), 240)
    else:
        ai = np.logspace(min(-2.0, lo - 1.5), max(3.0, hi), 240)
    fig = go.Figure()
    styles = zip(cycle(_ROOF_COLOURS), cycle(_ROOF_DASHES))  # a new pair for 30 machines
    for name, hw in hardware.items():
        colour, dash = next(styles)
        mine = name == selected
        roof = np.minimum(hw.peak_flops(dtype), hw.hbm_bytes_per_s * ai) / 1e12
        fig.add_trace(go.Scatter(  # y in float32: half its JSON, the hover prints 3 digits of 7 (x stays
            x=ai, y=roof.astype(np.float32), mode="lines",  # float64: the x axis autoranges on it)
            name=name, legendrank=1 if mine else 2,  # the chosen machine first, and thick
            line={"color": colour, "width": 5 if mine else 2.5, "dash": None if mine else dash},
            hovertemplate="%{x:.3g} flops/byte: %{y:.3g} TFLOP/s<extra>" + name + "</extra>"))
    if kernels and selected in hardware and hardware[selected].peak_flops(dtype) != hardware[selected].fp32_flops:
        _cuda_core_ceiling(fig, hardware[selected], ai)
    lowest = min(ai[0] * min(hw.hbm_bytes_per_s for hw in hardware.values()) / 1e12, rates.min())
    highest = max(hw.peak_flops(dtype) for hw in hardware.values()) / 1e12
    y_range = [math.log10(lowest) - 0.3, math.log10(highest) + 0.4]
    marks = _roofline_marks(points).reset_index(drop=True)
    spots = _label_spots(marks, (math.log10(ai[0]), math.log10(ai[-1])), y_range)
    # flash under the others: at d = 64 it sits just right of the matmuls, and the smaller mark stays seen
    for k, row in sorted(marks.iterrows(), key=lambda kr: kr[1]["method"] != "flash"):
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
    if measured is not None and len(measured):
        fig.add_trace(go.Scatter(
            x=list(measured["flops per DRAM byte"]), y=list(measured["achieved TFLOP/s"]), mode="markers",
            name="flash measured (H200)", legendrank=1,
            marker={"size": 14, "color": FLASH, "symbol": "diamond-open", "line": {"width": 3}},
            hovertemplate="measured, n = %{text}: %{x:.3g} flops per DRAM byte, %{y:.3g} TFLOP/s<extra></extra>",
            text=[f"{int(n):,}" for n in measured["n"]]))
    fig.update_yaxes(range=y_range)
    units = "FP32 units" if dtype in ("float32", "float64") else "matrix units"  # NVIDIA's and AMD's names differ
    return _style(fig, "arithmetic intensity (flops per byte)", "attainable rate (TFLOP/s)",
                  f"Roofline, {dtype} on {units}", log_x=True, log_y=True)


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


def memory_over_n(df: pd.DataFrame) -> go.Figure:
    """Peak memory against n, from sweeps.over_n."""
    c = OverN
    fig = go.Figure([_line(df[c.N], df[c.STD_PEAK_KB], "standard: n×n scores", STANDARD),
                     _line(df[c.N], df[c.FLASH_PEAK_KB], "flash: one tile", FLASH, symbol="diamond")])
    return _style(fig, "sequence length n (tokens)", "peak memory (KB)", "Quadratic against flat",
                  log_x=True, log_y=True, x_values=df[c.N])


def traffic_over_n(df: pd.DataFrame) -> go.Figure:
    """HBM traffic against n, from sweeps.over_n."""
    c = OverN
    fig = go.Figure([_line(df[c.N], df[c.STD_HBM_MB], "standard", STANDARD),
                     _line(df[c.N], df[c.FLASH_HBM_MB], "flash", FLASH, symbol="diamond")])
    return _style(fig, "sequence length n (tokens)", "HBM traffic (MB)", "Bytes moved",
                  log_x=True, log_y=True, x_values=df[c.N])


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
    colours = [FLASH if f else VERMILLION for f in df[c.FITS]]
    fig = go.Figure([go.Bar(x=[str(b) for b in df[c.BLOCK]], y=df[c.WORKING_SET_KB],
                            marker_color=colours, name="working set (red: over)", showlegend=True)])
    _hline(fig, budget_kb, f"SRAM budget: {bytes_text(budget_kb * KB)}", BLACK, dash="solid")
    return _style(fig, "block size Br = Bc (rows)", "tile working set (KB)",
                  "Does the tile fit?", log_y=True)


def io_theorem(df) -> go.Figure:
    fig = go.Figure([
        _line(df["n"], df["std counted"], "standard, counted", STANDARD),
        _line(df["n"], df["Nd + N^2"], "Θ(Nd + N²)", STANDARD, dash="dot", symbol="square"),
        _line(df["n"], df["flash fa1"], "flash, counted, paper's order (fa1)", FLASH, symbol="diamond"),
        _line(df["n"], df["flash fa2"], "flash, counted, FA2's order", FLASH, dash="dash", symbol="circle-open"),
        _line(df["n"], df["N^2 d^2 / M"], "Θ(N²d²/M)", FLASH, dash="dot", symbol="triangle-up"),
    ])
    return _style(fig, "sequence length N (tokens)", "HBM accesses (elements)", "Theorem 2 beside the counts",
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


def cut_vs_block(df, causal: bool = False) -> go.Figure:
    fig = go.Figure()
    symbols = cycle(("circle", "diamond", "square", "triangle-up", "x"))
    for (d, part), colour in zip(df.groupby("d"), cycle([GREEN, FLASH, ORANGE, PURPLE, VERMILLION])):
        fig.add_trace(_line(part["block / d"], part["traffic cut"], f"d = {d}", colour, symbol=next(symbols)))
    return _style(fig, "block size ÷ head dim (ratio)", "traffic cut (std ÷ flash)",
                  "The cut grows with block ÷ head dim" + (", causal mask" if causal else ", no mask"),
                  log_x=True, log_y=True)


def _headroom(fig: go.Figure, values, factor: float = 1.2) -> None:
    """Room above the tallest bar for its outside label."""
    top = max([float(v) for v in values if v is not None and math.isfinite(v)] + [0.0])
    if top > 0:
        fig.update_yaxes(range=[0, top * factor])


def _byte_unit(values, unit: str = "MB") -> tuple[float, str]:
    """The binary unit that keeps a linear axis's largest value under 10,000: (divisor, unit)."""
    top = max([abs(float(v)) for v in values] + [0.0])
    k = _BYTE_UNITS.index(unit)
    divisor = 1.0
    while top / divisor >= 10_000 and k < len(_BYTE_UNITS) - 1:
        divisor, k = divisor * 1024, k + 1
    return divisor, _BYTE_UNITS[k]


def loop_order_bars(df) -> go.Figure:
    labels = [str(s).replace(" (", "<br>(") for s in df["loop order"]]
    divisor, unit = _byte_unit(df["HBM MB"])
    fig = go.Figure([go.Bar(x=labels, y=df["HBM MB"] / divisor, marker_color=[FLASH, ORANGE],
                            text=[bytes_text(v * MB) for v in df["HBM MB"]], textposition="outside",
                            showlegend=False, hovertemplate="%{y:.4g} " + unit + "<extra></extra>")])
    _headroom(fig, df["HBM MB"] / divisor)
    return _style(fig, "", f"HBM traffic ({unit})", "Loop order changes the bytes", height=360)


def comparison_bars(labels, correct, broken, y: str, title: str, reference=None) -> go.Figure:
    fig = go.Figure([go.Bar(x=labels, y=correct, name="correct", marker_color=FLASH),
                     go.Bar(x=labels, y=broken, name="with the bug", marker_color=BROKEN)])
    if reference is not None:
        _hline(fig, reference[1], _compact_numbers(str(reference[0])), STANDARD)
    _headroom(fig, list(correct) + list(broken) + ([reference[1]] if reference is not None else []), 1.1)
    fig.update_layout(barmode="group")
    return _style(fig, "", y, title, height=360)


def loop_orders_over_n(df) -> go.Figure:
    fig = go.Figure([_line(df["n"], df["std HBM MB"], "standard", STANDARD),
                     _line(df["n"], df["FA1 HBM MB"], "FA1 (K/V outer)", ORANGE, symbol="square"),
                     _line(df["n"], df["FA2 HBM MB"], "FA2 (Q outer)", FLASH, symbol="diamond")])
    return _style(fig, "sequence length n (tokens)", "HBM traffic (MB)", "Traffic by loop order",
                  log_x=True, log_y=True, x_values=df["n"])


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
    return _style(fig, "tile Br × Bc (rows × cols)", "time per call (ms)", "Time per tile (green: fastest)")


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
    kept = [(n, r) for n, r in zip(model.n, model.plain) if r is not None]
    if kept:  # wide and pale, under the rest: at d = Br the two-level flash model lies right on it
        fig.add_scatter(x=[n for n, _ in kept], y=[r / _MB for _, r in kept], mode="lines",
                        name="plain attention, model (4n²+4nd)", line={"color": "#BBBBBB", "width": 9})
    if plain is not None and plain.n:
        fig.add_scatter(x=list(plain.n), y=[r / _MB for r in plain.reads], name="plain attention, H200",
                        mode="markers", marker={"color": "#666666", "size": 11, "symbol": "square"})
    for values, name, colour, dash in (
            (model.floor, "compulsory Q + K + V", GREEN, "dot"),
            (model.two_level, f"two-level model (one block, no {cache_name})", VERMILLION, "dash"),
            (model.three_level, f"three-level model (waves, {cache_name})", BLUE, None)):
        fig.add_scatter(x=list(model.n), y=[v / _MB for v in values], name=name, mode="lines",
                        line={"color": colour, "dash": dash, "width": 3})
    if flash.n:
        fig.add_scatter(x=list(flash.n), y=[r / _MB for r in flash.reads], name="H200, Nsight Compute",
                        mode="markers", marker={"color": BLACK, "size": 11, "symbol": "diamond"})
    if cross:
        fig.add_vline(x=cross, line={"color": PURPLE, "width": 2, "dash": "dot"})
        # a log axis places annotations by log10 of the value; the label on the side of the line
        # with room for it (the axis runs from 2^10 to 2^20)
        fig.add_annotation(x=math.log10(cross), y=1, yref="paper", text=f"K + V in flight outgrow {cache_name}",
                           showarrow=False, xanchor="left" if cross <= 2**15 else "right",
                           font=_font(FONT, "#8B3A6B"))
    return _style(fig, "sequence length n (tokens)", "DRAM reads (MB)", title, log_x=True, log_y=True, x_values=model.n)

# ---- lesson 13: the schedule ---------------------------------------------------------------------

SCHEDULE_COLOURS = {"K, V": "#9a9a9a", "QKᵀ": BLUE, "PV": SKY, "max": ORANGE, "exp": VERMILLION, "sum": ORANGE}
SCHEDULE_KINDS = {"K, V": "copy K, V", "QKᵀ": "QKᵀ", "PV": "PV", "exp": "exp", "max": "FP32: max, sum",
                  "sum": "FP32: max, sum"}


def schedule_timeline(bars: pd.DataFrame, tile: int, lanes: dict[str, list[str]]) -> go.Figure:
    """Both schedules' steps on their lanes, one panel each (FA2 above, FA3 below) over the same
    time axis (µs): the steps of key tiles up to `tile` drawn, those of `tile` itself solid and the
    earlier ones faded, the axis fixed to the whole run so a step forward only adds. `bars`: the
    columns of flashviz.players.schedule_lesson.bars_frame; `lanes`: each schedule's lanes, top to bottom."""
    from plotly.subplots import make_subplots
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        row_heights=[len(lanes["fa2"]), len(lanes["fa3"])])
    shown = bars[bars["tile"] <= tile]
    seen: set[str] = set()
    for row, sched in enumerate(("fa2", "fa3"), start=1):
        part = shown[shown["schedule"] == sched]
        for label, steps in part.groupby("label", sort=False):
            kind = SCHEDULE_KINDS[str(label)]
            fig.add_trace(go.Bar(
                y=steps["lane"].tolist(), x=(steps["length_ns"] / 1e3).tolist(),
                base=(steps["start_ns"] / 1e3).tolist(), orientation="h",
                name=kind, legendgroup=kind, showlegend=kind not in seen,
                legendrank=list(SCHEDULE_KINDS).index(str(label)),
                marker={"color": SCHEDULE_COLOURS[str(label)], "line": {"color": INK, "width": 1},
                        "opacity": [1.0 if t == tile else 0.35 for t in steps["tile"]]},
                text=[f"{label} {t}" if label != "K, V" else f"K,V {t}" for t in steps["tile"]],
                textposition="inside", insidetextanchor="middle",
                customdata=np.stack([steps["tile"], steps["start_ns"], steps["length_ns"]], axis=1),
                hovertemplate=f"{label}, tile %{{customdata[0]}}: starts at %{{customdata[1]:.0f}} ns, "
                              "runs %{customdata[2]:.0f} ns<extra></extra>"), row=row, col=1)
            seen.add(kind)
        fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(lanes[sched])), row=row, col=1)
    end = float(bars["end_ns"].max()) / 1e3
    fig.update_layout(barmode="overlay", bargap=0.1, uniformtext={"minsize": 16, "mode": "hide"})
    fig = _style(fig, "", "", f"Key tiles 1–{tile} on one SM")
    # a label that does not fit its step is hidden (uniformtext), never turned or spilled over the next step
    fig.update_traces(textangle=0, constraintext="inside", textfont=_font(16), selector={"type": "bar"})
    fig.update_xaxes(range=[0, end * 1.02])
    fig.update_xaxes(title_text="time on one SM (µs)", row=2, col=1)
    fig.update_yaxes(showgrid=False)
    for row, sched in enumerate(("FA2", "FA3"), start=1):  # in each panel's top right, where no step is drawn
        top = fig.layout[f"yaxis{'' if row == 1 else row}"].domain[1]
        fig.add_annotation(text=f"<b>{sched}</b>", xref="paper", yref="paper", x=1, y=top, xanchor="right",
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
