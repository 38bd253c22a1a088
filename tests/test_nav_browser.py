"""The lessons' navigation (explorer/nav.py) in a real Chromium, at a projector's 1280x720 and a
phone's 390x844: every lesson one click away from every lesson's page, and the lesson on screen
named with its chapter, without opening anything. For today's lessons in the app, and for twenty
stand-in lessons in tests/nav_app.py (the same navigation and CSS), where Streamlit's own top
navigation folded the 12th and 13th into a "2 more" menu.

A link is one click away when it is drawn inside the screen, not under anything else (the
element at its centre is the link), and a click on it opens its lesson. Screenshots go to
artifacts/screenshots/nav_*.png.
"""
import re

import pytest

from explorer.lessons import LESSONS, chapters
from tests.conftest import SCREENS
from tests.nav_app import LESSONS_20
from tests.serving import serve
from tests.test_browser import (  # noqa: F401
    IDLE, SHOTS, SKELETON, STRIP, WAIT, capture, click_strip, expect, lesson_url, opened, pytestmark)

LINKS = STRIP
CURRENT = ".st-key-lesson_nav a.fv-current >> visible=true"

# Every visible link of the strip: its text, its box, whether the element at its centre is inside
# it (nothing drawn over it), and the screen's size.
LOOK = """() => {
  const links = [...document.querySelectorAll('.st-key-lesson_nav a')]
    .filter(a => a.checkVisibility());
  return { w: innerWidth, h: innerHeight,
           links: links.map(a => { const r = a.getBoundingClientRect();
             const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
             return { text: a.innerText.trim(), x: r.x, y: r.y, right: r.right, bottom: r.bottom,
                      hit: !!top && a.contains(top) }; }) };
}"""


@pytest.fixture(scope="module")
def stand_in_server():
    with serve(script="tests/nav_app.py") as url:
        yield url


def sample(n: int) -> list[int]:
    """The first, the middle and the last lesson's pages, and the 13th where there is one (the first
    that Streamlit's top navigation folded away)."""
    return sorted({0, n // 2, n - 1} | ({12} if n > 12 else set()))


def shown(pg, lessons, k: int, screen: str, name: str) -> None:
    """On lesson k's page: every lesson's link inside the screen and clickable, in lesson order, the
    one on screen spelled out in its chapter, marked as the chapter on screen."""
    nav = pg.locator(".st-key-lesson_nav")
    expect(pg.locator(CURRENT)).to_have_text(f"{k + 1}. {lessons[k].short}")
    here = nav.locator(".fv-here .fv-chapter-name").first
    expect(here).to_have_text(lessons[k].chapter)
    expect(nav.locator(".fv-here a.fv-current")).to_have_count(1)
    look = pg.evaluate(LOOK)
    texts = [link["text"] for link in look["links"]]
    assert texts == [f"{j + 1}. {lesson.short}" if j == k else str(j + 1) for j, lesson in enumerate(lessons)], texts
    off = [link["text"] for link in look["links"]
           if link["x"] < 0 or link["y"] < 0 or link["right"] > look["w"] or link["bottom"] > look["h"]]
    assert not off, f"links outside the {screen} screen: {off}"
    covered = [link["text"] for link in look["links"] if not link["hit"]]
    assert not covered, f"links under something else: {covered}"
    names = nav.locator(".fv-chapter-name").evaluate_all(
        "es => es.filter(e => e.checkVisibility()).map(e => e.innerText.trim())")
    assert names == [c.name for c in chapters(lessons)], names
    if screen == "1280x720":  # in the top bar, above the lesson, as Streamlit's navigation was
        bar = pg.locator("[data-testid='stHeader']").bounding_box()
        assert max(link["bottom"] for link in look["links"]) <= bar["y"] + bar["height"], "the strip leaves the top bar"
    else:  # heading the page, a few rows at most
        assert max(link["bottom"] for link in look["links"]) < 0.35 * look["h"], "the strip takes a third of the phone"
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(pg, SHOTS / f"nav_{name}_{screen}_lesson{k + 1:02d}.png")


@pytest.mark.parametrize("screen", SCREENS)
def test_every_lesson_is_one_click_away_and_the_one_on_screen_is_named(server, tabs, screen):
    """In one visit, from a link to the first lesson: each sampled lesson's page, reached by a click on its
    link in the strip, the last first, and from each a click back to the first (a page load costs the
    browser seconds of CPU; CI shares its machine)."""
    pg = tabs.get(screen)
    first, *others = sample(len(LESSONS))
    pg.goto(lesson_url(server, first, "?n=2048"))
    opened(pg, first)
    shown(pg, LESSONS, first, screen, "app")
    pg.evaluate("window.__fvVisit = 1")  # gone if a click loaded the page anew instead of switching lessons in it
    for k in reversed(others):
        for j in (k, first):
            click_strip(pg, j)
            pg.wait_for_url(re.compile(re.escape(lesson_url(server, j)) + r"\?n=2048$"), timeout=WAIT)
            opened(pg, j)
            expect(pg.locator(CURRENT)).to_have_text(f"{j + 1}. {LESSONS[j].short}")
            assert pg.evaluate("window.__fvVisit") == 1, "the click loaded the page anew"
            if j == k:
                shown(pg, LESSONS, k, screen, "app")


def stand_in_opened(pg, k: int) -> None:
    expect(pg.locator("h1").first).to_contain_text(f"{k + 1}. {LESSONS_20[k].title}", timeout=WAIT)
    pg.wait_for_selector(IDLE, timeout=WAIT)
    expect(pg.locator(SKELETON)).to_have_count(0, timeout=WAIT)
    expect(pg.locator("[data-testid='stException']")).to_have_count(0)


def test_the_stand_ins_are_twenty_in_more_chapters_than_today():
    assert len(LESSONS_20) == 20 and len(chapters(LESSONS_20)) > len(chapters(LESSONS))


@pytest.mark.parametrize("screen", SCREENS)
def test_twenty_lessons_each_one_click_away_and_the_one_on_screen_named(stand_in_server, tabs, screen):
    """In one visit, from the first stand-in: the last, then the 13th (once folded away) from there, back to
    the first, the middle one and back, each reached by a click on its link and checked."""
    pg = tabs.get(screen)
    first, middle, thirteenth, last = sample(len(LESSONS_20))
    pg.goto(stand_in_server + "/")
    stand_in_opened(pg, first)
    shown(pg, LESSONS_20, first, screen, "20")
    for j in (last, thirteenth, first, middle, first):
        click_strip(pg, j)
        stand_in_opened(pg, j)
        shown(pg, LESSONS_20, j, screen, "20")


def test_a_link_is_its_lessons_address_and_opens_it_in_a_new_tab(server, page):
    """A link clicked with a modifier, or with the middle button, opens its lesson in a new tab with the settings,
    as any link does; the tab it was clicked in stays where it was."""
    page.goto(lesson_url(server, 2, "?n=2048"))
    opened(page, 2)
    hrefs = page.locator(".st-key-lesson_nav a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs == [lesson_url(server, j, "?n=2048") for j in range(len(LESSONS))]
    for k, click in ((4, {"modifiers": ["Control"]}), (6, {"button": "middle"})):
        with page.context.expect_page() as new:
            page.locator(".st-key-lesson_nav a").nth(k).click(**click)
        tab = new.value
        try:
            opened(tab, k)
            assert tab.url == lesson_url(server, k, "?n=2048")
        finally:
            tab.close()
    expect(page.locator(CURRENT)).to_have_text(f"3. {LESSONS[2].short}")
    assert page.url == lesson_url(server, 2, "?n=2048")


def test_without_a_connection_the_links_are_disabled_and_a_click_does_nothing(server, page):
    """Streamlit marks its root with its connection to the server (data-test-connection-state, "CONNECTED" when
    connected); here it is set as Streamlit sets it while it reconnects. tests/test_replicas.py loses a real
    connection and clicks the strip once it is back."""
    page.goto(lesson_url(server, 2, "?n=2048"))
    opened(page, 2)
    links = page.locator(".st-key-lesson_nav a")
    root = "document.querySelector('[data-testid=stApp]')"
    page.evaluate(f"{root}.setAttribute('data-test-connection-state', 'PINGING_SERVER')")
    expect(links.nth(4)).to_have_attribute("aria-disabled", "true")
    assert float(links.nth(4).evaluate("a => getComputedStyle(a).opacity")) < 0.5
    # every message the page sends from now on, counted (a click's trigger is sent within its event)
    page.evaluate("""() => { window.__fvSent = 0; const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (...a) { window.__fvSent += 1; return send.apply(this, a); }; }""")
    links.nth(4).click(force=True)  # a reader's click all the same (Playwright waits out a disabled link)
    assert page.evaluate("window.__fvSent") == 0, "the click asked the server for a lesson"
    assert page.url == lesson_url(server, 2, "?n=2048")
    expect(page.locator(CURRENT)).to_have_text(f"3. {LESSONS[2].short}")
    page.evaluate(f"{root}.setAttribute('data-test-connection-state', 'CONNECTED')")
    expect(links.nth(4)).not_to_have_attribute("aria-disabled", "true")
    links.nth(4).click()
    opened(page, 4)
    assert page.url == lesson_url(server, 4, "?n=2048")


def test_presenting_the_strip_clears_the_sidebars_button_and_stays_named(server, page):
    pg = page
    pg.goto(lesson_url(server, 3, "?present=true"))
    opened(pg, 3, question_only=True)
    shown(pg, LESSONS, 3, "1280x720", "present")
    # Wait for the state asserted below: the sidebar closed, every transition on the page over (the sidebar's
    # open button slides in from the sidebar's edge, x about 306, to the bar's left, and the strip slides left
    # with the main column: both move for a while on a busy machine), and the strip's first link right of the
    # button. A button or a strip whose resting place overlapped would never satisfy this: the wait would time
    # out and the test fail. (A predicate, polled each animation frame.)
    pg.wait_for_function("""(links) => {
        const side = document.querySelector('[data-testid="stSidebar"]');
        const b = document.querySelector('[data-testid="stExpandSidebarButton"]');
        const first = [...document.querySelectorAll(links)].find(e => e.getClientRects().length > 0
            && getComputedStyle(e).visibility !== 'hidden');  // the first link a reader sees
        if (!side || !b || !first || side.getBoundingClientRect().right > 40) return false;
        if (document.getAnimations().some(a => a.playState === 'running')) return false;
        return first.getBoundingClientRect().x > b.getBoundingClientRect().right;
      }""", arg=LINKS.split(" >> ")[0], timeout=WAIT)
    button = pg.locator("[data-testid='stExpandSidebarButton']").bounding_box()
    first = pg.locator(LINKS).first.bounding_box()
    assert first["x"] > button["x"] + button["width"], "the strip starts right of the sidebar's open button"
