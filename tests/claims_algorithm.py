"""The claims of the algorithm (lessons 3 to 6: tiling, tile size and SRAM, the backward pass, exact
means exact), each sentence against the engine; and the why lines of their questions.
"""
from __future__ import annotations

import functools
import math
import re

from flashviz.model import costs
from flashviz.model.config import Config, KB, MB, TILE_SIZES
from flashviz.model.memory import clamp_tiles, fits, paper_block_sizes, working_set
from flashviz.teach.bugs import NOISE
from tests.claims_settings import engine_config
from tests.claims_core import (agrees, BYTES, Claims, COMPARE, compare_words, NUM, number, overflows, page_parts,
                               same_bytes, SHARE, share_agrees)


def flash_moves_metric(ck: Claims, cfg: Config):
    """The metric "flash moves, bytes" ("6.8× fewer") against the costs; returns them."""
    std, flash = costs.standard_cost(cfg), costs.flash_cost(cfg)
    m = re.fullmatch(COMPARE, ck.metric("flash moves, bytes"))
    ck.expect(m, "the metric 'flash moves, bytes' is not a compare() phrase")
    ck.ratio_claim(m, std.hbm_bytes, flash.hbm_bytes, "metric: flash moves")
    return std, flash


def _walk_follows_the_mask(ck: Claims, cfg) -> None:
    """Lessons 3 and 4 say how far a block's loop goes, and the streamed traffic, as the mask has it (issue 37's
    expert read: "walks every block" and "2nd·n/Br" with the causal mask on, where the loop stops at the diagonal)."""
    said = re.search(r"the loop walks (every block|the blocks) of Bc = \d+ keys( up to the diagonal)?|stays while "
                     r"(every block|the blocks) of Br = \d+ query rows( at or below the diagonal)?", ck.text)
    if said:  # lesson 3
        ck.count += 1
        ck.expect(bool(said.group(2) or said.group(4)) == cfg.causal, f"{said.group(0)!r}, causal = {cfg.causal}")
    if "halve B" in ck.text:  # lesson 4
        m = ck.find(rf"With the causal mask it stops at the diagonal: ({NUM}) of that here, towards half as n grows",
                    required=cfg.causal)
        ck.expect(bool(m) == cfg.causal, f"the mask's share said: {bool(m)}, causal = {cfg.causal}")
        if m:
            from flashviz.model.costs import census
            w = (lambda r, c: c) if cfg.loop_order == "fa2" else (lambda r, c: r)
            share = census(cfg.n, cfg.Br, cfg.Bc, True).total(w) / census(cfg.n, cfg.Br, cfg.Bc, False).total(w)
            big = census(1 << 20, cfg.Br, cfg.Bc, True).total(w) / census(1 << 20, cfg.Br, cfg.Bc, False).total(w)
            ck.expect(agrees(m.group(1), share) and share >= big > 0.5 - 1e-9 and big < 0.51,
                      f"{m.group(0)!r}: {share:.4f} here, {big:.4f} at n = 2^20")


def check_tiling(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    _walk_follows_the_mask(ck, cfg)
    std, flash = flash_moves_metric(ck, cfg)
    ck.expect(same_bytes(ck.metric("standard peak"), std.peak_bytes), f"standard peak {std.peak_bytes} B")
    ck.expect(same_bytes(ck.metric("flash peak"), flash.peak_bytes), f"flash peak {flash.peak_bytes} B")
    diff = ck.metric("max |diff|")
    ck.expect(re.fullmatch(NUM, diff) and number(diff) < 1e-9, f"flash against standard: {diff}")
    # the title, "same answer, flat memory": the answer is checked above; flash's peak is one tile's
    # working set, which does not grow with n
    ck.expect(flash.peak_bytes == working_set(cfg.Br, cfg.Bc, cfg.d) * cfg.element_bytes,
              f"flash's peak {flash.peak_bytes} B is not one tile's working set")
    ck.expect(("is overflow, not the algorithm" in ck.text) == overflows(cfg),
              f"the overflow note beside flash's bytes: shown {not overflows(cfg)}, tiles overflow {overflows(cfg)}")
    ck.count += 2


def check_tile_size(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    _walk_follows_the_mask(ck, cfg)
    eb = cfg.element_bytes
    blocks = [b for b in TILE_SIZES if 8 <= b <= cfg.n]  # every size offered, 96 and 192 too
    fitting = {b: costs.flash_cost(cfg.with_(Br=b, Bc=b)).moved for b in blocks
               if fits(working_set(b, b, cfg.d) * eb, cfg.sram_bytes)}
    best = ck.metric("best tile that fits")
    if not fitting:
        ck.expect(best == "none", f"no square tile fits {cfg.sram_bytes} B, the page says {best}")
    else:
        b = int(best.split(" × ")[0]) if best != "none" else None
        ck.expect(b in fitting and fitting[b] == min(fitting.values()),
                  f"best tile {best}; fitting tiles and traffic: {fitting}")
    Br, Bc = clamp_tiles(cfg.n, *paper_block_sizes(cfg.sram_elements, cfg.d))
    ck.expect(ck.metric("paper's Br × Bc") == f"{Br} × {Bc}", f"paper's rule gives {Br} × {Bc}")
    ws = working_set(Br, Bc, cfg.d) * eb
    m = ck.find(rf"that tile (fits|does not fit) this model's\s+working set \(({NUM}) KB against (\d+) KB\)")
    ck.expect((m.group(1) == "fits") == fits(ws, cfg.sram_bytes), f"{Br} × {Bc} needs {ws} B of {cfg.sram_bytes}")
    ck.expect(agrees(m.group(2), ws / KB), f"working set {ws / KB:.2f} KB: {m.group(0)!r}")
    # The loop-order paragraph: which tile the traffic depends on.
    if cfg.loop_order == "fa2":
        if ck.find(r"\(Bc does not enter it\.\)", required=False):
            ck.expect(unchanged_by_halving(cfg, "Bc"), "fa2 K/V traffic depends on Bc here "
                      f"({moved_when_halved(cfg, 'Bc')})")
        if cfg.Br > 1 and ck.find(r"halve Br, double the traffic", required=False):
            ck.expect(costs.flash_cost(cfg.with_(Br=cfg.Br // 2)).moved > costs.flash_cost(cfg).moved,
                      "halving Br does not raise the traffic")
    elif cfg.Bc > 1 and ck.find(r"Halve Bc, double the traffic", required=False):
        ck.expect(costs.flash_cost(cfg.with_(Bc=cfg.Bc // 2)).moved > costs.flash_cost(cfg).moved,
                  "halving Bc does not raise the traffic")
    check_io_theorem(ck, cfg)


def check_io_theorem(ck: Claims, cfg: Config) -> None:
    """Lesson 4's doubled budget: each loop order's count at the paper's rule's tiles for M and 2M,
    at the sweep's largest N, and the reason given for FlashAttention-2's."""
    top = int(ck.find(r"At N = ([\d,]+), N²d²/M halves").group(1).replace(",", ""))
    counts = {}
    for order in ("fa1", "fa2"):
        for m in (cfg.sram_bytes, 2 * cfg.sram_bytes):
            at = cfg.with_(sram_bytes=m, loop_order=order)
            counts[order, m] = costs.flash_cost(at.at_n(top, *paper_block_sizes(at.sram_elements, cfg.d))).hbm_elements
    said = ck.find(rf"the paper's order \(fa1\) makes\s+{COMPARE} accesses")
    ck.ratio_claim(said, counts["fa1", cfg.sram_bytes], counts["fa1", 2 * cfg.sram_bytes], "fa1 at 2M")
    said = ck.find(rf"FlashAttention-2's order makes\s+{COMPARE} accesses")
    ck.ratio_claim(said, counts["fa2", cfg.sram_bytes], counts["fa2", 2 * cfg.sram_bytes], "fa2 at 2M")
    Br, wide_Br = (paper_block_sizes(m, cfg.d)[0] for m in (cfg.sram_elements, 2 * cfg.sram_elements))
    if ck.find(r"the cap \(the Br × Bc scores must fit in SRAM beside a wide Bc\), not the order, is why "
               r"FlashAttention-2's count does not halve", required=False):
        ck.expect(Br == wide_Br == cfg.d, f"the rule's Br is {Br} at M and {wide_Br} at 2M, d = {cfg.d}")
    else:
        ck.find(rf"Br grows with M \({Br} → {wide_Br}\)")
    check_rule_br(ck, cfg, ck.text)


RULE_BR = (r"Br = min\(⌈M/4d⌉, d\) = min\((\d+), (\d+)\) = (\d+) at (\d+) KB and min\((\d+), (\d+)\) = (\d+) at "
           r"(\d+) KB: the cap binds at (both budgets|(\d+) KB only|neither budget)")


def check_rule_br(ck: Claims, cfg: Config, text: str) -> None:
    """FlashAttention's rule at M and 2M, its figures and where its cap binds, against Algorithm 1."""
    m = ck.find(RULE_BR, text)
    M = (cfg.sram_elements, 2 * cfg.sram_elements)
    q = [math.ceil(e / (4 * cfg.d)) for e in M]
    ck.expect([int(m.group(k)) for k in range(1, 9)]
              == [q[0], cfg.d, min(q[0], cfg.d), cfg.sram_bytes // KB, q[1], cfg.d, min(q[1], cfg.d),
                  2 * cfg.sram_bytes // KB], f"{m.group(0)!r}: ⌈M/4d⌉ = {q} at d = {cfg.d}")
    binds = [x > cfg.d for x in q]
    ck.expect(m.group(9) == ("both budgets" if all(binds) else f"{2 * cfg.sram_bytes // KB} KB only" if binds[1]
                             else "neither budget"), f"{m.group(0)!r}: ⌈M/4d⌉ = {q} against d = {cfg.d}")


def _halved(cfg: Config, tile: str) -> Config:
    size = getattr(cfg, tile)
    return cfg.with_(**{tile: size // 2 if size > 1 else min(2, cfg.n)})


def moved_when_halved(cfg, tile):
    return costs.flash_cost(cfg).moved, costs.flash_cost(_halved(cfg, tile)).moved


def unchanged_by_halving(cfg: Config, tile: str) -> bool:
    before, after = moved_when_halved(cfg, tile)
    return before == after


def check_backward(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    # the H200's measured forward and backward (bench/gpu/fa3_authors.py), at the sidebar's mask
    from flashviz.hardware.fa3_authors import backward_table
    bt = backward_table()
    bt = bt[bt["causal"] == cfg.causal]
    m = ck.find(rf"Over the (\d+) calls measured( with the causal mask)?, the backward\s+takes ({NUM})–({NUM})× the "
                rf"forward's time for\s+FlashAttention-3's design as its authors ship it .+?, ({NUM})–({NUM})× "
                rf"for cuDNN, NVIDIA's own\s+Hopper kernel\s+\(its code closed\), and ({NUM})–({NUM})× for PyTorch "
                rf"flash\s+\(FlashAttention-2's code\), against 2\.5 "
                rf"times the forward's matmul flops \(five matmuls against two\)\. At the longest\s+call \(n = "
                rf"([\d,]+)\) the authors' kernel's backward runs at\s+\*\*({NUM}) TFLOP/s\*\* and "
                rf"FlashAttention-2's at\s+\*\*({NUM})\*\*")
    wrong = re.search(r"FlashAttention-3's\s+own\s+(?!CUDA)\S+", ck.text)
    ck.expect(wrong is None, f"lesson 5 names flash-attn-4's kernel {wrong and wrong.group(0)!r}: it is the authors' "
              "port of FlashAttention-3's design, not FlashAttention-3's own CUDA code")
    ck.expect(not re.search(r"cuDNN's kernel of\s+the\s+same\s+design", ck.text), "lesson 5 calls cuDNN's kernel "
              "FlashAttention-3's design; it is NVIDIA's own (flash-attn-4 is the authors')")
    ratio = bt.groupby("kernel")["backward ÷ forward"]
    ck.expect(int(m.group(1)) == len(bt) // 3 and bool(m.group(2)) == cfg.causal, f"{m.group(0)!r}")
    for g, kernel in ((3, "FA3 (authors)"), (5, "cuDNN"), (7, "PyTorch flash")):
        ck.expect(agrees(m.group(g), ratio.min()[kernel]) and agrees(m.group(g + 1), ratio.max()[kernel]),
                  f"{m.group(0)!r}: {kernel} {ratio.min()[kernel]:.3f}–{ratio.max()[kernel]:.3f}")
    top = bt[bt["n"] == bt["n"].max()].set_index("kernel")
    ck.expect(int(m.group(9).replace(",", "")) == bt["n"].max()
              and agrees(m.group(10), top.loc["FA3 (authors)", "backward TFLOP/s"])
              and agrees(m.group(11), top.loc["PyTorch flash", "backward TFLOP/s"]), f"{m.group(0)!r}")
    tiles = cfg.with_(Bc=cfg.Br)
    flash_total = costs.flash_cost(tiles).flops + costs.flash_backward_cost(tiles).flops
    stored_total = costs.flash_cost(tiles).flops + costs.storing_backward_flops(tiles)
    std_total = costs.standard_cost(tiles).flops + costs.standard_backward_cost(tiles).flops
    recompute, against = 100 * (flash_total / stored_total - 1), 100 * (flash_total / std_total - 1)

    def pct(shown: str) -> float:
        return number(shown.replace("+", ""))

    for label, value in (("recomputing S, fwd + bwd", recompute), ("flash vs standard, flops", against)):
        shown = ck.metric(label)
        ck.expect(re.fullmatch(rf"[+−]{NUM}%", shown) and agrees(shown[1:-1], abs(value))
                  and (shown[0] == "+") == (value >= 0), f"{label}: the page says {shown}, the engine {value:+.3f}%")
    m = ck.find(rf"tile: five matmuls instead of four, ([+−]{NUM})% on the backward alone and\s+"
                rf"\*\*([+−]{NUM})%\*\*")
    ck.expect(abs(pct(m.group(2)) - recompute) <= 0.05 + 1e-9, f"recompute {m.group(2)} vs {recompute:+.3f}%")
    backward_only = 100 * (costs.flash_backward_cost(tiles).flops / costs.storing_backward_flops(tiles) - 1)
    ck.expect(abs(pct(m.group(1)) - backward_only) <= 0.05 + 1e-9, f"backward {m.group(1)} vs {backward_only:+.3f}%")
    if cfg.causal:
        m = ck.find(rf"(the skipped tiles\s+save more than the recompute costs|the skipped tiles\s+save less than "
                    rf"the recompute costs|with a single tile per query block nothing is skipped), so flash does "
                    rf"([+−]{NUM})%")
        ck.expect(abs(pct(m.group(2)) - against) <= 0.05 + 1e-9, f"{m.group(2)} vs {against:+.3f}%")
        skipped = (costs.census(cfg.n, cfg.Br, cfg.Br, False).tiles
                   - costs.census(cfg.n, cfg.Br, cfg.Br, True).tiles)
        said = re.sub(r"\s+", " ", m.group(1))
        truth = ("the skipped tiles save more than the recompute costs" if flash_total < std_total else
                 "the skipped tiles save less than the recompute costs" if skipped else
                 "with a single tile per query block nothing is skipped")
        ck.expect(said == truth, f"the page says '{said}', but flash does {flash_total:,} flops against "
                  f"standard's {std_total:,} ({against:+.1f}%) with {skipped} tiles skipped")
    else:
        m = ck.find(rf"so the recompute is the whole difference:\s+([+−]{NUM})%")
        ck.expect(abs(pct(m.group(1)) - against) <= 0.05 + 1e-9 and abs(against - recompute) < 1e-9,
                  f"{m.group(1)}: flash vs standard {against:+.3f}%, recompute {recompute:+.3f}%")
    std_kept, flash_kept = (costs.stored_for_backward(cfg, "standard"),
                            costs.stored_for_backward(cfg, "flash", include_O=True))
    m = ck.find(rf"flops for the recompute,?\s+(and )?keeps?\s+{COMPARE} bytes")
    ck.ratio_claim(m, std_kept, flash_kept, "stored for the backward")
    # a trade only where flash keeps fewer bytes; "no trade" where O, m and l weigh as much as P or more
    traded = ck.find(r"It is the trade `gradient_checkpointing=True` makes", required=False)
    ck.expect(bool(traded) == (flash_kept < std_kept), f"'trade' said: {bool(traded)}; flash keeps {flash_kept}, "
              f"standard {std_kept}")
    if not traded:
        ck.find(rf"Here it is no trade: at n = {cfg.n} and d = {cfg.d}, O, m and l \(n·d \+ 2n elements\) weigh as "
                r"much as\s+P \(n²\) or more")
    eb = cfg.element_bytes
    ck.expect(same_bytes(ck.metric("standard keeps"), costs.stored_for_backward(cfg, "standard") * eb),
              "standard keeps")
    ck.expect(same_bytes(ck.metric("flash keeps"), costs.stored_for_backward(cfg, "flash", include_O=True) * eb),
              "flash keeps (O included)")


def check_exact(ck: Claims, p: dict) -> None:
    n = min(p["n"], 2048)  # the lesson runs 64-wide tiles (cut to n) in NumPy at n <= 2048 (ui.simulable)
    window = min(p["ex_window"], n)
    ck.expect((f"the window is cut to n = {n}" in ck.text) == (p["ex_window"] > n),
              f"window {p['ex_window']} against n = {n}: the cut note")
    ck.count += 1
    flash = number(ck.metric("flash: max |diff|"))
    local = number(ck.metric(f"window {window}: max |diff|"))
    exact_too = ck.find(r"\(all of them at this n, so it is exact as well\)", required=False)
    ck.expect(bool(exact_too) == (window >= n), f"'exact as well' shown: {bool(exact_too)}, window {window}, n {n}")
    if window >= n:
        ck.expect(local <= NOISE, f"a window over every key should be exact, its error is {local:.2e}")
    ck.expect(flash <= NOISE, f"flash's error {flash:.2e}")
    apart = ck.metric("orders of magnitude apart")
    if local > NOISE:
        gap = max(0.0, math.log10(local / max(flash, 1e-300)))
        # both errors are printed to 3 figures: allow a rounding step either side
        ck.expect(re.fullmatch(r"\d+", apart) and abs(int(apart) - gap) <= 0.51, f"{apart} vs {gap:.2f} orders")
    else:
        ck.expect(apart == "none", f"the window is exact ({local:.2e}), yet orders apart = {apart}")
    check_precision(ck)


@functools.cache
def precision_truth():
    """Lesson 6's second half, recomputed here: the study at its setting and the H200's rows."""
    from flashviz.run import precision
    s = precision.study(precision.LESSON_N, precision.PAPER_D)
    data = precision.load_measured()
    return s, data, precision.side_by_side(s.errors, data, s.n, s.d)


LESS = rf"(?:(?P<ratio>{NUM})× (?P<word>less|more)|(?P<pct>{NUM})% (?P<pword>less|more)|the (?P<same>same))"
SIGNED = r"[+-]\d+\.\d+"


def less_claim(ck: Claims, m, base: float, other: float, what: str) -> None:
    """A compare(..., fewer="less") phrase against the engine: direction and ratio as printed."""
    word, ratio = compare_words(base, other)
    said = "same" if m.group("same") else (m.group("word") or m.group("pword")).replace("less", "fewer")
    ck.expect(said == word, f"{what}: the page says {m.group(0)!r}, the engine {word} ({base:.6g} -> {other:.6g})")
    if m.group("pct"):
        ck.expect(ratio < 1.01 and agrees(m.group("pct"), 100 * abs(other / base - 1)), f"{what}: {m.group(0)!r}")
    if m.group("ratio"):
        ck.expect(agrees(m.group("ratio"), ratio), f"{what}: {m.group(0)!r}, the engine's ratio is {ratio:.4g}")


def check_precision(ck: Claims) -> None:
    """The second half: its question (revealed here), then every sentence of a direction or a ratio."""
    from flashviz.run import precision
    s, data, side = precision_truth()
    e = {k: v.rmse for k, v in s.errors.items()}
    ck.expect(not any("Flash makes" in part for part in ck.parts), "the answer is shown before the guess")
    ck.at.button(key="reveal_inline_precision_fp16").click().run()
    ck.expect(not ck.at.exception, [x.value for x in ck.at.exception])
    text = "\n".join(page_parts(ck.at))
    # P in [0, 1] and exp of scores at or below 0 hold for the kernels measured (FlashAttention-2's), not for
    # FlashAttention-4's lagging max (up to 2^tau, lesson 2): an expert's read found "every kernel" said of both
    for claim in (r"exp only ever sees scores at or\s+below 0", r"lies between 0 and 1"):
        at = re.search(claim, text)
        ck.expect(at is not None and "lagging max" in text[at.start():at.start() + 400]
                  and not re.search(r"every kernel subtracts", text), f"lesson 6: {claim!r} without FlashAttention-4's "
                  "lagging max beside it")
    why = ck.find(rf"Standard attention's RMSE is ({NUM}), flash's ({NUM}): flash makes {LESS} error\.", text)
    ck.expect(agrees(why.group(1), e["standard_fp16"]) and agrees(why.group(2), e["flash_fp16"]), why.group(0))
    less_claim(ck, why, e["standard_fp16"], e["flash_fp16"], "the inline question's why")
    pick = ("about the same error" if 1 / 1.1 <= e["flash_fp16"] / e["standard_fp16"] <= 1.1 else
            "less error than standard attention" if e["flash_fp16"] < e["standard_fp16"] else
            "more error than standard attention")
    ck.find(rf"\*\*The engine says:\*\* {pick} \(", text)
    for pattern, base, other in (
            (rf"\*\*Flash makes {LESS} error than standard attention in fp16\*\* \(({NUM}) against ({NUM})\)",
             "standard_fp16", "flash_fp16"),
            (rf"and {LESS} error in bf16 \(({NUM}) against ({NUM})\)", "standard_bf16", "flash_bf16"),
            (rf"techniques makes {LESS} error than the baseline FP8 \(({NUM}) against ({NUM});",
             "fp8_baseline", "fp8_fa3")):
        m = ck.find(pattern, text)
        less_claim(ck, m, e[base], e[other], pattern[:30])
        ck.expect(agrees(m.groups()[-2], e[other]) and agrees(m.groups()[-1], e[base]), m.group(0))
    kernels = side[[c for c in side.columns if c.startswith("H200 ")]].div(side["emulated RMSE"], axis=0).stack()
    m = ck.find(rf"measure within ({NUM})% of the emulation", text)
    ck.expect(agrees(m.group(1), 100 * float((kernels - 1).abs().max())), m.group(0))
    # where each type overflows: the H200's rows at spreads 8 and 64
    at = {sp: data[(data["n"] == s.n) & (data["d"] == s.d) & (data["spread"] == sp)].set_index(["dtype", "impl"])
          for sp in (8.0, 64.0)}
    m = ck.find(r"the largest score here is ([\d,]+), and on the H200 PyTorch's plain path stored inf in S: "
                r"\*\*([\d,]+) of the ([\d,]+) outputs came out NaN\*\* \(the emulation: ([\d,]+)\)", text)
    plain64 = at[64.0].loc[("float16", "plain")]
    ck.expect(number(m.group(1)) == round(plain64["max_score"]) and number(m.group(1)) > 65504
              and number(m.group(2)) == plain64["nonfinite"] > 0 and number(m.group(3)) == s.n * s.d
              and number(m.group(4)) == plain64["emulated_nonfinite"], m.group(0))
    m = ck.find(rf"at 8× \(largest score ([\d,]+)\) the plain path makes {LESS} error than flash in bf16", text)
    eight = at[8.0]["rmse"]
    less_claim(ck, m, eight[("bfloat16", "flash")], eight[("bfloat16", "plain")], "bf16 at 8×")
    m = ck.find(rf"than flash in bf16, and {LESS} error in fp16\.", text)
    less_claim(ck, m, eight[("float16", "flash")], eight[("float16", "plain")], "fp16 at 8×")
    # FP8's two techniques on one row
    v = s.variants.set_index("key")
    top = f"score error, top {precision.TOP} keys (RMS)"
    m = ck.find(rf"Row (\d+) of Q holds an outlier, ({NUM})\. The rotation spreads it over all (\d+) coordinates: "
                rf"the row's largest entry falls from ({NUM}) to ({NUM})\.", text)
    ck.expect(int(m.group(1)) == s.row and agrees(m.group(2), float(abs(s.values).max()))
              and int(m.group(3)) == s.d and agrees(m.group(5), float(abs(s.rotated).max())), m.group(0))
    m = ck.find(rf"score errors (grow with|barely follow) the scores \(correlation ({SIGNED})\), and the 16 keys "
                rf"that win the softmax carry ({NUM}) RMS against ({NUM}) over every key; rotated, ({NUM}) "
                rf"\(correlation ({SIGNED})\): {LESS} error where", text)
    c0 = v.loc["fp8_neither", "error-score correlation"]
    ck.expect((m.group(1) == "grow with") == (abs(c0) >= 0.3) and agrees(m.group(2), c0)
              and agrees(m.group(3), v.loc["fp8_neither", top])
              and agrees(m.group(4), v.loc["fp8_neither", "score error, every key (RMS)"])
              and agrees(m.group(5), v.loc["fp8_no_block", top])
              and agrees(m.group(6), v.loc["fp8_no_block", "error-score correlation"]), m.group(0))
    less_claim(ck, m, v.loc["fp8_neither", top], v.loc["fp8_no_block", top], "the row's top scores")
    m = ck.find(r"(\d+) of Q's\s+(\d+) tiles have an outlier as their\s+largest entry, and the smallest tile "
                r"scale is (\d+)% of the tensor's", text)
    ck.expect((int(m.group(1)), int(m.group(2))) == (s.outlier_tiles, s.tiles)
              and abs(int(m.group(3)) - 100 * s.smallest_tile_scale) <= 0.5, m.group(0))


def why_tiling(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    std, flash = costs.standard_cost(cfg).hbm_bytes, costs.flash_cost(cfg).hbm_bytes
    m = ck.find(rf"^Standard moves ({BYTES}), flash ({BYTES}): flash moves {COMPARE} bytes\.", ck.why)
    ck.expect(same_bytes(m.group(1), std) and same_bytes(m.group(2), flash), f"{m.group(0)!r}: {std} B, {flash} B")
    ck.ratio_claim(m, std, flash, "question")
    outer = "once per query block" if cfg.loop_order == "fa2" else "once per key/value block"
    ck.expect(outer in ck.why, f"{cfg.loop_order}: flash re-reads {outer}, the answer says {ck.why!r}")
    ck.expect(("is overflow, not the algorithm" in ck.why) == overflows(cfg), f"overflow named: {ck.why!r}")
    ck.expect(f"{std / flash:.3g}×" in ck.shown, f"the answer {ck.shown!r}, the engine {std / flash:.3g}×")


def why_tile_size(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    runs = []
    for M in (cfg.sram_bytes, 2 * cfg.sram_bytes):
        at = cfg.with_(sram_bytes=M).with_tiles(*paper_block_sizes(M // cfg.element_bytes, cfg.d))
        runs.append((at, costs.flash_cost(at)))
    m = ck.find(rf"from (\d+) × (\d+) to (\d+) × (\d+) tiles; the traffic goes from ({BYTES}) to ({BYTES}) "
                rf"\(× ({NUM})\)", ck.why)
    (a, ca), (b, cb) = runs
    ck.expect([int(m.group(k)) for k in range(1, 5)] == [a.Br, a.Bc, b.Br, b.Bc]
              and same_bytes(m.group(5), ca.hbm_bytes) and same_bytes(m.group(6), cb.hbm_bytes)
              and agrees(m.group(7), cb.hbm_bytes / ca.hbm_bytes), f"{m.group(0)!r}: {a.Br} × {a.Bc} "
              f"{ca.hbm_bytes / MB:.3f} MB, {b.Br} × {b.Bc} {cb.hbm_bytes / MB:.3f} MB")
    # The question names the rule and the loop order, and the answer sets the other order beside this one,
    # so a cap that holds FlashAttention-2's order still is not read as "more SRAM does not help".
    names = {"fa2": "FlashAttention-2's order, query blocks outside", "fa1": "FlashAttention's order, key/value "
             "blocks outside"}
    prompt = str(next(e.value for e in ck.at.markdown if "Double the SRAM budget" in str(e.value)))
    ck.expect("FlashAttention's rule (its Algorithm 1: Bc = ⌈M/4d⌉, Br = min(⌈M/4d⌉, d))" in prompt
              and f"in {names[cfg.loop_order]}" in prompt, f"the question names no rule or order: {prompt!r}")
    other = "fa1" if cfg.loop_order == "fa2" else "fa2"
    there = []
    for M in (cfg.sram_bytes, 2 * cfg.sram_bytes):
        at = cfg.with_(sram_bytes=M, loop_order=other).with_tiles(*paper_block_sizes(M // cfg.element_bytes, cfg.d))
        there.append(costs.flash_cost(at).hbm_bytes)
    m = ck.find(rf"In {re.escape(names[other])}, the same two budgets give × ({NUM})\.", ck.why)
    ck.expect(agrees(m.group(1), there[1] / there[0]), f"{m.group(0)!r}: {other} gives {there[1] / there[0]:.4f}")
    ck.find(r"FlashAttention-2's kernels tune tiles of 64 or 128 each way .+?\[FlashAttention-2, §3\.3\]", ck.why)
    if cfg.loop_order == "fa2":
        check_rule_br(ck, cfg, ck.why)
    said = {int(k): (share, mb) for k, share, mb in re.findall(
        rf"At (\d+) KB, ({SHARE}) of the ({BYTES}) is overflow: its \d+ × \d+ tiles need", ck.why)}
    over = {at.sram_bytes // KB: cost for at, cost in runs if overflows(at)}
    ck.expect(set(said) == set(over), f"overflow named at {sorted(said)} KB; the paper's tiles overflow at "
              f"{sorted(over)} KB")
    for kb, (share, mb) in said.items():
        ck.expect(share_agrees(share, over[kb].spilled, over[kb].hbm_elements) and same_bytes(mb, over[kb].hbm_bytes),
                  f"at {kb} KB: {share} of {mb}")
    ck.count += len(said)


def why_backward(ck: Claims, p: dict) -> None:
    cfg = engine_config(p)
    m = ck.find(rf"on both sides: ({BYTES}) against ({BYTES})\.", ck.why)
    std = costs.stored_for_backward(cfg, "standard") * cfg.element_bytes
    flash = costs.stored_for_backward(cfg, "flash", include_O=True) * cfg.element_bytes
    ck.expect(same_bytes(m.group(1), std) and same_bytes(m.group(2), flash), f"{m.group(0)!r}: {std} B, {flash} B")


def why_exact(ck: Claims, p: dict) -> None:
    n = min(p["n"], 2048)
    every = "the window holds every key" in ck.why
    ck.expect(every == (p["ex_window"] >= n), f"'holds every key' said: {every}; window {p['ex_window']}, n = {n}")
    ck.count += 1
