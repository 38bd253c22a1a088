"""Does a table's CSV come back when its button is clicked? This checkout against another, side by side in
one run: two servers, one Chromium, lesson 1's "Download CSV" clicked in turn on each, round after round.

    git worktree add --detach /tmp/before HEAD~1
    python bench/downloads.py --before /tmp/before [--clicks 40]

A click counts as lost when no file comes within 20 s (one comes in well under a second otherwise); a
button still waiting after 60 s more has its page reloaded. Lost clicks show under load: run it beside a
CPU hog (`python -c "while True: pass"`), as CI's machine may be.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import CHROMIUM  # noqa: E402
from tests.serving import healthy, start, stop  # noqa: E402
from tests.test_browser import ARGS  # noqa: E402

BUTTON = ".st-key-where_time_goes_csv button"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="another checkout of flashviz (a directory)")
    ap.add_argument("--clicks", type=int, default=40, help="clicks on each server")
    opts = ap.parse_args()
    other = Path(opts.before).resolve()
    if not (other / "app.py").exists():
        raise SystemExit(f"{other} has no app.py: not a flashviz checkout")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect, sync_playwright
    servers = {"this checkout": start(), f"before: {other}": start(cwd=other)}
    lost = dict.fromkeys(servers, 0)
    waits: dict[str, list[float]] = {name: [] for name in servers}
    try:
        for proc, url in servers.values():
            healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            pages = {}
            for name, (_, url) in servers.items():
                pages[name] = browser.new_page(viewport={"width": 1280, "height": 720})
                pages[name].goto(f"{url}/?n=2048")
            for _ in range(opts.clicks):
                for name, page in pages.items():
                    button = page.locator(BUTTON)
                    try:
                        expect(button).to_be_enabled(timeout=60_000)
                    except AssertionError:  # still waiting for a lost click's file: a reader reloads
                        page.reload()
                        expect(button).to_be_enabled(timeout=60_000)
                    t = time.monotonic()
                    try:
                        with page.expect_download(timeout=20_000) as download:
                            button.click()
                        download.value.path()
                        waits[name].append(time.monotonic() - t)
                    except PlaywrightTimeout:
                        lost[name] += 1
            browser.close()
    finally:
        for proc, _ in servers.values():
            stop(proc)
    print(f"lesson 1's CSV, {opts.clicks} clicks on each server, in turn")
    for name in servers:
        median = f"{statistics.median(waits[name]):.2f} s" if waits[name] else "-"
        print(f"  {name:40s} lost {lost[name]:3d} of {opts.clicks}; click to file, median {median}")


if __name__ == "__main__":
    main()
