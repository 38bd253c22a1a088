"""A chart drawn in place: one element for the page's life, its figure redrawn where it stands when a run
sends a new one.

Streamlit 1.67 gives a `st.plotly_chart` an element id that hashes its figure, even with a key
(`compute_and_register_element_id(..., key_as_main_identity=False, plotly_spec=...)`), and its frontend reads
the figure only when the chart mounts. So every run that changes a figure mounts a new chart, drawn twice
(hidden at a default width, then at the column's), and drops the old one: about 100 ms of a slider's release
on lesson 1, after the drag had already drawn that very figure (BENCHMARKS.md, "Interaction"). A keyed
component keeps its element across runs, so `plot` draws the figure with the same Plotly the page's
`st.plotly_chart` loads (Streamlit's own PlotlyChart chunk) and `Plotly.react` redraws it in place.

Streamlit's chart theme is applied in its frontend, so the look it gives a figure is carried here: THEME is
what theme="streamlit" merges into a figure's template at this app's theme (.streamlit/config.toml), read from
a chart Streamlit drew; its title is set in bold as Streamlit sets it. Streamlit's frontend also swaps the stand-in
colours of its own Plotly template (#000001...) for the theme's: the app's figures carry Plotly's template and
real colours, so there are none to swap (tests/test_app.py checks every page). `tests/test_plot_browser.py` draws
one figure both ways and checks that Plotly laid out alike its fonts, colours, margins, axes, legend and traces.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import plotly.graph_objects as go
import plotly.io
import streamlit as st

HERE = Path(__file__).parent
# Streamlit's own chunk that holds plotly.js (it sets window.Plotly): its name changes with each release.
_CHUNKS = sorted((Path(st.__file__).parent / "static" / "static" / "js").glob("PlotlyChart.*.js"))
assert _CHUNKS, f"Streamlit {st.__version__} ships no PlotlyChart chunk: explorer/plot.py cannot load plotly.js"
CHUNK = _CHUNKS[0].name
_SANS = '"Source Sans", sans-serif, "Source Sans", sans-serif'
_GREY, _LINE = "#808495", "#e6eaf1"
_AXIS = {"gridcolor": _LINE, "zerolinecolor": _LINE, "tickcolor": _LINE, "minor": {"gridcolor": _LINE},
         "tickfont": {"color": _GREY, "size": 13.5}}
THEME: dict[str, Any] = {
    "font": {"color": _GREY, "family": _SANS, "size": 13.5, "weight": 400},
    "title": {"x": 0, "xanchor": "left", "pad": {"l": 4.5}, "color": "#000000", "subtitleColor": "#000000",
              "font": {"family": _SANS, "size": 18, "color": "#000000"}},
    "legend": {"title": {"font": {"size": 13.5, "color": _GREY}, "side": "top"}, "valign": "top",
               "bordercolor": "transparent", "borderwidth": 0, "font": {"size": 13.5, "color": "#262730"}},
    "paper_bgcolor": "#FFFFFF", "plot_bgcolor": "#FFFFFF",
    "xaxis": {**_AXIS, "showgrid": False, "zeroline": False,
              "title": {"standoff": 22.5, "font": {"color": _GREY, "size": 15.75}}},
    "yaxis": {**_AXIS, "ticklabelposition": "outside",
              "title": {"standoff": 27, "font": {"color": _GREY, "size": 15.75}}},
    "margin": {"pad": 9, "r": 0, "l": 0},
    "hoverlabel": {"bgcolor": "#FFFFFF", "bordercolor": "rgba(0, 0, 0, 0.2)",
                   "font": {"color": _GREY, "family": _SANS, "size": 13.5}},
    "coloraxis": {"colorbar": {"thickness": 16, "xpad": 27, "ticklabelposition": "outside",
                               "outlinecolor": "transparent", "outlinewidth": 8, "len": 0.75, "y": 0.5745,
                               "title": {"font": {"color": _GREY, "size": 15.75}},
                               "tickfont": {"color": _GREY, "size": 13.5}}},
}
_HEIGHT = 450  # Streamlit's height for a figure that sets none

# The theme and the chunk's name are written into the script, not into each chart's message.
_component = st.components.v2.component(
    "flashviz.plot", isolate_styles=False,
    js=(HERE / "plot.js").read_text().replace("THEME_JSON", json.dumps(THEME)).replace("CHUNK_NAME", json.dumps(CHUNK)))


def spec(fig: go.Figure) -> str:
    """The figure as plotly.js reads it. A figure that explorer/cache.py shares between runs and readers (`shared`)
    is never changed once built, so its JSON is written once and kept on it: encoding lesson 1's three figures took
    a twentieth of its rerun's CPU, every rerun, for the same text."""
    text = getattr(fig, _SPEC, None)
    if text is None:
        text = plotly.io.to_json(fig, validate=False)
        if getattr(fig, _SHARED, False):
            setattr(fig, _SPEC, text)
    return text


_SHARED, _SPEC = "_fv_shared", "_fv_spec"
T = TypeVar("T")


def shared(fig: T) -> T:
    """Mark `fig`, a figure, as one no caller changes (explorer/cache.py's `figure`): `spec` keeps its JSON. Anything
    else a builder returns (tests/test_cache.py's stand-ins) is returned as it is."""
    if isinstance(fig, go.Figure):
        setattr(fig, _SHARED, True)
    return fig


def plot(fig: go.Figure, key: str, config: dict) -> None:
    """Draw `fig` under `key`, in place across runs (`config`: Plotly's, as st.plotly_chart takes it). The page holds
    the chart's height while plotly.js loads: the figure's, or on a chart narrow enough for the figure's narrow
    layout (layout.meta.narrow, which the chart's builder wrote and explorer/plot.js applies) that layout's, so
    nothing below it moves when it is drawn (a phone's roofline is 520 px, not 440). `narrow`: its below and height."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    narrow = meta.get("narrow") or {}
    tall = (narrow.get("layout") or {}).get("height")
    _component(data={"spec": spec(fig), "config": json.dumps(config), "height": fig.layout.height or _HEIGHT,
                     "narrow": {"below": narrow["below"], "height": tall} if tall else None},
               key=key, height="content")
