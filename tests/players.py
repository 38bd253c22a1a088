"""What the players' browser tests share: the app's browser tests' skip, opening a player, and the
legibility check. Chromium, the server and the page are tests/conftest.py's fixtures.
"""
import re

from tests import test_browser
from tests.conftest import ROOT, WAIT

try:
    from playwright.sync_api import expect
except ImportError:  # pragma: no cover (pytestmark skips every test)
    expect = None

# the app's browser tests' skip (Chromium, the server and the page are tests/conftest.py's fixtures)
pytestmark = test_browser.pytestmark

SHOTS = ROOT / "artifacts" / "screenshots"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
FRAME = "iframe[data-testid='stIFrame']"
VIEWS = {"1280": {"width": 1280, "height": 720}, "1920": {"width": 1920, "height": 1080}}

# Nothing cut short, nothing past the right edge, no ellipsis: every word on the projector.
CLIPPED = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#fv *')) {
    if (['OPTION', 'SELECT', 'CANVAS', 'SCRIPT'].includes(el.tagName) || !el.textContent.trim()) continue;
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      out.push(el.id || el.tagName + ':' + el.textContent.slice(0, 30));
    if (r.right > document.documentElement.clientWidth + 0.5) out.push('past the edge: ' + (el.id || el.tagName));
    if (getComputedStyle(el).textOverflow === 'ellipsis') out.push('ellipsis: ' + (el.id || el.tagName));
  }
  return out;
}"""


def open_player(pg, url: str, last: bool = False):
    """Go to url and return the player's iframe and frame once its first step is drawn:
    the page's first player, or its last one."""
    pg.goto(url)
    pg.wait_for_selector(IDLE, timeout=WAIT)
    test_browser.drawn(pg)  # the lesson buttons too: the tests press PageDown after a click in the player
    iframes, frames = pg.locator(FRAME), pg.frame_locator(FRAME)
    iframe, fr = (iframes.last, frames.last) if last else (iframes.first, frames.first)
    iframe.wait_for(timeout=WAIT)
    at_step(fr, 0, timeout=WAIT)
    iframe.scroll_into_view_if_needed()
    return iframe, fr


def resized(pg, iframe, fr, view: str) -> None:
    """The window set to VIEWS[view] and the player laid out again inside it (one page visit serves both
    widths; a reader widens a window too): wait until the frame is as wide as its box, until the frame has
    drawn twice since (its resize handler, which lays the player out, runs before a frame is drawn), and until
    the frame is tall enough for the player again."""
    pg.set_viewport_size(VIEWS[view])
    frame = iframe.element_handle()
    pg.wait_for_function("([f, w]) => innerWidth === w && Math.abs(f.contentWindow.innerWidth - "
                         "f.getBoundingClientRect().width) <= 1", arg=[frame, VIEWS[view]["width"]])
    fr.locator("#fv").evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    pg.wait_for_function("f => f.getBoundingClientRect().height >= "
                         "Math.ceil(f.contentDocument.getElementById('fv').getBoundingClientRect().bottom)", arg=frame)


def at_step(fr, k: int, timeout: float | None = None) -> None:
    """Wait until the player shows step k."""
    expect(fr.locator("#label")).to_have_attribute("data-step", str(k), timeout=timeout)


def go_to_step(fr, k: int) -> None:
    """Drag the slider to step k, as a mouse would, and wait for it to be drawn."""
    fr.locator("#step").evaluate(f"el => {{ el.value = {k}; el.dispatchEvent(new Event('input')); }}")
    at_step(fr, k)


def pagedown_turns_to(pg, fr, lesson) -> None:
    """After a click inside the player, the clicker's PageDown still turns to `lesson`."""
    fr.locator("#next").click()  # keyboard focus is now inside the player's iframe
    at_step(fr, 1)
    pg.keyboard.press("PageDown")
    pg.wait_for_url(re.compile(r"/" + lesson.url_path + r"(\?|$)"), timeout=WAIT)


def number(text: str) -> float:
    """A number as the players print it (a true minus sign, "inf")."""
    return float(text.strip().replace("−", "-"))


# For a player's screenshot: the app's sticky top bar, and the lessons' strip in it, would cover the top of
# a player taller than the window, or one a scroll or a resize left under them.
BARS_HIDDEN = "[data-testid='stHeader'], .st-key-lesson_nav, .st-key-lesson_nav * { visibility: hidden; }"


def screenshot(pg, iframe, name: str) -> None:
    """The player alone, to artifacts/screenshots/<name>.png, for a person to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.add_style_tag(content=BARS_HIDDEN)
    test_browser.capture(iframe, SHOTS / f"{name}.png")
