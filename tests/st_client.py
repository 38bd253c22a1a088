"""A websocket client that speaks Streamlit's protocol the way its browser front end does.

What makes it a browser, for the server: it keeps the front end's message cache (every
`cacheable` ForwardMsg by hash, dropped after `maxCachedMessageAge` runs unseen, exactly as
streamlit/static's ForwardMessageCache does) and sends the cached hashes with each rerun, so
the server answers an element the client already holds with a short `ref_hash` message, as
it does for a real reader. It sends the address bar's query string as the server last set
it, and a control inside an `st.fragment` reruns that fragment alone, as a click in the
browser does. Before it moves a slider whose live figures the page's run left out
(explorer/live.py: the component's data name it `missing`), it asks for them, as the page's
script does when the pointer comes over the slider, and waits for that fragment's run (the
time is the Run's `fill_seconds`). Only what the bench needs: no rendering, no file uploads.

Each rerun reports the bytes of every websocket frame the server sent for it, split by
element type, and how many elements came back as references.
"""
from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets
from websockets.typing import Subprotocol
from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

N_VALUES = ("1024", "1536")  # the sidebar's n a reader moves between (bench/load.py, tests/replicas.py)


@dataclass
class Widget:
    id: str
    kind: str             # the element's proto field: slider, checkbox, radio, selectbox, ...
    select: bool          # a select_slider (its value is sent as option text)
    fragment_id: str      # "" outside a fragment
    options: tuple = ()   # a choice's options, as the browser sends them


@dataclass
class Run:
    bytes: int = 0
    frames: int = 0
    refs: int = 0          # elements answered by hash: the client already held them
    seconds: float = 0.0
    fill_seconds: float = 0.0  # the ask for the moved slider's live figures, before the move: to its run's end
    by_type: Counter = field(default_factory=Counter)  # bytes per element type (and per message kind)
    errors: list = field(default_factory=list)


def _state(w: Widget, value, msg) -> None:
    s = msg.widgets.add()
    s.id = w.id
    if w.kind == "checkbox":
        s.bool_value = bool(value)
    elif w.kind == "slider" and w.select:
        s.string_array_value.data.append(str(value))
    elif w.kind == "slider":
        s.double_array_value.data.append(float(value))
    elif w.kind == "number_input":
        s.double_value = float(value)
    else:  # radio, selectbox: the option's text
        s.string_value = str(value)


class Client:
    """One session: `await connect()`, then `await rerun({key: value})` as often as wanted."""

    def __init__(self, url: str, page: str):
        self.url, self.page = url, page
        self.widgets: dict[str, Widget] = {}  # user key -> widget as last drawn
        self.cache: dict[str, tuple[int, str]] = {}  # message hash -> (run count when last used, fragment)
        self.runs = 0
        self.max_age = 2
        self.query_string = ""  # the address bar's, as the server last set it
        self.ws: Any = None  # a websocket, or anything with send() and recv()
        # the live component's id, fragment and run, and the sliders whose figures it lacks
        self.live: tuple[str, str, str] | None = None
        self.missing: set[str] = set()

    async def connect(self) -> Run:
        self.ws = await websockets.connect(self.url, subprotocols=[Subprotocol("streamlit")], max_size=2**27,
                                           compression=None)
        return await self.rerun({})

    async def close(self) -> None:
        await self.ws.close()

    def _touch(self, fwd: ForwardMsg) -> None:
        if fwd.WhichOneof("type") == "ref_hash":
            if fwd.ref_hash not in self.cache:
                raise RuntimeError(f"server referred to a message this client never held: {fwd.ref_hash}")
            self.cache[fwd.ref_hash] = (self.runs, self.cache[fwd.ref_hash][1])
        elif fwd.metadata.cacheable and fwd.hash:
            self.cache[fwd.hash] = (self.runs, fwd.delta.fragment_id)

    def _finished(self, fragments) -> None:
        """The front end's incrementRunCount: one run older; a message unused for more than
        max_age runs is dropped (after a fragment's run, only that fragment's messages)."""
        self.runs += 1
        for h, (used, fragment) in list(self.cache.items()):
            if fragments and fragment not in fragments:
                continue
            if self.runs - used > self.max_age:
                del self.cache[h]

    def _note_widget(self, fwd: ForwardMsg) -> str:
        el = fwd.delta.new_element
        kind = str(el.WhichOneof("type"))
        proto = getattr(el, kind)
        wid = getattr(proto, "id", "")
        if wid and "-" in wid:
            key = wid.split("-", 2)[-1]  # a user-keyed widget's id is "$$ID-<hash>-<key>"
            select = kind == "slider" and proto.type == proto.SELECT_SLIDER
            options = tuple(getattr(proto, "options", ()))
            self.widgets[key] = Widget(wid, kind, select, fwd.delta.fragment_id, options)
        return kind

    async def rerun(self, values: dict) -> Run:
        """Set the given widgets (by user key) and rerun as a browser does after a change: only
        the fragment that holds them when they share one, else the whole page. A value may be
        a function of the Widget (e.g. one of its options). A live slider whose figures the page
        lacks is first hovered (`hover`), as a pointer does on its way to the drag."""
        run = Run()
        t = time.perf_counter()
        for key in values:
            await self.hover(key, run)
        run.fill_seconds = time.perf_counter() - t
        msg = BackMsg()
        state = msg.rerun_script
        fragments = {self.widgets[k].fragment_id for k in values}
        if len(fragments) == 1:
            state.fragment_id = fragments.pop()
        for key, value in values.items():
            widget = self.widgets[key]
            _state(widget, value(widget) if callable(value) else value, state.widget_states)
        t = time.perf_counter()
        await self._send(msg, run)
        run.seconds = time.perf_counter() - t
        return run

    async def hover(self, key: str, run: Run | None = None) -> None:
        """What explorer/live.js does when the pointer comes over a live slider whose figures the page
        lacks: the trigger that builds them, and the run of the fragment that brings them."""
        if key not in self.missing or self.live is None:
            return
        await self.ask([key], run=run)

    async def ask(self, knobs: list[str], token: str | None = None, values: dict | None = None,
                  run: Run | None = None) -> None:
        """The live component's ask for these sliders' figures, for the run `token` (the last one drawn, unless
        said), with the controls' values the browser sends beside it (`values`, by user key: none unless said)."""
        assert self.live is not None, "no live component drawn yet"
        component, fragment, last = self.live
        ask = BackMsg()
        ask.rerun_script.fragment_id = fragment
        own = ask.rerun_script.widget_states.widgets.add()  # the component's state, which the browser sends with it
        own.id = component
        own.json_value = "{}"
        w = ask.rerun_script.widget_states.widgets.add()
        w.id = _make_trigger_id(component, "events")
        w.json_trigger_value = json.dumps([{"event": "fill", "value": {"run": token or last, "knobs": knobs}}])
        for key, value in (values or {}).items():
            _state(self.widgets[key], value, ask.rerun_script.widget_states)
        await self._send(ask, run or Run())

    async def _send(self, msg: BackMsg, run: Run) -> None:
        """One rerun request, and every message of its run until the run is over."""
        state = msg.rerun_script
        state.page_name = self.page
        state.query_string = self.query_string
        state.cached_message_hashes.extend(self.cache)
        await self.ws.send(msg.SerializeToString())
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=120)
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            run.bytes += len(raw)
            run.frames += 1
            kind: str | None = fwd.WhichOneof("type")
            if kind == "page_info_changed":
                self.query_string = fwd.page_info_changed.query_string
            if kind == "new_session":
                self.max_age = fwd.new_session.config.max_cached_message_age or self.max_age
            self._touch(fwd)
            if kind == "ref_hash":
                run.refs += 1
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                kind = self._note_widget(fwd)
                if kind == "exception":
                    run.errors.append(fwd.delta.new_element.exception.message[:200])
                elif kind == "bidi_component":
                    self._note_fill(fwd)
            run.by_type[kind] += len(raw)
            if (fwd.WhichOneof("type") == "script_finished"
                    and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN):
                self._finished(finished_fragments(fwd))
                return

    def _note_fill(self, fwd: ForwardMsg) -> None:
        """The live component: its trigger, and the sliders whose figures it lacks (explorer/live.js)."""
        el = fwd.delta.new_element.bidi_component
        data = json.loads(el.json) if el.WhichOneof("data") == "json" else {}
        if isinstance(data, dict) and "missing" in data:
            self.live = (el.id, fwd.delta.fragment_id, data.get("run", ""))
            self.missing = set(data["missing"])

def finished_fragments(fwd: ForwardMsg) -> set[str]:
    """The fragments a finished run ran (none: a full run). Streamlit before 1.65 sends no
    `metadata.run`; there every run counts as a full one for the cache's ageing."""
    if "run" not in type(fwd.metadata).DESCRIPTOR.fields_by_name:
        return set()
    return set(fwd.metadata.run.fragment_ids)


class Server:
    """`streamlit run app.py` from a checkout, on a loopback port, until the block ends
    (with `flags`, extra command-line options such as --global.minCachedMessageSize=1000).

    cpu() is the server process's own CPU time (every thread, live or ended), read from
    the kernel's per-process CPU clock in nanoseconds: the clients, in other processes,
    are not in it."""

    def __init__(self, app: Path, port: int, flags: tuple[str, ...] = (), log: Path | None = None):
        self.app, self.port, self.flags, self.log = Path(app), port, flags, log  # log: the server's output, there
        self.url = f"http://127.0.0.1:{port}"
        self.ws_url = f"ws://127.0.0.1:{port}/_stcore/stream"
        # set by bench/bench_latency.py's cold start: CPU seconds to the first screen, and seconds from the start
        # until every chart of the page was drawn
        self.first_paint_cpu = 0.0
        self.every_chart = 0.0

    def __enter__(self) -> Server:
        self.started = time.perf_counter()
        self._log_file = None if self.log is None else self.log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
             f"--server.port={self.port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
             *self.flags],
            cwd=self.app, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL if self._log_file is None else self._log_file)
        deadline = time.time() + 120
        while True:
            try:
                if urllib.request.urlopen(self.url + "/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    self.__exit__()
                    raise RuntimeError(f"streamlit in {self.app} did not answer on port {self.port}") from None
                time.sleep(0.05)
        self._clock = ((~self.proc.pid) << 3) | 2  # CPUCLOCK_SCHED of the whole process (clock_getcpuclockid)
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._log_file is not None:
            self._log_file.close()

    def cpu(self) -> float:
        return time.clock_gettime(self._clock)

    async def settled_cpu(self, quiet: float = 3e-4, step: float = 0.01) -> float:
        """The CPU clock once the server has gone quiet (under `quiet` s of CPU in `step` s):
        what a rerun leaves to do after its last message (cleanup, the collector) is counted."""
        before = self.cpu()
        while True:
            await asyncio.sleep(step)
            now = self.cpu()
            if now - before < quiet:
                return now
            before = now

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
