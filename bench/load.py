"""Many readers at once: websocket clients that speak Streamlit's own protocol.

Starts `streamlit run app.py` on loopback, opens --sessions sessions spread over
the lessons, and has each move the n slider back and forth for --seconds. Reports
errors, rerun round-trip times under load (p50/p95), the server's memory with one
session and with all of them, and what each extra session costs. Bounded in
count and time; talks to 127.0.0.1 only.

    python bench/load.py --sessions 30 --seconds 60 [--think 3]
"""
from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from explorer.lessons import LESSONS  # noqa: E402

N_VALUES = ("1024", "1536")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rerun(page: str, n_widget: str | None, value: str | None) -> bytes:
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string = ""
    state.page_name = page
    if n_widget:
        w = state.widget_states.widgets.add()
        w.id = n_widget
        w.string_array_value.data.append(value)
    return msg.SerializeToString()


class Session:
    def __init__(self, url: str, page: str):
        self.url, self.page = url, page
        self.n_widget: str | None = None
        self.times: list[float] = []
        self.errors: list[str] = []

    async def run_once(self, ws, value: str | None) -> None:
        t = time.perf_counter()
        await ws.send(rerun(self.page, self.n_widget, value))
        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout=60)
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                which = el.WhichOneof("type")
                if which == "exception":
                    self.errors.append(el.exception.message[:200])
                elif which == "slider" and el.slider.id.endswith("-n"):
                    self.n_widget = el.slider.id
            elif kind == "script_finished":
                self.times.append(time.perf_counter() - t)
                return

    async def run(self, until: float, think: float = 0.0) -> None:
        try:
            async with websockets.connect(self.url, subprotocols=["streamlit"], max_size=2**26) as ws:
                await self.run_once(ws, None)
                k = 0
                while time.time() < until:
                    k += 1
                    await self.run_once(ws, N_VALUES[k % 2])
                    await asyncio.sleep(think)  # a reader looks at the figure before the next move
        except Exception as err:  # a dropped socket is an error to report, not to hide
            self.errors.append(f"{type(err).__name__}: {err}"[:200])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def main(sessions: int, seconds: float, think: float) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", f"--server.port={port}",
                             "--server.address=127.0.0.1"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                await asyncio.sleep(0.5)
        url = f"ws://127.0.0.1:{port}/_stcore/stream"
        pages = [lesson.url_path for lesson in LESSONS]
        first = Session(url, pages[0])
        await first.run(time.time() + 5)  # warm: imports, caches at defaults
        base = rss_mb(proc.pid)
        clients = [Session(url, pages[k % len(pages)]) for k in range(sessions)]
        until = time.time() + seconds
        mem_task = asyncio.create_task(asyncio.sleep(seconds * 0.9))
        tasks = [asyncio.create_task(c.run(until, think)) for c in clients]
        await mem_task
        loaded = rss_mb(proc.pid)
        await asyncio.gather(*tasks)
        end = rss_mb(proc.pid)
        times = sorted(t for c in clients for t in c.times)
        errors = [e for c in clients for e in c.errors]
        p95 = times[int(0.95 * (len(times) - 1))] if times else float("nan")
        moved = sum(c.n_widget is not None for c in clients)
        print(f"sessions {sessions} ({moved} found the n slider and moved it), {seconds:.0f} s, think {think:g} s, "
              f"reruns {len(times)}, errors {len(errors)}")
        for e in errors[:5]:
            print("  error:", e)
        print(f"rerun round trip under load: p50 {statistics.median(times) * 1e3:.0f} ms, p95 {p95 * 1e3:.0f} ms")
        print(f"server memory: one session {base:.0f} MB, {sessions} sessions {loaded:.0f} MB, "
              f"after {end:.0f} MB; per extra session {(loaded - base) / max(1, sessions - 1):.1f} MB")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sessions", type=int, default=30)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--think", type=float, default=0.0, help="seconds each session waits between moves")
    a = p.parse_args()
    asyncio.run(main(min(a.sessions, 200), min(a.seconds, 600), min(max(a.think, 0.0), 60.0)))
