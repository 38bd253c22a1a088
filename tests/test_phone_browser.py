"""A student on a phone (390x844, touch) opens a reader's link: every lesson reads without a
sideways scroll, players included, and the lessons are one tap away without the sidebar."""
import re

import pytest

from explorer.lessons import LESSONS
from tests.test_browser import (  # noqa: F401
    ARGS, CHROMIUM, IDLE, SHOTS, WAIT, expect, lesson_url, opened, pytestmark)

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}

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
def phone(browser):
    ctx = browser.new_context(**PHONE)
    pg = ctx.new_page()
    yield pg
    ctx.close()


@pytest.mark.parametrize("k", range(len(LESSONS)))
def test_every_lesson_fits_a_phone_players_included(server, phone, k):
    phone.goto(lesson_url(server, k))
    opened(phone, k)
    frames = phone.locator("[data-testid='stMain'] iframe")
    for i in range(frames.count()):  # each player has drawn its first frame
        frames.nth(i).content_frame.locator("#fv, body").first.wait_for(timeout=WAIT)
    phone.wait_for_function("() => [...document.querySelectorAll('iframe')].every(f => f.contentDocument &&"
                            " f.contentDocument.readyState === 'complete')", timeout=WAIT)
    assert phone.evaluate(TOO_WIDE) == [], "a document wider than the phone's screen"
    SHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SHOTS / f"phone_{k + 1:02d}_{LESSONS[k].url_path}.png"), full_page=False)


def test_the_lessons_are_one_tap_away_without_the_sidebar(server, phone):
    phone.goto(lesson_url(server, 2, "?n=2048"))
    opened(phone, 2)
    phone.locator(f".st-key-lesson_nav a[href^='{LESSONS[4].url_path}?'] >> visible=true").tap()
    phone.wait_for_url(re.compile(re.escape(lesson_url(server, 4)) + r"\?n=2048$"), timeout=WAIT)
    opened(phone, 4)


def test_the_buttons_say_tap_not_a_key_on_a_touch_screen(server, phone):
    phone.goto(lesson_url(server, 2))
    opened(phone, 2)
    hint = phone.locator(".st-key-next_lesson kbd").first
    assert hint.evaluate("k => getComputedStyle(k, '::after').content") == '"tap"'
    assert hint.evaluate("k => parseFloat(getComputedStyle(k).fontSize)") == 0, "the key's name is not shown"
