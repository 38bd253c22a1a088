"""The app in a real Chromium (Debian's), against `streamlit run app.py`, at 1280x720.

Screenshots of every lesson go to artifacts/screenshots/ for a person to look at.
Set FLASHVIZ_REQUIRE_BROWSER=1 (CI does) to fail instead of skip without Chromium.
"""
import os

import pytest

from explorer.lessons import LESSONS
from flashviz.config import MB, Config
from flashviz.costs import standard_cost
from tests.conftest import ROOT
from tests.serving import serve

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "artifacts" / "screenshots"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"

_missing = None if os.path.exists(CHROMIUM) else f"{CHROMIUM} not installed"
try:
    from playwright.sync_api import sync_playwright
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
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    yield pg
    ctx.close()


def settle(pg, timeout=30_000):
    """Wait until Streamlit's script has finished and the page has painted."""
    pg.wait_for_selector(IDLE, timeout=timeout)
    pg.wait_for_timeout(600)
    pg.wait_for_selector(IDLE, timeout=timeout)


def metric(pg, label: str) -> str:
    box = pg.locator("[data-testid='stMetric']").filter(has_text=label).first
    return box.locator("[data-testid='stMetricValue']").inner_text()


def lesson_url(server, k: int) -> str:
    return server + "/" + ("" if k == 0 else LESSONS[k].url_path)


@pytest.mark.parametrize("k", range(len(LESSONS)))
def test_every_lesson_renders_without_an_exception(server, page, k):
    page.goto(lesson_url(server, k))
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("h1").first.inner_text().strip(), "a lesson title is shown"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{k + 1:02d}_{LESSONS[k].url_path or 'home'}.png"))


def test_slider_moved_by_keyboard_changes_a_figure(server, page):
    page.goto(server)
    settle(page)
    before = metric(page, "traffic, MB")
    page.locator("[data-testid='stSidebar'] input[type='range']").first.focus()
    page.keyboard.press("ArrowRight")
    settle(page)
    after = metric(page, "traffic, MB")
    expected = [f"{standard_cost(Config(n=n)).hbm_bytes / MB:,.2f}" for n in (1024, 1536)]
    assert [before, after] == expected, "n steps from 1024 to 1536"
    assert "n=1536" in page.url, "the link now carries the setting"


def test_deep_link_opens_with_its_settings(server, page):
    page.goto(server + "/" + LESSONS[2].url_path + "?n=256&Br=32&Bc=32&d=32")
    settle(page)
    assert page.locator("[data-testid='stSidebar'] input[type='range']").first.get_attribute(
        "aria-valuetext") == "256"
    # standard peak for n = 256 in float32: 256^2 * 4 B = 256.0 KB
    assert metric(page, "standard peak, KB") == "256.0"


def test_malformed_link_shows_a_note_not_a_traceback(server, page):
    page.goto(server + "/?n=banana&sram=%3Cb%3Ebold%3C%2Fb%3E&causal=%F0%9F%92%A5")
    settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    alert = page.locator("[data-testid='stAlert']").filter(has_text="could not be used").first
    assert "n=banana is not a number" in alert.inner_text()
    assert alert.locator("b").count() == 0, "the link's HTML is shown as text, never rendered"


def test_pagedown_goes_to_the_next_lesson(server, page):
    page.goto(server)
    settle(page)
    page.locator("h1").first.click()
    page.keyboard.press("PageDown")
    page.wait_for_url("**/" + LESSONS[1].url_path + "*", timeout=15_000)
    settle(page)
    assert page.locator("h1").first.inner_text().strip() == "Online softmax"


def test_a_bug_toggle_in_the_lab(server, page):
    page.goto(server + "/" + LESSONS[8].url_path)
    settle(page)
    page.get_by_text("Keep the full score matrix").first.click()
    settle(page)
    assert "bug_keep_full_S=true" in page.url
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "09_break_it_keep_full_S.png"))
    assert page.locator("[data-testid='stDataFrame']").count() == 1


def test_first_deep_link_on_a_fresh_server_opens_the_lesson(browser):
    """A reader's link is often the first request a (re)started server sees."""
    with serve() as url:
        ctx = browser.new_context(viewport={"width": 1280, "height": 720})
        pg = ctx.new_page()
        pg.goto(url + "/" + LESSONS[4].url_path + "?n=2048")
        settle(pg)
        assert pg.get_by_text("Page not found").count() == 0
        assert pg.locator("h1").first.inner_text().strip() == "The backward pass"
        assert pg.locator("[data-testid='stSidebar'] input[type='range']").first.get_attribute(
            "aria-valuetext") == "2048"
        ctx.close()


def player_frame(pg):
    """The tile player's iframe, once its first frame is drawn."""
    for _ in range(100):
        for frame in pg.frames:
            if frame.locator("#play").count() and frame.locator("#label").get_attribute("data-step"):
                return frame
        pg.wait_for_timeout(100)
    raise AssertionError("no tile player on the page")


def step_of(fr) -> int:
    return int(fr.locator("#label").get_attribute("data-step"))


@pytest.fixture
def tiling(server, page):
    page.goto(server + "/" + LESSONS[2].url_path + "?Br=32&Bc=32")
    settle(page)
    fr = player_frame(page)
    fr.locator("#label").scroll_into_view_if_needed()
    return page, fr


def test_play_advances_the_animation(tiling):
    page, fr = tiling
    assert step_of(fr) == 0
    fr.locator("#speed").select_option("20")
    fr.locator("#play").click()
    page.wait_for_timeout(1000)
    assert step_of(fr) >= 5, "playing at 20 steps/s for a second"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "03_tiling_mid_animation.png"))
    fr.locator("#play").click()  # pause
    paused = step_of(fr)
    page.wait_for_timeout(400)
    assert step_of(fr) == paused


def test_stepping_back_returns_the_previous_values(tiling):
    _, fr = tiling
    fr.locator("#next").click()
    first = (fr.locator("#label").inner_text(), fr.locator("#rows").inner_text())
    fr.locator("#next").click()
    assert fr.locator("#rows").inner_text() != first[1]
    fr.locator("#prev").click()
    assert (fr.locator("#label").inner_text(), fr.locator("#rows").inner_text()) == first


def test_keyboard_steps_without_clicking_into_the_player(tiling):
    page, fr = tiling
    page.locator("h1").first.click()  # focus is on the app's page, not the player
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert step_of(fr) == 2
    page.keyboard.press("ArrowLeft")
    assert step_of(fr) == 1
    page.keyboard.press("End")
    assert "Done: max |O − standard attention|" in fr.locator("#note").inner_text()


def test_keyboard_on_a_slider_does_not_step_the_animation(tiling):
    page, fr = tiling
    page.locator("[data-testid='stSidebar'] input[type='range']").nth(1).focus()  # head dim d
    page.keyboard.press("ArrowLeft")
    settle(page)
    fr = player_frame(page)
    assert step_of(fr) == 0


def test_share_link_carries_the_settings(server, page):
    page.goto(server + "/" + LESSONS[3].url_path + "?n=2048&sram=128&causal=true")
    settle(page)
    page.get_by_text("Share this view").click()
    link = page.locator("[data-testid='stCode']").last.inner_text()
    assert link.startswith(server + "/" + LESSONS[3].url_path + "?")
    for part in ("n=2048", "sram=128", "causal=true"):
        assert part in link
    page.goto(link)
    settle(page)
    assert metric(page, "SRAM budget, KB") == "128"
