"""Two replicas behind nginx, tested for real: sessions stay on one replica, both replicas serve,
and a replica killed mid-run costs only its own sessions.

Starts deploy/serve_replicas.py's setup (nginx and two `streamlit run app.py` on 127.0.0.1), then:
- a browser: headless Chromium (Debian's) opens lesson 1; its replica is the one killed later;
- readers: websocket clients speaking Streamlit's protocol (bench/load.py's), each with its own
  route cookie like a browser tab: GET the page, open the websocket, then rerun after rerun moving
  the n slider, each followed by a GET of a /media/ file the rerun named (else /_stcore/health),
  and a reload (page + new websocket) every few reruns.
When every reader has done --reruns, the browser's replica is killed (SIGKILL) while they run.
Prints what it saw, and exits non-zero unless:
  (a) every session saw one replica in every HTTP reply and websocket handshake before the kill,
      and one after (the killed replica's sessions: the survivor);
  (b) both replicas served sessions;
  (c) the survivor's readers went on with no error and no dropped socket; the killed replica's
      readers reconnected to the survivor and reran there without error; the browser reconnected
      and showed the next lesson from the survivor; new readers after the kill reached the survivor.
Every wait is for a state, with a deadline. Talks to 127.0.0.1 only.

    python bench/replicas.py [--readers 8] [--reruns 12] [--after 6] [--think 0.3] [--port 8710]
"""
from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.load import N_VALUES, Session  # noqa: E402
from deploy.serve_replicas import HEADER, Cluster, get, route_cookie, serving  # noqa: E402
from explorer.lessons import LESSONS  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-quic", "--no-first-run"]  # tests/test_browser.py's
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
MEDIA = re.compile(rb"/media/[0-9a-f]{16,}\.[a-z0-9]+")  # a file a rerun registered with its replica
RELOAD_EVERY = 4  # reruns between a reader's reloads


@dataclass
class Hop:
    at: float  # time.monotonic() when the reply came
    what: str  # the path, or "websocket" for a handshake
    replica: str | None


class Tap:
    """A websocket as load.Session uses it, noting the /media/ files the messages name."""

    def __init__(self, ws: ClientConnection):
        self.ws, self.media = ws, []

    async def send(self, message: bytes) -> None:
        await self.ws.send(message)

    async def recv(self) -> bytes:
        raw = await self.ws.recv()
        assert isinstance(raw, bytes)
        self.media += [m.decode() for m in MEDIA.findall(raw)]
        return raw


class Reader:
    """One reader through nginx: a route cookie, HTTP requests and a websocket, as a browser tab has."""

    def __init__(self, base: str, page: str, changed: asyncio.Condition):
        self.base, self.changed = base, changed
        self.proto = Session(base.replace("http", "ws", 1) + "/_stcore/stream", page)
        self.cookie: str | None = None
        self.hops: list[Hop] = []
        self.done: list[float] = []  # when each rerun finished
        self.drops: list[float] = []  # when its websocket dropped
        self.failures: list[tuple[float, str]] = []  # (when, what): refused, timed out, not 200

    def errors(self, excused: tuple[float, float] = (0.0, 0.0)) -> list[str]:
        """The app's exceptions, then the client's failures, except those within `excused`."""
        return self.proto.errors + [what for at, what in self.failures if not excused[0] <= at <= excused[1]]

    def fail(self, what: str) -> None:
        self.failures.append((time.monotonic(), what[:200]))

    def replicas(self, start: float = 0.0, end: float = float("inf")) -> set[str | None]:
        return {h.replica for h in self.hops if start <= h.at < end}

    def note(self, what: str, replica: str | None, route: str | None) -> None:
        self.hops.append(Hop(time.monotonic(), what, replica))
        self.cookie = route or self.cookie

    async def http(self, path: str) -> int:
        reply = await asyncio.to_thread(get, self.base + path, self.cookie)
        self.note(path, reply.replica, reply.route)
        return reply.status

    async def open(self, path: str) -> ClientConnection:
        """The page (or, on a reconnect, the health check the frontend polls), then the websocket
        with the cookie that reply set and the page's origin, as Chromium sends them."""
        status = await self.http(path)
        if status != 200:
            raise OSError(f"GET {path}: {status}")
        ws = await connect(self.proto.url, subprotocols=["streamlit"], max_size=2**26, proxy=None,
                           origin=self.base, additional_headers={"Cookie": f"flashviz_replica={self.cookie}"})
        assert ws.response is not None
        self.note("websocket", ws.response.headers.get(HEADER),
                  route_cookie(ws.response.headers.get_all("Set-Cookie")))
        self.proto.n_widget = None  # a new session: its first run finds the slider
        return ws

    async def rerun(self, ws: ClientConnection, k: int) -> None:
        tap = Tap(ws)
        await self.proto.run_once(tap, N_VALUES[k % 2])
        self.done.append(time.monotonic())
        status = await self.http(tap.media[-1] if tap.media else "/_stcore/health")
        if status != 200:
            self.fail(f"GET after rerun {k}: {status}")
        async with self.changed:
            self.changed.notify_all()

    async def run(self, stop: asyncio.Event, think: float) -> None:
        try:
            ws = await self.open("/")
            k = 0
            while not stop.is_set():
                k += 1
                try:
                    if k % RELOAD_EVERY == 0:
                        await ws.close()
                        ws = await self.open("/")
                    await self.rerun(ws, k)
                except ConnectionClosed:
                    self.drops.append(time.monotonic())
                    ws = await self.open("/_stcore/health")  # nginx sends it to a live replica
                    continue
                await asyncio.sleep(think)  # a reader looks at the figure before the next move
            await ws.close()
        except Exception as err:  # refused, timed out, a second drop: the session is lost
            self.fail(f"{type(err).__name__}: {err}")
        finally:
            async with self.changed:
                self.changed.notify_all()


@dataclass
class Browser:
    """Chromium on lesson 1 through nginx; records every reply's replica and each websocket."""
    page: Any  # playwright's Page and BrowserContext
    context: Any
    hops: list[Hop] = field(default_factory=list)
    sockets: list[dict] = field(default_factory=list)  # {"at": opened, "frames": received}
    reopened: asyncio.Event = field(default_factory=asyncio.Event)

    def on_response(self, response) -> None:
        self.hops.append(Hop(time.monotonic(), response.url, response.headers.get(HEADER.lower())))

    def on_websocket(self, ws) -> None:
        sock = {"at": time.monotonic(), "frames": 0}
        self.sockets.append(sock)
        ws.on("framereceived", lambda _: sock.__setitem__("frames", sock["frames"] + 1))
        if len(self.sockets) > 1:
            self.reopened.set()

    async def route(self) -> str | None:
        cookies = await self.context.cookies()
        return next((c["value"] for c in cookies if c["name"] == "flashviz_replica"), None)


async def open_browser(p, base: str) -> Browser:
    from playwright.async_api import expect
    b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    context = await b.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    browser = Browser(page, context)
    page.on("response", browser.on_response)
    page.on("websocket", browser.on_websocket)
    await page.goto(base)
    await expect(page.locator("h1").first).to_contain_text(LESSONS[0].title, timeout=60_000)
    await page.wait_for_selector(IDLE, timeout=60_000)
    return browser


async def browser_follows(browser: Browser, survivor: str, killed_at: float, deadline: float) -> dict:
    """After its replica died: the page's own reconnect (a new websocket), then a click on the next
    lesson, which the survivor must run and show."""
    from playwright.async_api import expect
    page = browser.page
    await asyncio.wait_for(browser.reopened.wait(), timeout=deadline - time.monotonic())
    reconnected = time.monotonic() - killed_at
    await page.locator("[data-testid='stTopNavLink']").nth(1).click()
    ms = max(1_000, int((deadline - time.monotonic()) * 1000))
    await expect(page.locator("h1").first).to_contain_text(LESSONS[1].title, timeout=ms)
    await page.wait_for_selector(IDLE, timeout=ms)
    return {"reconnected_s": reconnected, "shown_s": time.monotonic() - killed_at,
            "exceptions": await page.locator("[data-testid='stException']").count(),
            "frames": browser.sockets[-1]["frames"], "route": await browser.route(),
            "replicas": {h.replica for h in browser.hops if h.at > killed_at}}


async def until(changed: asyncio.Condition, ready, deadline: float) -> bool:
    """Wait, with a deadline, until ready() holds; readers notify `changed` after each rerun."""
    async with changed:
        try:
            await asyncio.wait_for(changed.wait_for(ready), timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            return False
    return True


def p50(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.lines.append(line)
        print(line, flush=True)

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)
            self.say(f"  FAILED: {what}")


async def measure(cluster: Cluster, readers: int, reruns: int, after: int, think: float, timeout: float,
                  report: Report) -> None:
    from playwright.async_api import async_playwright
    say, check = report.say, report.check
    pages = [lesson.url_path for lesson in LESSONS]
    changed = asyncio.Condition()
    stop = asyncio.Event()
    async with async_playwright() as p:
        t = time.monotonic()
        browser = await open_browser(p, cluster.url)
        victim = await browser.route()
        assert victim in cluster.ports, f"the browser's route cookie: {victim}"
        survivor = next(n for n in cluster.ports if n != victim)
        say(f"browser: lesson 1 shown in {time.monotonic() - t:.1f} s, served by {victim}")

        group = [Reader(cluster.url, pages[k % len(pages)], changed) for k in range(readers)]
        tasks = [asyncio.create_task(r.run(stop, think)) for r in group]
        t = time.monotonic()
        steady = await until(changed, lambda: all(len(r.done) >= reruns or r.failures for r in group), t + timeout)
        check(steady, f"every reader did {reruns} reruns within {timeout:.0f} s")
        say(f"{readers} readers: {reruns}+ reruns each in {time.monotonic() - t:.1f} s, reloading every "
            f"{RELOAD_EVERY}, think {think:g} s")

        killed_at = time.monotonic()
        pid = cluster.kill(victim)
        say(f"killed {victim} (pid {pid}, SIGKILL) with every reader mid-run")
        fresh = [Reader(cluster.url, pages[k % len(pages)], changed) for k in range(2)]
        tasks += [asyncio.create_task(r.run(stop, think)) for r in fresh]
        deadline = time.monotonic() + timeout
        follow = asyncio.create_task(browser_follows(browser, survivor, killed_at, deadline))

        def caught_up(r: Reader) -> bool:
            return sum(d > killed_at for d in r.done) >= after or bool(r.failures)

        recovered = await until(changed, lambda: all(caught_up(r) for r in group + fresh), deadline)
        check(recovered, f"every reader did {after} reruns after the kill within {timeout:.0f} s")
        try:
            shown = await follow
        except Exception as err:  # a timeout or a selector that never matched: the browser did not recover
            shown = {"error": f"{type(err).__name__}: {str(err)[:300]}"}
        stop.set()
        async with changed:
            changed.notify_all()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=90)

    before = {r: r.replicas(end=killed_at) for r in group}
    on = {name: [r for r in group if before[r] == {name}] for name in cluster.ports}
    lost, kept = on[victim], on[survivor]

    # (a) one replica per session
    hops = [h for r in group for h in r.hops if h.at < killed_at]
    sockets = sum(h.what == "websocket" for h in hops)
    browser_before = {h.replica for h in browser.hops if h.at < killed_at}
    say(f"(a) before the kill: {sum(len(b) == 1 for b in before.values())}/{readers} readers saw one replica in "
        f"all their {len(hops) - sockets} HTTP replies and {sockets} websocket handshakes; the browser saw "
        f"{sorted(map(str, browser_before))} in {sum(h.at < killed_at for h in browser.hops)} replies")
    check(all(len(b) == 1 and None not in b for b in before.values()), "every reader kept one replica before the kill")
    check(browser_before == {victim}, "the browser kept one replica before the kill")
    # Its own readers, from their reconnect on (between the kill and their noticing it they may
    # see either replica); the survivor's readers and the new ones, from the kill on.
    after_kill = {r: r.replicas(start=r.drops[0] if r in lost and r.drops else killed_at) for r in group + fresh}
    say(f"    after the kill: {sum(b == {survivor} for b in after_kill.values())}/{len(after_kill)} readers "
        f"saw only {survivor}")
    check(all(b == {survivor} for b in after_kill.values()), f"every reader saw only {survivor} after the kill")

    # (b) both replicas serve
    runs = {name: sum(sum(d < killed_at for d in r.done) for r in on[name]) for name in cluster.ports}
    say("(b) before the kill: " + ", ".join(
        f"{name} served {len(on[name])} readers ({runs[name]} reruns)" for name in cluster.ports)
        + f"; the browser was on {victim}")
    check(all(on[name] for name in cluster.ports), "both replicas served readers")

    # (c) a killed replica costs only its own sessions
    def reruns_after(rs: list[Reader]) -> int:
        return sum(sum(d > killed_at for d in r.done) for r in rs)

    def times(rs: list[Reader], start: float, end: float) -> list[float]:
        return [dt for r in rs for d, dt in zip(r.done, r.proto.times) if start <= d < end]

    kept_errors = [e for r in kept for e in r.errors()]
    say(f"(c) {survivor}'s {len(kept)} readers: {sum(len(r.drops) for r in kept)} dropped sockets, "
        f"{len(kept_errors)} errors, {reruns_after(kept)} reruns after the kill; rerun p50 "
        f"{p50(times(kept, 0, killed_at)) * 1e3:.0f} ms before, {p50(times(kept, killed_at, 1e18)) * 1e3:.0f} ms after")
    for e in kept_errors[:5]:
        say(f"    error: {e}")
    check(not kept_errors and not any(r.drops for r in kept), f"{survivor}'s readers went on without an error")

    back = [min(d for d in r.done if d > r.drops[0]) - killed_at for r in lost if r.drops and r.done[-1] > r.drops[0]]
    # Between the kill and its noticing, a reader may ask the survivor for a file only the dead
    # replica held: that is its own session's loss, not an error.
    lost_errors = [e for r in lost for e in r.errors((killed_at, r.drops[0] if r.drops else killed_at))]
    say(f"    {victim}'s {len(lost)} readers: {sum(bool(r.drops) for r in lost)} lost their socket, "
        f"{len(back)} reran on {survivor}, kill to first rerun there p50 {p50(back):.2f} s, max "
        f"{max(back, default=float('nan')):.2f} s; {reruns_after(lost)} reruns after, {len(lost_errors)} errors")
    for e in lost_errors[:5]:
        say(f"    error: {e}")
    check(len(back) == len(lost) and not lost_errors, f"{victim}'s readers reconnected to {survivor} without error")

    fresh_errors = [e for r in fresh for e in r.errors()]
    say(f"    {len(fresh)} new readers after the kill: {sum(r.replicas() == {survivor} for r in fresh)} on {survivor}, "
        f"{reruns_after(fresh)} reruns, {len(fresh_errors)} errors")
    check(all(r.replicas() == {survivor} for r in fresh) and not fresh_errors, f"new readers reached {survivor}")

    if "error" in shown:
        say(f"    browser: did not recover: {shown['error']}")
        check(False, "the browser showed the app again")
    else:
        say(f"    browser: reconnected in {shown['reconnected_s']:.2f} s; lesson 2 shown from "
            f"{sorted(map(str, shown['replicas']))} {shown['shown_s']:.2f} s after the kill, route cookie "
            f"{shown['route']}, {shown['frames']} messages on the new socket, {shown['exceptions']} exceptions")
        check(shown["replicas"] == {survivor} and shown["route"] == survivor and shown["exceptions"] == 0
              and shown["frames"] > 0, f"the browser showed the app again from {survivor}")


def run(readers: int = 8, reruns: int = 12, after: int = 6, think: float = 0.3, port: int = 8710,
        timeout: float = 90) -> Report:
    report = Report()
    t = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="flashviz-replicas-") as run_dir, \
            serving(replicas=2, port=port, run_dir=Path(run_dir)) as cluster:
        report.say(f"nginx at {cluster.url} over " + ", ".join(f"{n} :{p}" for n, p in cluster.ports.items())
                   + f": healthy in {time.monotonic() - t:.1f} s")
        asyncio.run(measure(cluster, readers, reruns, after, think, timeout, report))
    report.say(f"total {time.monotonic() - t:.1f} s: " + ("PASS" if not report.failures else
                                                           f"FAIL ({len(report.failures)} checks)"))
    return report


if __name__ == "__main__":
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--readers", type=int, default=8, help="websocket readers before the kill (2 more join after)")
    a.add_argument("--reruns", type=int, default=12, help="reruns each reader does before the kill")
    a.add_argument("--after", type=int, default=6, help="reruns each reader must do after the kill")
    a.add_argument("--think", type=float, default=0.3, help="seconds a reader waits between moves")
    a.add_argument("--port", type=int, default=8710, help="nginx's port; the replicas take the next two")
    args = a.parse_args()
    sys.exit(1 if run(max(2, min(args.readers, 100)), min(args.reruns, 200), min(args.after, 200),
                      min(max(args.think, 0.0), 10.0), args.port).failures else 0)
