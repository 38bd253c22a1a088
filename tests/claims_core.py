"""The claims tests' machinery (tests/test_claims.py runs it; the per-lesson checks live in
tests/claims_idea.py, claims_algorithm.py, claims_tested.py, claims_hardware.py and claims_schedule.py):
reading numbers back out of sentences at the precision they were printed with, `Claims` (a rendered
lesson, its text, and the counting `expect`), rendering a lesson with its question revealed, and the
checks every page must pass (regimes, the overflow note, the overflow banner).
"""
from __future__ import annotations

import re
from urllib.parse import urlencode

from explorer.lessons import LESSONS
from flashviz.model import costs
from flashviz.model.config import Config, DTYPE_BYTES, KB, MB, tensor_dtype, TILE_SIZES
from flashviz.model.memory import fits, working_set
from tests.claims_settings import engine_config, url
from tests.test_app import open_page


# ---------------------------------------------------------------------------------------------
# Reading numbers back out of sentences, at the precision they were printed with.

NUM = r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?"
UNITS = {"B": 1, "KB": KB, "MB": MB, "GB": 2**30, "TB": 2**40, "PB": 2**50}


def number(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def half_unit(text: str) -> float:
    """Half a unit in the last printed place: how far a correctly rounded figure may be off."""
    mantissa, _, exp = text.replace(",", "").partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))


def agrees(shown: str, value: float) -> bool:
    return abs(number(shown) - value) <= half_unit(shown) + 1e-9 * abs(value)


def bytes_of(shown: str) -> tuple[float, float]:
    """ "4.25 MB" -> (bytes, half a unit in bytes)."""
    figure, unit = shown.split()
    return number(figure) * UNITS[unit], half_unit(figure) * UNITS[unit]


def same_bytes(shown: str, value: float) -> bool:
    b, tol = bytes_of(shown)
    return abs(b - value) <= tol + 1e-9 * value


def compare_words(base: float, other: float) -> tuple[str, float]:
    """The engine's direction and ratio for `other` against `base`."""
    if abs(other - base) <= 1e-9 * max(base, other):
        return "same", 1.0
    return ("fewer", base / other) if other < base else ("more", other / base)


COMPARE = rf"(?:(?P<ratio>{NUM})× (?P<word>fewer|more)|(?P<pct>{NUM})% (?P<pword>fewer|more)|the (?P<same>same))"


class Claims:
    """Finds sentences on one rendered page and checks them; counts what it checked."""

    def __init__(self, page: str, params: dict, at):
        self.page, self.params, self.at, self.count = page, params, at, 0
        # the revealed question's answer and why line, kept apart from the lesson's own sentences
        self.shown, self.why = answer(at)
        self.parts = page_parts(at)
        for line in (self.shown, self.why):
            if line:
                self.parts.remove(line)
        self.text = "\n".join(self.parts)

    def where(self) -> str:
        return f"{self.page}?{urlencode(url(self.params))}"

    def expect(self, condition, message: str) -> None:
        assert condition, f"{message}\n  at {self.where()}"

    def find(self, pattern: str, text: str | None = None, required: bool = True):
        """The first match of a sentence pattern; counted as one checked sentence."""
        m = re.search(pattern, self.text if text is None else text)
        self.expect(m or not required, f"expected a sentence matching {pattern!r}; the page says:\n"
                                       f"{(self.text if text is None else text)[:1500]}")
        if m:
            self.count += 1
        return m

    def find_all(self, pattern: str, text: str | None = None):
        found = list(re.finditer(pattern, self.text if text is None else text))
        self.count += len(found)
        return found

    def metric(self, label: str) -> str:
        values = [m.value for m in self.at.metric if m.label == label]
        self.expect(values, f"no metric {label!r}; metrics: {[m.label for m in self.at.metric]}")
        self.count += 1
        return values[0]

    def ratio_claim(self, m, base: float, other: float, what: str) -> None:
        """A compare() phrase against the engine: direction, and the ratio at its printed precision."""
        word, ratio = compare_words(base, other)
        said = "same" if m.group("same") else m.group("word") or m.group("pword")
        self.expect(said == word, f"{what}: the page says {m.group(0)!r}, the engine {word} "
                                  f"({base:.6g} -> {other:.6g}, ratio {ratio:.4g})")
        if m.group("pct"):
            self.expect(ratio < 1.01 and agrees(m.group("pct"), 100 * abs(other / base - 1)),
                        f"{what}: the page says {m.group(0)!r}, the engine's change is {other / base - 1:+.4%}")
        if m.group("ratio"):
            self.expect(agrees(m.group("ratio"), ratio),
                        f"{what}: the page says {m.group(0)!r}, the engine's ratio is {ratio:.4g}")

    def regime(self, said: str, bytes_per_flop: float, balance: float, what: str) -> None:
        engine = "memory" if bytes_per_flop > balance else "compute"
        self.expect(said.lower() == engine, f"{what}: the page says {said}-bound, the engine {engine}-bound "
                                            f"({bytes_per_flop:.4g} bytes/flop against {balance:.4g})")


def page_parts(at) -> list[str]:
    """What a reader sees as sentences, element by element (tables left out: they hold raw
    floats, NaN included)."""
    parts = [str(e.value) for e in at.markdown] + [str(e.value) for e in at.caption]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [str(e.value) for kind in ("warning", "info", "success", "error") for e in at.get(kind)]
    return parts


def answer(at) -> tuple[str, str]:
    """The lesson's revealed question: the line with the engine's answer and the why line under it
    ("", "" when no question was revealed)."""
    md = [str(e.value) for e in at.markdown]
    k = next((i for i, v in enumerate(md) if v.startswith(("**The engine says:**", "**You said:**"))), None)
    return ("", "") if k is None else (md[k], md[k + 1])


def render(page: str, params: dict):
    """The lesson at these settings, its question revealed: the why line is a claim too."""
    at = open_page(page, **url(params))
    reveal = [b for b in at.button if b.key == "reveal_answer"]
    at.asked = bool(reveal)  # lesson 11 asks nothing where its kernel cannot launch on the GPU chosen
    if reveal:
        reveal[0].click().run()
        assert not at.exception, [e.value for e in at.exception]
    return at


# ---------------------------------------------------------------------------------------------
# Checks every page must pass.

# "<method> ... memory-bound" (a decimal point may sit between) or "Memory-bound: <method>"
REGIME_ABOUT = [r"\b(?P<method>standard attention|flash)\b(?:[^.;:\n]|\.(?=\d)){0,60}?"
                r"\b(?P<regime>memory|compute)-bound",
                r"\b(?P<regime>Memory|Compute)-bound[^.;\n]{0,20}?\b(?P<method>standard attention|flash)\b"]


BYTES = rf"{NUM} (?:B|KB|MB|GB|TB|PB)"
SHARE = rf"(?:>99|{NUM})%"
# claims.overflow_note: the sentences beside any statement of flash's traffic while the tiles overflow
OVERFLOW_NOTE = (rf"(?P<share>{SHARE}) of flash's (?P<flash>{BYTES}) is overflow, not the algorithm: its "
                 rf"(?P<Br>\d+) × (?P<Bc>\d+) tiles need (?P<ws>{BYTES}) of SRAM, over the (?P<budget>{BYTES}) "
                 r"budget, and the seed's model charges what does not fit to HBM\. A real kernel does not spill "
                 r"shared memory: one whose tiles overflow it does not launch "
                 r"\(\[FlashAttention-2, §3\.3\]\([^)]+\)\); without the overflow flash moves "
                 rf"{COMPARE} bytes than standard attention\.")
BANNER = (rf"\*\*These (\d+) × (\d+) tiles do not fit in SRAM\*\*: at d = (\d+) in (\w+) they need ({BYTES}), "
          rf"over the ({BYTES}) budget M \(the seed's, not a GPU's limit: lesson 1 lists each GPU's\)\. A real "
          r"kernel does not spill shared memory: one whose tiles overflow it does not launch "
          rf"\(\[FlashAttention-2, §3\.3\]\([^)]+\)\); this model charges the overflow to HBM, ({SHARE}) of "
          r"flash's traffic at n = (\d+)\. \[\*model: spill charged to HBM\*\]\(#model-spill\)")


def share_agrees(shown: str, part: float, whole: float) -> bool:
    """A percent printed by claims.share_text against part / whole."""
    pct = 100 * part / whole
    if shown == ">99%":
        return 99 < pct < 100
    return 0 < pct and agrees(shown.rstrip("%"), pct)


def overflows(cfg: Config) -> bool:
    return not fits(working_set(cfg.Br, cfg.Bc, cfg.d) * cfg.element_bytes, cfg.sram_bytes)


def check_overflow_note(ck: Claims, m, cfg: Config) -> None:
    """One overflow note against the engine, at the tiles it names (cut to cfg's n)."""
    at = cfg.with_tiles(int(m.group("Br")), int(m.group("Bc")))
    std, flash = costs.standard_cost(at), costs.flash_cost(at)
    ws = working_set(at.Br, at.Bc, at.d) * at.element_bytes
    ck.expect((at.Br, at.Bc) == (int(m.group("Br")), int(m.group("Bc"))) and overflows(at),
              f"{m.group(0)!r}: {at.Br} × {at.Bc} tiles need {ws} B of {at.sram_bytes}")
    ck.expect(share_agrees(m.group("share"), flash.spilled, flash.hbm_elements)
              and same_bytes(m.group("flash"), flash.hbm_bytes) and same_bytes(m.group("ws"), ws)
              and same_bytes(m.group("budget"), at.sram_bytes),
              f"{m.group(0)!r}: {flash.spilled} of {flash.hbm_elements} elements spill, {ws} B of {at.sram_bytes}")
    ck.ratio_claim(m, std.hbm_bytes, flash.moved * at.element_bytes, "without the overflow")


def check_banner(ck: Claims) -> None:
    """Every lesson opens with the overflow banner exactly while the sidebar's tiles do not fit, and
    its button offers the largest square tiles that do."""
    tiles = next(lesson.tiles for lesson in LESSONS if lesson.file == ck.page)
    cfg = engine_config(ck.params)
    if tiles == "tensor":
        cfg = cfg.with_(dtype=tensor_dtype(cfg.dtype))
    banners = [str(w.value) for w in ck.at.warning if "do not fit in SRAM" in str(w.value)]
    fix = [b.label for b in ck.at.button if b.key == "fix_tiles"]
    over = overflows(cfg) and tiles != "own"
    ck.expect(len(banners) == len(fix) == int(over), f"{len(banners)} banners, {len(fix)} fix buttons; "
              f"{cfg.Br} × {cfg.Bc} tiles at d = {cfg.d} in {cfg.dtype} overflow {cfg.sram_bytes} B: {over}")
    ck.count += 1
    if not over:
        return
    m = ck.find(BANNER, banners[0])
    flash = costs.flash_cost(cfg)
    ws = working_set(cfg.Br, cfg.Bc, cfg.d) * cfg.element_bytes
    ck.expect((int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), int(m.group(8)))
              == (cfg.Br, cfg.Bc, cfg.d, cfg.dtype, cfg.n), f"banner settings {m.group(0)!r}")
    ck.expect(same_bytes(m.group(5), ws) and same_bytes(m.group(6), cfg.sram_bytes)
              and share_agrees(m.group(7), flash.spilled, flash.hbm_elements),
              f"{m.group(0)!r}: {ws} B of {cfg.sram_bytes}, {flash.spilled} of {flash.hbm_elements} elements spill")
    b = max(b for b in TILE_SIZES if b <= cfg.n and fits(working_set(b, b, cfg.d) * cfg.element_bytes,
                                                          cfg.sram_bytes))
    ck.expect(fix == [f"Use {b} × {b} tiles, the largest that fit"], f"fix button {fix}: {b} × {b} fit")


def check_generic(ck: Claims) -> None:
    check_banner(ck)
    for m in re.finditer(OVERFLOW_NOTE, "\n".join([*ck.parts, ck.why])):
        check_overflow_note(ck, m, engine_config(ck.params))
        ck.count += 1
    title = ck.at.title[0].value if ck.at.title else ""
    ck.expect(not re.search(r"\b(less|fewer|more|faster|slower|cheaper)\b", title),
              f"the title {title!r} states a direction that no setting can change")
    text = "\n".join([ck.text, ck.why])
    # One regime per method and precision on a page.
    said = {}
    for paragraph in [*ck.parts, ck.why]:  # one page element: a dtype named in it is the regime's precision
        dtype = next((t for t in DTYPE_BYTES if t in paragraph), None)
        for pattern in REGIME_ABOUT:
            for m in re.finditer(pattern, paragraph):
                key = (m.group("method"), dtype)
                said.setdefault(key, set()).add(m.group("regime").lower())
    for key, regimes in said.items():
        ck.expect(len(regimes) == 1, f"contradictory regimes for {key}: {sorted(regimes)}")
    ck.count += len(said)
    for m in re.finditer(rf"(?<![\d.])({NUM})× (fewer|more)", text):
        ck.expect(number(m.group(1)) > 1, f"a ratio of at most 1 with a direction: {m.group(0)!r}")
    zero_ratio = re.findall(r".{0,40}(?<![\d.])0(?:\.0+)?×", text)
    ck.expect(not zero_ratio, f"a zero ratio: {zero_ratio}")
    zero = re.findall(r".{0,60}(?<![\d.])0\.0+ (?:MB|KB)\b.{0,20}", text)
    ck.expect(not zero, f"a zero size printed: {zero}")
    # a time is a figure a reader reads, not code: "2.51e+04 µs" at a large n (format.figure_text)
    coded = re.findall(r".{0,40}\d(?:\.\d+)?e[+-]?\d+\**\s*(?:µs|ms|ns)\b", text)
    ck.expect(not coded, f"a time with an exponent: {coded}")
    missing = re.findall(r".{0,40}(?:\b(?:nan|inf|None)\s*(?:×|%|B\b|KB|MB|GB|TB|flop|TFLOP|ms\b|bytes)"
                         r"|(?:=|:)\s*(?:nan|None)\b).{0,20}", text)
    ck.expect(not missing, f"no number where one is expected: {missing}")
    none = re.findall(r".{0,40}\bNone\b.{0,20}", text)
    ck.expect(not none, f"'None' on the page: {none}")
