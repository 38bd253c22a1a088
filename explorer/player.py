"""The tile-by-tile player: engine frames in, a self-contained HTML/JS player out.

Playback, stepping and the keyboard all run in the browser, so a frame costs
no round trip to the server. Both players (this one and backward_player.py) are
built by `page`: the template with the players' shared CSS, JS and control bar
inlined, so the iframe needs nothing from the network.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import streamlit as st

from flashviz.players.animation import payload
from flashviz.players.player_schema import FlashRun, Payload, StandardRun

HERE = Path(__file__).parent
# px: every frame of lesson 3's player from 760 px wide, and of lesson 9's bugs from 1180 px: a
# section under a 720 px screen's top bar (tests/test_player_layout_browser.py)
HEIGHT = 560

# The bar every player opens with; player_common.js wires it by these ids.
CONTROLS = """\
<div class="bar">
    <button id="first" aria-label="first step" title="First step (Home)">|◀</button>
    <button id="prev" aria-label="step back" title="Step back (←)">◀ back</button>
    <button id="play" aria-label="play or pause" title="Play / pause (Space)">▶ play</button>
    <button id="next" aria-label="step forward" title="Step forward (→)">next ▶</button>
    <button id="last" aria-label="last step" title="Last step (End)">▶|</button>
    <input id="step" type="range" min="0" value="0" aria-label="jump to step">
    <label>speed <select id="speed" aria-label="speed">
      <option value="1">1 step/s</option><option value="2" selected>2 steps/s</option>
      <option value="5">5 steps/s</option><option value="10">10 steps/s</option>
      <option value="20">20 steps/s</option><option value="60">60 steps/s</option>
    </select></label>
    <span class="keys">← → step · space plays</span>
  </div>"""


# Every player ends the same way: the key and note lines, the frames' data block, and its
# script opening with the shared JS and the frames read back.
TAIL = """  <div id="key"></div>
  <div id="note"></div>
</div>
<script id="data" type="application/json">__DATA__</script>
<script>
//__COMMON_JS__
const D = JSON.parse(document.getElementById("data").textContent);
const frames = D.frames, N = frames.length;"""


def page(template: str) -> str:
    """explorer/<template> with its placeholders for the shared CSS, JS, control bar and
    ending filled in: every byte the page needs is in the page."""
    return ((HERE / template).read_text()
            .replace("<!--__TAIL__-->", TAIL)
            .replace("/*__COMMON_CSS__*/", (HERE / "player_common.css").read_text())
            .replace("//__COMMON_JS__", (HERE / "player_common.js").read_text())
            .replace("<!--__CONTROLS__-->", CONTROLS))


def with_data(template: str, data: Payload) -> str:
    """A page made by `page` with the frames in its data block. The data is numbers and
    fixed labels from the engine; '</' is escaped anyway so nothing can close the script tag."""
    return template.replace("__DATA__", payload(data).replace("</", "<\\/"))


TEMPLATE = page("player.html")


def render_html(data: FlashRun | StandardRun) -> str:
    """The player page for frames from flashviz.players.animation."""
    return with_data(TEMPLATE, data)


def player(html: str, height: int | Literal["content", "stretch"] = "content") -> None:
    """Show a page made by render_html. Only engine numbers go in, never a value from
    the URL: st.iframe runs the HTML as it is.

    By default the iframe takes the page's height: the page reserves the height of its
    tallest frame at the width it gets, so it does not jump while it plays, and a narrow
    column (the sidebar open at 1280 px) gets the extra lines it needs. Pass HEIGHT (or
    any number of px) for a fixed height."""
    embed(html, height)


def embed(html: str, height: int | Literal["content", "stretch"] = "content") -> None:
    """st.iframe in a container keyed by the page itself. A content-sized iframe can grow but
    never shrink (a document is never shorter than its window), so a shorter page (standard
    attention after flash) would sit in the old, taller frame above a blank band; a new key
    gives each page a frame of its own."""
    key = "player_" + hashlib.sha1(html.encode()).hexdigest()[:12]
    with st.container(key=key):
        st.iframe(html, height=height)
