"""The charts of the algorithm put to the test (lessons 7 to 9): the traffic cut against block ÷ head
dim, FlashAttention-2's loop order against -1's, and a bug's figures beside the correct ones."""
from __future__ import annotations

from itertools import cycle

import plotly.graph_objects as go

from flashviz.model.config import MB
from flashviz.teach.format import bytes_text

from .style import (BROKEN, FLASH, GREEN, ORANGE, PURPLE, STANDARD, VERMILLION, _byte_unit, _compact_numbers,
                     _headroom, _hline, _line, _style)

def cut_vs_block(df, causal: bool = False) -> go.Figure:
    fig = go.Figure()
    symbols = cycle(("circle", "diamond", "square", "triangle-up", "x"))
    for (d, part), colour in zip(df.groupby("d"), cycle([GREEN, FLASH, ORANGE, PURPLE, VERMILLION])):
        fig.add_trace(_line(part["block / d"], part["traffic cut"], f"d = {d}", colour, symbol=next(symbols)))
    return _style(fig, "block size ÷ head dim (ratio)", "traffic cut (std ÷ flash)",
                  "The cut grows with block ÷ head dim" + (", causal mask" if causal else ", no mask"),
                  log_x=True, log_y=True)


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
