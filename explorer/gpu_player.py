"""The whole-GPU player: waves of thread blocks over the SMs, the L2 shelf, the DRAM meter.

explorer/gpu_player.html with the players' shared CSS, JS and control bar inlined
(explorer.player.page): nothing is fetched from the network, and playback runs in the browser.
"""
from __future__ import annotations

import streamlit as st

from flashviz.model.config import Hardware
from flashviz.players.player_schema import WaveRun

from .player import embed, page, with_data

TEMPLATE = page("gpu_player.html")


def render_html(data: WaveRun) -> str:
    """The player page for frames from flashviz.players.gpu_animation."""
    return with_data(TEMPLATE, data)


@st.cache_data(max_entries=32, show_spinner=False)
def gpu_player_html(n: int, d: int, bh: int, kernel_name: str, hw: Hardware) -> str:
    from flashviz.players.gpu_animation import wave_frames

    from .whole_gpu import kernel_named
    return render_html(wave_frames(n, d, bh, kernel_named(kernel_name, d), hw))


def gpu_player(html: str) -> None:
    """Show a page made by render_html, as tall as its content (the page reserves the height of
    its tallest wave). Only engine numbers go in, never a value from the URL: st.iframe runs the
    HTML as it is."""
    embed(html)
