"""README's pictures, taken from the app as it is now: `python docs/make_screenshots.py`.

Starts `streamlit run app.py` on port 8631 (as tests/serving.py starts it, on a fixed port; its health wait and
stop), opens it in
Debian's Chromium through Playwright and writes the three files SHOTS names, which README links
(tests/test_docs.py checks both ends):

- docs/screenshot.png: the tiling lesson at 1280x720, its tile player a few steps in;
- docs/screenshot-deck.png: the same lesson in presentation mode, the tile player's section, 1280x720;
- docs/screenshot-phone.png: lesson 1 on a phone, 390x844.

Re-run it when a lesson's look changes, and look at the pictures before committing them.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.lessons import LESSONS  # noqa: E402
from tests.serving import healthy, stop  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

PORT = 8631  # this project's port for a server a person starts by hand
CHROMIUM = "/usr/bin/chromium"
TILING = next(k for k, lesson in enumerate(LESSONS) if lesson.file.endswith("_tiling.py"))
# file -> (lesson, query, viewport, the section shown: a heading when reading, a slide's title when presenting);
# the README links these names
SHOTS: dict[str, tuple[int, str, ViewportSize, str | None]] = {
    "docs/screenshot.png": (TILING, "", {"width": 1280, "height": 720}, "Watch it stream"),
    "docs/screenshot-deck.png": (TILING, "?present=true", {"width": 1280, "height": 720}, "The tile player"),
    "docs/screenshot-phone.png": (0, "", {"width": 390, "height": 844}, None),
}
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
SKELETON = "[data-testid^='stSkeleton'] >> visible=true"


def serve() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={PORT}",
         "--server.address=127.0.0.1", "--browser.gatherUsageStats=false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{PORT}"


def settled(pg) -> None:
    """The run is over and nothing on the page is still a placeholder."""
    pg.wait_for_selector(IDLE, timeout=90_000)
    pg.locator(SKELETON).first.wait_for(state="detached", timeout=90_000)
    pg.wait_for_timeout(1500)  # plotly's and the players' first paint after the run


def shoot(pg, url: str, path: Path, section: str | None, presenting: bool) -> None:
    pg.goto(url)
    settled(pg)
    if presenting:
        pg.keyboard.press("a")  # reveal the question's answer, as the clicker's first press does
        settled(pg)
    if section:
        if presenting:
            slide = pg.locator(f".fv-slide[data-title='{section}']").first
            for _ in range(12):  # the clicker's PageDown, section by section, until the player's is on screen
                if pg.evaluate("el => Math.abs(el.getBoundingClientRect().top) < 120", slide.element_handle()):
                    break
                pg.keyboard.press("PageDown")
                pg.wait_for_timeout(600)
                settled(pg)
        else:  # reading: the section's heading at the top, what comes before it just off the screen
            heading = pg.get_by_role("heading", name=section).first
            # the top bar is drawn over the page: the heading just under it, what comes before it above the screen
            heading.evaluate("""el => {
                let pane = el.parentElement;
                while (pane && !(pane.scrollHeight > pane.clientHeight
                                 && ['auto', 'scroll'].includes(getComputedStyle(pane).overflowY))) {
                    pane = pane.parentElement;
                }
                pane = pane || document.scrollingElement;
                el.scrollIntoView({block: 'start'});
                pane.scrollTop += 30;  // scrollIntoView leaves room for the bar, with the text before showing under it
            }""")
            pg.wait_for_timeout(500)
        frame = pg.frame_locator("iframe").first
        frame.locator("body").click(position={"x": 5, "y": 5})
        for _ in range(9):  # the tile player part way: tiles done and to do, rows rescaled
            pg.keyboard.press("ArrowRight")
        pg.wait_for_timeout(800)
    pg.screenshot(path=str(path))


def main() -> None:
    from playwright.sync_api import sync_playwright
    proc, url = serve()
    try:
        healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for name, (k, query, viewport, section) in SHOTS.items():
                page = browser.new_page(viewport=viewport)
                path = ROOT / name
                shoot(page, f"{url}/{LESSONS[k].url_path if k else ''}{query}", path, section,
                      "present=true" in query)
                page.close()
                print(f"{name}: lesson {k + 1}, {LESSONS[k].title}, {viewport['width']}x{viewport['height']}")
            browser.close()
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
