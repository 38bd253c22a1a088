"""Where each "Break it" bug shows in the tile player: the run the player plays for it, the
step at which its symptom first shows, and the sentence that names that step.

Everything here is read off the frames the player itself plays (animation.bug_frames), so a
caption that says "step 12: the first inf, row 65" is true of the step the player opens at.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from .animation import teaching_config
from ..model.config import KB, MB, Config
from ..model.memory import fits
from .player_schema import BugRun, FlashFrame

PLAYER_N = 256  # the player's sequence length at most: a run short enough to step through
PLAYER_D = 16   # its head dimension at most, where the symptom does not depend on d
# The tile-size bugs' symptoms are byte counts (working set, traffic), and both grow with d:
# 16-row tiles re-read K and V (2nd elements) n/16 times where standard attention moves about 4n^2
# more, so they pass standard attention only once d is above about 2 x 16 (tests/test_symptoms.py
# checks it at the lesson's defaults). So these run at the lab's d, with the lab's kind of figure.
AT_THE_LABS_D = ("tiles_too_big", "tiles_too_small")


class Symptom(NamedTuple):
    step: int   # the frame (0-based) where the symptom first shows; the player opens there
    text: str   # what shows at that step ("the first inf/nan, row 65")


def player_config(lab: Config, bug: str) -> tuple[Config, str | None]:
    """The config the tile player runs `bug` at, given the lab's (before bug_frames' own
    changes: the tiles-too-big run grows n so that its tiles take several steps), and a note
    if n had to be cut further to keep the trace short (animation.teaching_config)."""
    d = lab.d if bug in AT_THE_LABS_D else min(lab.d, PLAYER_D)
    return teaching_config(lab, min(lab.n, PLAYER_N), d)


def _kb(nbytes: float) -> str:
    """Bytes in KB as the player's meters print them (player_common.js's kb): JavaScript's toFixed rounds an exact
    half up, where Python's format rounds it to even, and 28.5 KB read "28 KB" over a player saying "29 KB"."""
    places = 0 if nbytes >= 10 * KB else 1
    shown = Decimal(nbytes / KB).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{shown} KB"


def _mb(nbytes: float) -> str:
    """Bytes in MB as the player's HBM meter prints them (player_common.js's mb)."""
    return f"{nbytes / MB:.2f} MB"


def _past(nbytes: float, mark: float) -> bool:
    """The meter, as printed, shows nbytes above mark (not only in digits it does not print)."""
    return round(nbytes / MB, 2) > round(mark / MB, 2)


def _g(value) -> str:
    """A frame's number as the engine rounded it ("Infinity", "NaN" read back as inf, nan)."""
    return f"{float(value):g}"


def _bad(value) -> bool:
    return isinstance(value, str)  # inf and nan travel as strings ("Infinity", "NaN")


def _rows(frame: FlashFrame, qs: list[int]) -> str:
    rows = [frame["rows"][0] + frame["show"][q] for q in qs]
    return ("row " if len(rows) == 1 else "rows ") + ", ".join(map(str, rows))


def _no_rescale(data: BugRun, correct: Config) -> Symptom:
    for k, f in enumerate(data["frames"]):
        off = [q for q in range(len(f["show"])) if f["l"][q] != f["l_true"][q]]
        if off:
            q = max(off, key=lambda q: abs(float(f["l"][q]) / float(f["l_true"][q]) - 1))
            return Symptom(k, f"{_rows(f, [q])}'s max rose and nothing rescaled: l = {_g(f['l'][q])} "
                              f"where a correct run has {_g(f['l_true'][q])}")
    return Symptom(0, "no shown row's max rises after its first tile, so nothing needed a rescale and "
                      "l stays correct at these settings")


def _too_big(data: BugRun, correct: Config) -> Symptom:
    over = next((k for k, f in enumerate(data["frames"]) if not fits(f["ws"], data["budget"])), None)
    if over is None:
        ws = max(f["ws"] for f in data["frames"])
        return Symptom(0, f"a {data['Br']} × {data['Bc']} tile needs {_kb(ws)}, within "
                          f"the {_kb(data['budget'])} budget: nothing spills at these settings")
    ws = data["frames"][over]["ws"]
    return Symptom(over, f"a {data['Br']} × {data['Bc']} tile needs {_kb(ws)} of SRAM, "
                         f"{ws / data['budget']:.1f}× the {_kb(data['budget'])} budget: the seed's model charges "
                         "the excess to HBM (a real kernel whose tiles overflow its shared memory does not launch)")


def stream_again(data: BugRun) -> str:
    """Why a run with small tiles moves more: what streams in again for each outer block (the loop
    order's), and the overflow where even these tiles do not fit the budget."""
    if data["order"] == "fa2":
        text = f"K and V stream in again for each of the {data['Tr']} query blocks"
    else:
        text = f"Q, O, m and l stream in again for each of the {data['Tc']} key/value blocks"
    if not fits(max(f["ws"] for f in data["frames"]), data["budget"]):
        text += ", and the tiles overflow the budget: the seed's model charges the excess to HBM"
    return text


def _too_small(data: BugRun, correct: Config) -> Symptom:
    """Where the HBM meter, as the player prints it, passes standard attention's traffic (or, at a
    small d, where small tiles stay below it, the correct tiles' whole traffic)."""
    frames, std, ok = data["frames"], data["standard_bytes"], data["correct_bytes"]
    if (data["Br"], data["Bc"]) == (correct.Br, correct.Bc):
        return Symptom(0, f"your tiles are already {data['Br']} × {data['Bc']}: the bug changes nothing here")
    passes = stream_again(data)
    past_std = next((k for k, f in enumerate(frames) if _past(f["hbm"], std)), None)
    if past_std is not None:
        return Symptom(past_std, f"traffic, {_mb(frames[past_std]['hbm'])} so far, passes standard "
                                 f"attention's {_mb(std)}: {passes}")
    past_ok = next((k for k, f in enumerate(frames) if _past(f["hbm"], ok)), None)
    end = data["total_bytes"]
    if past_ok is None:
        return Symptom(len(frames) - 1, f"{_mb(end)} moved, against the "
                                        f"correct {correct.Br} × {correct.Bc} run's {_mb(ok)}")
    return Symptom(past_ok, f"traffic, {_mb(frames[past_ok]['hbm'])} so far, passes the correct "
                            f"{correct.Br} × {correct.Bc} run's whole {_mb(ok)}: {passes}. At d = {data['d']} "
                            f"it stays below standard attention's {_mb(std)} (it ends at {_mb(end)})")


def _keep_S(data: BugRun, correct: Config) -> Symptom:
    k = len(data["frames"]) - 1
    f = data["frames"][k]
    kept, ws = f["kept"], max(g["ws"] for g in data["frames"])
    whole = ", the whole n × n matrix," if kept == data["n"] ** 2 * correct.element_bytes else ""
    return Symptom(k, f"{_kb(kept)} of scores{whole} sit in HBM, "
                      f"{kept / ws:.1f}× the {_kb(ws)} tile working set")


def _no_max(data: BugRun, correct: Config) -> Symptom:
    k = data["first_bad"]
    if k is None:
        return Symptom(0, "nothing overflows in the steps shown at these settings")
    f = data["frames"][k]
    qs = [q for q in range(len(f["show"])) if _bad(f["l"][q]) or _bad(f["o1"][q])]
    return Symptom(k, f"the first inf/nan, {_rows(f, qs)}")


SYMPTOMS = {"no_rescale": _no_rescale, "tiles_too_big": _too_big, "tiles_too_small": _too_small,
            "keep_full_S": _keep_S, "no_max": _no_max}


def symptom(data: BugRun, cfg: Config) -> Symptom:
    """Where the bug `data` plays shows its symptom; `cfg` is the config bug_frames was given."""
    return SYMPTOMS[data["bug"]](data, cfg.without_bugs())


def at_symptom(data: BugRun, cfg: Config) -> BugRun:
    """The frames `data` (bug_frames at `cfg`) opened at the step where the symptom first shows."""
    return {**data, "start": symptom(data, cfg).step}


def sizes(data: BugRun, lab: Config) -> str:
    """The player's n and d beside the lab's, when either differs ("" when both agree)."""
    if (data["n"], data["d"]) == (lab.n, lab.d):
        return ""
    return f"The player runs n = {data['n']}, d = {data['d']} (the lab: n = {lab.n}, d = {lab.d})."


def caption(data: BugRun, cfg: Config, lab: Config) -> str:
    """The line over a bug's player that opens at its symptom: the step, what shows there, and
    the player's n and d where they differ from the lab's."""
    step, text = symptom(data, cfg)
    return f"The player opens at step {step + 1} of {len(data['frames'])}: {text}. {sizes(data, lab)}".strip()

