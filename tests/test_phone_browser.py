"""A student on a phone (390x844, touch) opens a reader's link: every lesson reads without a
sideways scroll, players included, and the lessons are one tap away without the sidebar."""
import itertools
import re

import pytest

from explorer.lessons import LESSONS
from tests.test_browser import (  # noqa: F401
    IDLE, SHOTS, WAIT, capture, charts_drawn, expect, from_strip, lesson_url, opened, pytestmark)

# Every document on the page wider than its window: the app's own and each player's frame
# ([name, content px, window px]).
TOO_WIDE = """() => {
  const out = [], main = document.querySelector('[data-testid="stMain"]');
  const wide = (name, el) => {
    if (el.scrollWidth > el.clientWidth + 1) out.push([name, el.scrollWidth, el.clientWidth]);
  };
  wide("page", document.documentElement);
  if (main) wide("main", main);
  document.querySelectorAll("iframe").forEach((f, i) => {
    const d = f.contentDocument;
    if (d && d.documentElement) wide("frame " + i, d.documentElement);
  });
  return out;
}"""


@pytest.fixture
def phone(tabs):
    return tabs.get("phone")


@pytest.fixture(scope="module", params=range(len(LESSONS)))
def on_phone(request, server, tabs):
    """Lesson k on the phone, once, for the checks below that only look at it (a page load costs the browser
    seconds of CPU; CI shares its machine): the first from its link, each next one tapped in the strip. A tab
    of its own: tests in between may use the other."""
    k = request.param
    pg = tabs.kept("phone", name="on_phone")
    if pg is None or not from_strip(pg, server, k):  # tapped in the strip, from the lesson before
        pg = tabs.get("phone", name="on_phone")
        pg.goto(lesson_url(server, k))
    opened(pg, k)
    yield k, pg


def test_every_lesson_fits_a_phone_players_included(on_phone):
    k, phone = on_phone
    frames = phone.locator("[data-testid='stMain'] iframe")
    for i in range(frames.count()):  # each player has drawn its first frame
        frames.nth(i).content_frame.locator("#fv, body").first.wait_for(timeout=WAIT)
    phone.wait_for_function("() => [...document.querySelectorAll('iframe')].every(f => f.contentDocument &&"
                            " f.contentDocument.readyState === 'complete')", timeout=WAIT)
    assert phone.evaluate(TOO_WIDE) == [], "a document wider than the phone's screen"
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(phone, SHOTS / f"phone_{k + 1:02d}_{LESSONS[k].url_path}.png", full_page=False)


def test_on_a_phone_no_chart_or_table_toolbar_is_drawn_over_the_text(on_phone):
    """Plotly's zoom and pan need a hover to hide them, and a phone has none: no chart shows its bar; no
    table's toolbar sits over the text above it."""
    k, phone = on_phone
    charts_drawn(phone)
    if k == 0:
        SHOTS.mkdir(parents=True, exist_ok=True)
        capture(phone, SHOTS / "01_phone_390x844.png", full_page=True)
        assert phone.locator(".fv-plot").count() and phone.locator(
            "[data-testid='stDataFrame']").count(), "lesson 1 shows charts and tables"
    bars = phone.locator(".modebar").evaluate_all("ms => ms.filter(m => m.checkVisibility()).length")
    assert bars == 0, f"{bars} chart toolbars shown"
    overlaps = phone.locator("[data-testid='stElementContainer']:has([data-testid='stDataFrame'])").evaluate_all(
        """cs => cs.map(c => { const bar = c.querySelector('[data-testid="stElementToolbar"]').getBoundingClientRect(),
                                 above = c.previousElementSibling.getBoundingClientRect();
                               return [c.previousElementSibling.innerText.slice(0, 40), above.bottom - bar.top]; })
                  .filter(([, overlap]) => overlap > 0)""")
    assert overlaps == [], f"table toolbars over the text above them, [text, px]: {overlaps}"


def test_the_buttons_say_tap_not_a_key_on_a_touch_screen(on_phone):
    k, phone = on_phone
    hints = phone.locator(".st-key-next_lesson kbd, .st-key-prev_lesson kbd")
    expect(hints.first).to_be_attached()
    said = hints.evaluate_all("ks => ks.map(k => [getComputedStyle(k, '::after').content,"
                              " parseFloat(getComputedStyle(k).fontSize)])")
    assert said == [['"tap"', 0]] * len(said), f"[hint, font px of the key's name]: {said}"
    # and no line says what keys do to a player or a chart: lessons 3, 5, 13 and 14 have one for a keyboard
    lines = phone.locator("[class*='st-key-fv_keys_']")
    if k in (2, 4, 12, 13):
        expect(lines.first).to_be_attached()
    shown = lines.evaluate_all("ls => ls.filter(l => l.checkVisibility()).map(l => l.innerText)")
    assert shown == [], f"key hints on a touch screen: {shown}"


def test_the_lessons_are_one_tap_away_without_the_sidebar(server, phone):
    phone.goto(lesson_url(server, 2, "?n=2048"))
    opened(phone, 2)
    # each a fingertip's target: 44 px tall (they were 36) and 5 px apart (they were 3)
    links = phone.locator(".st-key-lesson_nav a >> visible=true")
    expect(links).to_have_count(len(LESSONS))
    boxes = links.evaluate_all("as => as.map(a => { const r = a.getBoundingClientRect();"
                               " return [a.textContent, r.left, r.top, r.width, r.height]; })")
    assert [b[0] for b in boxes if b[4] < 44] == [], "links shorter than a fingertip's target"
    side = [round(b[1] - a[1] - a[3], 1) for a, b in zip(boxes, boxes[1:]) if a[2] == b[2] and b[1] > a[1]]
    assert min(side) >= 5, f"links closer than 5 px: {side}"
    phone.locator(f".st-key-lesson_nav a[href^='{LESSONS[4].url_path}?'] >> visible=true").tap()
    phone.wait_for_url(re.compile(re.escape(lesson_url(server, 4)) + r"\?n=2048$"), timeout=WAIT)
    opened(phone, 4)


# A chart's labels as drawn (its own drawing, not a copy drawn ahead for a drag): each label's box (its border), the
# chart's and its plot area's, in the page's px, and each label's font.
LABEL_BOXES = """gd => {
  const own = gd.querySelector(':scope > .plot-container'), box = (e) => { const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  return {chart: box(gd), plot: box(own.querySelector('.nsewdrag')),
          labels: [...own.querySelectorAll('.infolayer .annotation')].map(a => ({text: a.textContent,
            box: box(a.querySelector('rect.bg')), px: parseFloat(a.querySelector('text').style.fontSize)}))};
}"""


def drawn_chart(pg, key: str, part: str):
    """The chart under `key`, scrolled into view, once its own drawing holds `part` (a selector) and no draw waits."""
    chart = pg.locator(f".st-key-{key} .fv-plot")
    chart.scroll_into_view_if_needed()
    pg.wait_for_function("([gd, part]) => !!gd.querySelector(`:scope > .plot-container ${part}`)"
                         " && !gd.matches('[data-waiting]')", arg=[chart.element_handle(), part], timeout=WAIT)
    return chart


def roofline_labels(pg) -> dict:
    return drawn_chart(pg, "roofline", ".infolayer .annotation").evaluate(LABEL_BOXES)


@pytest.mark.parametrize("query", ["", "?n=16384&d=128", "?hw=H200+SXM&d=128", "?hw=B200&n=4096&d=16"])
def test_on_a_phone_the_rooflines_labels_fit_the_chart_and_none_covers_another(server, tabs, query):
    """Lesson 1's three labels, laid out for a 560 px chart, were cut at the phone's edge or lay over each other; a
    phone's chart takes the layout the server made for it (explorer/charts/idea.py `_on_a_phone`), and a projector's
    keeps its own. Each label within the plot's height (not over the legend or the axis), within the chart's width,
    and 2 px or more from every other."""
    for screen, px in (("phone", 14), ("1280x720", 18)):
        pg = tabs.get(screen)
        pg.goto(lesson_url(server, 0, query))
        opened(pg, 0)
        drawn = roofline_labels(pg)
        (left, _, right, _), (_, top, _, bottom), labels = drawn["chart"], drawn["plot"], drawn["labels"]
        assert len(labels) == 3 and {label["px"] for label in labels} == {px}, (screen, labels)
        for label in labels:
            x0, y0, x1, y1 = label["box"]
            assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, (screen, "cut", label, drawn)
        for a, b in itertools.combinations(labels, 2):
            (a0, a1, a2, a3), (b0, b1, b2, b3) = a["box"], b["box"]
            assert not (a0 < b2 + 2 and b0 < a2 + 2 and a1 < b3 + 2 and b1 < a3 + 2), (screen, "too close", a, b)


# The font of the roofline's labels each time a slider's move redraws the chart itself (explorer/live.js), read at once.
LIVE_LABELS = """window.__labels = []; document.addEventListener('fv-live-drawn', e => {
  if (!e.target.closest('.st-key-roofline')) return;
  window.__labels.push([...e.target.querySelectorAll(':scope > .plot-container .infolayer .annotation text')]
    .map(t => parseFloat(t.style.fontSize))); }, true);"""
# The font of the labels in each copy of the roofline drawn ahead for a drag along n (explorer/snapshots.js).
COPY_LABELS = """() => { const gd = document.querySelector('.st-key-roofline .fv-plot');
  return [...gd.__fvSnaps.byKey.entries()].filter(([k]) => k.startsWith('n|')).map(([k, copy]) =>
    [...copy.drawing.querySelectorAll('.infolayer .annotation text')].map(t => parseFloat(t.style.fontSize))); }"""


def test_on_a_phone_the_roofline_keeps_the_phones_layout_as_n_moves_it_live(server, tabs):
    """explorer/live.js draws the roofline at other values of n from the figures carried with the page, and
    explorer/snapshots.js draws copies of it ahead for a drag: each takes the phone's layout too."""
    from bench.live import COPIED
    pg = tabs.get("phone")
    pg.goto(lesson_url(server, 0))
    opened(pg, 0)
    roofline_labels(pg)
    pg.wait_for_function("() => !!window.__fvLive && !!window.__fvLive.missing", timeout=WAIT)
    pg.evaluate("() => { window.__fvLive.snapOff = true; window.__fvLive.ask(['n']); }")  # the chart itself redrawn
    pg.wait_for_function("() => !window.__fvLive.missing.has('n') && document.documentElement.dataset.fvLive"
                         " !== 'filling'", timeout=WAIT)
    pg.evaluate(LIVE_LABELS)
    knob = pg.locator("[data-live-knob='n']")
    before = knob.input_value()
    knob.focus()
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("() => window.__labels.length > 0", timeout=WAIT)
    assert pg.evaluate("() => window.__labels")[0] == [14, 14, 14]
    pg.wait_for_function("n => ![n, null].includes(new URLSearchParams(location.search).get('n'))", arg=before,
                         timeout=WAIT)
    pg.wait_for_selector(IDLE, timeout=WAIT)
    assert {label["px"] for label in roofline_labels(pg)["labels"]} == {14}, "the run's figure on release too"
    # the copies, drawn once the page is idle for the slider the focus is on (read as drawings: each image is made
    # from its drawing)
    pg.evaluate("() => { window.__fvLive.snapOff = false; }")
    knob.focus()
    pg.wait_for_function(COPIED, arg="n", timeout=WAIT)
    copies = pg.evaluate(COPY_LABELS)
    assert copies and all(fonts == [14, 14, 14] for fonts in copies), copies


# Each table: whether its grid is wider than its box, and the cue drawn under it (its container's ::after).
TABLE_CUES = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].map(t => {
  const s = t.querySelector('.dvn-scroller'), box = t.closest('[data-testid="stElementContainer"]');
  return [s.scrollWidth > s.clientWidth + 1, getComputedStyle(box, '::after').content]; })"""


def test_on_a_phone_the_page_holds_the_rooflines_own_height_while_plotly_loads(server, tabs):
    """The room a chart holds before plotly.js has loaded was the figure's 440 px, and a phone's roofline is 520
    (its narrow layout): the lesson below it moved down 80 px when it was drawn. plotly.js is held back here until
    the room is read."""
    phone = tabs.get("phone")
    held, chunk = [], re.compile(r".*/static/js/PlotlyChart\.[^/]*\.js$")

    def hold(route):
        held.append(route)

    phone.route(chunk, hold)
    try:
        phone.goto(lesson_url(server, 0))
        chart = phone.locator(".st-key-roofline .fv-plot")
        expect(chart).to_have_css("min-height", re.compile(r"\d+px"), timeout=WAIT)
        room = chart.evaluate("gd => gd.getBoundingClientRect().height")
    finally:
        for route in held:
            route.continue_()
        phone.unroute(chunk, hold)
    assert held, "plotly.js was not asked for"
    drawn = drawn_chart(phone, "roofline", ".infolayer .annotation").evaluate("gd => gd.getBoundingClientRect().height")
    assert abs(room - drawn) <= 2, f"held {room} px, drawn {drawn} px"
    assert drawn > 500, "the phone's roofline is drawn in its narrow layout"


# Each chart as drawn: its key, how far its title runs past its right edge (px), and its legend's and its own height.
TITLE_AND_LEGEND = """gds => gds.map(gd => {
  const svg = gd.querySelector(':scope > .plot-container .main-svg').getBoundingClientRect();
  const own = gd.querySelector(':scope > .plot-container'), title = own.querySelector('.gtitle');
  const legend = own.querySelector('.legend');
  return { key: [...gd.closest('[class*="st-key-"]').classList].find(c => c.startsWith('st-key-')),
           past: title ? title.getBoundingClientRect().right - svg.right : 0,
           legend: legend ? legend.getBoundingClientRect().height : 0, height: svg.height }; })"""


def test_on_a_phone_every_charts_title_fits_and_its_legend_leaves_the_plot_room(on_phone):
    """A title in 21 px bold wrapped for a projector's chart ran past a phone's ("time against" cut at the edge,
    lesson 14), and a legend of six long names took a row each, half the chart (lessons 11 and 14): on a phone the
    figure's own layout (layout.meta.narrow) sets the title in 18 px and the legend in 14, with short names where
    they are long."""
    k, phone = on_phone
    charts_drawn(phone)
    drawn = phone.locator(".fv-plot").evaluate_all(TITLE_AND_LEGEND)
    assert [c["key"] for c in drawn if c["past"] > 0] == [], "titles past the chart's right edge"
    assert [c["key"] for c in drawn if c["legend"] > 0.3 * c["height"]] == [], "legends over 30% of their chart"


def test_at_1280_charts_side_by_side_keep_the_projectors_type(server, page):
    """Beside the open sidebar at 1280 px two charts in a row are each narrower than a phone's layout takes (372 px
    against 420): they keep the 21 px title and 17 px legend, which only a phone's screen sets smaller."""
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    charts_drawn(page)
    drawn = page.locator(".fv-plot").evaluate_all("""gds => gds.map(gd => {
      const own = gd.querySelector(':scope > .plot-container'), px = (e) => e && getComputedStyle(e).fontSize;
      return [gd.parentElement.clientWidth, px(own.querySelector('.gtitle')), px(own.querySelector('.legendtext'))];
    })""")
    assert drawn and all(w < 420 for w, _, _ in drawn), f"two charts in a row, each narrow: {drawn}"
    assert [(title, legend) for _, title, legend in drawn] == [("21px", "17px")] * len(drawn), drawn


def test_on_a_phone_a_table_wider_than_the_screen_says_it_scrolls_sideways(on_phone):
    """The grid cuts a column at the screen's edge: a right-aligned number shows its first digits only, and reads
    as another number. A table wider than its box says so under it (explorer/wide_tables.js); one that fits says
    nothing."""
    k, phone = on_phone
    tables = phone.locator("[data-testid='stDataFrame']")
    if not tables.count():
        return
    phone.wait_for_function("""() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
        .every(t => t.querySelector('.dvn-scroller'))""", timeout=WAIT)
    cue = '"The table scrolls sideways: swipe it ⟷"'
    phone.wait_for_function(f"() => ({TABLE_CUES})().every(([wide, after]) => wide === (after === {cue!r}))",
                            timeout=WAIT)
    if k == 0:
        assert any(wide for wide, _ in phone.evaluate(TABLE_CUES)), "lesson 1 has a table wider than a phone"


# wide: past its box by more than a glyph's overhang (explorer/wide_tables.js SLACK, 8 px)
EQUATION_CUES = """() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')].map(k =>
  [k.scrollWidth > k.clientWidth + 8, getComputedStyle(k.parentElement, '::after').content])"""


def test_on_a_phone_an_equation_wider_than_the_screen_says_it_scrolls_sideways(on_phone):
    """A displayed equation wider than the phone scrolls in its own box, cut at the screen's edge ("rowmax(", "αl +
    ro"): it reads as one that ends there. It says it scrolls under it; one that fits says nothing."""
    k, phone = on_phone
    if not phone.locator("[data-testid='stMain'] .katex-display").count():
        return
    cue = '"The equation scrolls sideways: swipe it ⟷"'
    phone.wait_for_function(f"() => ({EQUATION_CUES})().every(([wide, after]) => wide === (after === {cue!r}))",
                            timeout=WAIT)
    if k == 2:
        assert any(wide for wide, _ in phone.evaluate(EQUATION_CUES)), "lesson 3 has an equation wider than a phone"


def test_at_1280_an_equation_that_fits_says_nothing_of_scrolling(server, tabs):
    """KaTeX's displays run 1-2 px past their box at 1280 px, a glyph's overhang: lesson 3's update, whole on a
    projector, said "The equation scrolls sideways" under it (a teacher's walk)."""
    pg = tabs.get("1280x720")
    for k in (1, 2):
        pg.goto(lesson_url(server, k))
        opened(pg, k)
        pg.wait_for_selector("[data-testid='stMain'] .katex-display", timeout=WAIT)
        # each equation watched by explorer/wide_tables.js, and its observer's first callback run (after a layout)
        pg.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stMain\"] .katex-display')]"
                             ".every(k => k.__fvWatched)", timeout=WAIT)
        pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        cues = pg.evaluate(EQUATION_CUES)
        assert cues and not any(wide for wide, _ in cues), (k, cues)
        assert all(after in ("none", "normal") for _, after in cues), (k, cues)


def test_on_a_phone_the_tile_sweeps_bar_labels_stay_apart(server, tabs):
    """Lesson 10's nine times, one over each bar: at 18 px on a phone they ran into one another ("0.810.890.75"); a
    phone's chart sets them in 13 px (the figure's layout.meta.narrow), and none touches the next."""
    pg = tabs.get("phone")
    pg.goto(lesson_url(server, 9))
    opened(pg, 9)
    chart = drawn_chart(pg, "hw_block_times", ".bartext")
    boxes = chart.evaluate("gd => [...gd.querySelectorAll(':scope > .plot-container .bartext')].map(t => {"
                           " const r = t.getBoundingClientRect(); return [r.left, r.right]; })")
    assert len(boxes) == 9, boxes
    spans = sorted(boxes)
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:])), spans


def test_on_a_phone_lesson_14s_mask_panels_stand_two_in_a_row_with_titles_apart(server, tabs):
    """Four panels in a row were 65 px each on a phone, their titles over one another; a phone's chart sets them two
    in a row (the figure's layout.meta.narrow): no panel title touches another or the legend, and each panel is
    wider than 120 px."""
    pg = tabs.get("phone")
    pg.goto(lesson_url(server, 13))
    opened(pg, 13)
    chart = drawn_chart(pg, "mask_tiles", ".infolayer .annotation")
    drawn = chart.evaluate("""gd => { const own = gd.querySelector(':scope > .plot-container'), box = e => {
        const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
      return {titles: [...own.querySelectorAll('.infolayer .annotation')].map(box),
              legend: box(own.querySelector('.legend')),
              panels: [...own.querySelectorAll('.heatmaplayer')].map(box)}; }""")
    boxes = [*drawn["titles"], drawn["legend"]]
    for a, b in itertools.combinations(boxes, 2):
        assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    assert len(drawn["panels"]) == 4 and all(p[2] - p[0] > 120 for p in drawn["panels"]), drawn["panels"]


# A finger on the screen (Chrome's own touch input, as a phone sends it): down at (x, y), moved by dy in steps, up.
def swipe(pg, x: float, y: float, dy: float, steps: int = 8) -> None:
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * k / steps}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


SCROLLED = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"
# The page done scrolling: a swipe's fling goes on after the finger is up; ten frames at one place
STILL = """() => new Promise(done => { const main = document.querySelector('[data-testid="stMain"]');
  let last = -1, same = 0;
  const look = () => { same = main.scrollTop === last ? same + 1 : 0; last = main.scrollTop;
                       if (same >= 10) done(true); else requestAnimationFrame(look); };
  look(); })"""


def test_on_a_phone_a_swipe_that_starts_on_a_sliders_track_scrolls_and_leaves_the_slider(server, phone):
    """A student scrolling lesson 12 with a finger that comes down on the batch slider's track, beside its thumb: the
    page scrolls and the batch, and the link, stay (a phone walk: the slider jumped to 64 and the page stood still).
    A finger on the thumb still drags it."""
    phone.goto(lesson_url(server, 11))
    opened(phone, 11)
    slider = phone.locator("[data-testid='stSlider']:has(input[aria-label='batch (sequences)'])")
    slider.scroll_into_view_if_needed()
    el = slider.locator("input[type='range']")
    before, url = el.input_value(), phone.url
    thumb = el.locator("xpath=../..").bounding_box()
    track = el.locator("xpath=../../..").bounding_box()
    assert track["width"] > 200, track
    top = phone.evaluate(SCROLLED)
    x = track["x"] + track["width"] * 0.8 if thumb["x"] < track["x"] + track["width"] / 2 else track["x"] + 20
    swipe(phone, x, track["y"] + track["height"] / 2, -300)
    phone.wait_for_function(f"() => ({SCROLLED})() > {top} + 100", timeout=WAIT)
    expect(phone.locator("[data-testid='stApp']")).to_have_attribute("data-test-script-state", "notRunning",
                                                                       timeout=WAIT)
    assert el.input_value() == before and phone.url == url, "the swipe moved the slider"
    # the thumb itself, once the page is still (the swipe's fling over, the live figures a touch screen asks for at
    # once in): a finger on it starts a drag (react-aria marks the thumb), and dragged right it moves
    phone.wait_for_function("() => document.documentElement.dataset.fvLive === 'ready' && document.querySelector("
                            "\"[data-testid='stApp']\").dataset.testScriptState === 'notRunning'", timeout=WAIT)
    # mid-screen once the swipe's fling is over (a fling goes on through a scroll the page makes, and carried the thumb
    # off the screen on a fast host)
    knob = el.locator("xpath=../..")
    phone.evaluate(STILL)
    knob.evaluate("k => k.scrollIntoView({block: 'center'})")
    phone.evaluate(STILL)
    thumb = knob.bounding_box()
    cx, cy = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
    assert knob.evaluate(f"k => k.contains(document.elementFromPoint({cx}, {cy}))"), ("the thumb is covered", thumb)
    cdp = phone.context.new_cdp_session(phone)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": cx, "y": cy}]})
    expect(knob).to_have_attribute("data-dragging", "true", timeout=WAIT)
    for k in range(1, 9):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": cx + 15 * k, "y": cy}]})
    expect(el).not_to_have_value(before, timeout=WAIT)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_on_a_phone_the_precision_charts_method_names_stand_apart(server, tabs):
    """Lesson 6's nine methods under their bars: two lines each, turned upright, were 45 px wide 24 px apart on a
    phone, and only two could be read (a phone walk); a phone's chart sets each on one line (layout.meta.narrow)."""
    pg = tabs.get("phone")
    pg.goto(lesson_url(server, 5))
    opened(pg, 5)
    reveal = pg.locator(".st-key-reveal_inline_precision_fp16 button").last
    reveal.scroll_into_view_if_needed()
    reveal.click()
    chart = drawn_chart(pg, "precision_bars", ".xtick text")
    boxes = chart.evaluate("gd => [...gd.querySelectorAll(':scope > .plot-container .xtick text')].map(t => {"
                           " const r = t.getBoundingClientRect(); return [r.left, r.right]; })")
    assert len(boxes) == 9, boxes
    spans = sorted(boxes)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans
