"""Lesson 11's wave player in a real Chromium at 1280 x 720: it draws, steps through the waves,
clips nothing, and forwards PageDown to the app. Screenshot: artifacts/screenshots/whole_gpu_1280.png."""
from explorer.lessons import LESSONS
from tests import players
from tests.conftest import WAIT
from tests.test_browser import capture
from tests.players import CLIPPED, SHOTS, at_step, expect, go_to_step

pytestmark = players.pytestmark

URL = "/" + next(lesson.url_path for lesson in LESSONS if lesson.file == "lessons/11_whole_gpu.py")


def test_the_wave_player_steps_and_clips_nothing(server, page):
    iframe, fr = players.open_player(page, server + URL + "?wg_bh=4")
    n = fr.locator("#data").evaluate("el => JSON.parse(el.textContent).frames.length")
    assert n > 1
    go_to_step(fr, 1)
    expect(fr.locator("#label")).to_contain_text("Wave 2 of")
    assert fr.locator("#fv").evaluate(CLIPPED) == []
    page.add_style_tag(content="[data-testid='stHeader'] { visibility: hidden; }")
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(iframe, SHOTS / "whole_gpu_player_1280.png")
    capture(page, SHOTS / "whole_gpu_1280.png")


def test_pagedown_after_a_click_in_the_player_goes_to_the_next_lesson(server, page):
    iframe, fr = players.open_player(page, server + URL)
    fr.locator("#next").click()
    at_step(fr, 1)
    fr.locator("#fv").press("PageDown")
    page.wait_for_url(lambda u: URL not in u, timeout=WAIT)


def test_the_reads_chart_shows_models_and_both_measurements(server, page):
    """The chart at 1280 x 720: the models' lines and the H200's points, plain attention's too.
    Screenshot: artifacts/screenshots/whole_gpu_chart_1280.png."""
    page.goto(server + URL)
    page.wait_for_selector(players.IDLE, timeout=WAIT)
    chart = page.locator(".fv-plot").first
    chart.wait_for(timeout=WAIT)
    expect(chart.locator(".legendtext", has_text="plain attention, H200")).to_be_visible(timeout=WAIT)
    expect(chart.locator(".legendtext", has_text="H200, Nsight Compute")).to_be_visible()
    chart.scroll_into_view_if_needed()
    # every point drawn: the kernel's measured n at d = 128, one head, and plain attention's three
    expect(chart.locator(".scatterlayer .trace .points path")).to_have_count(6 + 3, timeout=WAIT)
    page.add_style_tag(content="[data-testid='stHeader'] { visibility: hidden; }")
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(chart, SHOTS / "whole_gpu_chart_1280.png")
    capture(page, SHOTS / "whole_gpu_chart_page_1280.png")
