"""The app in a real Chromium (Debian's), against `streamlit run app.py`.

Every wait is for the state the test asserts (Playwright's expect, wait_for_url), never a
fixed sleep: CI runs on a busy machine. Screenshots of every lesson at 1280x720 and
1920x1080 go to artifacts/screenshots/ for a person to look at.
Set FLASHVIZ_REQUIRE_BROWSER=1 (CI does) to fail instead of skip without Chromium.
"""
import os
import re
from urllib.parse import parse_qs, urlparse

import pytest

from explorer.lessons import LESSONS
from flashviz.teach.bugs import BELIEFS, BUGS
from tests.conftest import CHROMIUM, ROOT, WAIT
SHOTS = ROOT / "artifacts" / "screenshots"
# --in-process-gpu: the compositor's software GPU in the browser process, not one of its own (about 13% less
# CPU per lesson loaded, measured beside the default; CI's machine has two cores)
ARGS = ["--no-sandbox", "--disable-gpu", "--in-process-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# A placeholder a reader can see (Streamlit 1.64 leaves one for a widget inside a closed expander)
SKELETON = "[data-testid^='stSkeleton'] >> visible=true"
# The lesson buttons, whose shortcuts are the clicker's PageUp and PageDown: the last thing every page draws
# (explorer/deck.py lesson_nav). The first lesson has no previous one, the last no next one.
LESSON_BUTTONS = ".st-key-prev_lesson button, .st-key-next_lesson button"
VIEWS = {"1280x720": {"width": 1280, "height": 720}, "1920x1080": {"width": 1920, "height": 1080}}
# Streamlit's frontend probes for a base path under a lesson's URL before it falls back;
# those two requests answer 404 by design and are not the app's own errors.
PROBES = re.compile(r"/[\w-]+/_stcore/(health|host-config)$")

_missing = None if os.path.exists(CHROMIUM) else f"{CHROMIUM} not installed"
try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover
    _missing = "playwright not installed"
if _missing and os.environ.get("FLASHVIZ_REQUIRE_BROWSER"):
    raise RuntimeError(f"browser tests are required here but {_missing}")
pytestmark = pytest.mark.skipif(bool(_missing), reason=_missing or "")


def lesson_url(server, k: int, query: str = "") -> str:
    return server + "/" + ("" if k == 0 else LESSONS[k].url_path) + query


def title_of(k: int) -> str:
    return LESSONS[k].title


def opened(pg, k: int, question_only: bool = False):
    """Wait until lesson k is on screen and its script has finished. On a projector a lesson
    first shows its question alone (question_only): then wait for that."""
    if question_only:
        expect(question(pg)).to_contain_text(f"Lesson {k + 1} · Predict first", timeout=WAIT)
    else:
        expect(pg.locator("h1").first).to_contain_text(_h1_start(k), timeout=WAIT)
    drawn(pg, k)
    expect(pg.locator("[data-testid='stException']")).to_have_count(0)


def drawn(pg, k: int | None = None) -> None:
    """The run is over and the page is drawn to its end, the lesson buttons included; with k, the page is
    lesson k's. Streamlit flags the run over while a kind of element whose code a new page loads on first use
    still shows a skeleton: for seconds on a busy machine, in which the player can already be stepped but a
    PageDown, with no button yet to take it, is lost (seen in CI: tests/test_whole_gpu_browser.py). And it
    changes the address when a run starts and can flag "not running" between two runs, while the page still
    shows the last lesson: lesson_nav's marker, drawn at the end of every run, names the lesson drawn."""
    pg.wait_for_selector(IDLE, timeout=WAIT)
    expect(pg.locator(SKELETON)).to_have_count(0, timeout=WAIT)
    # every lesson button the deck marker announces (none in a deck of one lesson); hidden when presenting, so
    # no skeleton is seen for them
    pg.wait_for_function("sel => { const d = document.querySelector('.fv-deck'); return !!d && "
                         "document.querySelectorAll(sel).length >= Number(d.dataset.buttons); }", arg=LESSON_BUTTONS,
                         timeout=WAIT)
    # every chart drawn with the run's figure: one far off the screen is drawn once the page is idle (explorer/plot.js)
    pg.wait_for_function("() => [...document.querySelectorAll('.fv-plot')].every(g => g.querySelector('.main-svg') &&"
                         " !('waiting' in g.dataset))", timeout=WAIT)
    if k is not None:
        pg.wait_for_function("k => { const d = document.querySelectorAll('.fv-deck');"
                             " return d.length === 1 && d[0].dataset.lesson === String(k); }", arg=k, timeout=WAIT)


def _h1_start(k: int) -> str:
    # A page's h1 may say more than the navigation ("Tiling: same answer, ..."): match the start.
    return title_of(k).split(" and ")[0]


def question(pg):
    # .first: during the rerun that reveals it, the box may also stand once more, stale, where the
    # lesson's title had pushed it
    return pg.locator(".st-key-question").first


def capture(target, path, **options) -> None:
    """A screenshot (of a page, or of a locator or an element in one) for a person to look at. Chromium
    sometimes refuses one capture on a busy machine ("Protocol error (Page.captureScreenshot): Unable to
    capture screenshot") and takes the same picture when asked again: once, and only for that error, it is
    asked again."""
    from playwright.sync_api import Error
    try:
        target.screenshot(path=str(path), **options)
    except Error as e:
        if "Unable to capture screenshot" not in str(e):
            raise
        target.screenshot(path=str(path), **options)


def metric(pg, label: str):
    box = pg.locator("[data-testid='stMetric']").filter(has_text=label).first
    return box.locator("[data-testid='stMetricValue']")


def query(pg) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(pg.url).query).items()}


def charts_drawn(pg):
    """Every Plotly chart on the page has drawn its axes (for a screenshot worth looking at)."""
    pg.wait_for_function(
        "() => [...document.querySelectorAll('.fv-plot')]"
        ".every(c => c.querySelector('.main-svg .xtick'))", timeout=WAIT)


def menus_cut_off(pg) -> list:
    """The menus whose chosen value is wider than its box, so drawn cut off ("custon" for
    "custom"): [value, text px, box px], the text measured in the box's own font."""
    return pg.locator("[data-testid='stSelectbox'] input").evaluate_all("""async es => (await document.fonts.ready,
        es.map(e => { const s = getComputedStyle(e), c = document.createElement("canvas").getContext("2d");
                      c.font = s.font;
                      return [e.value, c.measureText(e.value).width,
                              e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)]; })
          .filter(([, text, box]) => text > box))""")


# Lesson 9's tables appear once a bug or the belief is on: all of them, through the URL.
LAB_ALL = "?" + "&".join(f"bug_{key}=true" for key in BUGS) + "".join(f"&belief_{key}=true" for key in BELIEFS)


# The strip's links to the lessons, those shown (a phone's strip and a projector's are the same links).
STRIP = ".st-key-lesson_nav a >> visible=true"


def click_strip(pg, k: int) -> None:
    """Lesson k's link in the strip, clicked (tapped on a phone's width: a finger)."""
    link = pg.locator(STRIP).nth(k)
    if pg.viewport_size["width"] < 641:
        link.tap()
    else:
        link.click()


def from_strip(pg, server: str, k: int) -> bool:
    """Go on to lesson k by its link in the strip, as a reader does, where the page shows another lesson of
    this server with nothing but the sidebar's settings in its address: the settings go along, and the app's
    code, already loaded, draws the lesson for about 0.4 of the CPU of a load in the same tab (measured:
    1.43 against 3.72 CPU-s a lesson). Returns False, doing nothing, where it cannot."""
    if not pg.url.startswith(server) or re.search(r"[?&](bug|belief|watch)_", pg.url):
        return False
    click_strip(pg, k)
    pg.wait_for_url(re.compile(re.escape(lesson_url(server, k)) + r"(\?|$)"), timeout=WAIT)
    return True


@pytest.fixture(scope="module", params=range(len(LESSONS)))
def at_1280(request, server, tabs):
    """Lesson k at a projector's 1280x720 at the defaults, the sidebar open, once, for the checks below that
    only look at it (a page load costs the browser seconds of CPU; CI shares its machine). Each lesson is
    reached from the one before by the strip, as a reader moves on; lesson 9 opens from a link with every bug
    and belief on, so that its tables and players are drawn too, and the lesson after it from its own link. A
    tab of its own: tests in between may use the file's other tab."""
    k = request.param
    lab = LESSONS[k].file.endswith("09_break_it.py")
    pg = tabs.kept(name="at_1280")
    traffic = Traffic(pg, server) if pg else None  # what the visit asked of the network and logged as an error
    if lab or pg is None or not from_strip(pg, server, k):
        if traffic:
            traffic.stop()
        pg = tabs.get(name="at_1280")
        traffic = Traffic(pg, server)
        pg.goto(lesson_url(server, k, LAB_ALL if lab else ""))
        traffic.loaded = True
    pg.fv_traffic = traffic
    opened(pg, k)
    charts_drawn(pg)
    yield k, pg
    traffic.stop()


class Traffic:
    """Every request a page makes, every response that failed, every console error, from now on."""

    def __init__(self, pg, server: str):
        self.host = urlparse(server).netloc
        self.requests: list[str] = []
        self.failures: list[str] = []
        self.errors: list[str] = []
        self.loaded = False  # whether a page load was heard (moving on by the strip may need no request)
        self.page = pg
        self.heard = {"request": lambda r: self.requests.append(r.url),
                      "response": lambda r: self.failures.append(r.url) if r.status >= 400 else None,
                      "console": lambda m: self.errors.append(m.text) if m.type == "error" else None}
        for event, heard in self.heard.items():
            pg.on(event, heard)

    def stop(self) -> None:
        """Stop listening (the tab goes on to other tests)."""
        for event, heard in self.heard.items():
            self.page.remove_listener(event, heard)

    def check(self) -> None:
        """Every request went to the app's own host; nothing but Streamlit's base-path probes answered with an
        error; no console error is the app's."""
        outside = {u for u in self.requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
                   and urlparse(u).netloc != self.host}
        assert not outside, f"requests to other hosts: {sorted(outside)[:5]}"
        assert all(PROBES.search(urlparse(u).path) for u in self.failures), self.failures
        own = [e for e in self.errors if not e.startswith("Failed to load resource")]
        assert not own, own
        assert len([e for e in self.errors if e.startswith("Failed to load resource")]) == len(self.failures)


def test_no_request_leaves_the_machine_and_no_console_error_is_the_apps_at_defaults(at_1280):
    k, pg = at_1280
    assert pg.fv_traffic.requests or not pg.fv_traffic.loaded, "the page load was recorded"
    pg.fv_traffic.check()


def rendered(pg, k: int, view: str) -> None:
    """No menu's value cut off; a screenshot for a person to look at."""
    assert menus_cut_off(pg) == [], "a menu's value is cut off"
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(pg, SHOTS / f"{k + 1:02d}_{LESSONS[k].url_path}_{view}.png")


def test_every_lesson_renders_without_an_exception_at_1280(at_1280):
    k, pg = at_1280
    rendered(pg, k, "1280x720")


def tables_scrolling_sideways(pg) -> list:
    """The tables whose grid is wider than its box: [caption above it, content px, box px]. The glide
    grid draws its cells on a canvas inside a scroller as wide as all its columns."""
    pg.wait_for_function("""() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
        .every(t => t.querySelector('.dvn-scroller'))""", timeout=WAIT)
    return pg.locator("[data-testid='stDataFrame']").evaluate_all("""async ts => (await document.fonts.ready,
        ts.map(t => { const s = t.querySelector('.dvn-scroller'),
                            box = t.closest('[data-testid="stElementContainer"]'),
                            cap = box && box.previousElementSibling;
                      return [cap ? cap.innerText.slice(0, 60) : '', s.scrollWidth, s.clientWidth]; })
          .filter(([, content, box]) => content > box))""")


def test_no_table_scrolls_sideways_at_1280_with_the_sidebar_open(at_1280):
    k, pg = at_1280
    expect(pg.locator("[data-testid='stSidebar']")).to_have_attribute("data-collapsed", "false")
    if LESSONS[k].file.endswith("09_break_it.py"):
        assert pg.locator("[data-testid='stDataFrame']").count() > 0, "the lab with every bug on shows its tables"
    wide = tables_scrolling_sideways(pg)
    assert not wide, f"tables wider than their box, [caption, content px, box px]: {wide}"


def labels_cut_off(pg) -> list:
    """Labels Streamlit ends in "…" because their box is too narrow (a button's, a toggle's):
    [text, text px, box px]."""
    return pg.locator(".stMarkdownEllipsis").evaluate_all("""async es => (await document.fonts.ready,
        es.filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth)
          .map(e => [e.innerText, e.scrollWidth, e.clientWidth]))""")


def test_no_button_or_toggle_label_is_cut_at_1280_with_the_sidebar_open(at_1280):
    k, pg = at_1280
    expect(pg.locator(".st-key-next_lesson, .st-key-prev_lesson").first).to_be_visible()
    cut = labels_cut_off(pg)
    assert not cut, f"labels cut off, [text, text px, box px]: {cut}"


# Every Plotly chart drawn across its box again (after a resize): its drawing as wide as its element.
FITTED = """() => [...document.querySelectorAll('.fv-plot')].every(c => {
  const svg = c.querySelector('.main-svg');
  return svg && Math.abs(svg.getBoundingClientRect().width - c.getBoundingClientRect().width) <= 2; })"""


def test_every_lesson_renders_without_an_exception_at_1920(at_1280):
    """The same visit widened to 1920x1080, as a reader widens the window: every chart redrawn to its new
    width, no menu cut off, a screenshot. Then back to 1280 for any check of this visit that comes after."""
    k, pg = at_1280
    for view in ("1920x1080", "1280x720"):
        pg.set_viewport_size(VIEWS[view])
        pg.wait_for_function("w => innerWidth === w", arg=VIEWS[view]["width"], timeout=WAIT)
        pg.wait_for_function(FITTED, timeout=WAIT)
        expect(pg.locator("[data-testid='stException']")).to_have_count(0)
        if view == "1920x1080":
            rendered(pg, k, view)


OPACITY = "e => { let o = 1; for (let x = e; x; x = x.parentElement) o *= +getComputedStyle(x).opacity; return o; }"


def test_no_formula_text_is_smaller_than_14_px(server, page):
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    sizes = page.locator(".katex-html").evaluate_all("""es => es.flatMap(e => [...e.querySelectorAll('*')])
        .filter(x => !x.children.length && x.textContent.replace(/\u200b/g, '').trim())
        .map(x => [x.textContent, parseFloat(getComputedStyle(x).fontSize)])""")
    assert sizes, "lesson 3 shows its formulas"
    assert min(px for _, px in sizes) >= 14, sorted(sizes, key=lambda s: s[1])[:5]


def test_the_buttons_key_hints_are_drawn_at_full_opacity(server, page):
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    hints = page.locator("button kbd")
    expect(hints.first).to_be_visible()
    assert [h.evaluate(OPACITY) for h in hints.all()] == [1.0] * hints.count()


def test_the_guess_stays_dark_after_the_reveal(server, page):
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    question(page).locator(".st-key-reveal_answer button").first.click()
    expect(question(page).locator(".st-key-ask_again")).to_be_visible(timeout=WAIT)
    guess = question(page).locator("[data-testid='stSlider']")  # a select_slider too
    colours = guess.locator("[data-testid='stWidgetLabel'] p, [data-testid='stSliderThumbValue'] p").evaluate_all(
        "es => es.map(e => [e.innerText, getComputedStyle(e).color])")
    assert len(colours) == 2 and all(c == "rgb(34, 34, 34)" for _, c in colours), colours


def test_a_page_flagged_idle_may_not_yet_take_pagedown_so_drawn_waits_for_the_lesson_buttons(server, page):
    """Why `drawn` waits for the lesson buttons: with Button's code held back (as a busy machine may load it
    late), the run is flagged over and the page drawn, but no button exists yet to take PageDown; once the
    code comes, `drawn` returns and the key turns the lesson."""
    held = []
    page.route("**/static/js/Button.*.js", lambda route: held.append(route))  # each waits until continued
    try:
        page.goto(lesson_url(server, 3))
        page.wait_for_selector(IDLE, timeout=WAIT)
        expect(page.locator("h1").first).to_contain_text(_h1_start(3), timeout=WAIT)
        expect(page.locator(".st-key-next_lesson [data-testid^='stSkeleton']")).to_be_attached(timeout=WAIT)
        page.wait_for_function("() => typeof hotkeys === 'function'", timeout=WAIT)
        assert "pagedown" not in page.evaluate("() => hotkeys.getAllKeyCodes().map(h => h.shortcut)")
        assert held, "the page asked for Button's code"
        for route in held:
            route.continue_()
        drawn(page, 3)
        assert "pagedown" in page.evaluate("() => hotkeys.getAllKeyCodes().map(h => h.shortcut)")
        page.keyboard.press("PageDown")
        page.wait_for_url(re.compile(re.escape(lesson_url(server, 4)) + r"(\?|$)"), timeout=WAIT)
    finally:
        page.unroute("**/static/js/Button.*.js")
