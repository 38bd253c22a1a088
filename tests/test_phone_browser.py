"""A student on a phone (390x844, touch) opens a reader's link: every lesson reads without a
sideways scroll, players included, and the lessons are one tap away without the sidebar."""
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


def test_the_lessons_are_one_tap_away_without_the_sidebar(server, phone):
    phone.goto(lesson_url(server, 2, "?n=2048"))
    opened(phone, 2)
    phone.locator(f".st-key-lesson_nav a[href^='{LESSONS[4].url_path}?'] >> visible=true").tap()
    phone.wait_for_url(re.compile(re.escape(lesson_url(server, 4)) + r"\?n=2048$"), timeout=WAIT)
    opened(phone, 4)


