"""Slow, plain references for the chart builders' fast paths (tests/test_chart_style.py compares them):
`reference_style` applies every chart's look through plotly's own update_layout / update_xaxes /
update_traces, as explorer/charts/style.py's `_style` once did; `reference_label_spots` walks every
choice of the roofline labels' spots one by one, as explorer/charts/labels.py's `label_spots` once did."""
from __future__ import annotations

import math
from itertools import combinations, product

import plotly.graph_objects as go

from explorer.charts.labels import MEET, WIDE, Geometry, crosses
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
        meta={"phone": {"screen": 640, "layout": {"title": {"font": {"size": 18}}, "legend": {"font": {"size": 14}}}}},
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


def reference_label_spots(marks, x_range, y_range, geometry: Geometry = WIDE) -> list[tuple[int, int, str]]:
    """(ax, ay, xanchor) for each mark's label: of every choice of the geometry's spots, the one whose
    labels leave the plot, cover another mark, meet each other or cross arrows least often,
    then the most preferred, laid out on the geometry's plot (a 560 px chart's, or a phone's)."""
    (width, height), choices = geometry.plot_px, geometry.spots
    sx, sy = width / (x_range[1] - x_range[0]), height / (y_range[1] - y_range[0])
    at = [(sx * (math.log10(x) - x_range[0]), sy * (math.log10(y) - y_range[0]))  # px, y up
          for x, y in zip(marks["x"], marks["y"])]

    def box(k: int, spot: tuple[int, int, str]) -> tuple[float, float, float, float]:
        lines = str(marks["label"].iloc[k]).split("<br>")
        (ax, ay, anchor) = spot
        w, h = geometry.char_px * max(map(len, lines)) + 8, geometry.line_px * len(lines) + 6
        x0 = at[k][0] + ax - {"left": 0, "center": w / 2, "right": w}[anchor]
        return x0, at[k][1] - ay - h / 2, x0 + w, at[k][1] - ay + h / 2

    def with_arrow(k: int, b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        (x, y), r = at[k], 10  # the arrow reaches its point, less the standoff
        return min(b[0], x + r), min(b[1], y + r), max(b[2], x - r), max(b[3], y - r)
    boxes = [[box(k, spot) for spot in choices] for k in range(len(at))]
    drawn = [[with_arrow(k, b) for b in boxes[k]] for k in range(len(at))]  # label and arrow
    arrows = [[(at[k], (at[k][0] + ax, at[k][1] - ay)) for ax, ay, _ in choices] for k in range(len(at))]
    # per mark and spot: what leaving the plot costs, plus the other marks it covers
    right = width + geometry.right_room
    alone = [[(MEET if not (b[1] >= 0 and b[3] <= height) else geometry.side * int(not (b[0] >= 0 and b[2] <= right)))
              + sum(b[0] - 12 < x < b[2] + 12 and b[1] - 12 < y < b[3] + 12 for j, (x, y) in enumerate(at) if j != k)
              for b in boxes[k]] for k in range(len(at))]
    gap = geometry.gap

    def cost(choice: tuple[int, ...]) -> tuple[int, int]:
        bad = sum(alone[k][i] for k, i in enumerate(choice))
        for (j, i), (k, m) in combinations(enumerate(choice), 2):
            a, b = drawn[j][i], drawn[k][m]
            bad += MEET * ((a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap)
                           + crosses(arrows[j][i], arrows[k][m]))
        return bad, sum(choice)
    best = min(product(range(len(choices)), repeat=len(at)), key=cost)
    return [choices[i] for i in best]
