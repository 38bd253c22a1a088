"""The tile-by-tile player: engine frames in, a self-contained HTML/JS player out.

Playback, stepping and the keyboard all run in the browser, so a frame costs
no round trip to the server.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from flashviz.animation import payload

TEMPLATE = (Path(__file__).parent / "player.html").read_text()
HEIGHT = 640  # px: enough for every frame when the iframe is 1180 px wide or more


def render_html(data: dict) -> str:
    """The player page. The data is numbers and fixed labels from the engine;
    '</' is escaped anyway so nothing can close the script tag."""
    return TEMPLATE.replace("__DATA__", payload(data).replace("</", "<\\/"))


def player(html: str, height: int | str = "content") -> None:
    """Show a page made by render_html. Only engine numbers go in, never a value from
    the URL: st.iframe runs the HTML as it is.

    By default the iframe takes the page's height: the page reserves the height of its
    tallest frame at the width it gets, so it does not jump while it plays, and a narrow
    column (the sidebar open at 1280 px) gets the extra lines it needs. Pass HEIGHT (or
    any number of px) for a fixed height."""
    st.iframe(html, height=height)
