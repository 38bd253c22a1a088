"""The settings tests/test_claims.py and bench/claims.py render every lesson at: the regimes a
teacher can reach, named, and random draws that lean on them.

A setting is a dict of URL parameters: the sidebar's (every key of explorer.params.SHARED but
presentation mode) and the lesson's own controls. `explicit(page)` lists the named regimes with
the lesson's own controls at their defaults, then the lesson's own controls at their extremes
with the sidebar at its defaults; `lesson_params(page)` draws at random, half of the time from a
named regime with the other settings random.
"""
from __future__ import annotations

from hypothesis import strategies as hs

from explorer.params import CUSTOM_GPU, OWN, SHARED, Param
from explorer.schedule_view import PARAMS as SCHEDULE
from explorer.whole_gpu import PARAMS as WHOLE_GPU
from flashviz import measured
from flashviz.animation import TEACHING_D, TEACHING_N
from flashviz.bugs import BELIEFS, BUGS
from flashviz.config import DTYPE_BYTES, HARDWARE, KB, SEQUENCE_LENGTHS, TILE_SIZES, Config

SIDEBAR = ("n", "d", "Br", "Bc", "sram", "dtype", "hw", "causal", "order")
DEFAULTS = {key: SHARED[key].default for key in SIDEBAR}

# The case: 64 x 64 tiles at d = 128 in float32 need 112.5 KB against a 96 KB budget.
OVERFLOW = {"n": 4096, "d": 128, "Br": 64, "Bc": 64, "sram": 96, "dtype": "float32"}
REGIMES: tuple[dict, ...] = (
    OVERFLOW, {**OVERFLOW, "causal": True}, {**OVERFLOW, "order": "fa1"},
    {**OVERFLOW, "order": "fa1", "causal": True},
    *({"d": d, "dtype": t} for d in (128, 256) for t in DTYPE_BYTES),      # wide heads in each data type
    *({"hw": gpu} for gpu in HARDWARE),                                     # every GPU preset
    {"order": "fa1"}, {"causal": True}, {"order": "fa1", "causal": True},  # the paper's loop order, the mask
    {"sram": 8}, {"sram": 512},                                            # the budget's extremes
    {"Br": 1, "Bc": 1}, {"Br": 1024, "Bc": 1024}, {"Br": 16, "Bc": 1024}, {"Br": 1024, "Bc": 16},
    {"n": 16}, {"n": 1048576}, {"n": 16, "Br": 1024, "Bc": 1024},
    {"n": 1048576, "d": 256, "dtype": "float64", "sram": 8, "Br": 1, "Bc": 1, "causal": True},
)


def shared_params():
    return hs.fixed_dictionaries({
        "n": hs.sampled_from(SEQUENCE_LENGTHS),
        "d": hs.sampled_from(SHARED["d"].options),
        "Br": hs.sampled_from(TILE_SIZES),
        "Bc": hs.sampled_from(TILE_SIZES),
        "sram": _span(SHARED["sram"]),
        "dtype": hs.sampled_from(tuple(DTYPE_BYTES)),
        "hw": hs.sampled_from(tuple(HARDWARE)),
        "causal": hs.booleans(),
        "order": hs.sampled_from(("fa2", "fa1")),
    })


def sidebar():
    """Random sidebar settings, half of the time inside one of the named regimes."""
    regime = hs.sampled_from(REGIMES).flatmap(lambda r: shared_params().map(lambda p: {**p, **r}))
    return hs.one_of(shared_params(), regime)


def _span(p: Param):
    """A number control: its two ends often, any step between otherwise."""
    assert p.lo is not None and p.hi is not None and p.step
    lo, hi, step = p.lo, p.hi, p.step
    steps = hs.integers(0, round((hi - lo) / step)).map(lambda k: lo + k * step)
    ends = hs.sampled_from((lo, hi))
    if p.kind == "int":
        return hs.one_of(ends, steps).map(int)
    return hs.one_of(ends, steps).map(lambda v: round(v, 6))


def control(p: Param):
    if p.kind == "bool":
        return hs.booleans()
    if p.kind in ("int", "float"):
        return _span(p)
    return hs.sampled_from(p.options)


def ends(p: Param) -> tuple:
    """A control's two extremes."""
    if p.kind == "bool":
        return (False, True)
    if p.kind in ("int", "float"):
        return (p.lo, p.hi)
    return (p.options[0], p.options[-1])


def _block_ns() -> tuple:
    return tuple(sorted(int(n) for n in measured.blocks(measured.load())["n"].unique()))


# Each lesson's own controls (those not in explorer.params.OWN or explorer.whole_gpu.PARAMS are
# declared in the lesson file; they are repeated here as the lesson declares them).
BREAK_IT = tuple(Param(f"{kind}_{key}", key, False, kind="bool")
                 for kind, keys in (("bug", BUGS), ("watch", BUGS), ("belief", BELIEFS)) for key in keys)
OWN_CONTROLS = {
    "lessons/02_online_softmax.py": lambda: (
        *(OWN[k] for k in ("os_len", "os_block", "os_spread", "os_seed")),
        Param("os_offset", "scores near", 800, lo=0, hi=1000, step=10, kind="int")),
    "lessons/03_tiling.py": lambda: (Param("an_n", "animation n", 256, TEACHING_N),
                                     Param("an_d", "animation d", 16, TEACHING_D),
                                     Param("an_std", "show standard", False, kind="bool")),
    "lessons/05_backward.py": lambda: (Param("bw_n", "animation n", 256, TEACHING_N),
                                       Param("bw_d", "animation d", 16, TEACHING_D)),
    "lessons/06_exact.py": lambda: (OWN["ex_window"],),
    "lessons/09_break_it.py": lambda: BREAK_IT,
    "lessons/10_real_hardware.py": lambda: (
        OWN["hw_d"], Param("hw_dtype", "data type", "float16", ("float16", "bfloat16", "float32")),
        Param("hw_pass", "pass", "fwd", ("fwd", "fwd+bwd")),
        Param("hw_block_n", "sequence length for the tile sweep", 1024, _block_ns())),
    "lessons/11_whole_gpu.py": lambda: (*WHOLE_GPU.values(), *CUSTOM_GPU),  # the lesson types a custom GPU
    "lessons/12_inference.py": lambda: tuple(p for key, p in OWN.items() if key.startswith("inf_")),
    "lessons/13_schedule.py": lambda: (*SCHEDULE.values(), OWN["sc_tile"]),
}


def _some_bug_on(p: dict) -> bool:
    """Break it shows nothing to check until a bug or the belief is on."""
    return any(p[f"bug_{k}"] for k in BUGS) or any(p[f"belief_{k}"] for k in BELIEFS)


def lesson_params(page: str):
    own = OWN_CONTROLS.get(page, tuple)()
    draw = hs.tuples(sidebar(), hs.fixed_dictionaries({p.key: control(p) for p in own})).map(
        lambda pair: {**pair[0], **pair[1]})
    return draw.filter(_some_bug_on) if page == "lessons/09_break_it.py" else draw


def own_defaults(page: str) -> dict:
    if page == "lessons/09_break_it.py":  # every bug, its player and the belief: all of the lesson
        return {p.key: True for p in BREAK_IT}
    return {p.key: p.default for p in OWN_CONTROLS.get(page, tuple)()}


def own_extremes(page: str) -> list[dict]:
    """The lesson's own controls all at their low ends, all at their high ends, and each value of a
    control that names things (a GPU, a kernel) once."""
    own = OWN_CONTROLS.get(page, tuple)()
    if page == "lessons/09_break_it.py":
        return [{p.key: p.key.startswith(("bug_", "belief_")) for p in BREAK_IT}]  # no player
    named = [{p.key: v} for p in own if p.kind == "options" and not isinstance(p.options[0], (int, float))
             for v in p.options[1:-1]]
    return [{p.key: ends(p)[0] for p in own}, {p.key: ends(p)[1] for p in own}, *named] if own else []


def explicit(page: str) -> list[dict]:
    """Every named regime with the lesson's controls at their defaults, then the lesson's controls
    at their extremes with the sidebar at its defaults."""
    base = {**DEFAULTS, **own_defaults(page)}
    return [{**base, **regime} for regime in REGIMES] + [{**base, **ext} for ext in own_extremes(page)]


def engine_config(p: dict, n: int | None = None) -> Config:
    """The Config explorer/ui.config() builds from these settings: tiles cut to n, KB to bytes."""
    n = p["n"] if n is None else n
    return Config.clamped(n, p["Br"], p["Bc"], d=p["d"], sram_bytes=p["sram"] * KB,
                          dtype=p["dtype"], causal=p["causal"], loop_order=p["order"])


def url(params: dict) -> dict:
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in params.items()}
