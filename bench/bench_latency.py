"""Interaction latency, measured; prints, never asserts.

1. Script time of each lesson's re-run after one slider move (AppTest), p50 and p95,
   at the defaults and at the sliders' extremes, beside an empty Streamlit page
   measured in the same run (a ratio to Streamlit's own floor on this noisy machine).
2. Cold start: from `streamlit run app.py` to the first lesson's first screen complete in Chromium (the run over,
   every chart in the screen drawn), and to every chart of the page drawn.
3. Input to render in Chromium: one arrow key on the n slider until the figure changes.

    python bench/bench_latency.py [repeats]
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.st_client import Server, free_port  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402

# n steps between two neighbouring values: each re-run sees a new config half the
# time and a cached one the other half, as a teacher stepping back and forth would.
STEPS = [1024, 1536]
EXTREME_STEPS = [524288, 1048576]
# every shared slider at an end: the largest n and d, the smallest tiles and budget
EXTREMES = {"d": 256, "Br": 1, "Bc": 1024, "sram": 8, "causal": True, "order": "fa1"}


def timed_reruns(at: AppTest, move, repeats: int) -> list[float]:
    out = []
    for k in range(repeats):
        move(at, k)
        t = time.perf_counter()
        at.run()
        out.append(time.perf_counter() - t)
        assert not at.exception, [e.value for e in at.exception]
    return out


def floor(repeats: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "empty.py"
        script.write_text("import streamlit as st\nx = st.slider('x', 0, 10, key='x')\nst.write(x)\n")
        at = AppTest.from_file(str(script)).run()
        return timed_reruns(at, lambda at, k: at.slider(key="x").set_value(k % 10), repeats)


def lesson(file: str, repeats: int, extremes: bool = False) -> list[float]:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    if file != LESSONS[0].file:
        at.switch_page(file).run()
    steps = STEPS
    if extremes:
        for key, value in EXTREMES.items():
            widget: Any = next(w for kind in ("select_slider", "slider", "toggle", "radio")
                          for w in at.get(kind) if w.key == key)
            widget.set_value(value)
        at.run()
        steps = EXTREME_STEPS
    return timed_reruns(at, lambda at, k: at.select_slider(key="n").set_value(steps[k % 2]), repeats)


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def launch(p):
    return p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)


# The first screen complete, as a reader who opened the link sees it: the run over, nothing of it still a skeleton,
# and every chart in the screen drawn (a Streamlit chart or the app's own, explorer/plot.py).
FIRST_SCREEN = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.dataset.testScriptState !== "notRunning") return false;
  if (!document.querySelector("[data-testid='stMain'] [data-testid='stElementContainer']")) return false;
  if (document.querySelector("[data-testid='stMain'] [data-testid='stSkeleton']")) return false;
  const seen = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.bottom > 0 && r.top < innerHeight;
  };
  return [...document.querySelectorAll("[data-testid='stPlotlyChart'], .fv-plot")].filter(seen)
    .every((chart) => chart.querySelector(".main-svg"));
}"""
# Every chart of the page drawn, those below the screen too (explorer/plot.js draws those when the page is idle).
EVERY_CHART = """() => {
  const charts = [...document.querySelectorAll("[data-testid='stPlotlyChart'], .fv-plot")];
  return charts.length > 0
    && charts.every((chart) => chart.querySelector(".main-svg") && !chart.matches("[data-waiting]"));
}"""


def cold_start(browser, app: Path, port: int):
    """Start `streamlit run app.py` in `app` and open it: seconds from the start of the server to the first
    lesson's first screen complete (FIRST_SCREEN), the open page, and the server (stop it with
    server.__exit__()). The server also keeps `first_paint_cpu` (its CPU seconds from its start to then) and
    `every_chart` (seconds from its start until every chart of the page was drawn, those below the screen too)."""
    server = Server(app, port).__enter__()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    frames = FRAMES.setdefault(id(page), [])
    page.on("websocket", lambda ws: ws.on("framereceived", lambda _: frames.append(time.perf_counter())))
    page.goto(server.url)
    page.wait_for_function(FIRST_SCREEN, timeout=60_000, polling="raf")
    first = time.perf_counter() - server.started
    server.first_paint_cpu = server.cpu()
    page.wait_for_function(EVERY_CHART, timeout=60_000, polling="raf")
    server.every_chart = time.perf_counter() - server.started
    page.wait_for_selector(IDLE, timeout=60_000)
    return first, page, server


FRAMES: dict[int, list[float]] = {}  # id(page) -> when each websocket frame from the server arrived


def key_to_figure(page, key: str) -> tuple[float, float]:
    """One arrow key ("ArrowRight", "ArrowLeft") on the sidebar's n slider until lesson 1's
    first metric shows the new figure (round trip, rerun and repaint), and until the last
    websocket frame of the rerun arrived (the server's whole answer, before the browser's work)."""
    slider = page.locator("[data-testid='stSidebar'] input[type='range']").first
    value = page.locator("[data-testid='stMetricValue']").first
    before = value.inner_text()
    slider.focus()
    t = time.perf_counter()
    page.keyboard.press(key)
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[value.element_handle(), before],
                           timeout=30_000)
    took = time.perf_counter() - t
    page.wait_for_selector(IDLE)
    answered = max((f for f in FRAMES.get(id(page), []) if f > t), default=t + took) - t
    return took, answered


def browser_figures(repeats: int) -> None:
    from playwright.sync_api import sync_playwright

    colds, every, inputs = [], [], []
    with sync_playwright() as p:
        browser = launch(p)
        for run in range(3):
            cold, page, server = cold_start(browser, ROOT, free_port())
            colds.append(cold)
            every.append(server.every_chart)
            if run == 0:
                inputs = [key_to_figure(page, ("ArrowRight", "ArrowLeft")[k % 2])[0] for k in range(repeats)]
            page.close()
            server.__exit__()
        browser.close()
    print(f"cold start to the first lesson's first screen in Chromium: median {statistics.median(colds):.2f} s "
          f"(runs: {', '.join(f'{c:.2f}' for c in colds)}; the target, 1.3x Streamlit's floor, is measured by "
          f"bench/rerun_cost.py --whole --floor); to every chart of the page drawn: median "
          f"{statistics.median(every):.2f} s")
    print(f"slider key press to new figure in Chromium: p50 {statistics.median(inputs) * 1e3:.0f} ms, "
          f"p95 {p95(inputs) * 1e3:.0f} ms over {len(inputs)} presses")


def p95(xs):
    return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)]


if __name__ == "__main__":
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    base = floor(repeats)
    b50 = statistics.median(base)
    print("script time of a re-run after one slider move (ms; targets p95 < 100 at defaults, < 300 at extremes)")
    print(f"{'page':28s} {'p50':>7s} {'p95':>7s} {'/empty':>7s} {'ext p50':>8s} {'ext p95':>8s}")
    print(f"{'empty Streamlit page':28s} {b50 * 1e3:7.1f} {p95(base) * 1e3:7.1f} {1.0:7.1f}")
    for les in LESSONS:
        xs, ext = lesson(les.file, repeats), lesson(les.file, repeats, extremes=True)
        print(f"{les.title:28s} {statistics.median(xs) * 1e3:7.1f} {p95(xs) * 1e3:7.1f} "
              f"{statistics.median(xs) / b50:7.1f} {statistics.median(ext) * 1e3:8.1f} {p95(ext) * 1e3:8.1f}")
    browser_figures(10)
