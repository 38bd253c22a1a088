"""A quick teacher's clicker: two PageDowns with no pause between them, from each lesson's question in
presentation mode, in Chromium at 1280x720. The first reveals the answer; the second should bring
section 1 to the top of the same lesson. Each try ends in one of: "section 1" (both presses did what they
should), "lost" (the page stayed on the lesson, no section moved), "next lesson" (a lesson skipped), or
"other". A fresh page load for every try, so the first visit's code loading is in it too.

With --before CHECKOUT a second server runs that checkout beside this one, and the two are tried in turn,
lesson by lesson, in the same run (the machine is shared and noisy); --hog keeps one core busy beside them.

    python bench/quick_presses.py [--before DIR] [--rounds 2] [--hog] [--port 8760]
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from bench.deck import serve, settle  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402

OUTCOME = """() => {
  const s = window.__fvSection, d = document.querySelector('.fv-deck');
  return { k: s ? s.k : null, lesson: d ? d.dataset.lesson : null, url: location.href,
           revealed: !document.querySelector('.st-key-reveal_answer button') };
}"""


def attempt(pg, base: str, k: int) -> str:
    path = "" if k == 0 else LESSONS[k].url_path
    pg.goto(f"{base}/{path}?present=true")
    settle(pg)
    pg.wait_for_selector(".st-key-reveal_answer button", timeout=60_000)
    pg.keyboard.press("PageDown")
    pg.keyboard.press("PageDown")
    with contextlib.suppress(PlaywrightTimeout):  # what both presses should bring: section 1 of this lesson
        pg.wait_for_function("() => window.__fvSection && window.__fvSection.k === 1", timeout=15_000)
    settle(pg)
    now = pg.evaluate(OUTCOME)
    here = now["lesson"] == str(k) and re.search(rf"/{re.escape(path)}\?", now["url"] + "?") is not None
    if here and now["k"] == 1 and "sec=1" in now["url"]:
        return "section 1"
    if here and now["revealed"] and not now["k"]:
        return "lost"
    if now["lesson"] not in (None, str(k)):
        return "next lesson"
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout of the starting commit, tried beside this one")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--port", type=int, default=8760)
    ap.add_argument("--hog", action="store_true", help="keep one core busy beside the run")
    a = ap.parse_args()
    checkouts = ([("before", a.before.resolve())] if a.before else []) + [("after", ROOT)]
    procs = [serve(path, a.port + i) for i, (_, path) in enumerate(checkouts)]
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if a.hog else None
    tally: dict[str, collections.Counter] = {name: collections.Counter() for name, _ in checkouts}
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            for _ in range(a.rounds):
                for k in range(len(LESSONS)):
                    for i, (name, _) in enumerate(checkouts):  # before and after in turn, lesson by lesson
                        pg = b.new_page(viewport={"width": 1280, "height": 720})
                        tally[name][attempt(pg, f"http://127.0.0.1:{a.port + i}", k)] += 1
                        pg.close()
            b.close()
    finally:
        for proc in procs + ([hog] if hog else []):
            proc.terminate()
    print(f"cores: {os.cpu_count()}; 1-minute load average at the end: {os.getloadavg()[0]:.2f}; "
          f"hog: {'yes' if a.hog else 'no'}; {a.rounds} round(s) of {len(LESSONS)} lessons")
    for name, counts in tally.items():
        print(f"{name:>6}: " + ", ".join(f"{what} {counts[what]}" for what in
                                         ("section 1", "lost", "next lesson", "other")))


if __name__ == "__main__":
    main()
