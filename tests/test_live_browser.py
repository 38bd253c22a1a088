"""Live charts in a real Chromium (explorer/live.py): every slider a chart follows, on every lesson, dragged
with the mouse and stepped with the keyboard. While it is dragged every chart that follows it redraws and no
message leaves the page for the server; on release the page reruns once, the URL takes the value, and the chart
the server then draws at that value equals the one the browser drew from the carried figures."""
import io
import json
import re

import numpy as np
import pytest

from bench.live import COPIED
from explorer.lessons import LESSONS
from tests.test_browser import WAIT, drawn, expect, lesson_url, opened, pytestmark, query  # noqa: F401

# What a chart shows, read off plotly's drawn state: every trace's kind, name, points and text, the title
# and the annotations.
SHOWN = """key => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  const list = v => v == null ? null : (typeof v === 'string' ? v : Array.from(v));
  return JSON.stringify({
    data: gd._fullData.map(t => ({ type: t.type, name: t.name, x: list(t.x), y: list(t.y), text: list(t.text),
                                   visible: t.visible })),
    title: gd._fullLayout.title.text,
    notes: (gd._fullLayout.annotations || []).map(a => a.text),
  });
}"""

def live_state(page) -> dict:
    """The sliders and charts this page's run carried, once every slider's figures are built (asked for
    all at once, as a touch screen does) and every slider is marked."""
    page.wait_for_function("() => !!window.__fvLive && !!window.__fvLive.missing", timeout=WAIT)
    page.evaluate("() => window.__fvLive.ask([...window.__fvLive.missing])")
    page.wait_for_function("() => document.documentElement.dataset.fvLive === 'ready' && Object.keys("
                           "window.__fvLive.knobs).every(k => document.querySelector(`[data-live-knob='${k}']`))",
                           timeout=WAIT)
    return page.evaluate("() => ({knobs: Object.keys(window.__fvLive.knobs), charts: Object.fromEntries("
                         "Object.entries(window.__fvLive.charts).map(([c, k]) => [c, Object.keys(k)]))})")


def built(page, knob: str) -> None:
    """Wait until the page holds the slider's figures (and asks for nothing)."""
    page.wait_for_function("k => !window.__fvLive.missing.has(k) && document.documentElement.dataset.fvLive"
                           " !== 'filling'", arg=knob, timeout=WAIT)


def followers(state: dict, knob: str) -> list[str]:
    return sorted(chart for chart, knobs in state["charts"].items() if knob in knobs)


class Sent:
    """Frames the page sends on its websocket (Streamlit's messages to the server)."""

    def __init__(self, page):
        self.count = 0
        page.on("websocket", lambda ws: ws.on("framesent", self._one))

    def _one(self, _frame) -> None:
        self.count += 1


def thumb(page, knob: str):
    return page.locator(f"[data-live-knob='{knob}']").locator("xpath=../..")


def shown(page, chart: str) -> str:
    return page.evaluate(SHOWN, chart)


# Where a slider stands, as a chart's data-live-at names it: the value itself, or its option (a select slider).
STANDS = """([knob, chart]) => {
  const live = window.__fvLive, el = document.querySelector(`[data-live-knob='${knob}']`);
  const values = live.charts[chart][knob].values, raw = Number(el.value);
  return String(live.knobs[knob].mode === 'index' ? values[raw] : raw);
}"""


def live_at(page, chart: str):
    return page.evaluate("k => document.querySelector(`.st-key-${k} .js-plotly-plot`).dataset.liveAt", chart)


# Lesson index -> the sliders its charts follow at the defaults (the page's own list is checked against it):
# a slider that changes none of a lesson's charts (lesson 5's tiles: demo 5 stores and counts the same) is
# not carried.
EXPECTED = {0: {"n", "d", "Br", "Bc"}, 1: {"os_len", "os_block", "os_spread", "os_sink"}, 2: {"n", "d", "Br", "Bc"},
            3: {"n", "d"}, 4: {"n", "d"}, 6: {"n", "d", "Br", "Bc"}, 7: {"n", "d", "Br", "Bc"}, 9: {"hw_d"},
            10: {"wg_d", "wg_bh"}, 11: {"inf_ctx", "inf_batch", "inf_heads", "inf_kv", "d", "Br"},
            12: {"sc_tile"}, 13: {"mk_n", "mk_window", "d", "Br", "Bc"}}


# Every frame a chart is drawn in while its slider moves (in the margins it had on screen: explorer/live.js), with
# the text of its labels, titles and legend that falls outside the chart: none may.
OUTSIDE = """window.__outside = []; document.addEventListener('fv-live-drawn', e => { if (!e.detail.moving) return;
  const box = e.target.getBoundingClientRect(), out = [];
  for (const t of e.target.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .legendtext,'
                                            + ' .gtitle, .annotation-text, .cbaxis text')) {
    const r = t.getBoundingClientRect();
    if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
                    || r.bottom > box.bottom + 1)) out.push(t.textContent);
  }
  window.__outside.push([e.target.closest('[class*="st-key-"]').className.match(/st-key-(\\S+)/)[1],
                         e.target.dataset.liveAt, out]); }, true);"""


@pytest.mark.parametrize("k", sorted(EXPECTED), ids=[LESSONS[k].url_path for k in sorted(EXPECTED)])
def test_every_live_slider_moves_its_charts_in_the_browser_and_only_its_release_reaches_the_server(server, page, k):
    sent = Sent(page)
    page.add_init_script(OUTSIDE)
    page.goto(lesson_url(server, k))
    opened(page, k)
    state = live_state(page)
    assert set(state["knobs"]) == EXPECTED[k], f"lesson {k + 1}'s live sliders"
    redrawn: list[str] = []
    for knob in state["knobs"]:
        charts = followers(state, knob)
        before = {chart: shown(page, chart) for chart in charts}
        handle = thumb(page, knob)
        # the first chart that follows it at the bottom of the screen, and the slider in view (the sidebar's stays
        # put, a lesson's own row sticks under the top bar): the chart is drawn as the slider moves
        page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
        handle.scroll_into_view_if_needed()
        box = handle.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        frames = sent.count
        # 12 px a step, or a value's width where the track holds few values (lesson 10's head dim: two)
        px = max(12.0, page.evaluate("k => { const e = document.querySelector(`[data-live-knob='${k}']`);"
                                     " return e.getBoundingClientRect().width / Math.max(1, e.max - e.min) * e.step; }",
                                     knob))
        page.mouse.move(x, y)
        page.mouse.down()
        moved_to = start = page.evaluate(STANDS, [knob, charts[0]])
        for step in (1, 2, 3, 4, 5, 6):  # rightwards, or leftwards from the right end
            direction = 1 if page.evaluate("k => { const e = document.querySelector(`[data-live-knob='${k}']`);"
                                           " return Number(e.value) < Number(e.max); }", knob) or step == 1 else -1
            page.mouse.move(x + direction * px * step, y, steps=3)
            moved_to = page.evaluate(STANDS, [knob, charts[0]])
            if moved_to != start:  # every chart drawn at the new value (those off the screen once it stands still)
                page.wait_for_function("([cs, v]) => cs.every(c => document.querySelector(`.st-key-${c} "
                                       ".js-plotly-plot`).dataset.liveDrawn === v)", arg=[charts, moved_to],
                                       timeout=WAIT)
            if any(shown(page, c) != before[c] for c in charts):
                break
        # the charts in view at once, those off the screen once the slider stands still
        page.wait_for_function("([cs, v]) => cs.every(c => document.querySelector(`.st-key-${c} .js-plotly-plot`)"
                               ".dataset.liveDrawn === v)", arg=[charts, moved_to], timeout=WAIT)
        redrawn += [c for c in charts if shown(page, c) != before[c]]  # unchanged where the value changes nothing
        assert sent.count == frames, f"lesson {k + 1}, {knob}: nothing left the page before the release"
        drawn_live = {c: shown(page, c) for c in charts}
        value = page.evaluate("k => document.querySelector(`[data-live-knob='${k}']`).getAttribute('aria-valuetext')",
                              knob)
        page.mouse.up()
        expect(page.locator(f"[data-live-knob='{knob}']")).to_have_attribute("aria-valuetext", value)
        page.wait_for_url(re.compile(rf"[?&]{re.escape(knob)}="), timeout=WAIT)
        drawn(page, k)
        assert sent.count > frames, f"lesson {k + 1}, {knob}: the release reached the server"
        for c in charts:  # the server's chart at the released value equals the browser's from the carried figures
            assert json.loads(shown(page, c)) == json.loads(drawn_live[c]), \
                f"lesson {k + 1}, {knob} = {value}: {c} as the server drew it equals the live one"
        state = live_state(page)
    assert redrawn, f"lesson {k + 1}: dragging its sliders redrew its charts"
    frames = page.evaluate("() => window.__outside")
    assert frames, f"lesson {k + 1}: a chart in view was drawn as its slider moved"
    assert not [f for f in frames if f[2]], f"lesson {k + 1}: text outside a chart drawn mid-drag"


def test_a_sliders_figures_come_when_the_pointer_or_the_focus_comes_to_it_and_nothing_leaves_while_it_moves(
        server, page):
    """The page's run builds no live figures: a slider's are asked for when the pointer comes over it (one
    message, before the drag) or the keyboard's focus does, and the drag that follows sends nothing until the
    release. Settings no other test opens, so the server has built none of these figures yet."""
    sent = Sent(page)
    page.goto(lesson_url(server, 0, "?n=6144&d=32&Br=16&Bc=48"))
    opened(page, 0)
    drawn(page, 0)
    page.wait_for_function("() => !!window.__fvLive && ['n', 'd', 'Br', 'Bc'].every(k => window.__fvLive.missing"
                           ".has(k))", timeout=WAIT)
    assert page.evaluate("() => document.documentElement.dataset.fvLive") == "partial"
    frames = sent.count
    handle = thumb(page, "d")
    handle.hover()
    built(page, "d")
    assert sent.count > frames, "the pointer over d's slider asked for its figures"
    assert page.evaluate("() => [...window.__fvLive.missing].sort()") == ["Bc", "Br", "n"], "d's alone"
    charts = sorted(c for c, knobs in page.evaluate("() => Object.fromEntries(Object.entries(window.__fvLive.charts)"
                                                    ".map(([c, k]) => [c, Object.keys(k)]))").items() if "d" in knobs)
    assert charts, "a chart follows d"
    before = shown(page, charts[0])
    frames = sent.count
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y, steps=4)
    page.wait_for_function(f"b => ({SHOWN})({json.dumps(charts[0])}) !== b", arg=before, timeout=WAIT)
    assert sent.count == frames, "nothing left the page while d moved"
    page.mouse.up()
    page.wait_for_url(re.compile(r"[?&]d="), timeout=WAIT)
    drawn(page, 0)
    page.mouse.move(0, 0)  # off every slider
    page.locator("[data-live-knob='Br']").focus()  # the keyboard's way to a slider
    built(page, "Br")


@pytest.mark.parametrize("k, knob, chart", [(10, "wg_d", "wg_reads"), (11, "inf_ctx", "inference_splits"),
                                            (13, "mk_window", "mask_tiles")])
def test_a_lessons_own_live_sliders_stay_on_screen_over_the_charts_they_move(server, page, k, knob, chart):
    """At 1280x720 the chart sits a screen or more below its sliders: scrolled to it, the row of sliders stays
    under the top bar, uncovered, so the chart can be watched while they move; not when presenting (a section
    is a slide there)."""
    def slider_seen() -> bool:
        return page.evaluate("""k => { const e = document.querySelector(`[data-live-knob='${k}']`).closest(
            "[data-testid='stSlider']"); const r = e.getBoundingClientRect(), x = r.left + r.width / 2,
            y = r.top + r.height / 2; return r.top >= 0 && r.bottom <= innerHeight && e.contains(
            document.elementFromPoint(x, y)); }""", knob)

    def scroll_to_chart() -> None:
        page.locator(f".st-key-{chart}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
        page.wait_for_function("c => { const r = document.querySelector(`.st-key-${c}`).getBoundingClientRect();"
                               " return r.bottom <= innerHeight + 1 && r.bottom > 0; }", arg=chart, timeout=WAIT)

    page.goto(lesson_url(server, k))
    opened(page, k)
    drawn(page, k)
    page.wait_for_selector(f"[data-live-knob='{knob}']", timeout=WAIT)
    scroll_to_chart()
    assert slider_seen(), f"lesson {k + 1}: {knob}'s slider on screen over {chart}"
    # the pointer on it: Streamlit draws the ends of its range under the track, inside the row, not over the lesson
    page.locator(f"[data-live-knob='{knob}']").locator("xpath=../..").hover()
    ends = page.locator(f".st-key-{knob} [data-testid='stSliderTickBar']")
    expect(ends).to_be_visible(timeout=WAIT)
    over = page.evaluate("""k => { const el = document.querySelector(`[data-live-knob='${k}']`);
        const row = el.closest("[data-testid='stLayoutWrapper']").getBoundingClientRect();
        const ends = el.closest("[data-testid='stSlider']").querySelector("[data-testid='stSliderTickBar']");
        return ends.getBoundingClientRect().bottom - row.bottom; }""", knob)
    assert over <= 0.5, f"lesson {k + 1}: {knob}'s range ends reach {over:.1f} px below its row, over the lesson"
    # a chart brought into view as a focus or an anchor brings it (to its top, with its scroll margin) rests under
    # the row, not behind it
    page.mouse.move(5, 5)
    page.locator(f".st-key-{chart} .fv-plot").first.evaluate("e => e.scrollIntoView()")
    hidden = page.evaluate("""([k, c]) => {
        const row = document.querySelector(`[data-live-knob='${k}']`).closest("[data-testid='stLayoutWrapper']");
        return row.getBoundingClientRect().bottom
          - document.querySelector(`.st-key-${c} .fv-plot`).getBoundingClientRect().top; }""", [knob, chart])
    assert hidden <= 0.5, f"lesson {k + 1}: {chart} scrolled into view has {hidden:.1f} px under the sliders' row"
    page.goto(lesson_url(server, k, "?present=true&sec=2"))  # a presenter's link, past the question
    drawn(page, k)
    page.wait_for_selector(f"[data-live-knob='{knob}']", timeout=WAIT)
    position = page.evaluate("k => getComputedStyle(document.querySelector(`[data-live-knob='${k}']`).closest("
                             "\"[data-testid='stLayoutWrapper']\")).position", knob)
    assert position != "sticky", f"lesson {k + 1}, presenting: the sliders scroll with their section"


@pytest.mark.parametrize("k, knob", [(0, "n"), (1, "os_spread"), (11, "inf_kv"), (12, "sc_tile")])
def test_a_live_slider_stepped_by_keyboard_redraws_its_charts_and_reaches_the_url(server, page, k, knob):
    page.goto(lesson_url(server, k))
    opened(page, k)
    state = live_state(page)
    charts = followers(state, knob)
    before = {c: shown(page, c) for c in charts}
    el = page.locator(f"[data-live-knob='{knob}']")
    el.focus()
    built(page, knob)
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"([cs, bs]) => cs.some((c, i) => ({SHOWN})(c) !== bs[i])",
                           arg=[charts, [before[c] for c in charts]], timeout=WAIT)
    page.wait_for_url(re.compile(rf"[?&]{re.escape(knob)}="), timeout=WAIT)
    drawn(page, k)
    assert knob in query(page)


# In the page, through the drags: each chart drawn mid-drag, the value it was drawn at beside the one the slider itself
# held then; and each value the slider took, beside the one the pointer had been taken to be at (explorer/pointer.js).
FRAMES = """k => { const el = document.querySelector(`[data-live-knob='${k}']`), live = window.__fvLive;
  if (!window.__draws) {
    window.__draws = []; window.__takes = [];
    document.addEventListener('fv-live-drawn', e => { if (e.detail.moving) window.__draws.push(
      [live.drawnAt[k], Number(document.querySelector(`[data-live-knob='${k}']`).value)]); }, true);
  }
  window.__watched = window.__watched || new WeakSet();  // each slider element watched once
  if (!window.__watched.has(el)) {
    window.__watched.add(el);
    new MutationObserver(() => { const p = window.__fvLive.pointerAt;
      window.__takes.push([p && p.knob === k ? p.raw : null, Number(el.value)]); })
      .observe(el, {attributes: true, attributeFilter: ['aria-valuetext']});
  } }"""


@pytest.mark.parametrize(("k", "knob"), [(7, "n"), (1, "os_block")])
def test_a_drag_draws_its_charts_in_the_frame_the_pointer_moved_in_at_the_value_the_slider_then_takes(
        server, page, k, knob):
    """Streamlit's slider takes a pointer's move in React's next task, after the frame the move came in is drawn;
    the charts are drawn in that frame, at the value the slider's own rule gives (explorer/pointer.js), so they
    show the new value while the slider still shows the old one, and the slider then takes the very value they
    show. Dragged from a thumb held off its centre, then from a press on the track, in moves of uneven length."""
    page.goto(lesson_url(server, k))
    opened(page, k)
    state = live_state(page)
    charts = followers(state, knob)
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    handle = thumb(page, knob)
    handle.scroll_into_view_if_needed()
    page.evaluate(FRAMES, knob)
    track = page.locator(f"[data-live-knob='{knob}']").locator("xpath=../../..").bounding_box()
    box = handle.bounding_box()
    y = box["y"] + box["height"] / 2
    width = track["width"]
    for start in (box["x"] + box["width"] / 2 + 4, track["x"] + width * 0.3):  # the thumb held 4 px off; the track
        page.mouse.move(start, y)
        page.mouse.down()
        x = start
        for dx in (0.37, 0.11, -0.05, 0.23, 0.31, -0.19, 0.07):  # of the track's width, ends overshot on purpose
            x = min(max(x + dx * width, track["x"] - 20), track["x"] + width + 20)
            page.mouse.move(x, y, steps=2)
        page.mouse.up()
        page.wait_for_url(re.compile(rf"[?&]{re.escape(knob)}="), timeout=WAIT)
        drawn(page, k)
        live_state(page)
        page.evaluate(FRAMES, knob)
    takes = page.evaluate("() => window.__takes")
    draws = page.evaluate("() => window.__draws")
    moved = [t for t in takes if t[0] is not None]
    assert len(moved) >= 6, f"the slider took the drag's values: {takes}"
    assert all(abs(p - v) < 1e-9 for p, v in moved), f"the slider took the values the pointer was taken at: {takes}"
    ahead = [d for d in draws if abs(d[0] - d[1]) > 1e-9]
    assert ahead, f"a chart was drawn at the drag's value before the slider showed it: {draws}"


# In the page: at each pointer move of the drag, as its `pointermove` reaches the window (before any listener of the
# page's), the value the charts were last drawn at and the one the slider holds; and once every listener has run, the
# value drawn then.
ARRIVALS = """k => { const live = window.__fvLive; window.__arrivals = [];
  window.addEventListener('pointermove', e => { if (!e.buttons) return;
    const el = document.querySelector(`[data-live-knob='${k}']`);
    window.__arrivals.push({ drawn: live.drawnAt[k], slider: Number(el.value) }); }, true);
  window.addEventListener('pointermove', e => { if (!e.buttons || !window.__arrivals.length) return;
    window.__arrivals[window.__arrivals.length - 1].after = live.drawnAt[k]; }); }"""


@pytest.mark.parametrize(("k", "knob"), [(1, "os_len"), (13, "Br")])
def test_a_drags_move_is_drawn_as_it_reaches_the_page_before_the_frame_hands_it_to_the_slider(server, page, k, knob):
    """Chromium hands a pointer's move to the page as `pointerrawupdate` when it arrives, and as `pointermove` only
    with the next frame (explorer/pointer.js): each move of a drag that brings a new value has its charts drawn at
    that value before its `pointermove` comes, and that `pointermove` draws nothing more."""
    page.goto(lesson_url(server, k))
    opened(page, k)
    assert page.evaluate("() => 'onpointerrawupdate' in window"), "this Chromium hands the page no raw moves"
    state = live_state(page)
    charts = followers(state, knob)
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    handle = thumb(page, knob)
    handle.scroll_into_view_if_needed()
    built(page, knob)
    page.evaluate(ARRIVALS, knob)
    track = page.locator(f"[data-live-knob='{knob}']").locator("xpath=../../..").bounding_box()
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    way = 1 if x < track["x"] + track["width"] / 2 else -1
    for _ in range(6):
        seen = page.evaluate("() => window.__arrivals.length")
        x += way * track["width"] / 8
        page.mouse.move(x, y)
        page.wait_for_function("n => window.__arrivals.length > n && 'after' in window.__arrivals[n]", arg=seen,
                               timeout=WAIT)
    page.mouse.up()
    arrivals = page.evaluate("() => window.__arrivals")
    new = [a for a in arrivals if abs(a["after"] - a["slider"]) > 1e-9]  # moves that brought the slider a new value
    assert len(new) >= 4, f"the drag's moves brought new values: {arrivals}"
    assert all(abs(a["drawn"] - a["after"]) < 1e-9 for a in new), \
        f"each new value drawn before its pointermove came: {arrivals}"
    page.wait_for_url(re.compile(rf"[?&]{re.escape(knob)}="), timeout=WAIT)


def hold_the_thumb(page, server, k: int, knob: str) -> None:
    """Lesson k's first chart that follows `knob` at the bottom of the screen, its figures in, and the mouse button
    down on the slider's thumb: a drag followed, not yet moved."""
    page.goto(lesson_url(server, k))
    opened(page, k)
    charts = followers(live_state(page), knob)
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    handle = thumb(page, knob)
    handle.scroll_into_view_if_needed()
    built(page, knob)
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


# In the page, mid-drag, just after a paint: three raw moves of the held pointer in one task, along the track, as a
# fast mouse brings them; what was drawn in that task, at which values, and what waits for the paint.
THREE_MOVES = """async k => { const live = window.__fvLive, el = document.querySelector(`[data-live-knob='${k}']`);
  const track = el.parentElement.parentElement.parentElement.getBoundingClientRect();
  const thumb = el.parentElement.parentElement.getBoundingClientRect();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const react = window.Plotly.react, drawnAt = [];
  window.Plotly.react = function (...a) { drawnAt.push(live.drawnAt[k]); return react.apply(this, a); };
  const y = thumb.top + thumb.height / 2, x = thumb.left + thumb.width / 2;
  const way = x < track.left + track.width / 2 ? 1 : -1, xs = [0.1, 0.2, 0.3].map(f => x + way * f * track.width);
  const values = [];
  for (const clientX of xs) {
    document.dispatchEvent(new PointerEvent('pointerrawupdate',
      { pointerId: live.drag.id, buttons: 1, clientX, clientY: y, bubbles: true }));
    values.push(live.pointerAt && live.pointerAt.raw);
  }
  window.Plotly.react = react;
  return { inTask: drawnAt, waiting: live.nextMove && live.nextMove.raw, values }; }"""


def test_moves_faster_than_the_frames_draw_one_value_a_frame_the_newest_and_the_release_settles_on_the_slider(
        server, page):
    """Three moves in one task (a fast mouse): the first is drawn at once, the newest waits for the paint and is
    drawn then, the one between never; let go, the chart shows the slider's own value (which no synthetic move
    reached: react-aria heard none of them)."""
    hold_the_thumb(page, server, 1, "os_len")
    moves = page.evaluate(THREE_MOVES, "os_len")
    first, between, newest = moves["values"]
    assert set(moves["inTask"]) == {first}, f"one drawing in the task, at the first move's value: {moves}"
    assert moves["waiting"] == newest, f"the newest waits for the paint: {moves}"
    page.wait_for_function("v => window.__fvLive.drawnAt.os_len === v", arg=newest, timeout=WAIT)
    page.mouse.up()
    slider = float(page.locator("[data-live-knob='os_len']").get_attribute("value"))
    assert slider not in (first, between, newest), "the slider itself stayed where it was"
    page.wait_for_function("v => window.__fvLive.drawnAt.os_len === v", arg=slider, timeout=WAIT)


# In the page, mid-drag: two raw moves of the held pointer, a frame apart, each drawn; then the slider shows the first
# one's value late, as React's update of it comes a task after its move. What the charts were drawn at after each.
LATE_SLIDER = """async k => { const live = window.__fvLive, el = document.querySelector(`[data-live-knob='${k}']`);
  const track = el.parentElement.parentElement.parentElement.getBoundingClientRect();
  const thumb = el.parentElement.parentElement.getBoundingClientRect();
  const paint = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const y = thumb.top + thumb.height / 2, x = thumb.left + thumb.width / 2;
  const way = x < track.left + track.width / 2 ? 1 : -1, values = [];
  for (const f of [0.1, 0.2]) {
    await paint(); await paint();
    document.dispatchEvent(new PointerEvent('pointerrawupdate',
      { pointerId: live.drag.id, buttons: 1, clientX: x + way * f * track.width, clientY: y, bubbles: true }));
    values.push(live.pointerAt.raw);
  }
  await paint(); await paint();
  const before = live.drawnAt[k], own = el.value;
  el.value = String(values[0]); el.setAttribute('aria-valuetext', 'late');  // the slider at the first move, late
  await paint(); await paint();
  const late = live.drawnAt[k];
  el.value = own; el.setAttribute('aria-valuetext', 'own');  // and at a value the pointer never passed
  await paint(); await paint();
  return { values, before, late, own: Number(own), after: live.drawnAt[k] }; }"""


def test_a_slider_showing_a_value_the_pointer_has_passed_already_does_not_take_the_charts_back(server, page):
    """React shows each of the drag's values on the slider a task after its move, when a newer move may have been
    drawn: that late value is not drawn again; a value the pointer never passed still is (the slider's own)."""
    hold_the_thumb(page, server, 1, "os_len")
    seen = page.evaluate(LATE_SLIDER, "os_len")
    page.mouse.up()
    assert seen["before"] == seen["values"][1], f"the second move drawn: {seen}"
    assert seen["late"] == seen["values"][1], f"the late value not drawn again: {seen}"
    assert seen["after"] == seen["own"], f"a value the pointer never passed drawn: {seen}"


def test_lesson_13s_timeline_is_a_player_stepped_and_played_by_the_keys(server, page):
    """→ steps the key tile (the chart at once, the URL after the run), space plays it to the last, Home
    goes back to the first; a key pressed in a focused control stays with the control."""
    page.goto(lesson_url(server, 12))
    opened(page, 12)
    live_state(page)
    tile = page.locator("[data-live-knob='sc_tile']")
    first, last = tile.get_attribute("min"), tile.get_attribute("max")
    start = int(tile.get_attribute("value"))
    page.get_by_text("← → step the key tiles").click()  # focus on the page by the chart, as a clicker's would be
    # where the live timeline was drawn, from the page's own event: the release's run may have drawn the server's
    # chart in its place by the time this test looks
    page.evaluate("() => { window.__drawnAt = []; document.addEventListener('fv-live-drawn', e => "
                  "window.__drawnAt.push(e.target.dataset.liveAt), true); }")
    page.keyboard.press("ArrowRight")
    expect(tile).to_have_attribute("aria-valuetext", str(start + 1), timeout=WAIT)
    page.wait_for_function("v => window.__drawnAt.includes(v)", arg=str(start + 1), timeout=WAIT)
    page.wait_for_url(re.compile(rf"sc_tile={start + 1}"), timeout=WAIT)
    drawn(page, 12)
    page.keyboard.press(" ")
    expect(tile).to_have_attribute("aria-valuetext", last, timeout=WAIT)
    page.wait_for_url(re.compile(rf"sc_tile={last}"), timeout=WAIT)
    drawn(page, 12)
    page.keyboard.press("Home")
    expect(tile).to_have_attribute("aria-valuetext", first, timeout=WAIT)
    page.wait_for_url(re.compile(rf"sc_tile={first}"), timeout=WAIT)  # 1: off the default, 2
    drawn(page, 12)


def test_a_live_chart_drawn_mid_drag_equals_the_engines_table_downloaded_after_the_release(server, page):
    """Lesson 3's traffic chart follows n; what it shows mid-drag is the engine's table at that n, as its CSV
    gives it once the slider is let go."""
    import csv
    import math
    from pathlib import Path

    page.goto(lesson_url(server, 2))
    opened(page, 2)
    live_state(page)
    before = shown(page, "tiling_traffic")
    box = thumb(page, "n").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y, steps=4)
    page.wait_for_function(f"b => ({SHOWN})('tiling_traffic') !== b", arg=before, timeout=WAIT)
    # drawn at where the slider stands now, not at a value it passed on the way
    page.wait_for_function(f"() => document.querySelector('.st-key-tiling_traffic .js-plotly-plot').dataset.liveDrawn"
                           f" === ({STANDS})(['n', 'tiling_traffic'])", timeout=WAIT)
    mid = json.loads(shown(page, "tiling_traffic"))
    n = page.locator("[data-live-knob='n']").get_attribute("aria-valuetext")
    page.mouse.up()
    page.wait_for_url(re.compile(rf"[?&]n={n}"), timeout=WAIT)
    drawn(page, 2)
    button = page.locator(".st-key-tiling_csv button")
    expect(button).to_be_enabled(timeout=WAIT)
    with page.expect_download(timeout=WAIT) as download:
        button.click()
    rows = list(csv.DictReader(Path(download.value.path()).read_text().splitlines()))
    assert n in [r["n"] for r in rows], f"the table at n = {n}"
    for trace, column in (("standard", "std HBM MB"), ("flash", "flash HBM MB")):
        drawn_trace = next(t for t in mid["data"] if t["name"] == trace)
        table = {float(r["n"]): float(r[column]) for r in rows}
        assert [float(v) for v in drawn_trace["x"]] == sorted(table), f"{trace}: the same n"
        for at, value in zip(drawn_trace["x"], drawn_trace["y"]):
            assert math.isclose(value, table[float(at)], rel_tol=1e-12), f"{trace} at n = {at}"


# Each chart's figures along a slider, at the value the slider stands at: every attribute they set on the chart (the
# value's own, or else the slider's first value's) is the one the page's run drew. Plotly writes the ranges it
# computes into the axes, and the chart's size is the screen's: those are left out; the title is Streamlit's, dressed.
MISDRAWN = """() => {
  const live = window.__fvLive, out = [];
  const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  for (const [chart, byKnob] of Object.entries(live.charts)) for (const [knob, steps] of Object.entries(byKnob)) {
    const gd = document.querySelector(`.st-key-${CSS.escape(chart)} .js-plotly-plot`);
    const k = live.knobs[knob], at = k.mode === 'index' ? k.at : steps.values.findIndex(v => Math.abs(v - k.at) < 1e-9);
    const change = steps.data[at];
    const traces = Array.isArray(change) ? change : gd.data.map((_, i) => ({ ...steps.ref.data[i], ...change[i] }));
    if (traces.length !== gd.data.length) { out.push(`${chart} along ${knob}: ${traces.length} traces`); continue; }
    traces.forEach((t, i) => { for (const [attr, v] of Object.entries(t)) {
      if (!same(v, gd.data[i][attr])) out.push(`${chart} along ${knob}: trace ${i}'s ${attr}`);
    } });
    for (const [key, v] of Object.entries({ ...steps.ref.layout, ...steps.layout[at] })) {
      if (/^[xy]axis|^(width|height|autosize)$/.test(key)) continue;
      const drawn = key === 'title' ? (gd.layout.title.text || '').includes(v.text) : same(v, gd.layout[key]);
      if (!drawn) out.push(`${chart} along ${knob}: layout's ${key}`);
    }
  }
  return out;
}"""


def test_figures_built_for_another_reader_at_another_value_draw_this_readers_chart(server, tabs):
    # Another reader's lesson 3 at n = 3072 builds the figures along n, which hold for every n. This page, at the
    # default n, is given them: at its own n they must draw its own chart (figures carried as differences from the
    # chart at 3072 drew 1024's memory chart at 3072).
    other = tabs.get(name="another reader")
    other.goto(lesson_url(server, 2, "?n=3072"))
    opened(other, 2)
    live_state(other)
    page = tabs.get()
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    live_state(page)
    assert page.evaluate(MISDRAWN) == [], "at its own value each slider's carried figure is the chart on the page"
    assert other.evaluate(MISDRAWN) == []


def test_a_slider_reached_for_while_another_is_let_go_still_gets_its_figures(server, page):
    """A reader lets one slider go and reaches for the next at once, while the release's run goes on: the ask
    for the second slider's figures waits for that run, and is then answered (an ask left waiting from the
    component's earlier drawing went out with that drawing's fragment, which the server no longer had)."""
    # settings of its own: the server keeps every reader's figures, and another test's would be there already
    page.goto(lesson_url(server, 2, "?n=6144&d=32&Br=48"))
    opened(page, 2)
    page.wait_for_function("() => !!window.__fvLive && window.__fvLive.missing.has('Bc')", timeout=WAIT)
    handle = thumb(page, "Br")
    handle.scroll_into_view_if_needed()
    page.mouse.move(*centre(handle))
    page.wait_for_function("() => !window.__fvLive.missing.has('Br')", timeout=WAIT)
    page.mouse.down()
    x, y = centre(handle)
    page.mouse.move(x + 24, y, steps=3)
    page.mouse.up()  # the release reruns the page; the pointer goes straight on to Bc
    page.mouse.move(*centre(thumb(page, "Bc")), steps=2)
    page.wait_for_function("() => !window.__fvLive.missing.has('Bc') && document.documentElement.dataset.fvLive"
                           " !== 'filling'", timeout=WAIT)


def test_an_ask_lost_on_its_way_is_made_again(server, page):
    """The page asks for a slider's figures when the pointer comes to it. An ask that never reaches the server (a
    message lost, or one the server took for an older run's) leaves no answer to wait for: once the page has stood
    idle for a while with the figures still missing, it asks again, and they come."""
    page.goto(lesson_url(server, 2, "?n=5120&d=32&Br=48"))  # settings of its own: no figures built already
    opened(page, 2)
    page.wait_for_function("() => !!window.__fvLive && window.__fvLive.missing.has('Bc')", timeout=WAIT)
    page.evaluate("() => { window.__fvLive.dropAsk = 1; }")
    thumb(page, "Bc").hover()
    page.wait_for_function("() => window.__fvLive.dropAsk === 0", timeout=WAIT)  # the first ask, lost
    built(page, "Bc")


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


# Every mark of what a chart shows in front: the copy drawn ahead (explorer/snapshots.js) if one is, else the chart
# itself; the ids plotly.js gives its clips (a copy has its own) left out.
MARKS = """gd => {
  const front = gd.querySelector(':scope > .fv-snap');
  const root = front && front.childElementCount ? front : gd.querySelector(':scope > .plot-container');
  const strip = v => (v || '').replace(/url\\([^)]*\\)/g, 'url()');
  return [...root.querySelectorAll('.main-svg path, .main-svg text, .main-svg rect, .main-svg image')]
    .map(e => [e.tagName, ...['d', 'x', 'y', 'width', 'height', 'transform', 'href'].map(a => e.getAttribute(a)),
               strip(e.getAttribute('style')), e.tagName === 'text' ? e.textContent : ''].join('|'));
}"""


def copies_against_the_chart(page, charts: list[str]) -> list[str | None]:
    """Lesson 3's n dragged rightwards with the copies drawn ahead, then back and rightwards again with them turned
    off (the chart itself drawn at each value, in the same margins): mark for mark the same drawing, at three values
    or more. The mark a test put on each copy shown (data-fv-test), or None."""
    page.evaluate("""([marks, charts]) => { window.__marks = []; const read = eval(marks);
      if (window.__marking) return;
      window.__marking = true;
      document.addEventListener('fv-live-drawn', e => {
        if (!e.detail.moving) return;
        const chart = charts.find(c => e.target.closest(`.st-key-${c}`));
        const front = e.target.querySelector(':scope > .fv-snap > *');
        window.__marks.push([chart, e.target.dataset.liveAt, e.detail.snapshot, JSON.stringify(read(e.target)),
                             e.detail.snapshot && front ? front.dataset.fvTest || null : null]);
      }, true); }""", [MARKS, charts])
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    x, y = centre(thumb(page, "n"))
    page.mouse.move(x, y)
    page.mouse.down()
    passes = {}
    for off in (False, True):  # rightwards with the copies, then back and rightwards again with none
        page.evaluate("o => { window.__fvLive.snapOff = o; window.__marks = []; }", off)
        for step in (1, 2, 3, 4):
            page.mouse.move(x + 12 * step, y, steps=2)
            page.wait_for_function("([cs, v]) => cs.every(c => window.__marks.some(m => m[0] === c && m[1] === v))",
                                   arg=[charts, page.evaluate(STANDS, ["n", charts[0]])], timeout=WAIT)
        passes[off] = page.evaluate("() => window.__marks")
        page.mouse.move(x, y, steps=2)
    page.mouse.up()
    page.evaluate("() => { window.__fvLive.snapOff = false; }")
    with_copies = {(c, v): m for c, v, snap, m, _ in passes[False] if snap}
    drawn_itself = {(c, v): m for c, v, snap, m, _ in passes[True] if not snap}
    assert not [1 for *_, snap, _m, _ in passes[True] if snap], "no copy shown while they are turned off"
    both = sorted(set(with_copies) & set(drawn_itself))
    assert len({v for _, v in both}) >= 3, f"copies shown and the chart drawn at three values or more: {both}"
    for key in both:
        assert json.loads(with_copies[key]) == json.loads(drawn_itself[key]), f"{key}: the copy is the chart's drawing"
        assert json.loads(with_copies[key]), f"{key}: marks read"
    return [tag for *_, snap, _m, tag in passes[False] if snap]


def test_a_copy_drawn_ahead_for_a_drag_is_the_chart_plotly_draws_at_that_value(server, page):
    """Lesson 3's charts follow n. Once the page has drawn its copies ahead, a drag shows each value's copy in front
    of the chart; the same drag with the copies turned off draws the chart itself at each value, in the same margins:
    mark for mark the same drawing, at every value passed."""
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    live_state(page)
    charts = followers(live_state(page), "n")
    page.evaluate("() => { window.__fvLive.flatOff = true; }")  # each copy's drawing in front (its image: below)
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    thumb(page, "n").hover()  # the slider pointed at: its charts' copies are drawn
    page.wait_for_function(COPIED, arg="n", timeout=WAIT)
    copies_against_the_chart(page, charts)


# Each chart's copies along a slider, as [chart, value index, the mark a test put on the copy's drawing or null]: what
# the page holds for the chart by its key (explorer/snapshots.js `held`).
HELD = """([knob, charts]) => charts.flatMap(c => {
  const kept = window.__fvLive.held && window.__fvLive.held.get(c);
  return [...(kept ? kept.byKey.entries() : [])].filter(([k, copy]) => k.startsWith(knob + '|') && copy)
    .map(([k, copy]) => [c, k.slice(knob.length + 1), copy.drawing.dataset.fvTest || null]);
})"""


# The id the server gives the figures along a slider, for each chart that follows it (explorer/live.py `_carry`).
IDS = "([knob, charts]) => charts.map(c => window.__fvLive.charts[c][knob].id)"


def copies_tagged(page, charts: list[str]) -> list:
    """Lesson 3's n pointed at, its copies drawn ahead (their drawings, not images), and each marked 'before' on its
    drawing: [chart, value index] of each."""
    page.evaluate("() => { window.__fvLive.flatOff = true; }")
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    thumb(page, "n").hover()
    page.wait_for_function(COPIED, arg="n", timeout=WAIT)
    return page.evaluate("""([knob, charts]) => charts.flatMap(c => {
      const gd = document.querySelector(`.st-key-${c} .fv-plot`);
      return [...gd.__fvSnaps.byKey.entries()].filter(([k, copy]) => k.startsWith(knob + '|') && copy)
        .map(([k, copy]) => { copy.drawing.dataset.fvTest = 'before'; return [c, k.slice(knob.length + 1)]; });
    })""", ["n", charts])


def ran_again(page, press) -> None:
    """`press()` moves a slider by a key: wait for the page's run it starts to end, with n's figures in."""
    run = page.evaluate("() => window.__fvLive.run")
    press()
    page.wait_for_function("r => window.__fvLive.run > r", arg=run, timeout=WAIT)
    expect(page.locator("[data-testid='stApp']")).to_have_attribute("data-test-script-state", "notRunning",
                                                                     timeout=WAIT)
    built(page, "n")


def test_a_drag_after_the_release_shows_the_copies_drawn_before_it(server, page):
    """The copies drawn ahead along lesson 3's n stay when n is let go and the page runs again at its new value (the
    figures along n are the same ones, and the server names them the same): the next drag shows them at once, and
    each is mark for mark the chart drawn at its value in this run, in the margins the drag draws it in. They stay
    though Streamlit mounts the chart's element anew, as it does when n goes from 2048 to 3072 here."""
    page.goto(lesson_url(server, 2, "?n=2048"))
    opened(page, 2)
    charts = followers(live_state(page), "n")
    page.evaluate("cs => cs.forEach(c => { document.querySelector(`.st-key-${c} .fv-plot`).__fvTest = 1; })", charts)
    before, ids = copies_tagged(page, charts), page.evaluate(IDS, ["n", charts])
    assert len(before) >= 2 * len(charts), before

    def key_on_n():
        page.locator("[data-live-knob='n']").focus()
        page.keyboard.press("ArrowRight")

    ran_again(page, key_on_n)
    assert page.evaluate(IDS, ["n", charts]) == ids, "the figures along n named the same"
    assert page.evaluate("cs => cs.every(c => !document.querySelector(`.st-key-${c} .fv-plot`).__fvTest)", charts), \
        "each chart's element mounted anew at n = 3072 (else pick a release where Streamlit does)"
    held = page.evaluate(HELD, ["n", charts])
    assert sorted([c, k] for c, k, _ in held) == sorted(before), "a copy of every value still held"
    assert all(mark == "before" for *_, mark in held), f"every copy kept from before the release: {held}"
    shown_copies = copies_against_the_chart(page, charts)
    assert shown_copies and all(tag == "before" for tag in shown_copies), f"the copies drawn before: {shown_copies}"


def test_once_another_setting_changes_none_of_the_copies_drawn_before_is_kept(server, page):
    """Lesson 3's copies along n drawn, then d moved while n stays the slider pointed at (d's key pressed on its
    slider, the focus left where it was, so that this test holds for what the run changes and nothing else): the
    figures along n are others and the server names them otherwise, and no copy drawn before is kept or shown."""
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    charts = followers(live_state(page), "n")
    before, ids = copies_tagged(page, charts), page.evaluate(IDS, ["n", charts])
    assert before
    ran_again(page, lambda: page.evaluate("""() => { const el = document.querySelector("[data-live-knob='d']");
      for (const t of ['keydown', 'keyup']) el.dispatchEvent(new KeyboardEvent(t, { key: 'ArrowRight',
        code: 'ArrowRight', bubbles: true })); }"""))
    assert page.evaluate("() => window.__fvLive.intentKnob") == "n", "n still the slider pointed at"
    now = page.evaluate(IDS, ["n", charts])
    assert all(a != b for a, b in zip(ids, now)), f"the figures along n named otherwise: {ids} -> {now}"
    page.wait_for_function(COPIED, arg="n", timeout=WAIT)
    held = page.evaluate(HELD, ["n", charts])
    assert held and not [1 for *_, mark in held if mark == "before"], f"no copy kept from other figures: {held}"
    shown_copies = copies_against_the_chart(page, charts)
    assert shown_copies and not [1 for tag in shown_copies if tag], f"none drawn before shown: {shown_copies}"


def test_the_copies_along_a_slider_stay_while_the_pointer_visits_other_sliders_and_comes_back(server, page):
    """Lesson 3's copies along n drawn, then the pointer over d and over Br, each slider's copies drawn ahead in turn,
    and back to n: n's copies are still the ones drawn before, and a drag shows them (explorer/snapshots.js keeps
    those of the last KEPT_KNOBS sliders pointed at). Past that many, the one pointed at longest ago gives its up."""
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    state = live_state(page)
    charts = followers(state, "n")
    before = copies_tagged(page, charts)
    assert len(before) >= 2 * len(charts), before
    for other in ("d", "Br"):
        thumb(page, other).hover()
        page.wait_for_function(COPIED, arg=other, timeout=WAIT)
    held = page.evaluate(HELD, ["n", charts])
    assert sorted([c, k] for c, k, _ in held) == sorted(before), "a copy of every value of n still held"
    assert all(mark == "before" for *_, mark in held), f"every copy the one drawn before: {held}"
    shown_copies = copies_against_the_chart(page, charts)
    assert shown_copies and all(tag == "before" for tag in shown_copies), f"the copies drawn before: {shown_copies}"
    assert page.evaluate(HELD, ["d", followers(state, "d")]), "d's copies held: the third slider pointed at"
    thumb(page, "Bc").hover()  # pointed at: Bc, n (the drag above), Br; d longest ago
    page.wait_for_function(COPIED, arg="Bc", timeout=WAIT)
    assert not page.evaluate(HELD, ["d", followers(state, "d")]), "d's copies given up for a fourth slider"
    assert page.evaluate(HELD, ["n", charts]), "n's kept"


def test_a_slider_held_still_mid_drag_has_its_copies_drawn_while_it_is_held(server, page):
    """Lesson 3's n pressed as soon as the pointer reaches it, dragged a little and held still, the button down: the
    page draws the copies of its charts at each of n's values while it is held (none along another slider), and the
    charts on screen still show the value n stands at."""
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    charts = followers(live_state(page), "n")
    page.evaluate("() => { window.__fvLive.flatOff = true; }")
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    x, y = centre(thumb(page, "n"))
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y, steps=4)
    at = page.evaluate(STANDS, ["n", charts[0]])
    page.wait_for_function(COPIED, arg="n", timeout=WAIT)
    assert page.evaluate("() => window.__fvLive.holding"), "n still held"
    assert [live_at(page, c) for c in charts] == [at] * len(charts), "the charts show the value n stands at"
    page.mouse.up()


# The element in front of a chart mid-drag, once the value `v` is shown: 'CANVAS' for a copy's image, 'DIV' for a
# copy's drawing (explorer/snapshots.js), null while it is not there yet.
FRONT = """([chart, v]) => {
  const gd = document.querySelector(`.st-key-${chart} .fv-plot`), front = gd.querySelector(':scope > .fv-snap');
  return gd.dataset.liveSnap === v && front && front.firstElementChild ? front.firstElementChild.tagName : null;
}"""


def test_a_copy_flattened_to_an_image_shows_the_pixels_its_drawing_shows(server, page):
    """Each copy drawn ahead is then flattened to one image (explorer/snapshots.js `flatten`), and a move puts the
    image in front of the chart. Held at three values of lesson 3's n, each chart with the value's image in front and
    with the value's drawing in front (the drawing the test above holds equal to plotly.js's) shows the same pixels,
    but for a few on the edges of glyphs and lines, smoothed a little differently in an image."""
    from PIL import Image  # streamlit's own dependency

    def pixels(chart: str):
        shot = page.locator(f".st-key-{chart} .fv-plot").first.screenshot()
        return np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"), dtype=int)

    page.goto(lesson_url(server, 2))
    opened(page, 2)
    charts = followers(live_state(page), "n")
    page.locator(f".st-key-{charts[0]}").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    thumb(page, "n").hover()
    page.wait_for_function(COPIED, arg="n", timeout=WAIT)
    box = thumb(page, "n").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    slider = page.locator("[data-live-knob='n']")
    lo, hi, by = (float(slider.get_attribute(a)) for a in ("min", "max", "step"))
    # a value and a half apart: each move a new value
    apart = 1.5 * slider.locator("xpath=../../..").bounding_box()["width"] / round((hi - lo) / by)
    page.mouse.move(x, y)
    page.mouse.down()
    compared = set()
    for step in (1, 2, 3):
        shots = {}
        for front in ("CANVAS", "DIV"):
            # held, a chart with a copy in front is drawn in its own margins after HELD_MS (explorer/live.js): beside
            # a CPU hog, the screenshots took longer and one in ten caught that drawing (4-8% of pixels differed)
            page.evaluate("o => { window.__fvLive.flatOff = o; window.__fvLive.heldMs = 1e9; }", front == "DIV")
            if front == "DIV":  # the value again, by way of the next: a move shows a copy anew
                page.mouse.move(x + apart * (step + 1), y, steps=2)
            page.mouse.move(x + apart * step, y, steps=2)
            value = page.evaluate(STANDS, ["n", charts[0]])
            for chart in charts:
                page.wait_for_function(f"([c, v, f]) => ({FRONT})([c, v]) === f", arg=[chart, value, front],
                                       timeout=WAIT)
            shots[front] = {chart: pixels(chart) for chart in charts}
            for chart in charts:  # still in front once shot: what was shot is the copy
                assert page.evaluate(f"([c, v]) => ({FRONT})([c, v])", [chart, value]) == front, chart
        for chart in charts:
            image, drawing = shots["CANVAS"][chart], shots["DIV"][chart]
            assert image.shape == drawing.shape
            off = np.abs(image - drawing).max(axis=2)
            assert (off > 0).mean() < 0.01, f"{chart} at n = {value}: {(off > 0).mean():.2%} of pixels differ"
            assert (off > 64).mean() < 0.001, f"{chart} at n = {value}: {(off > 64).mean():.2%} differ by > 64"
            compared.add(value)
    page.mouse.up()
    assert len(compared) == 3, compared
