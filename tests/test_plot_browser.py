"""A chart drawn in place (explorer/plot.py) in a real Chromium, beside the same figure drawn by
st.plotly_chart (tests/plot_app.py): Plotly lays both out alike (Streamlit's chart theme carried over); a run
that changes the figure redraws it in the same element, where st.plotly_chart mounts a new chart; a run that
leaves it unchanged draws nothing; a chart far below the screen is drawn after those on it; the fullscreen
button. Screenshots: artifacts/screenshots/plot_in_place.png, plot_fullscreen.png.
"""
import re

import pytest

from tests.serving import serve
from tests.test_browser import IDLE, SHOTS, WAIT, expect, pytestmark  # noqa: F401

# Plotly's laid-out figure, the parts a theme sets: fonts, colours, margins, the axes' and the legend's look, and
# every trace's points and colours.
LAID_OUT = """k => { const g = document.querySelector(`.st-key-${k} .js-plotly-plot`), L = g._fullLayout;
  const ax = a => ({ title: a.title.font, standoff: a.title.standoff, tick: a.tickfont, grid: a.gridcolor,
                     showgrid: a.showgrid, zeroline: a.zeroline, type: a.type, pos: a.ticklabelposition });
  return { font: L.font, title: { ...L.title.font, x: L.title.x, xanchor: L.title.xanchor, pad: L.title.pad,
                                   text: L.title.text.replace(/<\\/?b>/g, "") },
           margin: L.margin, paper: L.paper_bgcolor, plot: L.plot_bgcolor, height: L.height, colorway: L.colorway,
           legend: { font: L.legend.font, valign: L.legend.valign, border: L.legend.bordercolor },
           hover: L.hoverlabel, x: ax(L.xaxis), y: ax(L.yaxis),
           traces: g._fullData.map(t => ({ name: t.name, x: t.x, y: t.y, mode: t.mode, line: t.line.color,
                                           marker: t.marker.color, symbol: t.marker.symbol })) }; }"""
CHART = "document.querySelector('.st-key-{} .js-plotly-plot')"
# How many times the in-place chart has been drawn (Plotly's afterplot event), counted from the first call.
DRAWS = """() => { const g = document.querySelector('.st-key-in_place .js-plotly-plot');
  if (!g.__counted) { g.__counted = true; g.__draws = 0; g.on('plotly_afterplot', () => { g.__draws += 1; }); }
  return g.__draws; }"""


@pytest.fixture(scope="module")
def plot_server():
    with serve(script="tests/plot_app.py") as url:
        yield url


def opened(page, url) -> None:
    page.goto(url)
    page.wait_for_selector(IDLE, timeout=WAIT)
    for key in ("native", "in_place"):
        page.wait_for_selector(f".st-key-{key} .js-plotly-plot .main-svg g.xtick text", timeout=WAIT)


def test_a_chart_drawn_in_place_is_laid_out_as_streamlit_draws_it(page, plot_server):
    opened(page, plot_server)
    native, in_place = (page.evaluate(LAID_OUT, k) for k in ("native", "in_place"))
    assert in_place["traces"] and in_place["traces"] == native["traces"]
    assert in_place == native, {k: (native[k], in_place[k]) for k in native if native[k] != in_place[k]}
    page.locator(".st-key-in_place").screenshot(path=str(SHOTS / "plot_in_place.png"))


def test_a_run_that_changes_the_figure_redraws_it_in_the_same_element(page, plot_server):
    opened(page, plot_server)
    page.evaluate("() => ['native', 'in_place'].forEach(k => { "
                  "document.querySelector(`.st-key-${k} .js-plotly-plot`).__mark = k; })")
    draws = page.evaluate(DRAWS)
    before = page.evaluate(LAID_OUT, "in_place")["traces"][0]["y"]
    page.locator(".st-key-k input[type='range']").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"old => JSON.stringify({CHART.format('in_place')}._fullData[0].y) !== "
                           "JSON.stringify(old)", arg=before, timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    page.wait_for_function(f"() => {CHART.format('native')} && {CHART.format('native')}.querySelector('.xtick')",
                           timeout=WAIT)
    marks = page.evaluate("() => ['native', 'in_place'].map(k => "
                          "document.querySelector(`.st-key-${k} .js-plotly-plot`).__mark || null)")
    assert marks == [None, "in_place"], "st.plotly_chart mounted a new chart; the chart drawn in place is the same"
    native, in_place = (page.evaluate(LAID_OUT, k) for k in ("native", "in_place"))
    assert in_place["traces"] == native["traces"] and in_place["traces"][0]["y"] != before
    assert page.evaluate(DRAWS) > draws


def test_a_run_that_leaves_the_figure_as_it_is_draws_nothing(page, plot_server):
    opened(page, plot_server)
    draws = page.evaluate(DRAWS)
    runs = page.locator("[data-testid='stCaptionContainer']").inner_text()
    page.locator(".st-key-again button").click()
    expect(page.locator("[data-testid='stCaptionContainer']")).not_to_have_text(runs, timeout=WAIT)  # drawn
    page.wait_for_selector(IDLE, timeout=WAIT)
    assert page.evaluate(DRAWS) == draws


def test_a_chart_far_below_the_screen_waits_and_is_drawn_after_those_on_it(page, plot_server):
    # every chart that waited for its draw (explorer/plot.js marks it data-waiting meanwhile), from the page's start
    page.add_init_script("""window.__waited = new Set(); new MutationObserver(ms => ms.forEach(m => {
      if (m.target.dataset && 'waiting' in m.target.dataset) {
        const box = m.target.closest('[class*="st-key-"]');
        window.__waited.add([...box.classList].find(c => c.startsWith('st-key-')));
      } })).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-waiting'] });""")
    opened(page, plot_server)
    below = ".st-key-below .fv-plot"
    page.wait_for_selector(f"{below} .main-svg g.xtick text", state="attached", timeout=WAIT)
    assert page.evaluate("() => [...window.__waited]") == ["st-key-below"], "only the chart off the screen waited"
    order = page.evaluate("() => ['in_place', 'below'].map(k => "
                          "document.querySelector(`.st-key-${k} .fv-plot`).__fvDrawnAt)")
    assert order[0] < order[1], order
    # its room was held while it waited: the page below it did not move when it was drawn
    assert page.locator(below).evaluate("g => g.getBoundingClientRect().height") == 440


def test_the_fullscreen_button_fills_the_screen_and_gives_the_chart_back(page, plot_server):
    opened(page, plot_server)
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
