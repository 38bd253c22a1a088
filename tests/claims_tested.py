"""The claims of the algorithm put to the test (lessons 7 to 9: flops against bytes, FlashAttention-2
and -1, break it), each sentence against the engine; and the why lines of their questions.
"""
from __future__ import annotations

import math
import re

import numpy as np

from flashviz.model import costs
from flashviz.model.config import Config, KB, MB
from flashviz.model.memory import fits, working_set
from flashviz.run.attention import online_softmax, random_row
from flashviz.teach.bugs import BUGS, NOISE, OVERFLOW_ROW
from tests.claims_settings import engine_config
from tests.claims_core import agrees, BYTES, Claims, COMPARE, NUM, number, overflows, same_bytes, SHARE, share_agrees
from tests.claims_algorithm import moved_when_halved, unchanged_by_halving, flash_moves_metric


def flash_n2_coefficient(cfg: Config) -> float:
    """Flash's elements moved per n² for long rows, from costs.flash_cost itself: moved(2n) − 2 moved(n)
    = 2a n² for moved = a n² + b n (n a multiple of both tiles, large enough that the census is quadratic)."""
    n = 64 * math.lcm(cfg.Br, cfg.Bc)
    at = {k: costs.flash_cost(cfg.with_(n=k, keep_full_S=False)).moved for k in (n, 2 * n)}
    return (at[2 * n] - 2 * at[n]) / (2 * n * n)


def check_same_flops(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    std, flash = flash_moves_metric(ck, cfg)
    equal = ck.find(rf"\*\*The flop counts are equal\*\*, to the last flop \(([\d,]+)\); flash moves\s+"
                    rf"{COMPARE} bytes than standard attention", required=False)
    fewer = ck.find(rf"flash skips every fully masked tile and does\s+([+−]{NUM})% flops", required=False)
    ck.expect(bool(equal) != bool(fewer), "exactly one of 'equal' / 'skips' is shown")
    every = "#### Every multiply standard attention does, the tiled version does too." in ck.text
    ck.expect(every == (std.flops == flash.flops), f"'Every multiply … does too' shown: {every}, flops "
              f"{std.flops:,} against {flash.flops:,}")
    over = overflows(cfg)
    for said, what in (("is overflow, not the algorithm" in ck.text, "the overflow note"),
                       ("plus the overflow while the tiles do not fit" in ck.text, "the formula's overflow")):
        ck.expect(said == over, f"{what} shown: {said}; the tiles overflow: {over}")
    ck.count += 3
    # the traffic formula of the sidebar's loop order, then where its n² terms cross standard's
    ck.find(r"The bytes are another matter: each query block re-reads all of K and V, so flash moves about "
            r"\(2 \+ 2n/Br\)·n·d" if cfg.loop_order == "fa2" else
            r"The bytes are another matter: in the paper's order each key/value block re-reads Q and O")
    # the crossover of the n² terms, where flash's n² coefficient (read off costs.flash_cost at two long
    # n, mask and all) meets standard's 4: it falls as 1/tile, so the edge is tile × coefficient / 4
    tile = cfg.Br if cfg.loop_order == "fa2" else cfg.Bc
    edge = tile * flash_n2_coefficient(cfg) / 4
    m = ck.find(rf"here B[rc] = (\d+) is (above|not above) [^=]+ = ({NUM})")
    ck.expect(int(m.group(1)) == tile and abs(number(m.group(3)) / edge - 1) < 0.01
              and (m.group(2) == "above") == (tile > number(m.group(3))),
              f"{m.group(0)!r}: the tile is {tile}, the crossover {edge:.4g} "
              f"({'causal' if cfg.causal else 'no mask'}, {cfg.loop_order})")
    # the cut-by-block chart and table follow the mask, and say which
    cap = ck.find(r"Traffic cut at n = ([\d,]+), (with the causal mask|no mask), FlashAttention-2's order")
    ck.expect((cap.group(2) == "with the causal mask") == cfg.causal, f"{cap.group(0)!r}, causal {cfg.causal}")
    cut = next(df.value for df in ck.at.dataframe if "block / d" in df.value.columns)
    row = cut[(cut["d"] == 128) & (cut["block"] == 64)].iloc[0]
    at = Config.clamped(int(number(cap.group(1))), 64, 64, d=128, dtype=cfg.dtype, causal=cfg.causal)
    truth = costs.standard_cost(at).moved / costs.flash_cost(at).moved
    ck.expect(abs(row["traffic cut"] / truth - 1) < 1e-9, f"{cap.group(0)!r}: the table's cut at d = 128, block 64 "
              f"is {row['traffic cut']:.4g}, the engine's {truth:.4g} ({'causal' if cfg.causal else 'no mask'})")
    if not over and cfg.n >= 16 * cfg.d:  # long rows: the n² terms decide the direction
        ck.expect((tile > edge) == (flash.hbm_bytes < std.hbm_bytes) or abs(tile - edge) <= edge / 4,
                  f"{m.group(0)!r} but flash moves {flash.hbm_bytes:,} B against standard's {std.hbm_bytes:,} B")
    if equal:
        ck.expect(std.flops == flash.flops and number(equal.group(1)) == std.flops,
                  f"'The flop counts are equal' but standard {std.flops:,} vs flash {flash.flops:,}")
        ck.ratio_claim(equal, std.hbm_bytes, flash.hbm_bytes, "flash moves (sentence)")
    else:
        ck.expect(std.flops != flash.flops and cfg.causal,
                  f"flops {std.flops:,} vs {flash.flops:,}, causal {cfg.causal}")
        value = 100 * (flash.flops / std.flops - 1)
        shown = fewer.group(1)
        ck.expect(agrees(shown[1:], abs(value)) and (shown[0] == "+") == (value >= 0), f"{shown} vs {value:+.3f}%")


def check_fa2_fa1(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    fa2, fa1 = costs.flash_cost(cfg.with_(loop_order="fa2")), costs.flash_cost(cfg.with_(loop_order="fa1"))
    for pattern in (rf"the paper's order \(FA1\) moves\s+\*\*{COMPARE} bytes\*\* than FlashAttention-2's",
                    rf"here the FA1 order moves {COMPARE} bytes\)"):
        ck.ratio_claim(ck.find(pattern), fa2.hbm_bytes, fa1.hbm_bytes, "FA1 against FA2")
    m = ck.find(r"With (\d+) × (\d+) tiles, the paper's order")
    ck.expect((int(m.group(1)), int(m.group(2))) == (cfg.Br, cfg.Bc), f"tiles {m.group(0)!r}")
    for order, tile, pattern in (("fa2", "Bc", r"the FA2 order's traffic does not depend on Bc"),
                                 ("fa1", "Br", r"the FA1 order's does not depend on Br")):
        shown = pattern.replace("\\", "") in ck.text
        c = cfg.with_(loop_order=order)
        # said only without a mask, where the closed form has no Bc (fa2) or Br (fa1) at all
        ck.expect(shown == (not cfg.causal and unchanged_by_halving(c, tile)),
                  f"{pattern!r} shown: {shown}; tile traffic {order} before/after halving {tile}: "
                  f"{moved_when_halved(c, tile)}")
        ck.count += 1
    ratio = fa1.nonmatmul / fa2.nonmatmul
    ck.expect(agrees(ck.metric("non-matmul, FA1 ÷ FA2").rstrip("×"), ratio), f"non-matmul ratio {ratio:.4f}")
    m = ck.find(rf"Here that is\s+({NUM})× the non-matmul work")
    ck.expect(agrees(m.group(1), ratio), f"non-matmul ratio {ratio:.4f}: {m.group(0)!r}")
    full, kept = costs.census(cfg.n, cfg.Br, cfg.Bc, False).tiles, costs.census(cfg.n, cfg.Br, cfg.Bc, True).tiles
    ck.expect(ck.metric("a causal mask skips") == f"{full - kept} / {full} tiles", f"{full - kept} of {full} skipped")
    on, off = cfg.with_(causal=True), cfg.with_(causal=False)
    m = ck.find(rf"With the mask \((on now|off now)[^)]*\), \*\*(\d+)\*\* of \*\*(\d+)\*\* tiles are "
                rf"computed: flops × ({NUM}), traffic × ({NUM})")
    ck.expect((m.group(1) == "on now") == cfg.causal, f"{m.group(1)} with causal={cfg.causal}")
    ck.expect((int(m.group(2)), int(m.group(3))) == (kept, full), f"{kept} of {full} tiles: {m.group(0)!r}")
    ck.expect(agrees(m.group(4), costs.flash_cost(on).flops / costs.flash_cost(off).flops), "flops ratio")
    ck.expect(agrees(m.group(5), costs.flash_cost(on).hbm_bytes / costs.flash_cost(off).hbm_bytes), "traffic ratio")


# Lesson 9: the lab runs at the simulated n (ui.simulable with tiles of 16 included).

def lab_config(p: dict) -> Config:
    full = engine_config(p)
    b = min(full.Br, full.Bc, 16)
    n = min(full.n, 2048, int(64 * b))
    return full if n == full.n else full.at_n(n)


def _than(a, b):
    return "above" if a > b else "below" if a < b else "equal to"


SETTINGS = r"\(n = (\d+), d = (\d+), (\d+) × (\d+) tiles, ([\d.]+) KB SRAM, (\w+)(, causal)?\)"


def _settings_match(ck, m, cfg):
    said = (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), float(m.group(5)),
            m.group(6), bool(m.group(7)))
    real = (cfg.n, cfg.d, cfg.Br, cfg.Bc, cfg.sram_bytes / KB, cfg.dtype, cfg.causal)
    ck.expect(said == real, f"settings {said} vs the lab's {real}")


def lab_overflow(ck: Claims, here: str, cfg: Config) -> None:
    """The lab's sentence naming the overflow in one run's traffic (bugs._overflow), iff it overflows."""
    m = ck.find(rf"({SHARE}) of the ({BYTES}) with {cfg.Br} x {cfg.Bc} tiles is overflow: they need ({NUM}) KB "
                rf"of SRAM, over the ({NUM}) KB budget", here, required=False)
    ck.expect(bool(m) == overflows(cfg), f"{cfg.Br} x {cfg.Bc} overflow named: {bool(m)}, overflows: "
              f"{overflows(cfg)}: {here!r}")
    if m:
        cost = costs.flash_cost(cfg)
        ck.expect(share_agrees(m.group(1), cost.spilled, cost.hbm_elements) and same_bytes(m.group(2), cost.hbm_bytes)
                  and agrees(m.group(3), cost.working_set_bytes / KB) and agrees(m.group(4), cfg.sram_bytes / KB),
                  f"{m.group(0)!r}: {cost.spilled} of {cost.hbm_elements} spill, {cost.working_set_bytes} B")


def check_bug(ck: Claims, key: str, here: str, cfg: Config, table) -> None:
    std = costs.standard_cost(cfg)
    if key == "no_rescale":
        m = ck.find(rf"Weights sum to ({NUM}) instead of ({NUM})", here)
        broken = online_softmax(random_row(), 8, rescale=False).sum()
        ck.expect(agrees(m.group(1), broken) and agrees(m.group(2), 1.0), f"sums {m.group(0)!r} vs {broken:.6f}")
    elif key == "tiles_too_big":
        b = cfg.with_tiles(512, 512).Br
        big = costs.flash_cost(cfg.with_tiles(b, b))
        ws = working_set(b, b, cfg.d) * cfg.element_bytes
        fit = ck.find(rf"(\d+) x (\d+) tiles need ({NUM}) KB: they fit the ({NUM}) KB budget at these settings, "
                       rf"so nothing spills \(({BYTES}) in all\)", here, required=False)
        spills = ck.find(rf"(\d+) x (\d+) tiles need ({NUM}) KB against a ({NUM}) KB budget; with the spill, "
                         rf"traffic is ({BYTES}), (above|below|equal to) standard attention's ({BYTES})", here,
                         required=False)
        m = fit or spills
        ck.expect(m, f"no too-big sentence in {here!r}")
        ck.expect(bool(fit) == fits(ws, cfg.sram_bytes), f"{b} x {b} needs {ws} B of {cfg.sram_bytes}: {m.group(0)!r}")
        ck.expect(int(m.group(1)) == b and agrees(m.group(3), ws / KB) and same_bytes(m.group(5), big.hbm_bytes),
                  f"{m.group(0)!r}: {b} x {b}, {ws / KB:.2f} KB, {big.hbm_bytes / MB:.3f} MB")
        if fit:
            ck.expect(big.spilled == 0, f"'nothing spills' but {big.spilled} elements spill")
        else:
            ck.expect(m.group(6) == _than(big.hbm_bytes, std.hbm_bytes) and same_bytes(m.group(7), std.hbm_bytes),
                      f"{m.group(0)!r}: {big.hbm_bytes / MB:.3f} vs standard {std.hbm_bytes / MB:.3f} MB")
            ck.expect("A real kernel does not spill shared memory: one whose tiles overflow it does not launch" in here,
                      f"the seed's spill without what a real kernel does: {here!r}")
    elif key == "tiles_too_small":
        b = cfg.with_tiles(16, 16).Br
        small, now = costs.flash_cost(cfg.with_tiles(b, b)), costs.flash_cost(cfg)
        m = ck.find(rf"With (\d+) x (\d+) tiles traffic is ({BYTES}) \(({BYTES}) with (\d+) x (\d+)\), "
                    rf"(above|below|equal to) standard attention's ({BYTES})", here)
        ck.expect(int(m.group(1)) == b and same_bytes(m.group(3), small.hbm_bytes)
                  and same_bytes(m.group(4), now.hbm_bytes) and same_bytes(m.group(8), std.hbm_bytes),
                  f"{m.group(0)!r}: {small.hbm_bytes / MB:.3f}, {now.hbm_bytes / MB:.3f}, {std.hbm_bytes / MB:.3f} MB")
        ck.expect(m.group(7) == _than(small.hbm_bytes, std.hbm_bytes), f"{m.group(0)!r}: direction")
        for tiles in {cfg.with_tiles(b, b), cfg}:  # each run's overflow is named where its tiles do not fit
            lab_overflow(ck, here, tiles)

    elif key == "keep_full_S":
        a, b = costs.flash_cost(cfg).peak_bytes, costs.flash_cost(cfg.with_(keep_full_S=True)).peak_bytes
        grows = ck.find(rf"goes from ({NUM}) KB to ({NUM}) KB: ({NUM}) times as much", here, required=False)
        stays = ck.find(rf"stays at ({NUM}) KB", here, required=False)
        ck.expect(bool(grows) == (b > a) and bool(stays) == (b <= a), f"peak {a} -> {b} B: {here!r}")
        if grows:
            ck.expect(agrees(grows.group(1), a / KB) and agrees(grows.group(2), b / KB)
                      and agrees(grows.group(3), b / a), f"{grows.group(0)!r}: {a / KB} -> {b / KB} KB")
    elif key == "no_max":
        with np.errstate(over="ignore", invalid="ignore"):
            nans = int(np.isnan(online_softmax(np.array(OVERFLOW_ROW), 2, subtract_max=False)).sum())
        m = ck.find(r"(\d+) of (\d+) weights come back nan", here)
        ck.expect((int(m.group(1)), int(m.group(2))) == (nans, len(OVERFLOW_ROW)), f"{m.group(0)!r} vs {nans}")
        row = table.set_index("figure").loc["output max abs error"]
        err, ref = float(row["with the bug"]), float(row["correct"])  # printed to 3 figures
        small = ck.find(rf"the output error stays at ({NUM}|nan|inf)", here, required=False)
        limit = max(ref, NOISE)
        if not math.isfinite(err) or err > limit * 1.006:
            ck.expect(not small, f"'stays at' with the error {err} above {limit}: {here!r}")
        elif err < limit * 0.994:
            ck.expect(small, f"the error {err} is within {limit}, yet: {here!r}")


WATCH = {
    "tiles_too_big": (rf"gauge (turns red|stays green).*?needs ({NUM}) KB,? (?:against a|within the) ({NUM}) KB",
                      lambda m: number(m.group(2)) >= number(m.group(3)) if m.group(1) == "turns red"
                      else number(m.group(2)) <= number(m.group(3))),
    "tiles_too_small": (rf"meter ends at ({NUM}) KB, (above|below|equal to) standard attention's ({NUM}) KB",
                        lambda m: number(m.group(1)) == number(m.group(3))
                        or m.group(2) == _than(number(m.group(1)), number(m.group(3)))),
    "no_rescale": (r"moves in (\d+) of the (\d+) steps \(first at step (\d+)\)|nothing needed a rescale",
                   lambda m: m.group(1) is None or max(int(m.group(1)), int(m.group(3))) <= int(m.group(2))),
    "no_max": (rf"the largest score here is ({NUM})\. (?:Watch step (\d+) of (\d+)|Nothing overflows)",
               lambda m: m.group(2) is None or int(m.group(2)) <= int(m.group(3))),
}


def check_break_it(ck: Claims, p: dict) -> None:
    cfg, full = lab_config(p), engine_config(p)
    chosen = [k for k in BUGS if p[f"bug_{k}"]]
    blocks = [e.value for e in ck.at.markdown if e.value.startswith("**The edit:**")]
    tables = [e.value for e in ck.at.dataframe if "with the bug" in e.value.columns]
    ck.expect(len(blocks) == len(tables) == len(chosen), f"{len(blocks)} bug blocks for {chosen}")
    for key, block, table in zip(chosen, blocks, tables):
        ck.expect(BUGS[key].change in block, f"bug {key} out of order")
        m = ck.find(r"\*\*Here\*\* " + SETTINGS + r": (.*)$", block)
        _settings_match(ck, m, cfg)
        check_bug(ck, key, m.group(8), cfg, table)
        if p[f"watch_{key}"] and key in WATCH:
            pattern, holds = WATCH[key]
            w = ck.find(pattern)
            ck.expect(holds(w), f"watch note for {key}: {w.group(0)!r}")
    if p["belief_fewer_flops"]:
        check = {k: (c.flops, c.hbm_bytes) for k, c in (("std", costs.standard_cost(full)),
                                                        ("flash", costs.flash_cost(full)))}
        (sf, sb), (ff, fb) = check["std"], check["flash"]
        verdicts = [e.value for e in ck.at.markdown if e.value.startswith("**Here**")]
        ck.expect(len(verdicts) == 1, f"one belief verdict, found {len(verdicts)}")
        m = ck.find(r"\*\*Here\*\* " + SETTINGS + r": (.*)", verdicts[0])
        _settings_match(ck, m, full)
        verdict = m.group(8)
        equal = "The flops are equal" in verdict
        ck.expect(equal == (ff == sf), f"'{verdict}' with flops {sf:,} vs {ff:,}")
        if "Flash does fewer flops here" in verdict:
            ck.expect(ff < sf and full.causal, f"'fewer flops' with {sf:,} vs {ff:,}")
        t = re.search(rf"flash moves (?:({NUM})× |({NUM})% )?(fewer) bytes|flash moves (more) bytes|"
                      r"Traffic is (equal) too", verdict)
        ck.expect(t, f"no traffic verdict in {verdict!r}")
        word = "fewer" if t.group(3) else "more" if t.group(4) else "equal"
        ck.expect(word == ("fewer" if fb < sb else "more" if fb > sb else "equal"),
                  f"{t.group(0)!r}: flash {fb} B vs standard {sb} B")
        if t.group(1):
            ck.expect(agrees(t.group(1), sb / fb), f"{t.group(0)!r} vs {sb / fb:.3f}")
        if t.group(2):
            ck.expect(agrees(t.group(2), 100 * (1 - fb / sb)), f"{t.group(0)!r} vs {100 * (1 - fb / sb):.3f}%")
        ck.expect(("where they part" in verdict) == (fb < sb and sb / fb >= 1.5),
                  f"'where they part' in {verdict!r} at a ratio of {sb / max(fb, 1):.3f}")
        over = overflows(full)
        ck.expect(("is overflow, not the algorithm" in verdict) == over, f"overflow named in {verdict!r}: {over}")
        # the re-reads are named as the cause of more bytes, unless the overflow alone is
        moved = costs.flash_cost(full).moved * full.element_bytes
        reread = ("K and V are read again" if full.loop_order == "fa2" else "Q, O, m and l are read") in verdict
        ck.expect(reread == (fb > sb and (not over or moved > sb)),
                  f"re-reads named: {reread}; flash {fb} B ({moved} B without the overflow), standard {sb} B")
        ck.count += 2


def why_same_flops(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    std, flash = costs.standard_cost(cfg).flops, costs.flash_cost(cfg).flops
    both = ck.find(r"^Both do ([\d,]+) matmul flops", ck.why, required=False)
    ck.expect(bool(both) == (std == flash), f"'Both do' said: {bool(both)}; flops {std:,} against {flash:,}")
    if both:
        ck.expect(number(both.group(1)) == std, f"{both.group(0)!r}: {std:,}")
    else:
        m = ck.find(r"\(([\d,]+) against ([\d,]+)\)", ck.why)
        ck.expect((number(m.group(1)), number(m.group(2))) == (flash, std), f"{m.group(0)!r}: {flash:,}, {std:,}")


def why_fa2_fa1(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    fa2, fa1 = (costs.flash_cost(cfg.with_(loop_order=o)) for o in ("fa2", "fa1"))
    m = ck.find(rf"^FA2's order moves ({BYTES}), FA1's ({BYTES})\.", ck.why)
    ck.expect(same_bytes(m.group(1), fa2.hbm_bytes) and same_bytes(m.group(2), fa1.hbm_bytes), f"{m.group(0)!r}")
    both = ck.find(rf"Both include the same ({BYTES}) of overflow: its (\d+) × (\d+) tiles", ck.why, required=False)
    ck.expect(bool(both) == overflows(cfg), f"overflow named: {bool(both)}; the tiles overflow: {overflows(cfg)}")
    if both:
        ck.expect(fa2.spilled == fa1.spilled and same_bytes(both.group(1), fa2.spilled * cfg.element_bytes),
                  f"{both.group(0)!r}: {fa2.spilled} and {fa1.spilled} elements")
    best = ("the same bytes" if fa1.hbm_bytes == fa2.hbm_bytes else "FlashAttention-2's"
            if fa2.hbm_bytes < fa1.hbm_bytes else "the paper's")
    ck.expect(best in ck.shown, f"the answer {ck.shown!r}: FA2 {fa2.hbm_bytes} B, FA1 {fa1.hbm_bytes} B")


def kv_passes(cfg: Config) -> float:
    """Full passes over what flash re-reads, from its closed-form traffic: FA2 moves Q and O once
    and K, V (2nd elements a pass) per query block; FA1 sets up O, m, l (nd + 2n), reads K and V
    once (2nd) and moves (3d + 4) elements per query row per key/value block."""
    n, d, moved = cfg.n, cfg.d, costs.flash_cost(cfg).moved
    if cfg.loop_order == "fa2":
        return (moved - 2 * n * d) / (2 * n * d)
    return (moved - 3 * n * d - 2 * n) / ((3 * d + 4) * n)


def why_break_it(ck: Claims, p: dict) -> None:
    small = engine_config(p).with_tiles(16, 16)
    std, flash = costs.standard_cost(small).hbm_bytes, costs.flash_cost(small).hbm_bytes
    m = ck.find(rf"^Flash moves ({BYTES}) against standard's ({BYTES}): it (.+?), where standard attention "
                rf"instead writes and reads S and P, ({BYTES})\.", ck.why)
    ck.expect(same_bytes(m.group(1), flash) and same_bytes(m.group(2), std)
              and same_bytes(m.group(4), 4 * small.n ** 2 * small.element_bytes), f"{m.group(0)!r}")
    passes, blocks = kv_passes(small), (small.Tr if small.loop_order == "fa2" else small.Tc)
    said = m.group(3)
    every = re.search(r" (\d+) times, once per", said)
    about = re.search(rf" about ({NUM}) times over, as the mask lets each of the (\d+) ", said)
    ck.expect(bool(every) + bool(about) + ("once: there is one" in said) == 1, f"passes: {said!r}")
    if every:
        ck.expect(int(every.group(1)) == blocks and abs(passes - blocks) < 1e-9, f"{said!r}: {passes:.4g} passes")
    elif about:
        ck.expect(agrees(about.group(1), passes) and int(about.group(2)) == blocks and passes < blocks,
                  f"{said!r}: {passes:.4g} passes over {blocks} blocks")
    else:
        ck.expect(blocks == 1, f"{said!r}: {blocks} blocks")
    ck.expect(("is overflow, not the algorithm" in ck.why) == overflows(small), f"overflow named: {ck.why!r}")
    pick = ("about the same" if 0.95 <= flash / std <= 1.05 else "more than standard attention" if flash > std
            else "less than standard attention")
    ck.expect(pick in ck.shown, f"the answer {ck.shown!r}: flash {flash} B, standard {std} B")
