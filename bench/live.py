"""Live charts against the rerun path and Streamlit's floor, in Chromium at 1280x720, in one run.

For every slider a chart follows live (explorer/live.py), on every lesson that has one: the pointer comes over
the slider (the page asks for the slider's figures if its run did not carry them: that wait is printed apart),
then the slider is dragged
with the mouse one value at a time, back and forth, and each step's input-to-repaint is timed in the page: from
the pointer event's own timestamp to the frame after the redraw of each chart in view (the page's
"fv-live-drawn" event, then requestAnimationFrame and a task of the highest priority, so the paint is done; the
"later task" column: a plain task, as before session 60, which also waits for tasks queued before it). The slider
stands in the sidebar or above its charts, so a chart that follows it may be off the screen: that one is drawn just
after and not timed. Beside it, measured in the same run on the same
machine: the rerun path (an arrow key on lesson 1's n slider, the server's run, until the page is settled: the
run over and its metric new) and Streamlit's own floor (a page of one slider, one metric and one chart: the
same key until its figure is new, and until it is settled). And the floor of each live redraw: the same charts
that were in view, redrawn along the same values in a page of plotly.js alone (no input event, no Streamlit), once
the lesson's page has stopped drawing ahead.
Each slider is dragged three times: at once, as the pointer comes over it; back at once along the same path, right after
that drag was let go and the page ran at the value it was let go at (the figures along the slider are the same ones,
and so are the copies the page drew of them: explorer/snapshots.js); and once the page has drawn the copies of its
charts at each of its values (the time from the pointer's coming to the copies drawn is printed).

    python bench/live.py [--moves 12] [--keys 12] [--port 8730] [--lessons tiled-attention,fa2-fa1]
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_latency import ARGS, IDLE, p95  # noqa: E402
from bench.rerun_cost import FLOOR_APP  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402
from tests.st_client import Server  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

# In the page: the timestamp of the last pointer move with a button down, and each live redraw's time from it
# to the paint that shows it. A move reaches the page twice in Chromium, with one timestamp (the input's own): as
# `pointerrawupdate` when it arrives, which explorer/pointer.js draws from, and as `pointermove` with the next frame.
TIMER = """
window.__fvMove = null; window.__fvLatencies = []; window.__fvLatenciesTask = [];
for (const type of ['pointerrawupdate', 'pointermove'])
  document.addEventListener(type, e => { if (e.buttons) window.__fvMove = e.timeStamp; }, true);
document.addEventListener('fv-live-drawn', e => {
  const from = window.__fvMove;
  // what the reader sees as the slider moves: a chart off the screen is drawn after it stands still, and one in view
  // drawn again then in its own margins (explorer/live.js `moved`)
  if (from === null || !e.detail.inView || e.detail.moving === false) return;
  requestAnimationFrame(() => {
    // the frame painted: the first task after it, at the highest priority, so not one queued before it (the
    // slider's own React update, after a chart drawn in the pointer's frame: explorer/pointer.js)
    scheduler.postTask(() => window.__fvLatencies.push(performance.now() - from), { priority: 'user-blocking' });
    // and as measured before session 60: a plain task after the frame, after whatever was queued before it
    setTimeout(() => window.__fvLatenciesTask.push(performance.now() - from), 0);
  });
}, true);
"""


def knobs_of(page) -> list[str]:
    page.wait_for_function("() => !!window.__fvLive && !!window.__fvLive.missing", timeout=60_000)
    return page.evaluate("() => Object.keys(window.__fvLive.knobs)")


def charts_of(page, knob: str) -> list[str]:
    return page.evaluate("k => Object.entries(window.__fvLive.charts).filter(([c, v]) => k in v).map(([c]) => c)",
                         knob)


# Whether every chart that follows the slider holds a copy drawn ahead at each of its values (explorer/snapshots.js)
COPIED = """k => document.documentElement.dataset.fvSnap === 'ready' && Object.entries(window.__fvLive.charts)
  .filter(([c, v]) => k in v).every(([c, v]) => {
    const gd = document.querySelector(`.st-key-${CSS.escape(c)} .fv-plot`);
    return gd && gd.__fvSnaps && v[k].values.every((_, i) => gd.__fvSnaps.byKey.has(`${k}|${i}`)); })"""


# The lesson's page drawing nothing ahead (explorer/snapshots.js) and not running
QUIET = ("() => document.documentElement.dataset.fvSnap === 'ready'"
         " && document.querySelector(\"[data-testid='stApp']\").dataset.testScriptState === 'notRunning'")


# For a message: each chart that follows the slider, its values and the copies it holds.
COPIES = """k => JSON.stringify(Object.entries(window.__fvLive.charts).filter(([c, v]) => k in v).map(([c, v]) => {
  const gd = document.querySelector(`.st-key-${CSS.escape(c)} .fv-plot`);
  return [c, v[k].values.length, gd && gd.__fvSnaps ? [...gd.__fvSnaps.byKey.keys()] : null,
          gd && {snap: document.documentElement.dataset.fvSnap, later: !!gd.__fvLater, moved: gd.__fvMoved,
                 spec: gd.__fvSpec === (gd.__fvWant || {}).spec, run: [gd.__fvRun, window.__fvLive.run],
                 waiting: window.__fvLive.snapWaiting, holding: window.__fvLive.holding,
                 value: document.querySelector(`[data-live-knob='${k}']`).value}]; }))"""


class Dragged(NamedTuple):
    out: list[float] | None  # each step's input-to-repaint (ms) of the charts in view; None: no chart follows it
    built: float | None  # pointer over the slider to its figures in (and its copies drawn, `ahead`), ms
    figures: list  # the charts that were in view, for bare_floor
    later: list[float]  # each step timed to a plain task after the paint (TIMER)
    path: list[float]  # where the pointer went down and each step took it, px from the track's left end


def drag(page, knob: str, moves: int, ahead: bool = False, back: Dragged | None = None) -> Dragged:
    """The pointer comes over the slider (the page asks for its figures if it lacks them: the time until
    they are in, ms, or None when they were there already; with `ahead`, until the copies of its charts are drawn
    too); then the slider is dragged one value at a time, rightwards (leftwards from its right end), turning at either
    end: each step's input-to-repaint (ms) of the charts in view. The first chart that follows it goes to the bottom
    of the screen; the slider stays in view (a lesson's own row of live sliders sticks under the top bar). With
    `back`, a drag let go just before: the slider is dragged back along that drag's path, from where it was let go to
    where it began, over the values it passed."""
    el = page.locator(f"[data-live-knob='{knob}']")
    thumb = el.locator("xpath=../..")
    track = el.locator("xpath=../../..")
    thumb.scroll_into_view_if_needed()
    lacking = page.evaluate("k => window.__fvLive.missing.has(k)", knob)
    t = time.perf_counter()
    thumb.hover()
    page.wait_for_function("k => !window.__fvLive.missing.has(k) && document.documentElement.dataset.fvLive"
                           " !== 'filling'", arg=knob, timeout=60_000)
    if ahead:
        try:
            page.wait_for_function(COPIED, arg=knob, timeout=120_000)
        except PlaywrightError:
            copies = page.evaluate(COPIES, knob)
            raise SystemExit(f"{knob}: its charts' copies not all drawn in 120 s: {copies}") from None
    built = (time.perf_counter() - t) * 1e3 if lacking or ahead else None
    charts = charts_of(page, knob)
    if not charts:
        return Dragged(None, built, [], [], [])
    # the first chart that follows it at the bottom of the screen, and the slider in view: the sidebar's stays
    # put, and a lesson's own row stays under the top bar (explorer/css.py)
    chart = page.locator(f".st-key-{charts[0]}:not([data-stale='true'])").first  # not one left from before
    chart.evaluate("e => e.scrollIntoView({block: 'end'})")
    thumb.scroll_into_view_if_needed()
    tb, rb = thumb.bounding_box(), track.bounding_box()
    lo, hi, by = (float(el.get_attribute(a)) for a in ("min", "max", "step"))
    count = round((hi - lo) / by) + 1
    step = max(rb["width"] / max(count - 1, 1), 6)
    x, y = tb["x"] + tb["width"] / 2, tb["y"] + tb["height"] / 2
    page.evaluate("() => { window.__fvLatencies = []; window.__fvLatenciesTask = []; window.__fvMove = null; }")
    page.mouse.move(x, y)
    page.mouse.down()
    if back is None:
        path, direction = [x - rb["x"]], 1 if x + step < rb["x"] + rb["width"] else -1
        for _ in range(moves):
            if not 0 <= path[-1] + direction * step <= rb["width"]:
                direction = -direction
            path.append(path[-1] + direction * step)
    else:  # the pointer down on the thumb, where that drag was let go: its values as they came then (pointer.js)
        path = [x - rb["x"]] + back.path[-2::-1]
    for position in path[1:]:
        seen = page.evaluate("() => window.__fvLatencies.length")
        page.mouse.move(rb["x"] + position, y)
        with contextlib.suppress(PlaywrightError):  # a move that stayed within one value: nothing to redraw
            page.wait_for_function("n => window.__fvLatencies.length > n", arg=seen, timeout=1_000)
    out = page.evaluate("() => window.__fvLatencies.slice()")
    later = page.evaluate("() => window.__fvLatenciesTask.slice()")
    figures = page.evaluate(GRAB, [knob, charts])
    page.mouse.up()
    page.wait_for_selector(IDLE, timeout=60_000)
    return Dragged(out, built, figures, later, path)


# The charts in view that follow a slider, as the page holds them (the figure as its run drew it, and the figures
# along the slider), for the bare page below.
GRAB = """([knob, charts]) => {
  const live = window.__fvLive, out = [];
  for (const chart of charts) {
    const gd = document.querySelector(`.st-key-${CSS.escape(chart)} .js-plotly-plot`);
    if (!gd || !gd.__fvBase) continue;
    const box = gd.closest(`.st-key-${CSS.escape(chart)}`).getBoundingClientRect();
    if (box.bottom <= 0 || box.top >= innerHeight) continue;
    const r = gd.getBoundingClientRect();
    out.push({ base: gd.__fvBase, steps: live.charts[chart][knob], width: r.width, height: r.height });
  }
  return JSON.parse(JSON.stringify(out));
}"""

# Plotly alone: the same charts in a page that holds nothing else, redrawn along the same values as the drag, as
# live.js redraws them while the slider moves (the run's figure with a value's changes merged in, in the margins on
# screen), all of them, then the paint. No input event and no Streamlit: the floor of a live redraw of these figures
# on this machine.
BARE = """async ([charts, path]) => {
  const merge = (into, change) => {
    const out = { ...into };
    for (const [k, v] of Object.entries(change || {})) { if (v === null) delete out[k]; else out[k] = v; }
    return out;
  };
  const paint = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  document.body.innerHTML = "";
  const gds = [];
  for (const c of charts) {
    const gd = document.createElement("div");
    gd.style.width = c.width + "px"; gd.style.height = c.height + "px"; document.body.appendChild(gd);
    await Plotly.newPlot(gd, c.base.data, c.base.layout); gds.push(gd);
  }
  const out = [];
  for (const at of path) {
    await paint();
    const t0 = performance.now();
    charts.forEach((c, q) => {
      const change = c.steps.data[at], lay = c.steps.layout[at];
      const data = Array.isArray(change) ? change : c.base.data.map((t, i) => merge(t, change[i]));
      const layout = merge(c.base.layout, lay), size = gds[q]._fullLayout._size;  // in the margins on screen, as
      layout.margin = { ...layout.margin, l: size.l, r: size.r, t: size.t, b: size.b, autoexpand: false };  // live.js
      Plotly.react(gds[q], data, layout);
    });
    await paint();
    out.push(performance.now() - t0);
  }
  return out;
}"""


def bare_floor(bare, figures: list, moves: int) -> list[float]:
    """Input-to-paint's floor for one slider: its charts in view redrawn in the bare page along `moves` values,
    right then back from the first, as the drag went."""
    count = len(figures[0]["steps"]["values"])
    path, at, way = [], 0, 1
    for _ in range(moves):
        if not 0 <= at + way < count:
            way = -way
        at += way
        path.append(at)
    return bare.evaluate(BARE, [figures, path])


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


def floor_cells(xs: list[float]) -> str:
    return f" {statistics.median(xs):.0f} | {p95(xs):.0f} |" if xs else " — | — |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=12, help="steps of each drag")
    ap.add_argument("--keys", type=int, default=12, help="key presses on the rerun path and the floor")
    ap.add_argument("--port", type=int, default=8730)
    ap.add_argument("--lessons", default="", help="only these lessons (URL paths, comma-separated; lesson 1's is "
                    f"{LESSONS[0].url_path})")
    args = ap.parse_args()
    only = {name for name in args.lessons.split(",") if name}
    import plotly
    from playwright.sync_api import sync_playwright

    live: dict[str, list[float]] = {}
    floors: dict[str, list[float]] = {}  # the same charts' redraws in a page of plotly.js alone
    fills: dict[str, float] = {}  # pointer over a slider to its figures in, where the page lacked them
    again: dict[str, list[float] | None] = {}  # the drag back at once over the values the first passed
    ahead: dict[str, list[float] | None] = {}  # the drag again, once the copies of its charts are drawn
    copying: dict[str, float | None] = {}  # pointer over the slider to its figures in and its copies drawn
    later: dict[str, list[float]] = {}  # the drag at once, timed to a plain task after the paint
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        (Path(tmp) / "app.py").write_text(FLOOR_APP)
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        with Server(ROOT, args.port) as app, Server(Path(tmp), args.port + 1) as floor:
            page = chromium.new_page(viewport={"width": 1280, "height": 720})
            page.add_init_script(TIMER)
            bare = chromium.new_page(viewport={"width": 1280, "height": 720})
            bare.set_content("<html><body></body></html>")
            bare.add_script_tag(path=str(Path(plotly.__file__).parent / "package_data" / "plotly.min.js"))
            for lesson in [lesson for lesson in LESSONS if not only or lesson.url_path in only]:
                page.goto(f"{app.url}/{'' if lesson is LESSONS[0] else lesson.url_path}")
                page.wait_for_selector(IDLE, timeout=60_000)
                try:
                    found = knobs_of(page)
                except Exception:
                    continue  # no live chart on this lesson
                for knob in found:
                    name = f"{lesson.url_path} · {knob}"
                    first = drag(page, knob, args.moves)
                    drags, fill, figures, later[name] = first.out, first.built, first.figures, first.later
                    if fill is not None:
                        fills[name] = fill
                    if drags is not None:  # None: no chart follows it at these settings
                        live[name] = drags
                        again[name] = drag(page, knob, args.moves, back=first).out
                        # again, once the page has drawn its copies for this slider's charts (those the drags above
                        # made outlive their releases: the time printed is for the values neither drew)
                        ahead[name], copying[name], *_ = drag(page, knob, args.moves, ahead=True)
                        # the bare page once the lesson's page draws nothing ahead: before session 62 it ran while
                        # that page drew its copies in another process, and the floor took their time too
                        page.wait_for_function(QUIET, timeout=120_000)
                        floors[name] = bare_floor(bare, figures, args.moves) if figures else []
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
    print("| input to repaint (ms) | samples | p50 | p95 | a later task: p50 | p95 | plotly.js alone: p50 | p95 |"
          " back after a release: p50 | p95 | copies drawn: p50 | p95 | copies drawn in (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, xs in live.items():
        made = copying.get(name)
        print(summary(f"live: {name}", xs) + floor_cells(later.get(name, [])) + floor_cells(floors.get(name, []))
              + floor_cells(again.get(name) or []) + floor_cells(ahead.get(name) or [])
              + (f" {made / 1e3:.1f} |" if made is not None else " — |"))
    every = [x for xs in live.values() for x in xs]
    print(summary("live: every slider together", every) + floor_cells([x for xs in later.values() for x in xs])
          + floor_cells([x for xs in floors.values() for x in xs])
          + floor_cells([x for xs in again.values() if xs for x in xs])
          + floor_cells([x for xs in ahead.values() if xs for x in xs]) + " |")
    print(summary("rerun path: lesson 1's n, key to new metric", [r[0] for r in rerun]))
    print(summary("rerun path: lesson 1's n, key to settled", [r[1] for r in rerun]))
    print(summary("Streamlit's floor: key to new metric", [r[0] for r in floor_keys]))
    print(summary("Streamlit's floor: key to settled", [r[1] for r in floor_keys]))
    if fills:
        print(f"\npointer over a slider to its live figures in (the page lacked them; {len(fills)} sliders): "
              f"p50 {statistics.median(fills.values()):.0f} ms, max {max(fills.values()):.0f} ms "
              f"({max(fills, key=lambda k: fills[k])})")
    worst = max((p95(xs), name) for name, xs in live.items() if xs)
    over = [name for name, xs in floors.items() if xs and p95(xs) > 50]
    met = [name for name, xs in live.items() if xs and p95(xs) <= 50]
    met_later = [name for name, xs in later.items() if xs and p95(xs) <= 50]
    print(f"\nlive sliders at p95 <= 50 ms: {len(met)} of {sum(1 for xs in live.values() if xs)} dragged at once "
          f"({len(met_later)} timed to a later task); "
          f"{sum(1 for xs in again.values() if xs and p95(xs) <= 50)} of {sum(1 for xs in again.values() if xs)} "
          "dragged back at once after a release; "
          f"{sum(1 for xs in ahead.values() if xs and p95(xs) <= 50)} of {sum(1 for xs in ahead.values() if xs)} "
          "dragged once their copies were drawn")
    print(f"\nplotly.js alone, the same charts in view redrawn in a bare page: p95 over 50 ms for {len(over)} of "
          f"{sum(1 for xs in floors.values() if xs)} sliders")
    print(f"\nworst live p95: {worst[0]:.0f} ms ({worst[1]}); target ≤ 50 ms. "
          f"Settled: {statistics.median(r[1] for r in rerun) / statistics.median(r[1] for r in floor_keys):.2f}x "
          "the floor's p50 (target ≤ 2x)")


if __name__ == "__main__":
    main()
