"""The clicker's latency in presentation mode, in Chromium at 1280x720: PageDown to the next
section on screen, and PageDown to the next lesson's question on screen, median and p95.

With --before CHECKOUT a second server runs the starting commit beside this one and the two
are measured in turn, lesson by lesson, in the same run (the machine is shared and noisy: only
side-by-side figures compare). The starting commit has no sections: it only has the second
figure. Each time is measured inside the page: from dispatching the key to the first animation
frame where the state holds (the section's mark at the top, or the next lesson's question box).
The load average is printed with the figures.

    python bench/deck.py [--before DIR] [--rounds 2] [--port 8740]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from explorer.lessons import LESSONS  # noqa: E402

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# Press a key as the clicker does (a keydown at the page) and wait, frame by frame, for `done`.
PRESS = """async ([key, done]) => {
  const ready = new Function("return (" + done + ")()");
  const t0 = performance.now();
  document.body.dispatchEvent(new KeyboardEvent("keydown", { key, code: key, bubbles: true, cancelable: true }));
  await new Promise((r, no) => {
    const check = () => (ready() ? r() : performance.now() - t0 > 30000 ? no(new Error("not there after 30 s: " + done))
                                                                     : requestAnimationFrame(check));
    check();
  });
  return performance.now() - t0;
}"""
SECTION_AT = """() => { const h = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const m = [...document.querySelectorAll('[data-testid="stMain"] .fv-slide')][%d];
  return !!m && Math.abs(m.getBoundingClientRect().top - h) < 2; }"""
QUESTION_OF = """() => { const q = document.querySelector(".st-key-question");
  return !!q && q.textContent.includes("Lesson %d ·"); }"""


def serve(checkout: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
                             f"--server.port={port}", "--server.address=127.0.0.1",
                             "--browser.gatherUsageStats=false"], cwd=checkout,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 90
    while True:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return proc
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.3)


def settle(pg) -> None:
    pg.wait_for_selector(IDLE, timeout=60_000)
    pg.wait_for_function("() => !document.querySelector('[data-testid^=\"stSkeleton\"]')", timeout=60_000)


def lesson(pg, base: str, k: int, sections: list[float], nexts: list[float]) -> None:
    """Open lesson k's question, reveal it, walk its sections (where it has them) and time
    each section and then the move to the next lesson."""
    pg.goto(f"{base}/{'' if k == 0 else LESSONS[k].url_path}?present=true")
    settle(pg)
    pg.wait_for_selector(".st-key-question", timeout=60_000)
    pg.keyboard.press("PageDown")  # the reveal
    pg.wait_for_function("() => /engine says/i.test(document.querySelector('.st-key-question').textContent)",
                         timeout=60_000)
    settle(pg)
    inline = pg.locator("[class*='st-key-reveal_inline_'] button")
    while inline.count():  # a question inside a section: answered first, so every press below moves
        inline.first.click()
        expect(inline).to_have_count(0, timeout=60_000)
        settle(pg)
    pg.evaluate("() => { document.querySelector('[data-testid=\"stMain\"]').scrollTop = 0; }")
    marks = pg.locator("[data-testid='stMain'] .fv-slide")
    for s in range(marks.count()):
        sections.append(pg.evaluate(PRESS, ["PageDown", SECTION_AT % s]))
        mark = marks.nth(s)
        steps = int(mark.get_attribute("data-steps") or 0)
        for i in range(steps):  # a section's presets: a rerun each, not timed here
            if mark.get_attribute("data-step") != str(i):
                if i > 0:
                    pg.keyboard.press("PageDown")
                expect(mark).to_have_attribute("data-step", str(i), timeout=60_000)
                settle(pg)
    nexts.append(pg.evaluate(PRESS, ["PageDown", QUESTION_OF % (k + 2)]))


def stats(xs: list[float]) -> str:
    if not xs:
        return "n/a (no sections)"
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]
    return f"median {statistics.median(xs):.0f} ms, p95 {p95:.0f} ms, max {xs[-1]:.0f} ms (n = {len(xs)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout of the starting commit, measured beside this one")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--port", type=int, default=8740)
    ap.add_argument("--lessons", type=int, default=len(LESSONS) - 1, help="how many lessons, from the first")
    a = ap.parse_args()
    checkouts = ([("before", a.before.resolve())] if a.before else []) + [("after", ROOT)]
    procs = {name: serve(path, a.port + i) for i, (name, path) in enumerate(checkouts)}
    figures: dict[str, tuple[list, list]] = {name: ([], []) for name, _ in checkouts}
    loads = []
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            pages = {name: b.new_page(viewport={"width": 1280, "height": 720}) for name, _ in checkouts}
            for _ in range(a.rounds):
                for k in range(min(a.lessons, len(LESSONS) - 1)):
                    for i, (name, _) in enumerate(checkouts):  # before and after in turn, lesson by lesson
                        lesson(pages[name], f"http://127.0.0.1:{a.port + i}", k, *figures[name])
                    loads.append(os.getloadavg()[0])
            b.close()
    finally:
        for proc in procs.values():
            proc.terminate()
    print(f"cores: {os.cpu_count()}; 1-minute load average during the run: "
          f"{min(loads):.2f}-{max(loads):.2f} (median {statistics.median(loads):.2f})")
    for name, (sections, nexts) in figures.items():
        print(f"{name:>6}: PageDown to the next section: {stats(sections)}")
        print(f"{name:>6}: PageDown to the next lesson's question: {stats(nexts)}")


if __name__ == "__main__":
    main()
