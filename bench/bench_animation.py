"""The tile player: payload size and playback rate in Debian's Chromium.

Prints, never asserts. Payload: the JSON sent to the browser at the default
teaching size and at the heaviest allowed config. Rate: frames drawn per second
while playing at the top speed (60 steps/s requested), and whether every step
was drawn in order (no dropped state).

    python bench/bench_animation.py
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from explorer.player import render_html  # noqa: E402
from flashviz.players.animation import flash_frames, payload, teaching_config  # noqa: E402
from flashviz.model.config import Config  # noqa: E402

CASES = {
    "default (n=256, d=16, 64x64 tiles)": teaching_config(Config(), 256, 16)[0],
    "32x32 tiles (64 frames)": teaching_config(Config(Br=32, Bc=32), 256, 16)[0],
    "heaviest (64-row blocks, capped frames)": teaching_config(Config(Br=64, Bc=1), 512, 32)[0],
}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]


def rate(browser, html: str) -> tuple[float, bool, int]:
    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as f:
        f.write(html)
    pg = browser.new_page(viewport={"width": 1280, "height": 720})
    pg.goto(Path(f.name).as_uri())
    pg.select_option("#speed", "60")
    pg.evaluate("window.fvStats = {rendered: 0, first: null, last: null, steps: []}")
    pg.click("#play")
    pg.wait_for_function("document.getElementById('play').textContent.includes('play')", timeout=120_000)
    st = pg.evaluate("window.fvStats")
    pg.close()
    steps = st["steps"]
    in_order = steps == list(range(1, len(steps) + 1))
    fps = (len(steps) - 1) / ((st["last"] - st["first"]) / 1000)
    return fps, in_order, len(steps)


if __name__ == "__main__":
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        print(f"{'case':42s} {'frames':>6s} {'payload KB':>11s} {'fps at 60/s':>12s} {'in order':>9s}")
        for name, cfg in CASES.items():
            data = flash_frames(cfg)
            size = len(payload(data).encode()) / 1024
            fps, ok, drawn = rate(browser, render_html(data))
            print(f"{name:42s} {len(data['frames']):6d} {size:11.1f} {fps:12.1f} {str(ok):>9s}")
        browser.close()
