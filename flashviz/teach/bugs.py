"""The seed's "Break it" table: each bug as a change to a Config, a lab that runs
the correct and the broken version side by side, and the table's last row, a
belief (FlashAttention does less arithmetic) checked against the cost model.

Every sentence built here from figures states only what those figures show:
a direction ("above", "fits") is chosen by comparing them, never assumed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..model import costs
from ..players.animation import bug_frames
from .claims import compare, overflow_note, share_text
from .format import bytes_text
from ..model.breaks import BREAKS
from ..run.attention import flash_attention, online_softmax, random_qkv, random_row, softmax, standard_attention
from ..model.config import KB, MB, SEED, Config
from ..model.memory import fits
from ..players.player_schema import BugRun, FlashFrame
from ..model.sources import cite
from ..players.symptoms import stream_again

LAB_MAX_N = 2048  # the lab really runs both versions; keep it interactive
OVERFLOW_ROW = (800.0, 801.5, 799.2, 802.3)  # demo 9's scores near 800
NOISE = 1e-12     # float64 figures (errors, sums) closer than this are the same figure
NOISY = ("demo 2 weights sum", "demo 2 max abs error", "output max abs error")


def settings_text(cfg: Config) -> str:
    """The settings a figure was computed at, in the form the lab labels figures with."""
    mask = ", causal" if cfg.causal else ""
    return (f"n = {cfg.n}, d = {cfg.d}, {cfg.Br} × {cfg.Bc} tiles, {cfg.sram_bytes / KB:g} KB SRAM, "
            f"{cfg.dtype}{mask}")


SEED_SETTINGS = settings_text(SEED)  # where the seed's "watch for" figures come from


@dataclass(frozen=True)
class Bug:
    key: str
    label: str
    change: str    # what was edited in the code, in one sentence
    symptom: str   # what the seed says to watch for: its figures at SEED_SETTINGS
    apply: Callable[[Config], Config]
    watch: str     # the figure (a key of break_it's dicts) the symptom is about
    now: Callable[[dict], str]  # the symptom at the lab's settings, from break_it's figures


def _than(a: float, b: float) -> str:
    return "above" if a > b else "below" if a < b else "equal to"


def _now_no_rescale(lab):
    ok, b = lab["correct"], lab["broken"]
    return (f"Weights sum to {b['demo 2 weights sum']:.6f} instead of {ok['demo 2 weights sum']:.6f}; "
            f"max error {b['demo 2 max abs error']:.2e} (the seed's row, the same at any settings). "
            f"Attention's output is off by up to {b['output max abs error']:.2e}.")


def _overflow(fig: dict, budget: float) -> str:
    """The sentence naming the overflow in one lab column's traffic ("" when its tiles fit)."""
    if fig["fits SRAM"]:
        return ""
    total = fig["HBM MB (with spill)"]
    return (f" {share_text(fig['spill MB'], total)} of the {bytes_text(total * MB)} with {fig['Br x Bc']} tiles is "
            f"overflow: they need {fig['working set KB']:.1f} KB of SRAM, over the {budget:g} KB budget, and the "
            "seed's model charges what does not fit to HBM.")


NO_LAUNCH = (f"A real kernel does not spill shared memory: one whose tiles overflow it does not launch "
             f"({cite('fa2', '§3.3')}).")


def _now_too_big(lab):
    b, budget = lab["broken"], lab["settings"]["sram KB"]
    std = lab["standard"]["HBM MB"]
    if b["fits SRAM"]:
        return (f"{b['Br x Bc']} tiles need {b['working set KB']:.1f} KB: they fit the {budget:g} KB "
                f"budget at these settings, so nothing spills ({bytes_text(b['HBM MB (with spill)'] * MB)} in all).")
    return (f"{b['Br x Bc']} tiles need {b['working set KB']:.1f} KB against a {budget:g} KB budget; "
            f"with the spill, traffic is {bytes_text(b['HBM MB (with spill)'] * MB)}, "
            f"{_than(b['HBM MB (with spill)'], std)} standard attention's {bytes_text(std * MB)}. That spill is the "
            f"seed's model, kept as the seed's table has it. {NO_LAUNCH}")


def _now_too_small(lab):
    b, ok, std = lab["broken"], lab["correct"], lab["standard"]["HBM MB"]
    x, budget = b["HBM MB (with spill)"], lab["settings"]["sram KB"]
    text = (f"With {b['Br x Bc']} tiles traffic is {bytes_text(x * MB)} ({bytes_text(ok['HBM MB (with spill)'] * MB)} "
            f"with {ok['Br x Bc']}), {_than(x, std)} standard attention's {bytes_text(std * MB)}.")
    over = _overflow(b, budget) + ("" if ok["Br x Bc"] == b["Br x Bc"] else _overflow(ok, budget))
    return text + over + (f" {NO_LAUNCH}" if over else "")


def _now_keep_S(lab):
    a, b = lab["correct"]["peak extra KB"], lab["broken"]["peak extra KB"]
    if b > a:
        return f"Peak extra memory goes from {a:.1f} KB to {b:.1f} KB: {b / a:.1f} times as much."
    return (f"Peak extra memory stays at {a:.1f} KB: at n = {lab['settings']['n']} the n × n "
            "buffer is no larger than the tile working set.")


def _now_no_max(lab):
    ok, b = lab["correct"], lab["broken"]
    nans = b["nan weights on scores near 800"]
    err, ref = b["output max abs error"], ok["output max abs error"]
    text = f"{nans} of {len(OVERFLOW_ROW)} weights come back nan on the seed's scores near 800. "
    if math.isfinite(err) and err <= max(ref, NOISE):
        return text + (f"The lab's random scores are small, so the output error stays at {err:.2e}: "
                       "exp overflows only on large scores.")
    return text + f"The output error is {err:.2e}, against {ref:.2e} for the correct run."


BUGS = {b.key: b for b in (
    Bug("no_rescale", "Drop the rescale",
        "The factor e^(m_old - m_new) on l and O is removed, so earlier terms keep an outdated baseline.",
        "Weights sum to 0.190131 instead of 1; max error 6.53e-01; nothing raises.",
        BREAKS["no_rescale"], "demo 2 weights sum", _now_no_rescale),
    Bug("tiles_too_big", "Tiles too big for SRAM",
        "Br = Bc = 512 under the same SRAM budget.",
        "The working set jumps to 1412.0 KB against a 96 KB budget; spilling eats the saving.",
        BREAKS["tiles_too_big"], "working set KB", _now_too_big),
    Bug("tiles_too_small", "Tiles too small",
        "Br = Bc = 16, so the operands that stream past each small block are re-read many more times.",
        "Traffic climbs to 32.50 MB, above standard attention's 17.00 MB.",
        BREAKS["tiles_too_small"], "HBM MB (with spill)", _now_too_small),
    Bug("keep_full_S", "Keep all scores",  # short: a toggle in a third of the page at 1280 px
        "Every score tile is also copied into an n x n buffer 'for debugging'.",
        "Peak extra memory goes from 64.5 KB to 4096.0 KB: 64 times worse.",
        BREAKS["keep_full_S"], "peak extra KB", _now_keep_S),
    Bug("no_max", "exp without the max",
        "exp(S - m_new) becomes exp(S): nothing keeps the exponent small.",
        "On scores near 800, exp returns inf and the weights come back nan.",
        BREAKS["no_max"], "nan weights on scores near 800", _now_no_max),
)}


def _figures(cfg: Config, Q, K, V, ref) -> dict:
    cost = costs.flash_cost(cfg)
    weights = online_softmax(random_row(), 8, rescale=cfg.rescale, subtract_max=cfg.subtract_max)
    overflow = online_softmax(np.array(OVERFLOW_ROW), 2, rescale=cfg.rescale,
                              subtract_max=cfg.subtract_max)
    with np.errstate(invalid="ignore"):
        O = flash_attention(Q, K, V, cfg)
        error = float(np.abs(O - ref).max())
    return {
        "demo 2 weights sum": float(weights.sum()),
        "demo 2 max abs error": float(np.abs(weights - softmax(random_row())).max()),
        "nan weights on scores near 800": int(np.isnan(overflow).sum()),
        "output max abs error": error,
        "Br x Bc": f"{cfg.Br} x {cfg.Bc}",
        "working set KB": cost.working_set_bytes / KB,
        "fits SRAM": fits(cost.working_set_bytes, cfg.sram_bytes),
        "HBM MB (with spill)": cost.hbm_bytes / MB,
        "spill MB": cost.spilled * cost.element_bytes / MB,
        "peak extra KB": cost.peak_bytes / KB,
        "GFLOPs": cost.flops / 1e9,
    }


def break_it(cfg: Config, bug: str, seed: int = 0) -> dict:
    """Correct vs broken figures for one bug; returns {"correct": {...}, "broken": {...},
    "standard": {...}, "settings": {...}}. Runs NumPy, so n is capped at LAB_MAX_N."""
    if bug not in BUGS:
        raise ValueError(f"unknown bug {bug!r}; choose one of {', '.join(BUGS)}")
    if cfg.n > LAB_MAX_N:
        raise ValueError(f"the lab runs both versions in NumPy: use n <= {LAB_MAX_N}")
    correct = cfg.without_bugs()
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    ref = standard_attention(Q, K, V, correct)
    std = costs.standard_cost(correct)
    return {"correct": _figures(correct, Q, K, V, ref),
            "broken": _figures(BUGS[bug].apply(correct), Q, K, V, ref),
            "standard": {"HBM MB": std.hbm_bytes / MB, "peak KB": std.peak_bytes / KB},
            "settings": {"n": cfg.n, "d": cfg.d, "sram KB": cfg.sram_bytes / KB, "dtype": cfg.dtype}}


FORMATS = {"demo 2 weights sum": "{:.6f}", "demo 2 max abs error": "{:.2e}",
           "output max abs error": "{:.2e}", "working set KB": "{:.1f}",
           "HBM MB (with spill)": "{:.2f}", "spill MB": "{:.2f}", "peak extra KB": "{:.1f}", "GFLOPs": "{:.3f}"}


def changed(figure: str, correct, broken) -> bool:
    """Whether the bug changed a figure. Errors and sums of a float64 run differ in the
    last bits whenever the order of additions does (other tiles): within NOISE they
    are the same figure (nan only matches nan). Counts, sizes and flags compare exactly."""
    if figure in NOISY:
        a, b = float(correct), float(broken)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) != math.isnan(b)
        return not abs(a - b) <= NOISE
    return correct != broken


def comparison(lab: dict) -> list[dict]:
    """Rows of (figure, correct, with the bug, changed), values printed at the seed's precision;
    `changed` is decided on the numbers, not on the printed text."""
    rows = []
    for name, correct in lab["correct"].items():
        fmt, broken = FORMATS.get(name, "{}"), lab["broken"][name]
        rows.append({"figure": name, "correct": fmt.format(correct), "with the bug": fmt.format(broken),
                     "changed": changed(name, correct, broken)})
    return rows



# The player's notes: what to watch in the tile player, read off the frames the player
# itself plays (animation.bug_frames), so every figure and direction is the player's own.

def _kb(nbytes: float) -> str:
    return f"{nbytes / KB:.1f} KB"


def _rose(frame: FlashFrame) -> bool:
    """A shown row's max moved on this step, from a finite max (the player's highlight)."""
    return any(isinstance(a, float) and isinstance(b, float) and b > a
               for a, b in zip(frame["m0"], frame["m1"]))


def _watch_no_rescale(data: BugRun, cfg: Config) -> str:
    frames = data["frames"]
    rose = [k for k, f in enumerate(frames) if _rose(f)]
    ticks = "Black ticks mark the correct running sum l. " if frames and "l_true" in frames[0] else ""
    if not rose:
        return ticks + ("No shown row's max moves after its first key tile at these settings, so "
                        "nothing needed a rescale: this bug shows only when a max moves.")
    return ticks + (f"A row's max moves in {len(rose)} of the {len(frames)} steps (first at step "
                    f"{rose[0] + 1}); nothing rescales, so from there that row's l is too large.")


def _watch_too_big(data: BugRun, cfg: Config) -> str:
    ws, budget = max(f["ws"] for f in data["frames"]), data["budget"]
    tile = f"a {data['Br']} × {data['Bc']} tile needs {_kb(ws)}"
    if not fits(ws, budget):
        return (f"The working-set gauge turns red: {tile} against a {_kb(budget)} budget. The seed's model charges "
                "the excess to HBM; a real kernel whose tiles overflow its shared memory does not launch.")
    return f"The gauge stays green: at n = {data['n']}, d = {data['d']}, {tile}, within the {_kb(budget)} budget."


def _watch_too_small(data: BugRun, cfg: Config) -> str:
    frames, std = data["frames"], data["standard_bytes"]
    before = costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.causal).tiles
    if data["tiles"] == before:
        text = f"Your tiles are already {data['Br']} × {data['Bc']}: the same {before} steps as the correct run."
    else:
        text = (f"{data['tiles']} tile steps instead of {before} with {cfg.Br} × {cfg.Bc} tiles: "
                f"{stream_again(data)}.")
    end = data["total_bytes"] if data["capped"] else frames[-1]["hbm"]
    return text + f" The HBM meter ends at {_kb(end)}, {_than(end, std)} standard attention's {_kb(std)}."


def _watch_keep_S(data: BugRun, cfg: Config) -> str:
    frames = data["frames"]
    kept = sum((f["rows"][1] - f["rows"][0]) * (f["cols"][1] - f["cols"][0]) for f in frames)
    whole = ", the whole n × n matrix" if kept == data["n"] ** 2 else ""
    return (f"Purple tiles are score tiles also written to HBM: by step {len(frames)}, {kept:,} scores "
            f"({_kb(kept * cfg.element_bytes)}{whole}) sit there, against a "
            f"{_kb(max(f['ws'] for f in frames))} tile working set.")


def _watch_no_max(data: BugRun, cfg: Config) -> str:
    scale, top = data["score_scale"], float(np.log(np.finfo(np.float32).max))
    Q, K, _ = random_qkv(data["n"], data["d"], 0)  # the player's inputs (teaching_inputs)
    largest = float(((Q * scale).astype(np.float32) @ K.astype(np.float32).T).max())
    text = (f"Scores are scaled ×{scale:g} and computed in float32, whose exp overflows past "
            f"e^{top:.1f}; the largest score here is {largest:.1f}. ")
    if data["first_bad"] is None:
        return text + "Nothing overflows in the steps shown."
    return text + f"Watch step {data['first_bad'] + 1} of {len(data['frames'])}: inf or nan first appears there."


WATCH = {"no_rescale": _watch_no_rescale, "tiles_too_big": _watch_too_big,
         "tiles_too_small": _watch_too_small, "keep_full_S": _watch_keep_S, "no_max": _watch_no_max}


def watch(bug: str, cfg: Config) -> str:
    """What to watch in the tile player for one bug at the player's config `cfg`, from
    the frames animation.bug_frames(cfg, bug) gives the player."""
    return watch_text(bug_frames(cfg, bug), cfg)


def watch_text(data: BugRun, cfg: Config) -> str:
    """What to watch in the player of `data`, the frames bug_frames gave for config cfg."""
    text = WATCH[data["bug"]](data, cfg.without_bugs())
    return f"{data['note']} {text}" if data.get("note") else text


# The table's last row is not an edit but a belief: that FlashAttention is fast because it
# does less arithmetic. It has no broken run to animate, so it is kept out of BUGS.

@dataclass(frozen=True)
class Belief:
    key: str
    label: str
    claim: str
    check: str
    seed: str           # the seed's figures
    seed_settings: str  # the settings it printed them at


BELIEFS = {b.key: b for b in (
    Belief("fewer_flops", "Belief: fewer flops",  # short: a toggle in a third of the page
           "FlashAttention is fast because it does less arithmetic than standard attention.",
           "Compare the two methods' matmul flops and HBM traffic at the same settings.",
           "0.067 / 0.067, 0.268 / 0.268, 1.074 / 1.074 GFLOPs (standard / flash): identical. "
           "Only the traffic column moves.",
           f"n = 512, 1024, 2048, d = {SEED.d}, {SEED.Br} × {SEED.Bc} tiles, {SEED.dtype}"),
)}


def belief_check(cfg: Config) -> dict:
    """Standard against flash from the closed forms: {"standard": {...}, "flash": {...}}."""
    cfg = cfg.without_bugs()
    return {name: {"GFLOPs": cost.flops / 1e9, "HBM MB": cost.hbm_bytes / MB}
            for name, cost in (("standard", costs.standard_cost(cfg)), ("flash", costs.flash_cost(cfg)))}


def belief_rows(check: dict) -> list[dict]:
    return [{"figure": fig, "standard": FORMATS.get(key, "{}").format(check["standard"][fig]),
             "flash": FORMATS.get(key, "{}").format(check["flash"][fig])}
            for fig, key in (("GFLOPs", "GFLOPs"), ("HBM MB", "HBM MB (with spill)"))]


def _reread(cfg: Config) -> str:
    """What flash reads again, in the loop order's terms."""
    if cfg.loop_order == "fa2":
        return "K and V are read again for every query block" + (", up to its diagonal" if cfg.causal else "")
    return ("Q, O, m and l are read, and O, m and l written, again for every key/value block"
            + (", from its diagonal down" if cfg.causal else ""))


def belief_verdict(check: dict, cfg: Config) -> str:
    """What the numbers of belief_check(cfg) show, each direction read off the numbers and the
    traffic's cause named: the overflow where the tiles do not fit, the re-reads where they do."""
    (sf, sb), (ff, fb) = ((check[m]["GFLOPs"], check[m]["HBM MB"]) for m in ("standard", "flash"))
    if ff == sf:
        flops = f"The flops are equal, {ff:.3f} GFLOPs each: tiling reorders the arithmetic and removes none."
    elif ff < sf and cfg.causal:
        flops = (f"Flash does fewer flops here ({ff:.3f} against {sf:.3f} GFLOPs) only because the causal "
                 "mask lets it skip tiles above the diagonal, which standard attention computes and then "
                 "masks; without a mask the two are equal.")
    else:
        flops = f"Flash does {ff:.3f} GFLOPs against standard attention's {sf:.3f}."
    note = overflow_note(cfg.without_bugs())
    if fb < sb:
        # "where they part" only when they do: at tiles near d the cut is a few percent
        lead = "Traffic is where they part" if sb / fb >= 1.5 else "Traffic barely parts at these tiles"
        traffic = f"{lead}: flash moves {compare(sb, fb)} ({fb:.2f} against {sb:.2f} MB)."
    elif fb > sb:
        # the re-reads are a cause where flash moves more even without the overflow (note says how much)
        moved = costs.flash_cost(cfg.without_bugs()).moved * cfg.element_bytes / MB
        traffic = (f"At these tiles flash moves more bytes than standard attention ({fb:.2f} against "
                   f"{sb:.2f} MB)" + (f": {_reread(cfg)}." if not note or moved > sb else "."))
    else:
        traffic = f"Traffic is equal too, {fb:.2f} MB each."
    return f"{flops} {traffic}" + (f" {note}" if note else "")
