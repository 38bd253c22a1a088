"""A chart drawn in place (explorer/plot.py) in a real Chromium, beside the same figure drawn by
st.plotly_chart (tests/plot_app.py): Plotly lays both out alike (Streamlit's chart theme carried over), and a
run that changes the figure redraws it in the same element, where st.plotly_chart mounts a new chart; a run
that leaves it unchanged draws nothing. Screenshot: artifacts/screenshots/plot_in_place.png.
"""
import re

import pytest

from tests.serving import serve
from tests.test_browser import IDLE, SHOTS, WAIT, expect, pytestmark  # noqa: F401

# Plotly's laid-out figure, the parts a theme sets: fonts, colours, margins and the axes' and legend's look.
LAID_OUT = """k => { const g = document.querySelector(`.st-key-${k} .js-plotly-plot`), L = g._fullLayout;
  const ax = a => ({ title: a.title.font, standoff: a.title.standoff, tick: a.tickfont, grid: a.gridcolor,
                     showgrid: a.showgrid, zeroline: a.zeroline, type: a.type, pos: a.ticklabelposition });
  return { font: L.font, title: { ...L.title.font, x: L.title.x, xanchor: L.title.xanchor, pad: L.title.pad,
                                   text: L.title.text.replace(/<\\/?b>/g, "") },
           margin: L.margin, paper: L.paper_bgcolor, plot: L.plot_bgcolor, height: L.height,
           legend: { font: L.legend.font, valign: L.legend.valign, border: L.legend.bordercolor },
           hover: L.hoverlabel, x: ax(L.xaxis), y: ax(L.yaxis),
           traces: g._fullData.map(t => ({ name: t.name, x: t.x, y: t.y, mode: t.mode })) }; }"""
DRAWS = """() => { const g = document.querySelector('.st-key-in_place .js-plotly-plot');
  if (!g.__counted) { g.__counted = true; g.__draws = 0; g.on('plotly_afterplot', () => { g.__draws += 1; }); }
  return g.__draws; }"""


@pytest.fixture(scope="module")
def plot_server():
    with serve(script="tests/plot_app.py") as url:
        yield url


def test_a_chart_drawn_in_place_looks_as_streamlit_draws_it_and_stays_where_it_is(page, plot_server):
    page.goto(plot_server)
    page.wait_for_selector(IDLE, timeout=WAIT)
    for key in ("native", "in_place"):
        page.wait_for_selector(f".st-key-{key} .js-plotly-plot .main-svg g.xtick text", timeout=WAIT)
    native, in_place = (page.evaluate(LAID_OUT, k) for k in ("native", "in_place"))
    assert in_place["traces"] and in_place["traces"] == native["traces"]
    assert in_place == native, {k: (native[k], in_place[k]) for k in native if native[k] != in_place[k]}
    page.locator(".st-key-in_place").screenshot(path=str(SHOTS / "plot_in_place.png"))

    # A run that changes the figure: the same element redrawn, where st.plotly_chart mounts another.
    page.evaluate("() => ['native', 'in_place'].forEach(k => { "
                  "document.querySelector(`.st-key-${k} .js-plotly-plot`).__mark = k; })")
    draws = page.evaluate(DRAWS)
    before = native["traces"][0]["y"]
    slider = page.locator(".st-key-k input[type='range']")
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("old => { const g = document.querySelector('.st-key-in_place .js-plotly-plot');"
                           "return JSON.stringify(g._fullData[0].y) !== JSON.stringify(old); }", arg=before,
                           timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    page.wait_for_function("() => document.querySelector('.st-key-native .js-plotly-plot')", timeout=WAIT)
    marks = page.evaluate("() => ['native', 'in_place'].map(k => "
                          "document.querySelector(`.st-key-${k} .js-plotly-plot`).__mark || null)")
    assert marks == [None, "in_place"], marks
    page.wait_for_function("() => document.querySelector('.st-key-native .js-plotly-plot .xtick')", timeout=WAIT)
    native, in_place = (page.evaluate(LAID_OUT, k) for k in ("native", "in_place"))
    assert in_place["traces"] == native["traces"] != before
    assert page.evaluate(DRAWS) > draws

    # A run that leaves the figure as it is draws nothing.
    draws = page.evaluate(DRAWS)
    runs = page.locator("[data-testid='stCaptionContainer']").inner_text()
    page.locator(".st-key-again button").click()
    expect(page.locator("[data-testid='stCaptionContainer']")).not_to_have_text(runs, timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    assert page.evaluate(DRAWS) == draws


def test_the_fullscreen_button_fills_the_screen_and_gives_the_chart_back(page, plot_server):
    page.goto(plot_server)
    page.wait_for_selector(".st-key-in_place .js-plotly-plot .main-svg g.xtick text", timeout=WAIT)
    size = "() => { const L = document.querySelector('.st-key-in_place .js-plotly-plot')._fullLayout; " \
           "return [L.width, L.height]; }"
    drawn = page.evaluate(size)
    box = page.locator(".st-key-in_place .js-plotly-plot")
    for _ in range(2):
        box.hover()
        box.locator("[data-title='Fullscreen']").click()
        page.wait_for_function(f"() => document.fullscreenElement && ({size})()[1] === innerHeight", timeout=WAIT)
        page.screenshot(path=str(SHOTS / "plot_fullscreen.png"))
        box.hover()
        box.locator("[data-title='Fullscreen']").click()  # again: back in the page, at its size
        page.wait_for_function(f"s => !document.fullscreenElement && JSON.stringify(({size})()) === JSON.stringify(s)",
                               arg=drawn, timeout=WAIT)
    assert re.search(r"\d", page.locator(".st-key-in_place g.xtick text").first.text_content() or "")
