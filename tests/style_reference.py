"""Slow, plain references for the chart builders' fast paths (tests/test_chart_style.py compares them):
`reference_style` applies every chart's look through plotly's own update_layout / update_xaxes /
update_traces, as explorer/charts/style.py's `_style` once did; `reference_label_spots` walks every
choice of the roofline labels' spots one by one, as explorer/charts/idea.py's `_label_spots` once did."""
from __future__ import annotations

import math
from itertools import combinations, product

import plotly.graph_objects as go

from explorer.charts.idea import _CHAR_PX, _LABEL_PLOT_PX, _LABEL_SPOTS, _LINE_PX, _MEET, _crosses
from explorer.charts.style import (FONT, GRID, HEIGHT, INK, LEGEND, TICK, TITLE, _axis_values, _font, _log_ticks,
                                   _n_ticks, _template, _wrap)


def reference_style(fig: go.Figure, x: str, y: str, title: str = "", height: int = HEIGHT,
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


def reference_label_spots(marks, x_range, y_range) -> list[tuple[int, int, str]]:
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
    alone = [[(_MEET if not (b[1] >= 0 and b[3] <= height) else int(not (b[0] >= 0 and b[2] <= width)))
              + sum(b[0] - 12 < x < b[2] + 12 and b[1] - 12 < y < b[3] + 12 for j, (x, y) in enumerate(at) if j != k)
              for b in boxes[k]] for k in range(len(at))]

    def cost(choice: tuple[int, ...]) -> tuple[int, int]:
        bad = sum(alone[k][i] for k, i in enumerate(choice))
        for (j, i), (k, m) in combinations(enumerate(choice), 2):
            a, b = drawn[j][i], drawn[k][m]
            bad += _MEET * ((a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
                            + _crosses(arrows[j][i], arrows[k][m]))
        return bad, sum(choice)
    best = min(product(range(len(_LABEL_SPOTS)), repeat=len(at)), key=cost)
    return [_LABEL_SPOTS[i] for i in best]
