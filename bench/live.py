"""Live charts against the rerun path and Streamlit's floor, in Chromium at 1280x720, in one run.

For every slider a chart follows live (explorer/live.py), on every lesson that has one: the pointer comes over
the slider (the page asks for the slider's figures if its run did not carry them: that wait is printed apart),
then the slider is dragged
with the mouse one value at a time, back and forth, and each step's input-to-repaint is timed in the page: from
the pointer event's own timestamp to the frame after the redraw of each chart in view (the page's
"fv-live-drawn" event, then requestAnimationFrame and a task, so the paint is done). The slider stands in the
sidebar or above its charts, so a chart that follows it may be off the screen: that one is drawn just after
and not timed. Beside it, measured in the same run on the same
machine: the rerun path (an arrow key on lesson 1's n slider, the server's run, until the page is settled: the
run over and its metric new) and Streamlit's own floor (a page of one slider, one metric and one chart: the
same key until its figure is new, and until it is settled).

    python bench/live.py [--moves 12] [--keys 12] [--port 8730]
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_latency import ARGS, IDLE, p95  # noqa: E402
from bench.rerun_cost import FLOOR_APP  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402
from tests.st_client import Server  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

# In the page: the timestamp of the last pointer move with a button down, and each live redraw's time from it
# to the paint that shows it.
TIMER = """
window.__fvMove = null; window.__fvLatencies = [];
document.addEventListener('pointermove', e => { if (e.buttons) window.__fvMove = e.timeStamp; }, true);
document.addEventListener('fv-live-drawn', e => {
  const from = window.__fvMove;
  if (from === null || !e.detail.inView) return;  // what the reader sees: a chart off the screen is drawn after
  requestAnimationFrame(() => setTimeout(() => window.__fvLatencies.push(performance.now() - from), 0));
}, true);
"""


# Scroll the page's scrolling box (Streamlit's main area, or the window) until the slider is 120 px from the top.
SLIDER_NEAR_TOP = """e => {
  let box = e.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight && /auto|scroll/.test(getComputedStyle(box).overflowY))) {
    box = box.parentElement;
  }
  (box || document.scrollingElement).scrollBy(0, e.getBoundingClientRect().top - 120);
}"""


def knobs_of(page) -> list[str]:
    page.wait_for_function("() => !!window.__fvLive && !!window.__fvLive.missing", timeout=60_000)
    return page.evaluate("() => Object.keys(window.__fvLive.knobs)")


def charts_of(page, knob: str) -> list[str]:
    return page.evaluate("k => Object.entries(window.__fvLive.charts).filter(([c, v]) => k in v).map(([c]) => c)",
                         knob)


def drag(page, knob: str, moves: int) -> tuple[list[float], float | None]:
    """The pointer comes over the slider (the page asks for its figures if it lacks them: the time until
    they are in, ms, or None when they were there already); then the slider is dragged one value at a
    time, right then back: each step's input-to-repaint (ms) of the charts in view. The first chart that
    follows a sidebar slider is scrolled to the middle of the screen; a slider on the page goes near the top of the
    screen, its charts below it as far as the screen reaches."""
    el = page.locator(f"[data-live-knob='{knob}']")
    thumb = el.locator("xpath=../..")
    track = el.locator("xpath=../../..")
    thumb.scroll_into_view_if_needed()
    lacking = page.evaluate("k => window.__fvLive.missing.has(k)", knob)
    t = time.perf_counter()
    thumb.hover()
    page.wait_for_function("k => !window.__fvLive.missing.has(k) && document.documentElement.dataset.fvLive"
                           " !== 'filling'", arg=knob, timeout=60_000)
    built = (time.perf_counter() - t) * 1e3 if lacking else None
    charts = charts_of(page, knob)
    if not charts:
        return [], built
    # a slider in the sidebar stays put: its first chart to the middle of the screen; a slider on the page near the
    # top of the screen, its charts below it as far as the screen goes
    if el.evaluate("e => !!e.closest(\"[data-testid='stSidebar']\")"):
        chart = page.locator(f".st-key-{charts[0]}:not([data-stale='true'])").first  # not one left from before
        chart.evaluate("e => e.scrollIntoView({block: 'center'})")
    else:
        el.evaluate(SLIDER_NEAR_TOP)
    tb, rb = thumb.bounding_box(), track.bounding_box()
    lo, hi, by = (float(el.get_attribute(a)) for a in ("min", "max", "step"))
    count = round((hi - lo) / by) + 1
    step = max(rb["width"] / max(count - 1, 1), 6)
    x, y = tb["x"] + tb["width"] / 2, tb["y"] + tb["height"] / 2
    page.evaluate("() => { window.__fvLatencies = []; window.__fvMove = null; }")
    page.mouse.move(x, y)
    page.mouse.down()
    position, direction = x, 1 if x + step < rb["x"] + rb["width"] else -1
    for _ in range(moves):
        if not rb["x"] <= position + direction * step <= rb["x"] + rb["width"]:
            direction = -direction
        position += direction * step
        seen = page.evaluate("() => window.__fvLatencies.length")
        page.mouse.move(position, y)
        with contextlib.suppress(PlaywrightError):  # a move that stayed within one value: nothing to redraw
            page.wait_for_function("n => window.__fvLatencies.length > n", arg=seen, timeout=1_000)
    out = page.evaluate("() => window.__fvLatencies.slice()")
    page.mouse.up()
    page.wait_for_selector(IDLE, timeout=60_000)
    return out, built


def settled_after_key(page, slider, metric, key: str) -> tuple[float, float]:
    """An arrow key on a slider: ms until the metric is new, and until the run is over with it new."""
    before = metric.inner_text()
    slider.focus()
    t = time.perf_counter()
    page.keyboard.press(key)
    page.wait_for_function("([el, old]) => el.innerText !== old", arg=[metric.element_handle(), before],
                           timeout=60_000)
    shown = time.perf_counter() - t
    page.wait_for_function("() => document.querySelector(\"[data-testid='stApp']\").dataset.testScriptState"
                           " === 'notRunning'", timeout=60_000)
    return shown * 1e3, (time.perf_counter() - t) * 1e3


def summary(name: str, xs: list[float]) -> str:
    return f"| {name} | {len(xs)} | {statistics.median(xs):.0f} | {p95(xs):.0f} |" if xs else f"| {name} | 0 | — | — |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=12, help="steps of each drag")
    ap.add_argument("--keys", type=int, default=12, help="key presses on the rerun path and the floor")
    ap.add_argument("--port", type=int, default=8730)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    live: dict[str, list[float]] = {}
    fills: dict[str, float] = {}  # pointer over a slider to its figures in, where the page lacked them
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        (Path(tmp) / "app.py").write_text(FLOOR_APP)
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        with Server(ROOT, args.port) as app, Server(Path(tmp), args.port + 1) as floor:
            page = chromium.new_page(viewport={"width": 1280, "height": 720})
            page.add_init_script(TIMER)
            for lesson in LESSONS:
                page.goto(f"{app.url}/{'' if lesson is LESSONS[0] else lesson.url_path}")
                page.wait_for_selector(IDLE, timeout=60_000)
                try:
                    found = knobs_of(page)
                except Exception:
                    continue  # no live chart on this lesson
                for knob in found:
                    name = f"{lesson.url_path} · {knob}"
                    live[name], fill = drag(page, knob, args.moves)
                    if fill is not None:
                        fills[name] = fill
            page.goto(app.url)
            page.wait_for_selector(IDLE, timeout=60_000)
            rerun = [settled_after_key(page, page.locator("[data-live-knob='n']"),
                                       page.locator("[data-testid='stMetricValue']").first,
                                       ("ArrowRight", "ArrowLeft")[k % 2]) for k in range(args.keys)]
            fpage = chromium.new_page(viewport={"width": 1280, "height": 720})
            fpage.goto(floor.url)
            fpage.wait_for_selector(IDLE, timeout=60_000)
            floor_keys = [settled_after_key(fpage, fpage.locator("[data-testid='stSidebar'] input[type='range']"),
                                            fpage.locator("[data-testid='stMetricValue']").first,
                                            ("ArrowRight", "ArrowLeft")[k % 2]) for k in range(args.keys)]
        chromium.close()
    print("| input to repaint (ms) | samples | p50 | p95 |")
    print("|---|---:|---:|---:|")
    for name, xs in live.items():
        print(summary(f"live: {name}", xs))
    every = [x for xs in live.values() for x in xs]
    print(summary("live: every slider together", every))
    print(summary("rerun path: lesson 1's n, key to new metric", [r[0] for r in rerun]))
    print(summary("rerun path: lesson 1's n, key to settled", [r[1] for r in rerun]))
    print(summary("Streamlit's floor: key to new metric", [r[0] for r in floor_keys]))
    print(summary("Streamlit's floor: key to settled", [r[1] for r in floor_keys]))
    if fills:
        print(f"\npointer over a slider to its live figures in (the page lacked them; {len(fills)} sliders): "
              f"p50 {statistics.median(fills.values()):.0f} ms, max {max(fills.values()):.0f} ms "
              f"({max(fills, key=lambda k: fills[k])})")
    worst = max((p95(xs), name) for name, xs in live.items() if xs)
    print(f"\nworst live p95: {worst[0]:.0f} ms ({worst[1]}); target ≤ 50 ms. "
          f"Settled: {statistics.median(r[1] for r in rerun) / statistics.median(r[1] for r in floor_keys):.2f}x "
          "the floor's p50 (target ≤ 2x)")


if __name__ == "__main__":
    main()
