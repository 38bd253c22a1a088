"""One of the app's charts drawn by st.plotly_chart and in place (explorer/plot.py), and in place again four
screens below, for tests/test_plot_browser.py: `streamlit run tests/plot_app.py`. The slider `k` moves the
figure's data; the button reruns the page with the figure unchanged; the caption counts the runs."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # streamlit runs this file with tests/ on the path, not the project
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from explorer import cache, charts  # noqa: E402
from explorer.plot import plot  # noqa: E402
from flashviz.model.config import Config  # noqa: E402

k = st.slider("n", 512, 4096, 1024, step=512, key="k")
st.button("Run again", key="again")
st.session_state["runs"] = st.session_state.get("runs", 0) + 1
st.caption(f"run {st.session_state['runs']}")
ns = (k // 2, k, 2 * k)
fig = charts.bytes_vs_flops(cache.over_n(Config(n=k, d=64, dtype="bfloat16"), ns), "bfloat16")
config = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "filename": "chart", "scale": 2}}
st.plotly_chart(fig, key="native", config=config)
plot(fig, "in_place", config)
st.html('<div style="height: 3000px"></div>')  # four screens down: a chart the reader does not see yet
plot(fig, "below", config)
