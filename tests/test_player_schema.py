"""The players' data against its written schema (flashviz/players/player_schema.py), from both ends.

The engine's end: over many configs, every record a frame builder makes has exactly the
schema's keys, of its types and lengths. The player's end: each player's script reads
every key of its schema and no other. The script is read twice: as text (every NAME.key of
the names its header comment gives the data) and, in Chromium, through a Proxy that records
every key the page touches while it draws each frame, which also checks the text reading
missed nothing.
"""
import json
import re
import types
from typing import Annotated, Literal, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from explorer import backward_player, gpu_player, player
from flashviz.players import animation
from flashviz.players.animation import bug_frames, flash_frames, payload, standard_frames, teaching_config
from flashviz.players.symptoms import at_symptom
from flashviz.players.backward_animation import backward_frames
from flashviz.teach.bugs import BUGS
from flashviz.model.config import DTYPE_BYTES, HARDWARE, KB, Config
from flashviz.model.mask_sweeps import DOC_MIXES, documents
from flashviz.players.gpu_animation import wave_frames
from flashviz.hardware.gpu_model import sdpa_flash, triton
from flashviz.players.player_schema import (BackwardDFrame, BackwardRun, BackwardTileFrame, BackwardWriteFrame, BugRun,
                                            CodePanel, FlashFrame, FlashRun, HeadSpan, Len, Listing, NamesRun,
                                            StandardFrame, StandardRun, WaveFrame, WaveRun, Worked)
from tests import players

# Derandomized: every run, here and in CI, tries the same configs.
EXAMPLES = settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


# ---- a value against a type of the schema -----------------------------------------------------------

def _split(tp):
    """(the type, its Annotated metadata), NotRequired and Annotated taken off."""
    meta: tuple = ()
    while get_origin(tp) in (Annotated, NotRequired):
        if get_origin(tp) is Annotated:
            meta += tp.__metadata__
            tp = tp.__origin__
        else:
            tp = get_args(tp)[0]
    return tp, meta


def hints(td) -> dict:
    return get_type_hints(td, include_extras=True)


def problems(value, tp, path: str = "run", siblings: dict | None = None) -> list[str]:
    """Where `value` departs from `tp`: keys missing or unknown, a wrong type, a wrong length."""
    tp, meta = _split(tp)
    out = []
    for m in meta:
        if isinstance(m, Len) and isinstance(value, list):
            want = m.of if isinstance(m.of, int) else len((siblings or {}).get(m.of, ()))
            if len(value) != want:
                out.append(f"{path}: {len(value)} long, not {want} ({m.of})")
    origin = get_origin(tp)
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return out + [f"{path}: {type(value).__name__}, not a {tp.__name__}"]
        fields = hints(tp)
        out += [f"{path}: no {k!r}" for k in sorted(tp.__required_keys__ - value.keys())]
        out += [f"{path}: {k!r} is not in {tp.__name__}" for k in sorted(value.keys() - fields.keys())]
        for k in sorted(fields.keys() & value.keys()):
            out += problems(value[k], fields[k], f"{path}.{k}", value)
        return out
    if origin in (Union, types.UnionType):
        tried = [problems(value, arg, path, siblings) for arg in get_args(tp)]
        return out + ([] if any(not p for p in tried) else min(tried, key=len))
    if origin is Literal:
        ok = any(value == a and type(value) is type(a) for a in get_args(tp))
        return out + ([] if ok else [f"{path}: {value!r} is none of {get_args(tp)}"])
    if origin is list:
        if not isinstance(value, list):
            return out + [f"{path}: {type(value).__name__}, not a list"]
        for q, v in enumerate(value):
            out += problems(v, get_args(tp)[0], f"{path}[{q}]")
        return out
    if origin is dict:
        if not isinstance(value, dict):
            return out + [f"{path}: {type(value).__name__}, not a dict"]
        key_tp, value_tp = get_args(tp)
        for k, v in value.items():
            out += problems(k, key_tp, f"{path} key") + problems(v, value_tp, f"{path}[{k!r}]")
        return out
    if tp is type(None):
        return out + ([] if value is None else [f"{path}: {value!r}, not None"])
    allowed = {float: (int, float), int: (int,), bool: (bool,), str: (str,)}[tp]
    ok = isinstance(value, allowed) and (tp is bool or not isinstance(value, bool))
    return out + ([] if ok else [f"{path}: {value!r} is not {tp.__name__}"])


def conforms(data, run) -> None:
    wrong = problems(data, run)
    assert not wrong, f"{len(wrong)} departures from {run.__name__}, first: " + "; ".join(wrong[:5])
    json.loads(payload(data))  # and it is JSON, nan and inf as strings


# ---- the engine's end: many configs --------------------------------------------------------------------

@st.composite
def configs(draw, max_n: int = 160) -> Config:
    """A small run: tiles from n/16 to n, so the trace stays short."""
    n = draw(st.integers(1, max_n))
    tile = st.integers(max(1, n // 16), n)
    return Config(n=n, d=draw(st.integers(1, 32)), Br=draw(tile), Bc=draw(tile),
                  sram_bytes=draw(st.sampled_from([4 * KB, 16 * KB, 96 * KB])),
                  dtype=draw(st.sampled_from(sorted(DTYPE_BYTES))), causal=draw(st.booleans()),
                  loop_order=draw(st.sampled_from(["fa2", "fa1"])))


@EXAMPLES
@given(cfg=configs())
def test_flash_frames_match_the_schema(cfg):
    conforms(flash_frames(cfg), FlashRun)


@EXAMPLES
@given(cfg=configs(), tau=st.sampled_from([0.0, 1.5, 8.0, 17.0]))
def test_flash_frames_with_fa4s_lagging_max_match_the_schema(cfg, tau):
    conforms(flash_frames(cfg, tau=tau, score_scale=3.0), FlashRun)


@EXAMPLES
@given(cfg=configs(), window=st.integers(1, 200), mix=st.sampled_from(DOC_MIXES),
       shape=st.sampled_from(animation.MASK_SHAPES), sink=st.one_of(st.none(), st.floats(-4, 8)))
def test_masked_flash_frames_match_the_schema(cfg, window, mix, shape, sink):
    pcfg = animation.mask_teaching_config(cfg.with_(Br=max(1, cfg.Br // 8), Bc=max(1, cfg.Bc // 8)), window,
                                          lambda k: documents(mix, k), shape, sink)
    data = flash_frames(pcfg)
    conforms(data, FlashRun)
    assert ("sink" in data) == (sink is not None) and data["skipped"] >= 0


@EXAMPLES
@given(cfg=configs())
def test_standard_frames_match_the_schema(cfg):
    conforms(standard_frames(cfg), StandardRun)


@EXAMPLES
@given(cfg=configs(), capped=st.integers(1, 40))
def test_capped_flash_frames_match_the_schema(cfg, capped):
    conforms(flash_frames(cfg, max_frames=capped), FlashRun)


@pytest.mark.parametrize("bug", sorted(BUGS))
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=configs(max_n=128))
def test_every_bugs_frames_match_the_schema(bug, cfg):
    data = at_symptom(bug_frames(cfg, bug), cfg)
    conforms(data, BugRun)
    assert data["frames"], "a run to check"
    assert 0 <= data["start"] < len(data["frames"]), "the player opens at one of its steps"


@EXAMPLES
@given(cfg=configs(), capped=st.sampled_from([animation.MAX_FRAMES, 7]))
def test_backward_frames_match_the_schema(cfg, capped):
    conforms(backward_frames(cfg, max_frames=capped), BackwardRun)


@EXAMPLES
@given(n=st.sampled_from([1024, 4096, 16384, 65536, 262144]), d=st.sampled_from([64, 128]),
       bh=st.integers(1, 64), kernel=st.sampled_from(["sdpa", "triton 64", "triton 128"]),
       gpu=st.sampled_from(sorted(HARDWARE)))
def test_wave_frames_match_the_schema(n, d, bh, kernel, gpu):
    k = sdpa_flash(d) if kernel == "sdpa" else triton(int(kernel.split()[1]), 64, d)
    assume(k.occupancy(d, HARDWARE[gpu]).launch is None)  # the MI300X's LDS refuses some Triton tiles
    conforms(wave_frames(n, d, bh, k, HARDWARE[gpu]), WaveRun)


def test_the_checker_finds_a_missing_an_unknown_a_mistyped_and_a_short_key():
    data = flash_frames(Config(n=32, d=4, Br=16, Bc=16))
    frame = data["frames"][1]
    del frame["ws"]
    frame["flops"] = 7
    frame["bad"] = 0
    frame["m1"] = frame["m1"][:-1]
    wrong = problems(data, FlashRun)
    assert wrong == ["run.frames[1]: no 'ws'", "run.frames[1]: 'flops' is not in FlashFrame",
                     "run.frames[1].bad: 0 is not bool",
                     f"run.frames[1].m1: {len(frame['show']) - 1} long, not {len(frame['show'])} (show)"], wrong


# ---- the player's end: the keys each script reads ----------------------------------------------------

# Each player's names for the data, as its script's header comment gives them: NAME -> the
# schema types a value of that name can be. "frames[]" stands for frames[k].
FORWARD = {"D": (FlashRun, BugRun, StandardRun), "f": (FlashFrame, StandardFrame),
           "frames[]": (FlashFrame, StandardFrame), "CODE": (Listing,), "c": (CodePanel,)}
BACKWARD_FRAMES = (BackwardDFrame, BackwardTileFrame, BackwardWriteFrame)
BACKWARD = {"D": (BackwardRun,), "f": BACKWARD_FRAMES, "frames[]": BACKWARD_FRAMES,
            "tile": (BackwardTileFrame,), "before": (BackwardTileFrame,),
            "src": (BackwardDFrame, BackwardTileFrame), "w": (Worked,)}
GPU = {"D": (WaveRun,), "f": (WaveFrame,), "frames[]": (WaveFrame,), "head": (HeadSpan,)}
PLAYERS = {"forward": (player.TEMPLATE, (FlashRun, BugRun, StandardRun), FORWARD),
           "backward": (backward_player.TEMPLATE, (BackwardRun,), BACKWARD),
           "gpu": (gpu_player.TEMPLATE, (WaveRun,), GPU)}


def script(page: str) -> str:
    """The page's script (the shared code, the data read back, the player), comments removed."""
    (js,) = re.findall(r"<script>(.*?)</script>", page, re.S)
    js = re.sub(r"/\*.*?\*/", "", js, flags=re.S)
    return re.sub(r"(?m)(^|\s)//\s.*$", "", js)


def _pattern(name: str) -> str:
    return r"\bframes\[[^\]]*\]" if name == "frames[]" else r"(?<![\w$.])" + re.escape(name)


def reads_in(js: str, name: str) -> set[str]:
    """Every key read as NAME.key."""
    return set(re.findall(_pattern(name) + r"\.([A-Za-z_$][\w$]*)", js))


def records(roots) -> set:
    """Every TypedDict a payload rooted at `roots` holds."""
    seen, todo = set(), list(roots)
    while todo:
        tp = todo.pop()
        if tp in seen:
            continue
        seen.add(tp)
        for field in hints(tp).values():
            todo += [t for t in _inner(field) if is_typeddict(t)]
    return seen


def _inner(tp) -> list:
    tp, _ = _split(tp)
    if get_origin(tp) in (list, Union, types.UnionType):
        return [t for arg in get_args(tp) for t in _inner(arg)]
    return [tp]


def names_run(td) -> set[str]:
    return {k for k, v in hints(td).items() if any(isinstance(m, NamesRun) for m in _split(v)[1])}


def drawn(td) -> set[str]:
    """The keys of a record the player must read: all of them but those that only name the run."""
    return set(hints(td)) - names_run(td)


def static_reads(which: str) -> dict:
    """{record type: the keys the script reads of it}, from the script's text."""
    page, _, names = PLAYERS[which]
    js, out = script(page), {}
    for name, tps in names.items():
        for key in reads_in(js, name):
            for td in tps:
                if key in hints(td):
                    out.setdefault(td, set()).add(key)
    return out


@pytest.mark.parametrize("which", list(PLAYERS))
def test_the_player_reads_no_key_outside_its_schema(which):
    page, _, names = PLAYERS[which]
    js = script(page)
    stray = {f"{name}.{key}" for name, tps in names.items() for key in reads_in(js, name)
             if not any(key in hints(td) for td in tps)}
    assert not stray, f"the {which} player reads keys its schema does not have: {sorted(stray)}"


@pytest.mark.parametrize("which", list(PLAYERS))
def test_the_player_reads_every_key_of_its_schema(which):
    _, roots, _ = PLAYERS[which]
    read = static_reads(which)
    unread = {f"{td.__name__}.{k}" for td in records(roots) for k in drawn(td) - read.get(td, set())}
    assert not unread, f"keys the {which} player never reads (drop them from the payload): {sorted(unread)}"


@pytest.mark.parametrize("which", list(PLAYERS))
def test_keys_that_only_name_the_run_are_not_drawn(which):
    _, roots, _ = PLAYERS[which]
    read = static_reads(which)
    drawn_after_all = {f"{td.__name__}.{k}" for td in records(roots) for k in names_run(td) & read.get(td, set())}
    assert not drawn_after_all, f"the {which} player reads these: drop their NamesRun mark: {drawn_after_all}"


@pytest.mark.parametrize("which", list(PLAYERS))
def test_the_script_reads_the_data_only_as_name_dot_key(which):
    """No computed key (D[k]), no destructuring (const {a} = f): the two ways a read would
    escape reads_in. A third, another name for a record, is what the browser test catches."""
    page, roots, names = PLAYERS[which]
    js = script(page)
    computed = [n for n in names if n != "frames[]" and re.search(_pattern(n) + r"\s*\[", js)]
    assert not computed, f"records read by a computed key: {computed}"
    destructured = [n for n in names if n != "frames[]" and re.search(r"\}\s*=\s*" + _pattern(n) + r"\b", js)]
    assert not destructured, f"records destructured: {destructured}"
    named = {td for tps in names.values() for td in tps}
    assert records(roots) <= named, f"records the header gives no name: {records(roots) - named}"


def test_the_shared_player_code_reads_no_data():
    common = (player.HERE / "player_common.js").read_text()
    assert not re.search(r"\b(D|frames)\b", common), "player_common.js takes N and draw(k), never the data"


# ---- the player's end in Chromium: every key the page touches while it draws every frame ---------------

TRACK = """<script>
// Every key read off the data, by path ("", "frames[]", "frames[].code", ...).
window.__reads = {};
const __proxies = new WeakMap();
function __track(value, path) {
  if (value === null || typeof value !== "object") return value;
  if (__proxies.has(value)) return __proxies.get(value);
  const list = Array.isArray(value);
  const note = key => { (window.__reads[path] = window.__reads[path] || {})[key] = true; };
  const proxy = new Proxy(value, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof key !== "string") return v;
      if (list) return /^[0-9]+$/.test(key) ? __track(v, path + "[]") : v;
      note(key);
      return __track(v, path ? path + "." + key : key);
    },
    has(target, key) { if (!list && typeof key === "string") note(key); return Reflect.has(target, key); },
  });
  __proxies.set(value, proxy);
  return proxy;
}
</script>"""
READ_BACK = 'const D = JSON.parse(document.getElementById("data").textContent);'


def at_path(path: str, roots) -> list:
    """The record types a path through the payload ("frames[].code") can reach."""
    tps = list(roots)
    for key in filter(None, path.replace("[]", "").split(".")):  # a list's elements: _inner unwraps lists
        tps = [t for td in tps if is_typeddict(td) and key in hints(td) for t in _inner(hints(td)[key])]
    return [t for t in tps if is_typeddict(t)]


def traced_reads(pg, html: str) -> dict:
    """{path: keys read} while the page lays out and then draws every frame once."""
    assert html.count(READ_BACK) == 1
    html = html.replace('<script id="data"', TRACK + '<script id="data"').replace(
        READ_BACK, READ_BACK.replace("JSON.parse(", "__track(JSON.parse(").replace(";", ', "");'))
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_content(html)
    pg.wait_for_function("() => window.fvStats && window.fvStats.rendered > 0")
    pg.evaluate("() => { for (let s = 0; s < N; s++) player.show(s); }")
    assert not errors, errors
    return {path: set(keys) for path, keys in pg.evaluate("() => window.__reads").items()}


def _teaching(**kw) -> Config:
    return teaching_config(Config(**kw), 128, 8)[0]


PAGES = {
    "flash": ("forward", lambda: player.render_html(flash_frames(_teaching()))),
    "flash causal fa1": ("forward", lambda: player.render_html(flash_frames(_teaching(causal=True, loop_order="fa1",
                                                                                      Br=16, Bc=32)))),
    "flash fa4": ("forward", lambda: player.render_html(flash_frames(_teaching(), tau=2.0, score_scale=3.0))),
    "flash masked, sink": ("forward", lambda: player.render_html(flash_frames(animation.mask_teaching_config(
        Config(Br=16, Bc=16), 40, lambda k: documents("4 documents", k), "window in documents", 1.5)))),
    "standard": ("forward", lambda: player.render_html(standard_frames(_teaching()))),
    **{bug: ("forward", lambda bug=bug: player.render_html(bug_frames(_teaching(), bug))) for bug in sorted(BUGS)},
    "backward": ("backward", lambda: backward_player.render_html(backward_frames(_teaching(Br=32, Bc=32)))),
    "backward causal": ("backward", lambda: backward_player.render_html(
        backward_frames(_teaching(Br=32, Bc=16, causal=True)))),
    "gpu": ("gpu", lambda: gpu_player.render_html(wave_frames(65536, 128, 4, sdpa_flash(128), HARDWARE["H200 SXM"]))),
    "gpu rereads": ("gpu", lambda: gpu_player.render_html(
        wave_frames(262144, 128, 64, sdpa_flash(128), HARDWARE["H200 SXM"]))),
    "gpu mi300x": ("gpu", lambda: gpu_player.render_html(
        wave_frames(524288, 128, 4, sdpa_flash(128), HARDWARE["MI300X"]))),
}


@players.pytestmark
@pytest.mark.parametrize("case", list(PAGES))
def test_in_the_browser_the_player_touches_only_keys_its_script_is_seen_to_read(browser, case):
    which, build = PAGES[case]
    pg = browser.new_page()
    try:
        reads = traced_reads(pg, build())
    finally:
        pg.close()
    roots, static = PLAYERS[which][1], static_reads(which)
    outside, unseen = [], []
    for path, keys in reads.items():
        tds = at_path(path, roots)
        for key in keys:
            holders = [td for td in tds if key in hints(td)]
            if tds and not holders:
                outside.append(f"{path or 'run'}.{key}")
            elif holders and not any(key in static.get(td, ()) for td in holders):
                unseen.append(f"{path or 'run'}.{key}")
    assert not outside, f"{case}: the page read keys outside the schema: {sorted(outside)}"
    assert not unseen, f"{case}: the page read keys the script's text hides (another name?): {sorted(unseen)}"
    assert reads.get("frames[]"), "the tracker saw the frames read"

