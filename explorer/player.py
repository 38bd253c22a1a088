"""The tile-by-tile player: engine frames in, a self-contained HTML/JS player out.

Playback, stepping and the keyboard all run in the browser, so a frame costs
no round trip to the server.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from flashviz.animation import payload

TEMPLATE = (Path(__file__).parent / "player.html").read_text()
HEIGHT = 640


def render_html(data: dict) -> str:
    """The player page. The data is numbers and fixed labels from the engine;
    '</' is escaped anyway so nothing can close the script tag."""
    return TEMPLATE.replace("__DATA__", payload(data).replace("</", "<\\/"))


def player(html: str, height: int = HEIGHT) -> None:
    """Show a page made by render_html. Only engine numbers go in, never a value from
    the URL: st.iframe runs the HTML as it is."""
    st.iframe(html, height=height)
