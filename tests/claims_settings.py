"""The settings tests/test_claims.py and bench/claims.py render every lesson at: the regimes a
teacher can reach, named, and random draws that lean on them.

A setting is a dict of URL parameters: the sidebar's (every key of explorer.params.SHARED but
presentation mode, so a knob added to Config is drawn here too) and the lesson's own controls (its
registry entry's, explorer/lessons.py). `explicit(page)` lists the named regimes with
the lesson's own controls at their defaults, then the lesson's own controls at their extremes
with the sidebar at its defaults; `lesson_params(page)` draws at random, half of the time from a
named regime with the other settings random.
"""
from __future__ import annotations

from hypothesis import strategies as hs

from collections.abc import Sequence

from explorer.lessons import Lesson, lesson_of
from explorer.params import CUSTOM_GPU, FIELDS, SHARED, UNITS, Param
from flashviz.teach.bugs import BELIEFS, BUGS
from flashviz.model.config import CUSTOM, DTYPE_BYTES, HARDWARE, Config

# Every sidebar control but presentation mode, which changes what is drawn, not what is said.
SIDEBAR = tuple(key for key in SHARED if key != "present")
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
    """Every sidebar control at random. The GPU is a preset: "custom" is tried where a lesson offers
    it among its own controls (its figures are CUSTOM_GPU, drawn then)."""
    draw = {key: control(SHARED[key]) for key in SIDEBAR}
    draw["hw"] = hs.sampled_from(tuple(HARDWARE))
    return hs.fixed_dictionaries(draw)


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


def own_controls(page: str, lessons: Sequence[Lesson] | None = None) -> tuple[Param, ...]:
    """The lesson's own controls (its registry entry's), and the custom GPU's figures where one of
    them offers "custom" (the lesson then types a GPU of its own)."""
    own = lesson_of(page, lessons).controls
    custom = any(p.kind == "options" and CUSTOM in p.options for p in own)
    return (*own, *CUSTOM_GPU) if custom else own


BREAK_IT = lesson_of("lessons/09_break_it.py").controls


def _some_bug_on(p: dict) -> bool:
    """Break it shows nothing to check until a bug or the belief is on."""
    return any(p[f"bug_{k}"] for k in BUGS) or any(p[f"belief_{k}"] for k in BELIEFS)


def lesson_params(page: str):
    own = own_controls(page)
    draw = hs.tuples(sidebar(), hs.fixed_dictionaries({p.key: control(p) for p in own})).map(
        lambda pair: {**pair[0], **pair[1]})
    return draw.filter(_some_bug_on) if page == "lessons/09_break_it.py" else draw


def own_defaults(page: str) -> dict:
    if page == "lessons/09_break_it.py":  # every bug, its player and the belief: all of the lesson
        return {p.key: True for p in BREAK_IT}
    return {p.key: p.default for p in own_controls(page)}


def own_extremes(page: str) -> list[dict]:
    """The lesson's own controls all at their low ends, all at their high ends, and each value of a
    control that names things (a GPU, a kernel) once."""
    own = own_controls(page)
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
    """The Config explorer/ui.config() builds from these settings: each knob's control times its
    unit (KB to bytes), tiles cut to n."""
    fields = {name: p[key] * UNITS[key] if UNITS[key] != 1 else p[key] for key, name in FIELDS.items()}
    fields["n"] = fields["n"] if n is None else n
    return Config.clamped(**fields)


def url(params: dict) -> dict:
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in params.items()}
