"""What a lesson's page load costs the machine, three ways, side by side in one run:

- in a new browser context and tab each time (what the browser tests did before tests/conftest.py's Tabs);
- in a tab kept from load to load and cleaned between them as Tabs cleans it (cookies, storage, about:blank);
- in one tab, load after load, nothing between (the floor).

Each way opens the same lessons in turn, `rounds` times, after one warm-up pass (the server's first run of
each lesson is not counted). Cost is the whole machine's busy CPU time (/proc/stat) over the loads, so
run it on a quiet machine; the ratios are what to read.

    python bench/page_loads.py [--rounds 3] [--lessons 1,3,4,10,12]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import SCREENS, Tabs  # noqa: E402
from tests.serving import serve  # noqa: E402
from tests.test_browser import ARGS, CHROMIUM, charts_drawn, lesson_url, opened  # noqa: E402


def busy() -> float:
    """CPU seconds the whole machine has spent busy since boot."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / 100


def load(pg, server: str, k: int) -> None:
    """Lesson k from `server` in the tab `pg`, until its run has ended and every chart has drawn its axes."""
    pg.goto(lesson_url(server, k))
    opened(pg, k)
    charts_drawn(pg)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lessons", default="1,3,4,10,12", help="lesson numbers, from 1")
    opts = ap.parse_args()
    ks = [int(x) - 1 for x in opts.lessons.split(",")]
    from playwright.sync_api import sync_playwright
    with serve() as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)

        def new_tabs() -> None:
            for k in ks:
                ctx = browser.new_context(**SCREENS["1280x720"])
                load(ctx.new_page(), server, k)
                ctx.close()

        tabs = Tabs(browser)

        def kept_tab() -> None:
            for k in ks:
                load(tabs.get(), server, k)

        floor = browser.new_context(**SCREENS["1280x720"]).new_page()

        def one_tab() -> None:
            for k in ks:
                load(floor, server, k)

        ways = {"new context and tab": new_tabs, "kept tab, cleaned (Tabs)": kept_tab,
                "one tab, nothing between": one_tab}
        for way in ways.values():  # warm-up: the server's first runs, the HTTP caches
            way()
        cost = {name: 0.0 for name in ways}
        wall = {name: 0.0 for name in ways}
        for _ in range(opts.rounds):  # interleaved, so a slow minute of a shared machine falls on every way
            for name, way in ways.items():
                c, w = busy(), time.perf_counter()
                way()
                cost[name] += busy() - c
                wall[name] += time.perf_counter() - w
        loads = opts.rounds * len(ks)
        base = cost["new context and tab"] / loads
        print(f"lessons {[k + 1 for k in ks]}, {opts.rounds} rounds: CPU-s and wall s per load")
        for name in ways:
            print(f"  {name:28s} {cost[name] / loads:6.2f} CPU-s  {wall[name] / loads:6.2f} s  "
                  f"{cost[name] / loads / base:5.2f}x the new tab's CPU")
        tabs.close()
        browser.close()


if __name__ == "__main__":
    main()
