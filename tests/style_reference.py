"""Every chart's look, applied as plotly's own update_layout / update_xaxes / update_traces would
apply it: the independent reference for explorer/charts/style.py's `_style`, which writes the same
settings straight into the figure's JSON (tests/test_chart_style.py compares the two on every case)."""
from __future__ import annotations

import plotly.graph_objects as go

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
