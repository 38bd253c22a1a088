"""What one rerun costs the server, per lesson: bytes sent and CPU time, before and after.

For each lesson at the default settings, a client that keeps the browser's message cache
(tests/st_client.py) moves a control back and forth, the way a reader does: the sidebar's n
slider, and one of the lesson's own controls or, on lessons that have none, the guess in
its opening question. Per rerun it
records the bytes of every websocket frame the server sent (from the client side), and the
server's CPU time (its process's CPU clock read before the rerun and once the server has gone
quiet after it: the client runs in this process, so it is not counted). Caches are warm: four
reruns are made before any is measured.

With --before CHECKOUT a second server runs from another checkout (the starting commit) and
the two are measured side by side, rerun by rerun, alternating which goes first, so the
shared machine's noise falls on both alike. --whole adds the app-wide figures: 30 sessions
with 3 s between moves (bench/load.py), cold start to the first lesson's first screen in Chromium (and to
every chart of the page drawn) and
slider key to new figure (bench/bench_latency.py), before and after interleaved.

    python bench/rerun_cost.py [--before DIR] [--reruns 20] [--port 8720] [--whole] [--flag=--OPTION=VALUE]
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.st_client import Client, Server  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402

# A lesson's own control, moved between a value off its default and the default.
LOCAL = {
    "online-softmax": ("os_seed", (2, 1)),
    "tiled-attention": ("an_std", (True, False)),
    "backward-pass": ("bw_n", ("128", "256")),
    "exact-vs-approximate": ("ex_window", (136, 128)),
    "break-it": ("bug_no_rescale", (True, False)),
    "on-real-hardware": ("hw_block_n", ("4096", "1024")),
    "whole-gpu": ("wg_n", ("65536", "131072")),
    "decoding": ("inf_split", (5, 4)),
}
N = ("n", ("1536", "1024"))


def _guess(k: int):
    """The k-th option of a lesson's opening question, or a share for a slider guess."""
    return lambda w: w.options[k] if w.options else (0.3, 0.7)[k % 2]


# The opening question's guess, on the lessons with no control of their own.
GUESS = {page: (f"guess_{page}", (_guess(1), _guess(0)))
         for page in ("where-time-goes", "tile-size", "same-flops", "fa2-fa1")}
NO_LOCAL = (None, ())
WARM = 4


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[max(0, round(0.95 * len(xs)) - 1)]


async def measure(servers: list[Server], page: str, key: str, values: tuple, reruns: int) -> list[dict]:
    """Per server: first-visit bytes, then bytes and CPU seconds of each measured rerun."""
    clients = [Client(s.ws_url, page) for s in servers]
    out: list[dict[str, Any]] = [{"first": (await c.connect()).bytes, "bytes": [], "cpu": [], "errors": []}
                                 for c in clients]
    for k in range(WARM + reruns):
        order = list(range(len(servers)))[::(-1) ** k]  # alternate who goes first
        for i in order:
            before = await servers[i].settled_cpu()
            run = await clients[i].rerun({key: values[k % 2]})
            cpu = await servers[i].settled_cpu() - before
            out[i]["errors"] += run.errors
            if k >= WARM:
                out[i]["bytes"].append(run.bytes)
                out[i]["cpu"].append(cpu)
    for c in clients:
        await c.close()
    return out


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


async def per_lesson(servers: list[Server], names: list[str], reruns: int) -> None:
    head = ["lesson", "control", "first visit KB"]
    for name in names:
        head += [f"{name}: KB/rerun p50", "p95", f"{name}: CPU ms/rerun p50", "p95"]
    print(row(head))
    print(row(["---"] * 2 + ["---:"] * (len(head) - 2)))
    pooled: list[list[float]] = [[] for _ in servers]
    for k, lesson in enumerate(LESSONS, start=1):
        for key, values in (N, LOCAL.get(lesson.url_path, NO_LOCAL), GUESS.get(lesson.url_path, NO_LOCAL)):
            if key is None:
                continue
            results = await measure(servers, lesson.url_path, key, values, reruns)
            cells = [f"{k}. {lesson.short}" if key == "n" else "", "guess" if key.startswith("guess_") else key,
                     " / ".join(f"{r['first'] / 1024:.0f}" for r in results)]
            for i, r in enumerate(results):
                if r["errors"]:
                    print(f"  {names[i]} {lesson.url_path} {key}: {r['errors'][:2]}", file=sys.stderr)
                if key == "n":
                    pooled[i] += r["cpu"]
                cells += [f"{statistics.median(r['bytes']) / 1024:.1f}", f"{p95(r['bytes']) / 1024:.1f}",
                          f"{statistics.median(r['cpu']) * 1e3:.1f}", f"{p95(r['cpu']) * 1e3:.1f}"]
            print(row(cells), flush=True)
    for name, xs in zip(names, pooled):
        print(f"{name}: server CPU per rerun at the defaults (n moved, every lesson pooled): "
              f"median {statistics.median(xs) * 1e3:.1f} ms, p95 {p95(xs) * 1e3:.1f} ms")


async def loads(checkouts: list[tuple[str, Path]], port: int, rounds: int, figures: dict) -> None:
    """30 readers with 3 s between moves, before and after in turn: one server up at a time,
    so neither competes with the other's clients."""
    from bench.load import load

    for round_ in range(rounds):
        for name, app in checkouts[::(-1) ** round_]:
            with Server(app, port) as server:
                r = await load(server, 30, 60, 3.0)
            figures[name]["load"].append(r)
            print(f"{name}: 30 sessions, 3 s think: reruns {r['reruns']}, errors {len(r['errors'])}, "
                  f"round trip p50 {r['p50'] * 1e3:.0f} ms, p95 {r['p95'] * 1e3:.0f} ms, "
                  f"server CPU {r['cpu_per_rerun'] * 1e3:.0f} ms/rerun, {r['kb_per_rerun']:.1f} KB/rerun",
                  flush=True)


def browser(checkouts: list[tuple[str, Path]], port: int, figures: dict) -> None:
    """Cold start (3 each, interleaved) and slider key to new figure (20 presses each,
    alternating between a page on each server)."""
    from playwright.sync_api import sync_playwright

    from bench.bench_latency import cold_start, key_to_figure, launch

    with sync_playwright() as p:
        chromium = launch(p)
        for round_ in range(3):
            for i, (name, app) in enumerate(checkouts[::(-1) ** round_]):
                cold, page, server = cold_start(chromium, app, port + i)
                figures[name]["cold"].append(cold)
                figures[name]["cold_cpu"].append(server.first_paint_cpu)
                figures[name]["cold_all"].append(server.every_chart)
                page.close()
                server.__exit__()
        opened = [(name, *cold_start(chromium, app, port + i)[1:]) for i, (name, app) in enumerate(checkouts)]
        for k in range(20):
            for name, page, _ in opened[::(-1) ** k]:
                shown, answered = key_to_figure(page, ("ArrowRight", "ArrowLeft")[k % 2])
                figures[name]["key"].append(shown)
                figures[name]["answered"].append(answered)
        for _, page, server in opened:
            page.close()
            server.__exit__()
        chromium.close()


# Streamlit's own floor on this machine, measured in the same run: a slider, a metric and one chart.
FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st
n = st.sidebar.select_slider("sequence length n", options=[512, 1024, 1536, 2048], value=1024)
st.metric("n", n)
st.plotly_chart(go.Figure(go.Scatter(x=[1, 2], y=[1, n])))
"""


def summary(checkouts: list[tuple[str, Path]], figures: dict) -> None:
    print(row(["figure (target)"] + [name for name, _ in checkouts]))
    print(row(["---"] + ["---:"] * len(checkouts)))
    lines = [("30 sessions, 3 s think: round trip p50", lambda f: statistics.median(r["p50"] for r in f["load"]),
              "{:.0f} ms", 1e3),
             ("30 sessions, 3 s think: round trip p95 (≤ 1 s)",
              lambda f: statistics.median(r["p95"] for r in f["load"]), "{:.0f} ms", 1e3),
             ("30 sessions: reruns in 60 s", lambda f: statistics.median(r["reruns"] for r in f["load"]),
              "{:.0f}", 1),
             ("30 sessions: server CPU per rerun", lambda f: statistics.median(
                 r["cpu_per_rerun"] for r in f["load"]), "{:.0f} ms", 1e3),
             ("cold start to the first lesson's first screen, median of 3 (≤ 1.3× the floor)",
              lambda f: statistics.median(f["cold"]), "{:.2f} s", 1),
             ("cold start: server CPU from its start to the first screen",
              lambda f: statistics.median(f["cold_cpu"]), "{:.2f} s", 1),
             ("cold start to every chart of the page drawn, those below the screen too",
              lambda f: statistics.median(f["cold_all"]), "{:.2f} s", 1),
             ("slider key to new figure p50 (≤ 2× the floor)", lambda f: statistics.median(f["key"]), "{:.0f} ms", 1e3),
             ("slider key: the rerun's last frame received, p50", lambda f: statistics.median(f["answered"]),
              "{:.0f} ms", 1e3),
             ("slider key to new figure p95", lambda f: p95(f["key"]), "{:.0f} ms", 1e3)]
    for label, get, fmt, scale in lines:
        print(row([label] + [fmt.format(get(figures[name]) * scale) if figures[name][label_kind(label)] else "—"
                             for name, _ in checkouts]))
    for name, _ in checkouts:
        print(f"{name}: cold starts {', '.join(f'{c:.2f}' for c in figures[name]['cold'])} s")


def label_kind(label: str) -> str:
    return "load" if "sessions" in label else "cold" if "cold" in label else "key"


def no_figures() -> dict:
    return {"load": [], "cold": [], "cold_cpu": [], "cold_all": [], "key": [], "answered": []}


async def main(a, checkouts: list[tuple[str, Path]], figures: dict) -> None:
    names = [name for name, _ in checkouts]
    servers = [Server(app, a.port + i) for i, (_, app) in enumerate(checkouts)]
    if a.flag:  # this checkout once more, with the given Streamlit options
        names.append("after + " + " ".join(f.lstrip("-") for f in a.flag))
        servers.append(Server(ROOT, a.port + len(servers), tuple(a.flag)))
    print(f"rerun cost per lesson, {a.reruns} reruns per control after {WARM} to warm; "
          f"first visit KB: {' / '.join(names)}")
    if not a.whole_only:
        for s in servers:
            s.__enter__()
        try:
            await per_lesson(servers, names, a.reruns)
        finally:
            for s in servers:
                s.__exit__()
    if a.whole or a.whole_only:
        await loads(checkouts, a.port, a.loads, figures)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--before", type=Path, help="a second checkout to measure beside this one")
    p.add_argument("--reruns", type=int, default=20)
    p.add_argument("--port", type=int, default=8720, help="first of the loopback ports to use (two or three)")
    p.add_argument("--whole", action="store_true", help="also the app-wide figures (about 8 minutes more)")
    p.add_argument("--floor", action="store_true",
                   help="with --whole: also a one-slider, one-chart Streamlit app in the browser (the machine's floor)")
    p.add_argument("--whole-only", action="store_true", help="the app-wide figures alone")
    p.add_argument("--loads", type=int, default=1, help="30-session runs per checkout with --whole")
    p.add_argument("--flag", action="append", default=[],
                   help="also measure this checkout with a Streamlit option, "
                        "e.g. --flag=--global.minCachedMessageSize=1000")
    a = p.parse_args()
    checkouts = ([("before", a.before.resolve())] if a.before else []) + [("after", ROOT)]
    figures: dict[str, dict] = {name: no_figures() for name, _ in checkouts}
    asyncio.run(main(a, checkouts, figures))
    if a.whole or a.whole_only:
        with tempfile.TemporaryDirectory() as floor:
            measured = checkouts
            if a.floor:
                (Path(floor) / "app.py").write_text(FLOOR_APP)
                measured = checkouts + [("Streamlit floor", Path(floor))]
                figures["Streamlit floor"] = no_figures()
            browser(measured, a.port, figures)
            summary(measured, figures)
