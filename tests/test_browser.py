"""The app in a real Chromium (Debian's), against `streamlit run app.py`.

Every wait is for the state the test asserts (Playwright's expect, wait_for_url), never a
fixed sleep: CI runs on a busy machine. Screenshots of every lesson at 1280x720 and
1920x1080 go to artifacts/screenshots/ for a person to look at.
Set FLASHVIZ_REQUIRE_BROWSER=1 (CI does) to fail instead of skip without Chromium.
"""
import os
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from explorer.lessons import LESSONS
from flashviz.teach.bugs import BELIEFS, BUGS
from flashviz.model.config import Config
from flashviz.model.costs import standard_cost
from flashviz.teach.format import bytes_text
from tests.conftest import ROOT
from tests.serving import serve

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "artifacts" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# A placeholder a reader can see (Streamlit 1.64 leaves one for a widget inside a closed expander)
SKELETON = "[data-testid^='stSkeleton'] >> visible=true"
WAIT = 30_000  # ms: generous, because CI may share the machine
VIEWS = {"1280x720": {"width": 1280, "height": 720}, "1920x1080": {"width": 1920, "height": 1080}}
# Streamlit's frontend probes for a base path under a lesson's URL before it falls back;
# those two requests answer 404 by design and are not the app's own errors.
PROBES = re.compile(r"/[\w-]+/_stcore/(health|host-config)$")

_missing = None if os.path.exists(CHROMIUM) else f"{CHROMIUM} not installed"
try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover
    _missing = "playwright not installed"
if _missing and os.environ.get("FLASHVIZ_REQUIRE_BROWSER"):
    raise RuntimeError(f"browser tests are required here but {_missing}")
pytestmark = pytest.mark.skipif(bool(_missing), reason=_missing or "")


@pytest.fixture(scope="module")
def server():
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport=VIEWS["1280x720"])
    pg = ctx.new_page()
    yield pg
    ctx.close()


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
    pg.wait_for_selector(IDLE, timeout=WAIT)
    # Streamlit loads each kind of element's code on first use and shows a skeleton meanwhile.
    expect(pg.locator(SKELETON)).to_have_count(0, timeout=WAIT)
    expect(pg.locator("[data-testid='stException']")).to_have_count(0)


def _h1_start(k: int) -> str:
    # A page's h1 may say more than the navigation ("Tiling: same answer, ..."): match the start.
    return title_of(k).split(" and ")[0]


def question(pg):
    # .first: during the rerun that reveals it, the box may also stand once more, stale, where the
    # lesson's title had pushed it
    return pg.locator(".st-key-question").first


def metric(pg, label: str):
    box = pg.locator("[data-testid='stMetric']").filter(has_text=label).first
    return box.locator("[data-testid='stMetricValue']")


def query(pg) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(pg.url).query).items()}


def charts_drawn(pg):
    """Every Plotly chart on the page has drawn its axes (for a screenshot worth looking at)."""
    pg.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
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


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("k", range(len(LESSONS)))
def test_every_lesson_renders_without_an_exception(server, browser, k, view):
    ctx = browser.new_context(viewport=VIEWS[view])
    pg = ctx.new_page()
    pg.goto(lesson_url(server, k))
    opened(pg, k)
    charts_drawn(pg)
    assert menus_cut_off(pg) == [], "a menu's value is cut off"
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{k + 1:02d}_{LESSONS[k].url_path}_{view}.png"))
    ctx.close()


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


# Lesson 9's tables appear once a bug or the belief is on: all of them, through the URL.
LAB_ALL = "?" + "&".join(f"bug_{key}=true" for key in BUGS) + "".join(f"&belief_{key}=true" for key in BELIEFS)


@pytest.mark.parametrize("k", range(len(LESSONS)))
def test_no_table_scrolls_sideways_at_1280_with_the_sidebar_open(server, page, k):
    page.goto(lesson_url(server, k, LAB_ALL if LESSONS[k].file.endswith("09_break_it.py") else ""))
    opened(page, k)
    expect(page.locator("[data-testid='stSidebar']")).to_have_attribute("data-collapsed", "false")
    wide = tables_scrolling_sideways(page)
    assert not wide, f"tables wider than their box, [caption, content px, box px]: {wide}"


def labels_cut_off(pg) -> list:
    """Labels Streamlit ends in "…" because their box is too narrow (a button's, a toggle's):
    [text, text px, box px]."""
    return pg.locator(".stMarkdownEllipsis").evaluate_all("""async es => (await document.fonts.ready,
        es.filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth)
          .map(e => [e.innerText, e.scrollWidth, e.clientWidth]))""")


@pytest.mark.parametrize("k", range(len(LESSONS)))
def test_no_button_or_toggle_label_is_cut_at_1280_with_the_sidebar_open(server, page, k):
    page.goto(lesson_url(server, k))
    opened(page, k)
    expect(page.locator(".st-key-next_lesson, .st-key-prev_lesson").first).to_be_visible()
    cut = labels_cut_off(page)
    assert not cut, f"labels cut off, [text, text px, box px]: {cut}"


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


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def phone(browser):
    ctx = browser.new_context(**PHONE)
    pg = ctx.new_page()
    yield pg
    ctx.close()


def test_on_a_phone_no_chart_toolbar_is_drawn_over_the_title(server, phone):
    phone.goto(lesson_url(server, 0))
    opened(phone, 0)
    charts_drawn(phone)
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / "01_phone_390x844.png"), full_page=True)
    expect(phone.locator(".modebar").first).to_be_hidden()  # Plotly's zoom and pan: no hover to hide them


def test_on_a_phone_no_table_toolbar_is_drawn_over_the_caption(server, phone):
    phone.goto(lesson_url(server, 0))
    opened(phone, 0)
    overlaps = phone.locator("[data-testid='stElementContainer']:has([data-testid='stDataFrame'])").evaluate_all(
        """cs => cs.map(c => { const bar = c.querySelector('[data-testid="stElementToolbar"]').getBoundingClientRect(),
                                 above = c.previousElementSibling.getBoundingClientRect();
                               return [c.previousElementSibling.innerText.slice(0, 40), above.bottom - bar.top]; })
                  .filter(([, overlap]) => overlap > 0)""")
    assert not overlaps, f"table toolbars over the text above them, [text, px]: {overlaps}"


def test_the_clicker_walks_every_lesson_both_ways_keeping_the_settings(server, page):
    settings = {"n": "2048", "dtype": "float16", "causal": "true", "Br": "32", "sram": "160"}
    page.goto(lesson_url(server, 0, "?" + "&".join(f"{k}={v}" for k, v in settings.items())))
    opened(page, 0)
    walk = list(range(1, len(LESSONS))) + list(range(len(LESSONS) - 2, -1, -1))
    for k, previous in zip(walk, [0] + walk):
        key = "PageDown" if k > previous else "PageUp"
        page.locator("h1").first.click()  # the teacher clicked on the page, as a clicker's focus would be
        page.keyboard.press(key)
        page.wait_for_url(re.compile(re.escape(lesson_url(server, k)) + r"(\?|$)"), timeout=WAIT)
        opened(page, k)
        assert query(page) == settings, f"{key} to lesson {k + 1} kept every setting"


def test_the_lesson_buttons_move_on_from_a_link_with_settings(server, page):
    page.goto(lesson_url(server, 3, "?n=4096&d=128"))
    opened(page, 3)
    page.locator("[data-testid='stButton']").filter(has_text=f"{title_of(4)} →").click()
    page.wait_for_url(re.compile(re.escape(lesson_url(server, 4)) + r"\?"), timeout=WAIT)
    opened(page, 4)
    page.locator("[data-testid='stButton']").filter(has_text=f"← {title_of(3)}").click()
    page.wait_for_url(re.compile(re.escape(lesson_url(server, 3)) + r"\?"), timeout=WAIT)
    opened(page, 3)
    assert query(page) == {"n": "4096", "d": "128"}


def test_slider_moved_by_keyboard_changes_a_figure_and_the_url(server, page):
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    expected = [bytes_text(standard_cost(Config(n=n)).peak_bytes) for n in (1024, 1536)]
    expect(metric(page, "standard peak")).to_have_text(expected[0])
    page.locator("[data-testid='stSidebar'] input[type='range']").first.focus()
    page.keyboard.press("ArrowRight")
    expect(metric(page, "standard peak")).to_have_text(expected[1], timeout=WAIT)
    page.wait_for_url(re.compile(r"\?n=1536$"), timeout=WAIT)


def test_the_url_keeps_a_slider_at_its_minimum(server, page):
    page.goto(lesson_url(server, 2, "?n=32"))
    opened(page, 2)
    page.locator("[data-testid='stSidebar'] input[type='range']").first.focus()
    page.keyboard.press("Home")  # n's first option, 16
    page.wait_for_url(re.compile(r"\?n=16$"), timeout=WAIT)
    page.reload()
    opened(page, 2)
    expect(page.locator("[data-testid='stSidebar'] input[type='range']").first).to_have_attribute(
        "aria-valuetext", "16")


def test_a_corrected_value_is_written_back_to_the_url_with_its_note_beside_the_control(server, page):
    page.goto(lesson_url(server, 0, "?d=99999"))
    opened(page, 0)
    page.wait_for_url(re.compile(r"\?d=256$"), timeout=WAIT)
    note = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").filter(has_text="d=99999")
    expect(note).to_contain_text("using the nearest, 256")
    # beside its control: in the same sidebar column as the head-dim slider
    slider = page.locator("[data-testid='stSidebar'] [data-testid='stSlider']").filter(has_text="head dim d")
    assert 0 <= note.bounding_box()["y"] - slider.bounding_box()["y"] < 200, "the note sits under its control"


def test_a_lesson_parameter_gets_its_note_at_once_beside_its_control(server, page):
    page.goto(lesson_url(server, 2, "?an_n=999"))
    opened(page, 2)
    column = page.locator("[data-testid='stColumn']").filter(has_text="animation n").last
    expect(column.locator("[data-testid='stAlert']")).to_contain_text("an_n=999")
    assert query(page)["an_n"] != "999", "the URL says the value the page really uses"


def test_the_share_link_equals_the_address_bar(server, page):
    page.goto(lesson_url(server, 3, "?n=2048&sram=128&causal=true&d=16"))
    opened(page, 3)
    page.get_by_text("Share this view").click()
    link = page.locator(".st-key-reader_link [data-testid='stCode']")
    expect(link).to_have_text(page.url)
    page.goto(link.inner_text())
    opened(page, 3)
    expect(metric(page, "SRAM budget, KB")).to_have_text("128")


def test_a_part_that_reruns_alone_keeps_the_url_and_the_share_link_exact(server, page):
    """The tile player is a section of its own (ui.section): its toggle reruns that part alone,
    and the address bar and the share box still say every setting, open or closed."""
    page.goto(lesson_url(server, 2, "?n=2048"))
    opened(page, 2)
    toggle = page.locator("[data-testid='stCheckbox']").filter(has_text="show standard").locator("label")
    link = page.locator(".st-key-reader_link [data-testid='stCode']")
    page.get_by_text("Share this view").click()
    expect(link).to_have_text(page.url, timeout=WAIT)
    toggle.click()  # the box open: its link follows
    page.wait_for_url(re.compile(r"n=2048&an_std=true$"), timeout=WAIT)
    expect(link).to_have_text(page.url, timeout=WAIT)
    page.get_by_text("Share this view").click()  # closed, back to the default: out of the URL
    toggle.click()
    page.wait_for_url(re.compile(r"\?n=2048$"), timeout=WAIT)
    toggle.click()
    page.wait_for_url(re.compile(r"n=2048&an_std=true$"), timeout=WAIT)
    page.get_by_text("Share this view").click()  # opened again: the link is the address bar's
    expect(link).to_have_text(page.url, timeout=WAIT)


def test_download_csv_gives_the_table_shown(server, page):
    """The CSV is written when the button is clicked (deferred), and it is the table's."""
    page.goto(lesson_url(server, 0, "?n=2048"))
    opened(page, 0)
    with page.expect_download(timeout=WAIT) as download:
        page.locator(".st-key-where_time_goes_csv button").click()
    assert download.value.suggested_filename == "where_time_goes.csv"
    lines = Path(download.value.path()).read_text().splitlines()
    assert lines[0].startswith("n,") and any(line.startswith("2048,") for line in lines[1:]), lines[:3]


def test_deep_link_opens_with_its_settings(server, page):
    page.goto(lesson_url(server, 2, "?n=256&Br=32&Bc=32&d=32"))
    opened(page, 2)
    expect(page.locator("[data-testid='stSidebar'] input[type='range']").first).to_have_attribute(
        "aria-valuetext", "256")
    # standard peak for n = 256 in float32: 256^2 * 4 B = 256 KB
    expect(metric(page, "standard peak")).to_have_text("256 KB")


def test_the_first_lessons_own_path_opens_it_with_the_links_settings(server, page):
    # Lesson 1 is served at "/"; "/where-time-goes" (named like every other lesson) once said
    # "Page not found".
    page.goto(server + "/" + LESSONS[0].url_path + "?n=4096&d=128")
    page.wait_for_url(re.compile(r"/\?n=4096&d=128$"), timeout=WAIT)
    opened(page, 0)
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.locator("[data-testid='stSidebar'] input[type='range']").first).to_have_attribute(
        "aria-valuetext", "4096")
    expect(page.locator(".st-key-nav_current a >> visible=true")).to_have_text("1. Bytes")


def test_malformed_link_shows_a_note_not_a_traceback(server, page):
    page.goto(server + "/?n=banana&sram=%3Cb%3Ebold%3C%2Fb%3E&causal=%F0%9F%92%A5")
    opened(page, 0)
    note = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").filter(has_text="n=banana")
    expect(note).to_contain_text("is not a number")
    sram = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").filter(has_text="sram=")
    expect(sram).to_contain_text("<b>bold</b>")  # shown as text...
    assert sram.locator("b").count() == 0, "...never rendered as HTML"


def test_a_bug_toggle_in_the_lab(server, page):
    page.goto(lesson_url(server, 8))
    opened(page, 8)
    toggle = page.locator("[data-testid='stCheckbox']").filter(has_text="Keep all scores")
    toggle.locator("label").first.click()
    page.wait_for_url(re.compile(r"bug_keep_full_S=true"), timeout=WAIT)
    expect(page.locator("[data-testid='stDataFrame']")).to_have_count(1, timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "09_break_it_keep_full_S.png"))


def test_on_a_projector_the_clicker_reveals_the_answer_then_walks_the_sections(server, page):
    page.goto(lesson_url(server, 2, "?present=true&n=4096"))
    opened(page, 2, question_only=True)
    # the question alone, under the lesson's name, for the room to vote on
    expect(page.locator("h1")).to_have_text(LESSONS[2].title)
    expect(page.locator("[data-testid='stPlotlyChart']")).to_have_count(0)
    expect(page.locator("[data-testid='stButton']").filter(has_text="Reveal")).to_have_count(1)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "question_before_reveal_1280x720.png"))
    page.mouse.click(900, 600)
    page.keyboard.press("PageDown")  # first press: the answer
    expect(question(page)).to_contain_text(re.compile("engine says", re.I), timeout=WAIT)
    opened(page, 2)
    assert page.url.startswith(lesson_url(server, 2)), "the first PageDown stays on the lesson"
    expect(page.get_by_text("What this model leaves out")).to_have_count(0)
    page.screenshot(path=str(SHOTS / "question_after_reveal_1280x720.png"))
    page.keyboard.press("PageDown")  # second press: the first section, in the browser, in the URL
    page.wait_for_url(re.compile(r"[?&]sec=1$"), timeout=WAIT)
    page.reload()  # a reload resumes there
    opened(page, 2)
    page.wait_for_function("() => window.__fvSection && window.__fvSection.k === 1", timeout=WAIT)
    assert query(page) == {"n": "4096", "present": "true", "sec": "1"}


def test_a_reader_reveals_with_the_a_key_and_sees_how_far_off_the_guess_was(server, page):
    page.goto(lesson_url(server, 4, "?n=8192"))
    opened(page, 4)
    page.locator(".st-key-question input[type='range']").first.focus()
    page.keyboard.press("Home")  # the smallest guess on the ladder: a guess the reader made
    page.wait_for_selector(IDLE, timeout=WAIT)
    page.locator("h1").first.click()
    page.keyboard.press("a")
    expect(question(page)).to_contain_text(re.compile("engine says", re.I), timeout=WAIT)
    expect(question(page)).to_contain_text("You said")
    # standard keeps Q, K, V, P: (3nd + n^2); flash Q, K, V, O, m, l: (4nd + 2n), at n = 8192, d = 64
    n, d = 8192, 64
    ratio = (3 * n * d + n * n) / (4 * n * d + 2 * n)
    expect(question(page)).to_contain_text(f"{ratio:.3g}×")
    expect(question(page)).to_contain_text("too low")


def test_no_request_leaves_the_machine_and_no_console_error_is_the_apps(server, browser):
    """Every lesson, with settings that exercise their branches: every request goes to
    the app's own host; nothing but Streamlit's base-path probes answers with an error."""
    ctx = browser.new_context(viewport=VIEWS["1280x720"])
    pg = ctx.new_page()
    requests, failures, errors = [], [], []
    pg.on("request", lambda r: requests.append(r.url))
    pg.on("response", lambda r: failures.append(r.url) if r.status >= 400 else None)
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    host = urlparse(server).netloc
    for k in range(len(LESSONS)):
        for q in ("", "?n=4096&dtype=bfloat16&causal=true&hw=H200+SXM&order=fa1&present=true"):
            pg.goto(lesson_url(server, k, q))
            opened(pg, k, question_only="present" in q)
            charts_drawn(pg)
    ctx.close()
    outside = {u for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
               and urlparse(u).netloc != host}
    assert not outside, f"requests to other hosts: {sorted(outside)[:5]}"
    assert all(PROBES.search(urlparse(u).path) for u in failures), failures
    own = [e for e in errors if not e.startswith("Failed to load resource")]
    assert not own, own
    assert len([e for e in errors if e.startswith("Failed to load resource")]) == len(failures)


def test_first_deep_link_on_a_fresh_server_opens_the_lesson(browser):
    """A reader's link is often the first request a (re)started server sees."""
    with serve() as url:
        ctx = browser.new_context(viewport=VIEWS["1280x720"])
        pg = ctx.new_page()
        pg.goto(url + "/" + LESSONS[4].url_path + "?n=2048")
        opened(pg, 4)
        assert pg.get_by_text("Page not found").count() == 0
        expect(pg.locator("[data-testid='stSidebar'] input[type='range']").first).to_have_attribute(
            "aria-valuetext", "2048")
        ctx.close()


def player_frame(pg):
    """The tile player's iframe, once its first frame is drawn."""
    pg.wait_for_selector("iframe", timeout=WAIT)
    handle = pg.locator("iframe").first.element_handle()
    fr = handle.content_frame()
    fr.wait_for_selector("#label[data-step]", timeout=WAIT)
    return fr


def step_of(fr) -> int:
    return int(fr.locator("#label").get_attribute("data-step"))


@pytest.fixture
def tiling(server, page):
    page.goto(lesson_url(server, 2, "?Br=32&Bc=32"))
    opened(page, 2)
    fr = player_frame(page)
    fr.locator("#label").scroll_into_view_if_needed()
    return page, fr


def test_play_advances_the_animation(tiling):
    page, fr = tiling
    assert step_of(fr) == 0
    fr.locator("#speed").select_option("20")
    fr.locator("#play").click()
    fr.wait_for_function("() => +document.querySelector('#label').dataset.step >= 5", timeout=WAIT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "03_tiling_mid_animation.png"))
    fr.locator("#play").click()  # pause
    paused = step_of(fr)
    # Paused means paused: a later frame of the browser's own clock shows the same step.
    fr.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert step_of(fr) == paused


def test_stepping_back_returns_the_previous_values(tiling):
    _, fr = tiling
    fr.locator("#next").click()
    expect(fr.locator("#label")).to_have_attribute("data-step", "1")
    first = (fr.locator("#label").inner_text(), fr.locator("#rows").inner_text())
    fr.locator("#next").click()
    expect(fr.locator("#label")).to_have_attribute("data-step", "2")
    assert fr.locator("#rows").inner_text() != first[1]
    fr.locator("#prev").click()
    expect(fr.locator("#label")).to_have_attribute("data-step", "1")
    assert (fr.locator("#label").inner_text(), fr.locator("#rows").inner_text()) == first


def test_keyboard_steps_without_clicking_into_the_player(tiling):
    page, fr = tiling
    page.locator("h1").first.click()  # focus is on the app's page, not the player
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(fr.locator("#label")).to_have_attribute("data-step", "2")
    page.keyboard.press("ArrowLeft")
    expect(fr.locator("#label")).to_have_attribute("data-step", "1")
    page.keyboard.press("End")
    expect(fr.locator("#note")).to_contain_text("max |O − standard attention|")


def test_keyboard_on_a_slider_does_not_step_the_animation(tiling):
    page, fr = tiling
    page.locator("[data-testid='stSidebar'] input[type='range']").nth(1).focus()  # head dim d
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"d=32"), timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    fr = player_frame(page)
    assert step_of(fr) == 0


def test_the_clicker_works_with_a_slider_or_toggle_in_focus(server, page):
    """A teacher who just moved a slider, or turned presentation mode on, still has a clicker."""
    page.goto(lesson_url(server, 2, "?n=2048"))
    opened(page, 2)
    page.locator("[data-testid='stSidebar'] input[type='range']").first.focus()
    page.keyboard.press("PageDown")
    page.wait_for_url(re.compile(re.escape(lesson_url(server, 3)) + r"\?n=2048$"), timeout=WAIT)
    opened(page, 3)
    expect(page.locator("[data-testid='stSidebar'] input[type='range']").first).to_have_attribute(
        "aria-valuetext", "2048")  # the slider did not take the key
    page.locator("[data-testid='stSidebar'] [data-testid='stCheckbox']").filter(
        has_text="presentation mode").locator("label").click()
    page.wait_for_url(re.compile(r"present=true"), timeout=WAIT)
    # the rerun that hides the lesson behind its question has drawn the reveal button
    expect(page.locator(".st-key-reveal_answer button").first).to_be_visible(timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    page.keyboard.press("PageDown")  # focus is still on the toggle: the first press reveals
    expect(question(page)).to_contain_text(re.compile("engine says", re.I), timeout=WAIT)


def test_switching_the_player_to_standard_attention_leaves_no_blank_band(server, page):
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    flash_height = player_frame(page) and page.locator("iframe").first.bounding_box()["height"]
    page.locator("[data-testid='stCheckbox']").filter(has_text="show standard").locator("label").click()
    page.wait_for_url(re.compile(r"an_std=true"), timeout=WAIT)
    # the standard player is shorter than the flash one (no code panel, no row table): its frame
    # must shrink to it, not keep the flash player's height above a blank band
    page.wait_for_function(
        "h => { const f = document.querySelector('iframe'); const d = f && f.contentDocument;"
        " return d && d.querySelector('#label[data-step]') && f.getBoundingClientRect().height < h"
        " && Math.abs(f.getBoundingClientRect().height - d.body.scrollHeight) < 40; }",
        arg=flash_height, timeout=WAIT)


def test_on_a_projector_each_bug_of_break_it_opens_its_player_at_its_symptom(server, page):
    """Lesson 9 from a clicker: no toggle to click, each bug's player already at the step where
    its symptom shows (the step the engine put in its data, named in the line above it)."""
    from flashviz.teach.bugs import BUGS
    page.goto(lesson_url(server, 8, "?present=true"))
    opened(page, 8, question_only=True)
    page.locator(".st-key-reveal_answer button").first.click()
    opened(page, 8)
    frames = page.locator("iframe[data-testid='stIFrame']")
    expect(frames).to_have_count(len(BUGS), timeout=WAIT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.add_style_tag(content="[data-testid='stHeader'] { visibility: hidden; }")  # the sticky bar
    for k, bug in enumerate(BUGS):
        fr = page.frame_locator("iframe[data-testid='stIFrame']").nth(k)
        data = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
        assert data["bug"] == bug
        expect(fr.locator("#label")).to_have_attribute("data-step", str(data["start"]), timeout=WAIT)
        expect(fr.locator("#label")).to_contain_text(f"Step {data['start'] + 1} of {len(data['frames'])}")
        if bug == "no_max":  # the first inf is on screen, in a row the table shows
            expect(fr.locator("#label")).to_contain_text("appears HERE")
            held = fr.locator("#rows td.l, #rows td.o1").filter(has_text=re.compile(r"^(inf|nan)$"))
            assert held.count() > 0
        if bug == "tiles_too_small":  # the meter, as printed, already past standard attention's
            meter = fr.locator("#hbmtext").inner_text()
            so_far, std = (float(re.search(p + r" ([\d.]+) MB", meter).group(1))
                           for p in ("flash so far", "standard attention:"))
            assert so_far > std, meter
        heading = page.locator("[data-testid='stMarkdownContainer'] p").filter(has_text=BUGS[bug].label).first
        heading.evaluate("el => el.scrollIntoView({block: 'start'})")
        expect(fr.locator("#label")).to_be_visible()
        page.screenshot(path=str(SHOTS / f"09_present_{bug}_1280x720.png"))
