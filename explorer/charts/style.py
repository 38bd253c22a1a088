"""One style for every chart, and the helpers the builders share: the palette, the sizes a projector
needs, numbers short enough for a label, ticks, reference lines, and the look `_style` gives a figure.

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

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from flashviz.teach.format import bytes_text, count_text

from .labels import NARROW_BELOW, phone_layout

# Okabe-Ito
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW, BLACK = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
STANDARD, FLASH, BROKEN = VERMILLION, BLUE, PURPLE
GREY = "#767676"  # a line that must still read on white (4.5:1), where the palette's yellow (1.2:1) did not
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


@functools.cache
def _template_json(trace_types: tuple[str, ...]) -> dict:
    """_template's JSON, one object shared by every figure of these trace types (never changed after)."""
    return _template(trace_types).to_plotly_json()


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


def _merge(into: dict, change: dict) -> None:
    """plotly's update: nested dicts merged key by key, anything else replaced."""
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def on_a_phone(fig: go.Figure, narrow: dict) -> None:
    """A chart's own layout where it is narrower than labels.NARROW_BELOW px, a phone's width (labels placed anew,
    panels in rows, short names in the legend): layout.meta.narrow, beside every chart's meta.phone (`_style`)."""
    _merge(fig._layout.setdefault("meta", {}), {"narrow": {"below": NARROW_BELOW, **narrow}})


def _axes(fig: go.Figure, letter: str) -> list[str]:
    """The layout keys of a figure's x or y axes: the first, and any a subplot grid made."""
    return [f"{letter}axis"] + sorted(k for k in fig._layout if re.fullmatch(fr"{letter}axis\d+", k))


def _style(fig: go.Figure, x: str, y: str, title: str = "", height: int = HEIGHT,
           log_x: bool = False, log_y: bool = False, x_values=None) -> go.Figure:
    """Every chart's look, written into the figure's own JSON in one pass. The same settings through
    plotly's update_layout, update_xaxes and update_traces took 35 of a chart's 37 ms (each property
    walked and validated), and a live chart is built at every value of its sliders; every value here
    is one plotly stores as given, and tests/test_charts.py checks the JSON equals plotly's own update
    for every chart case."""
    height, title = min(height, HEIGHT), _wrap(title)
    lines = title.count("<br>") + 1
    title_px = 14 + 28 * lines if title else 6
    # plotly anchors a title of several lines by its middle line, whatever yanchor says
    title_y = 1 - (lines - 1) * 0.65 * TITLE / height
    layout = fig._layout
    # replaced whole, as plotly's update does: the default template is every trace type's
    layout["template"] = _template_json(tuple(sorted({trace["type"] for trace in fig._data})))
    _merge(layout, {
        # the tool icons stand down the right edge, never over the title
        "modebar": {"orientation": "v"},
        "height": height, "font": _font(), "paper_bgcolor": "white", "plot_bgcolor": "white",
        "title": {"text": title, "font": _font(TITLE), "x": 0, "xanchor": "left", "xref": "container",
                  "y": title_y, "yanchor": "top", "yref": "container", "pad": {"t": 10, "l": 10}},
        # Under the title, above the plot: it grows downwards and plotly pushes the plot down.
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "xref": "container",
                   "y": 1 - title_px / height, "yanchor": "top", "yref": "container",
                   "font": _font(LEGEND), "title": {"text": ""}, "bgcolor": "rgba(255,255,255,0)"},
        "margin": {"l": 10, "r": 24, "t": title_px + 6, "b": 10, "pad": 2},  # axes push out as needed
        "hoverlabel": {"font": _font(), "bgcolor": "white", "bordercolor": INK},
        "meta": {"phone": phone_layout()},  # on a phone: explorer/charts/labels.py
    })
    axis = {"tickfont": _font(TICK), "color": INK, "linecolor": INK, "tickcolor": INK, "ticks": "outside",
            "showline": True, "gridcolor": GRID, "showgrid": True, "zeroline": False, "automargin": True}
    y_title = _wrap(y, 24) if len(y) > 26 else y  # a tall title is cut
    for letter, text in (("x", x), ("y", y_title)):
        for key in _axes(fig, letter):
            _merge(layout.setdefault(key, {}), {**axis, "title": {"text": text, "font": _font(), "standoff": 8}})
    ticks = {}
    if log_x:
        ticks["x"] = {"type": "log", **(_n_ticks(x_values) if x_values is not None
                                       else _log_ticks(_axis_values(fig, "x")))}
    elif x_values is not None:
        ticks["x"] = _n_ticks(x_values)
    if log_y:
        ticks["y"] = {"type": "log", **_log_ticks(_axis_values(fig, "y"))}
    for letter, change in ticks.items():
        for key in _axes(fig, letter):
            _merge(layout[key], change)
    for trace in fig._data:
        if trace["type"] == "scatter":
            _merge(trace, {"textfont": _font()})
        elif trace["type"] == "bar":
            _merge(trace, {"textfont": _font(), "outsidetextfont": _font(), "constraintext": "none",
                           "cliponaxis": False})
    for note in layout.get("annotations", ()):
        font = note.setdefault("font", {})
        font["size"] = max(font.get("size") or FONT, FONT)
        font["color"] = font.get("color") or INK
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
