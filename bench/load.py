"""Many readers at once: websocket clients that speak Streamlit's own protocol.

Starts `streamlit run app.py` on loopback, opens --sessions sessions spread over
the lessons, and has each move the n slider back and forth for --seconds. With --drag each reader
drags instead: the figures follow the slider in the browser (explorer/live.py), so the server
hears only where it is let go, a few values along from the last, anywhere in n's range. The clients
keep the browser's message cache (tests/st_client.py), so the server sends them what it
would send a browser. Reports errors, rerun round-trip times under load (p50/p95), the
server's CPU time and bytes sent per rerun, its memory with one session and with all of
them, and what each extra session costs. Bounded in count and time; talks to 127.0.0.1 only.

    python bench/load.py --sessions 30 --seconds 60 [--moves M] [--think 3] [--drag] [--warmed] [--app CHECKOUT]
                         [--port P | --url URL]
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.st_client import N_VALUES, Client, Server, free_port  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402
from flashviz.model.config import SEQUENCE_LENGTHS  # noqa: E402
from explorer.warm import QUIET_S  # noqa: E402


class Session:
    """One reader: opens a lesson, then moves the n slider back and forth. Its client keeps
    the browser's message cache, so an unchanged element comes back as a reference."""

    def __init__(self, url: str, page: str, drag: int | None = None):
        self.client = Client(url, page)
        # a dragging reader (seeded): where each drag is let go, one to four of n's values from the last
        self.drag = None if drag is None else random.Random(drag)
        self.at = SEQUENCE_LENGTHS.index(int(N_VALUES[0]))
        self.moved = False
        self.first: float | None = None  # the first visit: the lesson opened, to its run's end
        self.opened: float | None = None  # time.time() when the first visit's run was over
        self.times: list[float] = []
        self.began: list[float] = []  # time.time() at each move's release
        self.fills: list[float] = []  # where the page lacked the slider's live figures: the ask, before the drag
        self.bytes: list[int] = []
        self.errors: list[str] = []

    async def run(self, until: float, think: float = 0.0, moves: int = 0) -> None:
        """Move the slider until `until` (time.time()), and at least `moves` times."""
        try:
            first = await self.client.connect()
            self.errors += first.errors
            self.first = first.seconds
            self.opened = time.time()
            k = 0
            while time.time() < until or k < moves:
                k += 1
                began = time.time()
                run = await self.client.rerun({"n": self.next_n(k)})
                self.moved = True
                self.times.append(run.seconds)
                self.began.append(began + run.fill_seconds)
                if run.fill_seconds > 1e-3:  # the page lacked the slider's figures: it asked first
                    self.fills.append(run.fill_seconds)
                self.bytes.append(run.bytes)
                self.errors += run.errors
                await asyncio.sleep(think)  # a reader looks at the figure before the next move
            await self.client.close()
        except Exception as err:  # a dropped socket is an error to report, not to hide
            self.errors.append(f"{type(err).__name__}: {err}"[:200])


    def next_n(self, k: int) -> str:
        if self.drag is None:
            return N_VALUES[k % 2]
        step = self.drag.choice((-4, -3, -2, -1, 1, 2, 3, 4))
        self.at = min(max(self.at + step, 0), len(SEQUENCE_LENGTHS) - 1)
        return str(SEQUENCE_LENGTHS[self.at])


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[int(q * (len(xs) - 1))] if xs else float("nan")


async def load(server: Server | Running, sessions: int, seconds: float, think: float, drag: bool = False,
               moves: int = 0, warmed: bool = False) -> dict:
    """Warm the server with one session, then run `sessions` readers for `seconds`, each moving at least `moves`
    times. `warmed`: between the two, leave the server alone until it has readied what first visits share
    (explorer/warm.py), as a server is that a teacher opened a while before the class."""
    pages = [lesson.url_path for lesson in LESSONS]
    await Session(server.ws_url, pages[0]).run(time.time() + 5)  # warm: imports, caches at defaults
    if warmed:
        await asyncio.sleep(QUIET_S + 0.5)  # the pieces start once no run has ended for QUIET_S
        if isinstance(server, Server):
            await server.settled_cpu(quiet=0.01, step=0.5)
    base = server.rss_mb()
    clients = [Session(server.ws_url, pages[k % len(pages)], k if drag else None) for k in range(sessions)]
    until = time.time() + seconds
    cpu = server.cpu()
    mem_task = asyncio.create_task(asyncio.sleep(seconds * 0.9))
    tasks = [asyncio.create_task(c.run(until, think, moves)) for c in clients]
    await mem_task
    loaded = server.rss_mb()
    await asyncio.gather(*tasks)
    cpu = server.cpu() - cpu
    times = [t for c in clients for t in c.times]
    fills = [t for c in clients for t in c.fills]
    firsts = [c.first for c in clients if c.first is not None]
    # the moves let go while some reader's first visit was still under way, and those after every page was in
    opened = max((c.opened for c in clients if c.opened is not None), default=until)
    during = [t for c in clients for t, b in zip(c.times, c.began) if b < opened]
    after = [t for c in clients for t, b in zip(c.times, c.began) if b >= opened]
    return {"sessions": sessions, "moved": sum(c.moved for c in clients), "reruns": len(times),
            "errors": [e for c in clients for e in c.errors], "p50": percentile(times, 0.5),
            "p95": percentile(times, 0.95),
            "all_in": opened - (until - seconds),
            **{name: (len(xs), percentile(xs, 0.5), percentile(xs, 0.95)) for name, xs in (("during", during),
                                                                                          ("after", after))},
            "first_p50": percentile(firsts, 0.5), "first_max": max(firsts, default=float("nan")),
            "fills": len(fills), "fill_p50": percentile(fills, 0.5), "fill_p95": percentile(fills, 0.95),
            "cpu_per_rerun": cpu / max(1, len(times)),
            "kb_per_rerun": statistics.mean(b for c in clients for b in c.bytes) / 1024 if times else float("nan"),
            "rss": (base, loaded, server.rss_mb())}


def report(r: dict, seconds: float, think: float) -> None:
    print(f"sessions {r['sessions']} ({r['moved']} found the n slider and moved it), {seconds:.0f} s, "
          f"think {think:g} s, reruns {r['reruns']}, errors {len(r['errors'])}")
    for e in r["errors"][:5]:
        print("  error:", e)
    print(f"rerun round trip under load (to the page's run over): p50 {r['p50'] * 1e3:.0f} ms, "
          f"p95 {r['p95'] * 1e3:.0f} ms; server CPU {r['cpu_per_rerun'] * 1e3:.0f} ms and "
          f"{r['kb_per_rerun']:.1f} KB sent per rerun, the asks for live figures included")
    for name, when in (("during", f"the first {r['all_in']:.1f} s, while readers' first visits were under way"),
                       ("after", "after every reader's page was in")):
        k, p50, p95 = r[name]
        print(f"  moves let go {when}: {k}, p50 {p50 * 1e3:.0f} ms, p95 {p95 * 1e3:.0f} ms")
    print(f"first visits, all {r['sessions']} opening their lessons at once: p50 {r['first_p50'] * 1e3:.0f} ms, "
          f"the last {r['first_max'] * 1e3:.0f} ms")
    print(f"pointer over a slider to its live figures in, where the page lacked them ({r['fills']} of "
          f"{r['reruns']} moves): p50 {r['fill_p50'] * 1e3:.0f} ms, p95 {r['fill_p95'] * 1e3:.0f} ms")
    base, loaded, end = r["rss"]
    print(f"server memory: one session {base:.0f} MB, {r['sessions']} sessions {loaded:.0f} MB, "
          f"after {end:.0f} MB; per extra session {(loaded - base) / max(1, r['sessions'] - 1):.1f} MB")


class Running:
    """A server this script did not start (e.g. replicas behind nginx): its CPU and memory are
    not this script's to read, so they come out as nan."""

    def __init__(self, url: str):
        self.ws_url = url.replace("http", "ws", 1).rstrip("/") + "/_stcore/stream"

    def cpu(self) -> float:
        return float("nan")

    def rss_mb(self) -> float:
        return float("nan")


async def main(sessions: int, seconds: float, think: float, app: Path, port: int, url: str | None,
               drag: bool, moves: int = 0, warmed: bool = False) -> None:
    if drag:
        print("readers who drag: one rerun where each drag is let go, one to four of n's values along")
    if warmed:
        print("the server left alone after its first reader until it had readied what first visits share")
    if url:
        report(await load(Running(url), sessions, seconds, think, drag, moves, warmed), seconds, think)
        return
    with Server(app, port) as server:
        report(await load(server, sessions, seconds, think, drag, moves, warmed), seconds, think)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sessions", type=int, default=30)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--think", type=float, default=0.0, help="seconds each session waits between moves")
    p.add_argument("--moves", type=int, default=0, help="moves each session makes at least, past --seconds if need be")
    p.add_argument("--app", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    p.add_argument("--port", type=int, default=0, help="loopback port (default: a free one)")
    p.add_argument("--drag", action="store_true", help="readers who drag: each release a new n along the range")
    p.add_argument("--warmed", action="store_true",
                   help="the readers come once the server has readied what first visits share (explorer/warm.py)")
    p.add_argument("--url", help="load a server already running there (e.g. deploy/serve_replicas.py's)")
    a = p.parse_args()
    asyncio.run(main(min(a.sessions, 200), min(a.seconds, 600), min(max(a.think, 0.0), 60.0), a.app,
                     a.port or free_port(), a.url, a.drag, min(max(a.moves, 0), 1000), a.warmed))
