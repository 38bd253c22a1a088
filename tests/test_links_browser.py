"""The app in a real Chromium, continued from tests/test_browser.py (its helpers; the fixtures are
tests/conftest.py's): links and their settings, the clicker and the keys, what a request does, and lesson
3's player. A file of its own so that CI's parallel workers (pytest-xdist, one file each) share the
browser tests out evenly.
"""
import re
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from explorer.lessons import LESSONS
from flashviz.teach.bugs import BUGS
from flashviz.model.config import Config
from flashviz.model.costs import standard_cost
from flashviz.teach.format import bytes_text
from tests.serving import serve
from tests.test_browser import (IDLE, SHOTS, WAIT, capture, charts_drawn, expect, from_strip,  # noqa: F401
                                lesson_url, metric, opened, pytestmark, query, question, title_of, Traffic)


def test_the_readers_clicker_walks_lessons_both_ways_keeping_every_kind_of_setting(server, page):
    """Reading, PageDown and PageUp are the shortcuts of every lesson's next- and previous-lesson buttons (one
    function, explorer/deck.py). tests/test_deck_browser.py presses the buttons on every lesson, with settings in
    the link, and checks them on each; here the reader's keys walk three lessons forward and two back, with a
    setting of every kind (a number, a choice, a switch, a tile, the SRAM budget)."""
    settings = {"n": "2048", "dtype": "float16", "causal": "true", "Br": "32", "sram": "160"}
    page.goto(lesson_url(server, 0, "?" + "&".join(f"{k}={v}" for k, v in settings.items())))
    opened(page, 0)
    walk = [1, 2, 3, 2, 1]
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


def test_back_after_moving_settings_goes_to_the_lesson_before(server, page):
    """A reader opens lesson 3, goes on to lesson 4 and moves n there three times, then presses Back: lesson 3 comes
    back, with the settings the session holds. Each move had added an entry to the browser's history that Back then
    met: three dead presses, the URL rewritten to the same each time (a laptop reader's walk)."""
    page.goto(lesson_url(server, 2))
    opened(page, 2)
    page.locator(f".st-key-lesson_nav a[href^='{LESSONS[3].url_path}'] >> visible=true").click()
    page.wait_for_url(re.compile(re.escape(lesson_url(server, 3)) + r"(\?|$)"), timeout=WAIT)
    opened(page, 3)
    entries = page.evaluate("() => history.length")
    n = page.locator("[data-testid='stSidebar'] [data-live-knob='n']")
    n.focus()
    for _ in range(3):
        before = page.url
        page.keyboard.press("ArrowRight")
        page.wait_for_function("url => location.href !== url", arg=before, timeout=WAIT)
        opened(page, 3)
    moved = query(page)
    assert list(moved) == ["n"], moved
    assert page.evaluate("() => history.length") == entries, "a move of a setting added an entry to the history"
    page.go_back()
    page.wait_for_url(re.compile(re.escape(lesson_url(server, 2)) + r"(\?|$)"), timeout=WAIT)
    opened(page, 2)
    assert query(page) == moved, "the lesson before, at the session's settings"


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
    """The CSV is written when the button is clicked (deferred), and it is the table's. The click reruns
    nothing: a rerun started meanwhile dropped the file's reply in 4 of 40 clicks beside a CPU hog, and
    none was lost without it (explorer/display.py `table`, bench/downloads.py)."""
    page.goto(lesson_url(server, 0, "?n=2048"))
    opened(page, 0)
    button = page.locator(".st-key-where_time_goes_csv button")
    expect(button).to_be_enabled(timeout=WAIT)
    with page.expect_download(timeout=WAIT) as download:
        button.click()
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
    expect(page.locator(".st-key-lesson_nav a.fv-current >> visible=true")).to_have_text("1. Bytes")


def test_malformed_link_shows_a_note_not_a_traceback(server, page):
    page.goto(server + "/?n=banana&sram=%3Cb%3Ebold%3C%2Fb%3E&causal=%F0%9F%92%A5")
    opened(page, 0)
    note = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").filter(has_text="n=banana")
    expect(note).to_contain_text("is not a number")
    sram = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']").filter(has_text="sram=")
    expect(sram).to_contain_text("<b>bold</b>")  # shown as text...
    assert sram.locator("b").count() == 0, "...never rendered as HTML"


@pytest.mark.parametrize("path", [LESSONS[2].url_path, LESSONS[0].url_path])
def test_a_links_keys_that_no_setting_here_takes_are_named_on_the_first_screen(server, page, path):
    """A typo, a key of markup and another lesson's setting, on lesson 3 and on lesson 1's own path (which sends the
    reader to "/"): named on the first screen at 1280x720, as text, and gone from the address bar."""
    page.goto(f"{server}/{path}?n=256&nn=5&%3Cb%3Ex%3C%2Fb%3E=1&os_len=64")
    page.wait_for_url(re.compile(r"[?&]n=256$"), timeout=WAIT)
    opened(page, 2 if path == LESSONS[2].url_path else 0)
    note = page.locator("[data-testid='stMain'] [data-testid='stAlert']").filter(has_text="From the link")
    expect(note).to_contain_text("From the link: nn is not a setting of flashviz; <b>x</b> is not a setting of "
                                 "flashviz; os_len is lesson 2's setting, not this lesson's: left out.")
    assert note.locator("b").count() == 0, "the link's text is never HTML"
    assert note.bounding_box()["y"] < 720, "on the first screen"
    assert query(page) == {"n": "256"}, query(page)


def test_a_bug_toggle_in_the_lab(server, page):
    page.goto(lesson_url(server, 8))
    opened(page, 8)
    toggle = page.locator("[data-testid='stCheckbox']").filter(has_text="Keep all scores")
    toggle.locator("label").first.click()
    page.wait_for_url(re.compile(r"bug_keep_full_S=true"), timeout=WAIT)
    expect(page.locator("[data-testid='stDataFrame']")).to_have_count(1, timeout=WAIT)
    page.wait_for_selector(IDLE, timeout=WAIT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(page, SHOTS / "09_break_it_keep_full_S.png")


def test_on_a_projector_the_clicker_reveals_the_answer_then_walks_the_sections(server, page):
    page.goto(lesson_url(server, 2, "?present=true&n=4096"))
    opened(page, 2, question_only=True)
    # the question alone, under the lesson's name, for the room to vote on
    expect(page.locator("h1")).to_have_text(LESSONS[2].title)
    expect(page.locator(".fv-plot")).to_have_count(0)
    expect(page.locator("[data-testid='stButton']").filter(has_text="Reveal")).to_have_count(1)
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(page, SHOTS / "question_before_reveal_1280x720.png")
    page.mouse.click(900, 600)
    page.keyboard.press("PageDown")  # first press: the answer
    expect(question(page)).to_contain_text(re.compile("engine says", re.I), timeout=WAIT)
    opened(page, 2)
    assert page.url.startswith(lesson_url(server, 2)), "the first PageDown stays on the lesson"
    expect(page.get_by_text("What this model leaves out")).to_have_count(0)
    capture(page, SHOTS / "question_after_reveal_1280x720.png")
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


def test_no_request_leaves_the_machine_and_no_console_error_is_the_apps(server, page):
    """Every lesson, with settings that exercise their branches, one after the other by the strip: every request
    goes to the app's own host; nothing but Streamlit's base-path probes answers with an error. (At the
    defaults, each lesson's own visit checks the same: test_browser.py's ..._at_defaults.)"""
    pg = page
    traffic = Traffic(pg, server)
    settings = "?n=4096&dtype=bfloat16&causal=true&hw=H200+SXM&order=fa1&present=true"
    pg.goto(lesson_url(server, 0, settings))
    for k in range(len(LESSONS)):
        if k:
            assert from_strip(pg, server, k)  # the strip's link takes the settings along
            assert query(pg) == {key: v[-1] for key, v in parse_qs(settings[1:]).items()}, pg.url
        opened(pg, k, question_only=True)
        charts_drawn(pg)
    traffic.stop()
    assert traffic.requests, "the visits were recorded"
    traffic.check()


def test_first_deep_link_on_a_fresh_server_opens_the_lesson(page):
    """A reader's link is often the first request a (re)started server sees."""
    with serve() as url:
        pg = page
        pg.goto(url + "/" + LESSONS[4].url_path + "?n=2048")
        opened(pg, 4)
        assert pg.get_by_text("Page not found").count() == 0
        expect(pg.locator("[data-testid='stSidebar'] input[type='range']").first).to_have_attribute(
            "aria-valuetext", "2048")


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
    capture(page, SHOTS / "03_tiling_mid_animation.png")
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
        capture(page, SHOTS / f"09_present_{bug}_1280x720.png")
