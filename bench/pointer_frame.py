"""Charts drawn at the pointer's value against the slider's, side by side in one run, in Chromium at 1280x720.

explorer/pointer.js draws a drag's charts in the frame its pointer moved in, at the value the slider's own rule gives;
before it, explorer/live.js drew them once Streamlit's slider showed its new value, in React's next task and so a
frame later. The page keeps the old way behind a switch (`window.__fvLive.pointerOff`). Each lesson named is opened
once a round for each way, the ways' order swapped each round (the first of a round runs on a colder page), and each
live slider dragged at once, as bench/live.py drags it; each move timed to the paint (a task of the highest priority
after the frame) and, as before session 60, to a plain task after it (bench/live.py's TIMER).

    python bench/pointer_frame.py [--lessons fa2-fa1,online-softmax] [--rounds 2] [--port 8770]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.bench_latency import ARGS, IDLE, p95  # noqa: E402
from bench.live import TIMER, drag, knobs_of  # noqa: E402
from tests.st_client import Server  # noqa: E402

WAYS = {"the slider's value (before)": True, "the pointer's value (now)": False}  # way -> pointerOff


def cells(xs: list[float]) -> str:
    return f" {statistics.median(xs):.1f} | {p95(xs):.1f} |" if xs else " — | — |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lessons", default="fa2-fa1,online-softmax", help="URL paths, comma-separated")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--moves", type=int, default=12, help="steps of each drag")
    ap.add_argument("--port", type=int, default=8770)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    paint: dict[tuple[str, str], list[float]] = {}
    later: dict[tuple[str, str], list[float]] = {}
    with sync_playwright() as p, Server(ROOT, args.port) as app:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = chromium.new_page(viewport={"width": 1280, "height": 720})
        page.add_init_script(TIMER)
        for lesson in [name for name in args.lessons.split(",") if name]:
            for r in range(args.rounds):
                for way in (list(WAYS) if r % 2 == 0 else list(WAYS)[::-1]):
                    page.goto(f"{app.url}/{lesson}")
                    page.wait_for_selector(IDLE, timeout=60_000)
                    knobs = knobs_of(page)
                    page.evaluate("off => { window.__fvLive.pointerOff = off; }", WAYS[way])
                    for knob in knobs:
                        dragged = drag(page, knob, args.moves)
                        if dragged.out:
                            paint.setdefault((f"{lesson} · {knob}", way), []).extend(dragged.out)
                            later.setdefault((f"{lesson} · {knob}", way), []).extend(dragged.later)
        chromium.close()
    names = list(dict.fromkeys(name for name, _ in paint))
    print("| at once, input to repaint (ms) | " + " | ".join(f"{w}: p50 | p95 | a later task: p50 | p95"
                                                              for w in WAYS) + " |")
    print("|---|" + "---:|" * 8)
    for name in names:
        print(f"| {name} |" + "".join(cells(paint.get((name, w), [])) + cells(later.get((name, w), []))
                                      for w in WAYS))


if __name__ == "__main__":
    main()
