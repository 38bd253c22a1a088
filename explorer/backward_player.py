"""The backward player: frames of the recomputing backward in, a self-contained HTML/JS page out.

The page is explorer/backward_player.html with the players' shared CSS, JS and control bar
inlined (explorer.player.page), so it needs nothing from the network.
"""
from __future__ import annotations

import streamlit as st

from flashviz.model.config import Config
from flashviz.players.player_schema import BackwardRun

from .player import embed, page, with_data

TEMPLATE = page("backward_player.html")


def render_html(data: BackwardRun) -> str:
    """The player page for frames from flashviz.players.backward_animation."""
    return with_data(TEMPLATE, data)


@st.cache_data(max_entries=32, show_spinner=False)
def backward_player_html(cfg: Config) -> str:
    """The finished page for one config: built once, then a cheap string on every rerun."""
    from flashviz.players.backward_animation import backward_frames
    return render_html(backward_frames(cfg))


def backward_player(html: str) -> None:
    """Show a page made by render_html, as tall as its content (the page reserves the
    height of its tallest frame, so the iframe does not jump while it plays). Only engine
    numbers go in, never a value from the URL: st.iframe runs the HTML as it is."""
    embed(html)
