"""Every chart in explorer/charts/, built from the engine's data as the lessons build it,
drawn in Chromium and checked for what a projector shows: text size, text colour, text
cut off at the figure's edge, the legend overlapping the title, the plot or the axes.

    python bench/render_charts.py                # plotly's own look, 560 and 1180 px wide
    python bench/render_charts.py --streamlit    # also as st.plotly_chart draws them (theme on)
    python bench/render_charts.py --only roofline

Screenshots land in artifacts/charts/; the problems found are printed, one a line.
The cases are tests/chart_cases.py's, the ones tests/test_charts.py checks.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chart_cases import cases  # noqa: E402

OUT = ROOT / "artifacts" / "charts"
WIDTHS = (560, 1180)
CHROMIUM: dict[str, Any] = {"executable_path": "/usr/bin/chromium",
            "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync"]}

def build(builder, args: tuple):
    return builder(*args)


# What the browser is asked, for every chart: each text element's box, size and colour,
# and the boxes of the title, legend, plot area and axis titles.
MEASURE = """() => {
  const svg = document.querySelector('.main-svg').getBoundingClientRect();
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const texts = [...document.querySelectorAll('.main-svg text, .main-svg ~ .main-svg text')]
    .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
    .map(t => { const s = getComputedStyle(t);
      return {text: t.textContent.trim().slice(0, 40),
              cls: t.getAttribute('class') || t.parentNode.getAttribute('class') || '',
              size: parseFloat(s.fontSize), fill: s.fill, box: box(t)}; });
  const one = sel => { const e = document.querySelector(sel); return e ? box(e) : null; };
  return {svg: [svg.left, svg.top, svg.right, svg.bottom], texts,
          title: one('.gtitle'), legend: one('.legend'), plot: one('.nsewdrag'),
          xtitle: one('.xtitle'), ytitle: one('.ytitle'),
          xticks: [...document.querySelectorAll('.xtick text')].map(box),
          notes: [...document.querySelectorAll('.annotation')].map(box)};
}"""


def _overlap(a, b, slack: float = 1.0) -> bool:
    return bool(a and b and a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack)


def _dark(fill: str) -> bool:
    rgb = [int(v) for v in fill[fill.index("(") + 1:fill.index(")")].split(",")[:3]] if "(" in fill else [0, 0, 0]
    return max(rgb) <= 0x60


def problems(m: dict) -> list[str]:
    """What a back-row reader would not be able to read in one drawn chart."""
    out = []
    left, top, right, bottom = m["svg"]
    for t in m["texts"]:
        b = t["box"]
        if t["size"] < 16:
            out.append(f"text {t['text']!r} at {t['size']:.1f} px")
        if "annotation" not in t["cls"] and not _dark(t["fill"]):
            out.append(f"text {t['text']!r} is {t['fill']}, not dark")
        if b[0] < left - 1 or b[2] > right + 1 or b[1] < top - 1 or b[3] > bottom + 1:
            out.append(f"text {t['text']!r} cut off at the figure's edge")
    for name in ("title", "plot", "xtitle", "ytitle"):
        if _overlap(m["legend"], m[name]):
            out.append(f"legend overlaps the {name}")
    if any(_overlap(m["legend"], tick) for tick in m["xticks"]):
        out.append("legend overlaps the x tick labels")
    for k, note in enumerate(m["notes"]):
        if _overlap(note, m["legend"]) or _overlap(note, m["title"]):
            out.append("an annotation overlaps the legend or the title")
        if any(_overlap(note, other) for other in m["notes"][k + 1:]):
            out.append("two annotations overlap")
    return out


GALLERY = """<!doctype html><html><head><meta charset="utf-8"><script>{plotlyjs}</script>
<style>body {{ margin: 0; background: white; }}</style></head><body><div id="chart"></div>
<script>
const FIGS = {figs};
async function draw(slug, width) {{
  const el = document.getElementById('chart'), fig = FIGS[slug];
  Plotly.purge(el); el.removeAttribute('data-drawn');
  el.style.width = width + 'px';
  await Plotly.newPlot(el, fig.data, {{...fig.layout, width: width}}, {{displayModeBar: false}});
  el.setAttribute('data-drawn', slug + '@' + width);
}}
</script></body></html>"""


def render_plain(items, widths=WIDTHS) -> dict:
    """Every figure in one self-contained HTML page (plotly.js embedded, no network),
    drawn at each width in turn and screenshotted."""
    import plotly.offline
    from playwright.sync_api import sync_playwright
    figs = {slug: json.loads(build(builder, args).to_json()) for slug, builder, args in items}
    gallery = OUT / "gallery.html"
    gallery.write_text(GALLERY.format(plotlyjs=plotly.offline.get_plotlyjs(), figs=json.dumps(figs)))
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(**CHROMIUM)
        page = browser.new_page(viewport={"width": max(widths) + 20, "height": 480})
        page.goto(gallery.as_uri())
        for slug in figs:
            for width in widths:
                page.evaluate("([slug, width]) => draw(slug, width)", [slug, width])
                page.wait_for_selector(f"#chart[data-drawn='{slug}@{width}']")
                page.locator("#chart").screenshot(path=OUT / f"{slug}__{width}.png")
                found[f"{slug}@{width}"] = problems(page.evaluate(MEASURE))
        browser.close()
    return found


STREAMLIT_SCRIPT = """
import pickle, streamlit as st
st.set_page_config(layout="wide")
st.sidebar.markdown("### Settings")
st.sidebar.slider("sequence length n", 16, 4096, 1024)
figs = pickle.load(open({path!r}, "rb"))
for k in range(0, len(figs), 2):
    for col, (slug, fig) in zip(st.columns(2), figs[k:k + 2]):
        with col:
            st.markdown(f"`{{slug}}`")
            st.plotly_chart(fig, key=slug)
"""


def render_streamlit(items, port: int = 8611) -> dict:
    """The same figures as st.plotly_chart draws them (theme="streamlit"), two to a row
    beside a sidebar, at 1280x720 with the app's own .streamlit/config.toml."""
    import pickle

    from playwright.sync_api import sync_playwright
    work = Path("/tmp/flashviz_charts_st")
    (work / ".streamlit").mkdir(parents=True, exist_ok=True)
    (work / ".streamlit" / "config.toml").write_text((ROOT / ".streamlit" / "config.toml").read_text())
    figs = [(slug, build(builder, args)) for slug, builder, args in items]
    with open(work / "figs.pkl", "wb") as f:
        pickle.dump(figs, f)
    (work / "app.py").write_text(STREAMLIT_SCRIPT.format(path=str(work / "figs.pkl")))
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(work / "app.py"),
                               "--server.port", str(port), "--server.headless", "true"],
                              cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found = {}
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"http://localhost:{port}/_stcore/health").read() == b"ok":
                    break
            except OSError:
                time.sleep(0.25)  # polling the server's health, not waiting on a picture
        with sync_playwright() as p:
            browser = p.chromium.launch(**CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"http://localhost:{port}/")
            page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=60_000)
            charts_ = page.locator("[data-testid='stPlotlyChart']")
            charts_.nth(len(figs) - 1).wait_for()
            for k, (slug, _) in enumerate(figs):
                chart = charts_.nth(k)
                chart.scroll_into_view_if_needed()
                chart.locator(".main-svg .cartesianlayer").first.wait_for()
                chart.screenshot(path=OUT / f"{slug}__streamlit.png")
                found[f"{slug}@streamlit({round((chart.bounding_box() or {'width': 0})['width'])}px)"] = problems(
                    chart.evaluate(MEASURE.replace("document.", "el.").replace("() =>", "el =>")))
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streamlit", action="store_true", help="also render under Streamlit's theme")
    parser.add_argument("--only", default="", help="only slugs containing one of these comma-separated texts")
    opts = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    items = [c for c in cases() if any(part in c[0] for part in opts.only.split(","))]
    found = render_plain(items)
    if opts.streamlit:
        found.update(render_streamlit(items))
    bad = {k: v for k, v in found.items() if v}
    for key, issues in bad.items():
        for issue in sorted(set(issues)):
            print(f"{key}: {issue}")
    print(f"{len(found)} drawings of {len(items)} charts, {len(bad)} with problems; pictures in {OUT}")
    (OUT / "problems.json").write_text(json.dumps(bad, indent=1))


if __name__ == "__main__":
    main()
