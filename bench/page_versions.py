"""What a lesson's page load costs the machine in this checkout against another, side by side in one run:
two servers (this checkout's app and the other's), one Chromium, a kept tab for each (tests/conftest.py's
Tabs), the same lessons loaded in turn, interleaved round by round so a slow minute of a shared machine
falls on both.

    git worktree add --detach /tmp/before HEAD~1
    python bench/page_versions.py --before /tmp/before [--rounds 4] [--lessons 1,3,4,10,12]

Cost is the whole machine's busy CPU time (/proc/stat) over the loads, after one warm-up pass each (the
servers' first runs of each lesson are not counted): run it on a quiet machine and read the ratio.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.page_loads import busy, load  # noqa: E402
from tests.conftest import CHROMIUM, Tabs  # noqa: E402
from tests.serving import healthy, start, stop  # noqa: E402
from tests.test_browser import ARGS  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="another checkout of flashviz (a directory)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--lessons", default="1,3,4,10,12", help="lesson numbers, from 1")
    opts = ap.parse_args()
    ks = [int(x) - 1 for x in opts.lessons.split(",")]
    other = Path(opts.before).resolve()
    if not (other / "app.py").exists():
        raise SystemExit(f"{other} has no app.py: not a flashviz checkout")
    from playwright.sync_api import sync_playwright
    servers = {"this checkout": start(), f"before: {other}": start(cwd=other)}
    try:
        for proc, url in servers.values():
            healthy(url, proc)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            tabs = {name: Tabs(browser) for name in servers}

            def loads(name: str) -> None:
                for k in ks:
                    load(tabs[name].get(), servers[name][1], k)

            for name in servers:  # warm-up: each server's first runs, the HTTP caches
                loads(name)
            cost = dict.fromkeys(servers, 0.0)
            for _ in range(opts.rounds):
                for name in servers:
                    c = busy()
                    loads(name)
                    cost[name] += busy() - c
            browser.close()
    finally:
        for proc, _ in servers.values():
            stop(proc)
    n = opts.rounds * len(ks)
    base = cost["this checkout"] / n
    print(f"lessons {[k + 1 for k in ks]}, {opts.rounds} rounds: CPU-s per load")
    for name in servers:
        print(f"  {name:40s} {cost[name] / n:6.2f} CPU-s  {cost[name] / n / base:5.2f}x this checkout's")


if __name__ == "__main__":
    main()
