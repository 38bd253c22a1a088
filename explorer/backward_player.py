"""The backward player: frames of the recomputing backward in, a self-contained HTML/JS page out.

The page is explorer/backward_player.html with the players' shared CSS and JS
(player_common.css, player_common.js) inlined, so it needs nothing from the network.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from flashviz.animation import payload
from flashviz.config import Config

HERE = Path(__file__).parent
TEMPLATE = ((HERE / "backward_player.html").read_text()
            .replace("/*__COMMON_CSS__*/", (HERE / "player_common.css").read_text())
            .replace("//__COMMON_JS__", (HERE / "player_common.js").read_text()))


def render_html(data: dict) -> str:
    """The player page. The data is numbers and fixed labels from the engine;
    '</' is escaped anyway so nothing can close the script tag."""
    return TEMPLATE.replace("__DATA__", payload(data).replace("</", "<\\/"))


@st.cache_data(max_entries=32, show_spinner=False)
def backward_player_html(cfg: Config) -> str:
    """The finished page for one config: built once, then a cheap string on every rerun."""
    from flashviz.backward_animation import backward_frames
    return render_html(backward_frames(cfg))


def backward_player(html: str) -> None:
    """Show a page made by render_html, as tall as its content (the page reserves the
    height of its tallest frame, so the iframe does not jump while it plays). Only engine
    numbers go in, never a value from the URL: st.iframe runs the HTML as it is."""
    st.iframe(html, height="content")
