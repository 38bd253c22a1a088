"""Predict, then reveal: one question per lesson, answered by the engine.

A learner who commits to a guess before seeing the answer learns more from it than
one who only watches (Crouch et al. 2004). Each builder takes the lesson's settings
and returns a Question whose answer the engine computes from them, so changing the
settings changes the answer; `verdict` says how far a guess was. No Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..model import costs, sweeps
from ..run.attention import online_softmax, random_row
from .claims import (ORDER_NAMES, compare, crossover, overflow_cause, overflow_note, overflow_share, regime,
                     rule_br_text, share_text, tiles_overflow)
from ..model.config import KB, MB, Config, Hardware, tensor_dtype
from ..run.decode import DecodeConfig, decode_cost
from .format import bytes_text, times_text
from ..model.memory import paper_block_sizes
from ..model.sources import cite
from ..hardware.gpu_arch import arch_of
from ..hardware.schedule_targets import SPEEDUP_OK

# Guesses of a ratio that spans decades: a 1-2-5 ladder, the same for every setting
# (the ladder must not give the answer away).
LADDER = tuple(float(f"{m}e{e}") for e in range(-3, 7) for m in (1, 2, 5))


@dataclass(frozen=True)
class Question:
    prompt: str            # what the learner is asked, with the settings it depends on
    kind: str              # "ratio" (a guess on LADDER), "share" (0..1) or "choice"
    answer: float | str    # the engine's figure (ratio, share) or the right choice
    why: str               # one sentence, built from the numbers
    options: tuple = ()    # the choices, or the ratio ladder
    shown: str = ""        # the answer as the page prints it

    def key(self) -> str:
        """Identifies the question as asked: a new setting is a new question."""
        return f"{self.prompt}|{self.answer}"


def verdict(q: Question, guess) -> str:
    """How far the guess was from the engine's answer, in one phrase."""
    if q.kind == "choice":
        return "Right." if guess == q.answer else f"Not quite: the answer is {q.shown or q.answer}."
    if q.kind == "share":
        points = 100 * abs(float(guess) - float(q.answer))
        return "Right on." if points < 2.5 else f"Off by {points:.0f} percentage points."
    off = max(float(guess) / float(q.answer), float(q.answer) / float(guess))
    if off < 1.25:
        return "Right on."
    side = "high" if float(guess) > float(q.answer) else "low"
    return f"Off by {times_text(off)}, too {side}."


def where_time_goes(cfg: Config, hw: Hardware) -> Question:
    roof = cfg.with_(dtype=tensor_dtype(cfg.dtype))
    need = sweeps.roofline_points(roof, hw).iloc[0]["bytes per flop"]
    feed = hw.balance(roof.dtype)
    bound = "memory" if need > feed else "compute"
    # kernel by kernel, as the lesson's body judges it (sweeps.standard_time): the time in memory-bound kernels
    times = sweeps.standard_time(roof, hw)
    by_kernels, waiting = times["bound"], times["waiting"]
    names = (f"all {times['kernels']} of its kernels" if len(waiting) == times["kernels"] else
             " and ".join(f"the {k}" for k in waiting) or "none of its kernels")
    share = f"{times['memory-bound us'] / times['kernels us']:.0%}"
    waits = (f"{names} {'waits' if len(waiting) == 1 else 'wait'} on HBM, {share} of the time" if waiting else
             "no kernel waits on HBM")
    kernel_text = (f"Kernel by kernel, as the lesson below counts it, it is {by_kernels}-bound "
                   + (f"too: {waits}." if by_kernels == bound else f"instead: each kernel has its own bytes per flop, "
                      f"and {waits}."))
    return Question(
        f"Standard attention at n = {cfg.n}, d = {cfg.d} in {roof.dtype}: it needs how many times the bytes "
        f"per flop that the {hw.name} can feed? (Above 1×, all its bytes over all its flops are more than the GPU "
        "feeds.)", "ratio", need / feed,
        f"It needs {need:.3g} bytes per flop (4nd + 4n² elements of 2 bytes for 4n²d flops, so about "
        f"2/n + 2/d); the {hw.name} feeds {feed:.3g}, HBM bandwidth over its {roof.dtype} {arch_of(hw).matrix_rate}. "
        f"As one point it is {bound}-bound. {kernel_text}", LADDER, f"{need / feed:.3g}×")


def online_softmax_sum(length: int, block: int, spread: float, seed: int) -> Question:
    row = random_row(length, seed, spread)
    steps: list = []
    total = float(online_softmax(row, block, rescale=False, steps=steps).sum())
    moves = sum(1 for (a, _), (b, _) in zip(steps, steps[1:]) if b > a)
    return Question(
        f"Stream this row of {length} scores in blocks of {block} and delete the rescale. "
        "What do the softmax weights add up to?", "share", total,
        f"The running max moved {moves} time{'s' if moves != 1 else ''} after the first block; each time, "
        "the terms summed so far stayed on their old, smaller baseline, so l came out too big and every "
        f"weight too small: {total:.6f} instead of 1." if moves else
        "The running max never moved after the first block, so there was nothing to rescale: the sum is 1.",
        shown=f"{total:.6f}")


def lagging_max_skips(cfg: Config, spread: float, tau: float, run=None) -> Question:
    """Lesson 2's FlashAttention-4 question: the share of the rescales that change anything (a tile raised a row's
    max; FA2 multiplies at every tile, by 1 elsewhere) that a max lagging by tau skips,
    on random attention at the sidebar's n, d and tiles (run: rescale.lagging_run at these settings)."""
    from ..run.rescale import lagging_run
    run = lagging_run(cfg, spread, tau) if run is None else run
    every = run.every_new_max
    tiles = f"up to {cfg.Tc} key tiles each, to the diagonal" if cfg.causal else f"{cfg.Tc} key tiles each"
    share = share_text(run.skips, every) if every else "0%"
    if every:
        why = (f"FlashAttention-2 multiplies l and O by e^(m_old − m_new) at every tile after a row's first: "
               f"{run.every_tile:,} times over the {cfg.n} rows ({tiles}). The factor is other than 1 only where the "
               f"tile raised the row's max: {every:,} rescales change anything. At τ = {tau:g} the max in use moves "
               f"only when a tile's max is more than {tau:g} log2 units above it: {run.done:,} rescales done, "
               f"{run.skips:,} skipped ({share}). These are random rows; real scores are not, and "
               f"Modal's reading of the kernel reports about ten times fewer rescales of O ({cite('modal_fa4')}).")
    else:
        after = (f"FlashAttention-2 still multiplies by 1, {run.every_tile:,} times" if run.every_tile else
                 "each row has one key tile, so FlashAttention-2 has nothing to multiply either")
        why = (f"No tile after the first raised any row's max over the {cfg.n} rows: no rescale changes anything, "
               f"so there is nothing to skip ({after}).")
    return Question(
        f"Random attention at n = {cfg.n}, d = {cfg.d}, {cfg.Br} × {cfg.Bc} tiles{', causal' if cfg.causal else ''}, "
        f"scores with std {spread:g}: of the rescales that change l and O (one per tile that raises a row's max), "
        f"what share does FlashAttention-4's lagging max skip at τ = {tau:g}?", "share", run.skip_share, why,
        shown=f"{share} ({run.skips:,} of {every:,})")


def b200_exp_ratio(d: int, causal: bool) -> Question:
    """Lesson 13's FlashAttention-4 question: on the modelled B200, a 128 x 128 tile's exponentials on the
    exp unit against its two matmuls on the tensor cores (hardware.blackwell.compare_tile)."""
    from ..hardware.blackwell import compare_tile
    cmp = compare_tile(d)
    b, h = cmp.b200, cmp.h200
    ratio = b.exp / b.matmul
    return Question(
        f"On a B200 (modelled from its sheet), one 128 × 128 tile at d = {d}: its exponentials on the exp unit "
        "take how many times the time of its two matmuls on the tensor cores?", "ratio", ratio,
        f"The matmuls are 4 · 128 · 128 · {d} flops, {b.matmul * 1e9:.0f} ns at the B200's tensor rate; the "
        f"128 · 128 exponentials (and one per row for the rescale) take {b.exp * 1e9:.0f} ns at 16 a clock per SM: "
        f"{ratio:.2f}× the matmul time, against {h.exp / h.matmul:.2f}× on the H200, whose tensor cores do half the "
        "work a second with the same exp unit.", LADDER, f"{ratio:.2f}×")


def why_flash_moves(cfg: Config) -> str:
    """What flash's HBM traffic is made of, in the loop order's own terms, then the overflow when
    the tiles do not fit (claims.overflow_note): the cause a traffic sentence names."""
    if cfg.loop_order == "fa2":
        reads = "it reads K and V once per query block" + (", up to the diagonal" if cfg.causal else "")
    else:
        reads = ("in the paper's order it reads Q, O, m and l and writes O, m and l back once per key/value "
                 "block" + (", from the diagonal down" if cfg.causal else ""))
    note = overflow_note(cfg)
    if not note and costs.flash_cost(cfg).hbm_bytes > costs.standard_cost(cfg).hbm_bytes:
        # nothing spills, and still more: the tiles are too narrow for the head dimension
        name, tile, formula, edge = crossover(cfg)
        if tile <= edge:
            what = "K and V" if cfg.loop_order == "fa2" else "Q, O, m and l"
            note = (f"Flash moves more here because {name} = {tile} is not above {formula} = {edge:g}: its "
                    f"n/{name} re-reads of {what} outweigh standard attention's 4n².")
    return f"Flash never writes S or P, but {reads}." + (f" {note}" if note else "")


def tiling_ratio(cfg: Config) -> Question:
    std, flash = costs.standard_cost(cfg).hbm_bytes, costs.flash_cost(cfg).hbm_bytes
    return Question(
        f"At n = {cfg.n}, d = {cfg.d} with {cfg.Br} × {cfg.Bc} tiles: standard attention's HBM traffic is "
        "how many times flash's?", "ratio", std / flash,
        f"Standard moves {bytes_text(std)}, flash {bytes_text(flash)}: flash moves {compare(std, flash)}. "
        + why_flash_moves(cfg), LADDER, f"{std / flash:.3g}×")


BUDGET_CHOICES = ("about half, or less", "somewhat less", "about the same", "more")


def budget_doubled(cfg: Config) -> Question:
    """Double M, keep FlashAttention's tile rule (its Algorithm 1) in the reader's loop order: the answer
    names the rule and the order, and gives the other order's change at the same two budgets, so a cap
    that holds one order still is not read as "more SRAM does not help"."""
    now, doubled = cfg, cfg.with_(sram_bytes=2 * cfg.sram_bytes)
    a, b = sweeps.paper_rule(now), sweeps.paper_rule(doubled)
    ratio = b["HBM MB"] / a["HBM MB"]
    other = "fa1" if cfg.loop_order == "fa2" else "fa2"
    oa, ob = (sweeps.paper_rule(c.with_(loop_order=other)) for c in (now, doubled))
    pick = (BUDGET_CHOICES[0] if ratio <= 0.6 else BUDGET_CHOICES[1] if ratio < 0.95 else
            BUDGET_CHOICES[2] if ratio <= 1.05 else BUDGET_CHOICES[3])
    # The paper's tiles need not fit this model's working set: then the overflow is part of the figure.
    over = [(c, r) for c, r in ((now, a), (doubled, b)) if tiles_overflow(c.with_tiles(r["Br"], r["Bc"]))]
    overflow = " ".join(
        f"At {c.sram_bytes // KB} KB, {overflow_share(c.with_tiles(r['Br'], r['Bc']))} of the "
        f"{bytes_text(r['HBM MB'] * MB)} is overflow: {overflow_cause(c.with_tiles(r['Br'], r['Bc']))} (a real kernel "
        "whose tiles overflow its shared memory does not launch)." for c, r in over)
    kbs = (cfg.sram_bytes // KB, 2 * cfg.sram_bytes // KB)
    if cfg.loop_order == "fa2":
        why = (f"{rule_br_text(cfg.d, (now.sram_elements, doubled.sram_elements), kbs)}; in this order only Br "
               "sets how often K and V are re-read.")
    else:
        bca, bcb = (paper_block_sizes(c.sram_elements, cfg.d)[1] for c in (now, doubled))
        why = (f"Bc = ⌈M/4d⌉ goes from {bca} to {bcb} (before n cuts it), and in this order Bc sets how "
               "often Q, O, m and l are re-read.")
    return Question(
        f"Double the SRAM budget from {kbs[0]} KB to {kbs[1]} KB and pick the tiles for each by FlashAttention's "
        f"rule (its Algorithm 1: Bc = ⌈M/4d⌉, Br = min(⌈M/4d⌉, d)), in {ORDER_NAMES[cfg.loop_order]}. At "
        f"n = {cfg.n}, d = {cfg.d}, flash's HBM traffic becomes…", "choice", pick,
        f"The rule goes from {a['Br']} × {a['Bc']} to {b['Br']} × {b['Bc']} tiles; the traffic goes "
        f"from {bytes_text(a['HBM MB'] * MB)} to {bytes_text(b['HBM MB'] * MB)} (× {ratio:.2f}). {why} "
        f"In {ORDER_NAMES[other]}, the same two budgets give × {ob['HBM MB'] / oa['HBM MB']:.2f}. The cap on Br "
        f"is SRAM's, once Bc is wide: the Br × Bc block of scores must fit beside the tiles, so with Bc = ⌈M/4d⌉ "
        f"Br can be no more than about d ({cite('fa1', 'App. C, proof of Theorem 2')}). The rule is shaped for "
        f"FlashAttention's own order; FlashAttention-2's kernels tune tiles of 64 or 128 each way to the "
        f"head dimension and the GPU's shared memory ({cite('fa2', '§3.3')})."
        + (f" {overflow}" if overflow else ""),
        BUDGET_CHOICES, f"{pick} (× {ratio:.2f})")


def backward_memory(cfg: Config) -> Question:
    std = costs.stored_for_backward(cfg, "standard")
    flash = costs.stored_for_backward(cfg, "flash", include_O=True)
    return Question(
        f"For the backward pass at n = {cfg.n}, d = {cfg.d}, standard attention keeps Q, K, V and P; flash "
        "keeps Q, K, V, its output O, and m and l. Standard keeps how many times as much?", "ratio", std / flash,
        f"P is n × n = {cfg.n * cfg.n:,} numbers; O is n × d = {cfg.n * cfg.d:,} and m and l are "
        f"2n = {2 * cfg.n:,}. With Q, K and V ({3 * cfg.n * cfg.d:,}) on both sides: "
        f"{bytes_text(std * cfg.element_bytes)} against "
        f"{bytes_text(flash * cfg.element_bytes)}. Flash pays for it by recomputing S in the backward.",
        LADDER, f"{std / flash:.3g}×")


ERROR_CHOICES = ("below 1e-12 (float noise)", "between 1e-12 and 1e-4", "between 1e-4 and 0.1", "0.1 or more")


def error_bucket(error: float) -> str:
    return (ERROR_CHOICES[0] if error < 1e-12 else ERROR_CHOICES[1] if error < 1e-4 else
            ERROR_CHOICES[2] if error < 0.1 else ERROR_CHOICES[3])


def window_error(n: int, window: int, error: float) -> Question:
    """`error` is the engine's measured max |local window − standard| (run by the caller)."""
    return Question(
        f"Each query sees only the {window} keys around it (n = {n}, random Q, K, V). "
        "How far is the output from exact attention, at most?", "choice", error_bucket(error),
        f"The largest difference is {error:.2e}: "
        + ("the window holds every key, so only float noise is left." if window >= n else
           "the weights of the keys outside the window are simply missing, and nothing renormalises them "
           "back."), ERROR_CHOICES, f"{error_bucket(error)} ({error:.2e})")


FLOP_CHOICES = ("fewer flops", "the same flops", "more flops")


def same_flops(cfg: Config) -> Question:
    std, flash = costs.standard_cost(cfg).flops, costs.flash_cost(cfg).flops
    pick = FLOP_CHOICES[1] if std == flash else FLOP_CHOICES[0] if flash < std else FLOP_CHOICES[2]
    why = (f"Both do {std:,} matmul flops: tiling reorders the sums, it removes none." if std == flash else
           f"Flash skips the tiles the causal mask hides ({flash:,} against {std:,}); standard attention, as "
           "written here, computes the whole matrix and masks it afterwards.")
    return Question(f"At n = {cfg.n}, d = {cfg.d}{', causal' if cfg.causal else ''}: compared with standard "
                    "attention, the tiled forward does…", "choice", pick, why, FLOP_CHOICES)


ORDER_CHOICES = ("FlashAttention-2's (query blocks outside)", "the paper's Algorithm 1 (K/V blocks outside)",
                 "the same bytes")


def loop_order(cfg: Config) -> Question:
    fa2 = costs.flash_cost(cfg.with_(loop_order="fa2")).hbm_bytes
    fa1 = costs.flash_cost(cfg.with_(loop_order="fa1")).hbm_bytes
    pick = ORDER_CHOICES[2] if fa1 == fa2 else ORDER_CHOICES[0] if fa2 < fa1 else ORDER_CHOICES[1]
    return Question(
        f"With {cfg.Br} × {cfg.Bc} tiles at n = {cfg.n}, d = {cfg.d}: which loop order moves fewer bytes?",
        "choice", pick,
        f"FA2's order moves {bytes_text(fa2)}, FA1's {bytes_text(fa1)}. FA2 re-reads K and V once per query "
        "block (so Br matters); FA1 re-reads Q, O, m and l and rewrites O, m and l once per key/value block (so Bc "
        "matters)." + _same_overflow(cfg), ORDER_CHOICES)


def _same_overflow(cfg: Config) -> str:
    """Both loop orders compute the same tiles, so both carry the same overflow ("" when the tiles fit)."""
    if not tiles_overflow(cfg):
        return ""
    spill = costs.flash_cost(cfg).spilled * cfg.element_bytes
    return (f" Both include the same {bytes_text(spill)} of overflow: {overflow_cause(cfg)} (a real kernel "
            "whose tiles overflow its shared memory does not launch).")


SMALL_CHOICES = ("more than standard attention", "about the same", "less than standard attention")


def passes(cfg: Config) -> tuple[float, int]:
    """How many full passes over what flash re-reads for each outer block the computed tiles add
    up to (FA2: K and V, once per query block; FA1: Q, O, m and l, once per key/value block),
    and the number of outer blocks. Under a causal mask the passes are fewer than the blocks."""
    tiles = costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.causal)
    if cfg.loop_order == "fa2":
        return tiles.total(lambda r, c: c) / cfg.n, cfg.Tr
    return tiles.total(lambda r, c: r) / cfg.n, cfg.Tc


def _passes_text(cfg: Config) -> str:
    k, blocks = passes(cfg)
    if cfg.loop_order == "fa2":
        reads, outer = "reads all of K and V", "query block"
    else:
        reads, outer = "reads Q, O, m and l and writes O, m and l back", "key/value block"
    if blocks == 1:
        return f"it {reads} once: there is one {outer}"
    if k == blocks:
        return f"it {reads} {blocks} times, once per {outer}"
    return (f"it {reads.replace('all of ', '')} about {k:.3g} times over, as the mask lets each of the "
            f"{blocks} {outer}s skip the tiles it hides")


def small_tiles(cfg: Config, block: int = 16) -> Question:
    small = cfg.with_tiles(block, block)
    std, flash = costs.standard_cost(small).hbm_bytes, costs.flash_cost(small).hbm_bytes
    ratio = flash / std
    pick = SMALL_CHOICES[1] if 0.95 <= ratio <= 1.05 else SMALL_CHOICES[0] if ratio > 1 else SMALL_CHOICES[2]
    note = overflow_note(small)
    return Question(
        f"Shrink the tiles to {small.Br} × {small.Bc} at n = {cfg.n}, d = {cfg.d}. Flash's HBM traffic is…",
        "choice", pick,
        f"Flash moves {bytes_text(flash)} against standard's {bytes_text(std)}: {_passes_text(small)}, where "
        f"standard attention instead writes and reads S and P, {bytes_text(4 * small.n ** 2 * small.element_bytes)}."
        + (f" {note}" if note else ""), SMALL_CHOICES)


def measured_share(d: int, n: int, ratio: float) -> Question:
    """`ratio` is the measured DRAM bytes over the model's bytes (from flashviz.hardware.measured)."""
    return Question(
        f"The H200 ran PyTorch's flash kernel at n = {n}, d = {d}, float16. The tile model predicts its bytes; "
        "Nsight Compute counted what it really read and wrote in DRAM. Measured over predicted is…", "ratio",
        ratio,
        f"It is {ratio:.3f}: the model re-reads K and V from HBM once per query block, but the H200's 60 MB L2 "
        "holds them, so DRAM sees Q, K and V about once.", LADDER, f"{ratio:.3g}×")


# The paper's Figure 2 (2205.14135), as FACTS.md quotes it: two arXiv versions print different
# standard-attention figures; both print 66.6 / 75.2 GFLOPs and 4.4 GB for FlashAttention.
PAPER_FIGURE2 = (
    {"source": "paper, one arXiv version", "method": "standard", "GFLOPs": 66.6, "HBM GB": 40.3, "ms": 41.7},
    {"source": "paper, one arXiv version", "method": "FlashAttention", "GFLOPs": 75.2, "HBM GB": 4.4, "ms": 7.3},
    {"source": "paper, another arXiv version", "method": "standard", "GFLOPs": 66.6, "HBM GB": 35.3, "ms": 35.1},
    {"source": "paper, another arXiv version", "method": "FlashAttention", "GFLOPs": 75.2, "HBM GB": 4.4,
     "ms": 11.7},
)


def paper_figure2_config(hw: Hardware) -> Config:
    """GPT-2 medium's attention, one head: N = 1024, d = 64, fp16, the paper's Algorithm 1 (K/V blocks
    outside) with its own tile rule for one block's shared memory on this GPU."""
    M = hw.smem_per_block_kb * KB
    Br, Bc = paper_block_sizes(M // 2, 64)
    return Config.clamped(1024, Br, Bc, d=64, dtype="float16", sram_bytes=M, loop_order="fa1")


def paper_figure2(hw: Hardware) -> tuple[Question, pd.DataFrame]:
    """Figure 2's setting (16 heads, batch 64, forward and backward) counted by the engine, beside the
    paper's printed figures. Returns the question (how many times fewer bytes) and the table."""
    heads = 16 * 64
    cfg = paper_figure2_config(hw)
    std = heads * (costs.standard_cost(cfg).hbm_bytes + costs.standard_backward_cost(cfg).hbm_bytes)
    flash = heads * (costs.flash_cost(cfg).hbm_bytes + costs.flash_backward_cost(cfg).hbm_bytes)
    std_flops = heads * (costs.standard_cost(cfg).flops + costs.standard_backward_cost(cfg).flops)
    flash_flops = heads * (costs.flash_cost(cfg).flops + costs.flash_backward_cost(cfg).flops)
    engine = [{"source": f"this engine, {cfg.Br} × {cfg.Bc} tiles", "method": "standard",
               "GFLOPs": std_flops / 1e9, "HBM GB": std / 1e9, "ms": float("nan")},
              {"source": f"this engine, {cfg.Br} × {cfg.Bc} tiles", "method": "FlashAttention",
               "GFLOPs": flash_flops / 1e9, "HBM GB": flash / 1e9, "ms": float("nan")}]
    table = pd.DataFrame(engine + list(PAPER_FIGURE2))
    q = Question(
        "GPT-2 medium, as in the paper's Figure 2: N = 1024, d = 64, 16 heads, batch 64, forward and backward, "
        f"fp16 on an {hw.name}. FlashAttention moves how many times fewer HBM bytes than standard attention?",
        "ratio", std / flash,
        f"This engine counts {std / 1e9:.1f} GB against {flash / 1e9:.1f} GB (× {std / flash:.1f}); the paper "
        "measured 40.3 (or 35.3) GB against 4.4 GB (× 9.2 or × 8.0).", LADDER, f"{std / flash:.3g}×")
    return q, table


def decode_step(cfg: DecodeConfig, hw: Hardware) -> Question:
    """Lesson 12: one decoding step's bytes per flop against what the GPU feeds."""
    need = decode_cost(cfg.with_(n_q=1, splits=1)).bytes_per_flop
    feed = hw.balance(cfg.dtype)
    sharing = ("each has its own K/V head" if cfg.group == 1 else
               f"{cfg.group} query heads share each K/V head" if cfg.kv_heads > 1 else "all share one K/V head")
    return Question(
        f"Decode one token: {cfg.heads} query heads and {cfg.kv_heads} key/value heads, {cfg.n_kv:,} cached "
        f"tokens, d = {cfg.d}, {cfg.dtype}. The step needs how many times the bytes per flop that the "
        f"{hw.name} can feed? (Above 1×, the arithmetic waits on memory.)", "ratio", need / feed,
        f"One query row meets each cached key and value once: {cfg.element_bytes} bytes per element for "
        + (f"the {cfg.group} query heads that use it ({sharing})" if cfg.group > 1 else
           f"the one query head that uses it ({sharing})")
        + f", so {need:.3g} byte{'' if f'{need:.3g}' == '1' else 's'} per flop, about {cfg.element_bytes}/(2 × "
        f"{cfg.group}). The {hw.name} feeds "
        f"{feed:.3g}: {regime(need, feed)}-bound, and no tiling changes it, because "
        + (f"only the {cfg.group} query rows of a group reuse each byte." if cfg.group > 1 else
           "no other query row reuses a cached byte."), LADDER, f"{need / feed:.3g}×")


def whole_gpu_reads(n: int, d: int, bh: int, kernel, hw: Hardware) -> Question:
    """Lesson 11: DRAM reads over the compulsory Q + K + V, on the whole GPU (waves and the shared cache)."""
    from ..hardware.gpu_arch import arch_of
    from ..hardware.gpu_model import whole_gpu
    arch, w = arch_of(hw), whole_gpu(n, d, bh, kernel, hw)
    cache, share = arch.cache, f"the {arch.cache}" + (" share" if arch.cache_parts > 1 else "")
    fits = "outgrow" if w.rereads else "fit in"
    per_head = w.passes / bh
    return Question(
        f"{kernel.name} on the {hw.name}, fp16: n = {n:,}, d = {d}, batch × heads = {bh}. The whole-GPU model "
        f"(waves of blocks sharing the {cache}) predicts its DRAM reads at how many times the compulsory "
        "Q + K + V (each read once)?", "ratio", w.over_floor,
        f"{w.blocks:,} blocks run {w.resident:,} at a time in {w.waves:,} wave{'s' if w.waves > 1 else ''}; the "
        f"K + V in flight between two waves of a head ({bytes_text(w.in_flight)}) "
        f"{f'{fits} {share} ({bytes_text(w.l2_share)})' if w.l2_share else 'find no L2 to stay in'}, so each "
        "head's K + V comes from DRAM "
        f"{'once' if per_head == 1 else f'{per_head:.3g} times on average'}: "
        f"{bytes_text(w.reads)} against a floor of {bytes_text(w.compulsory)}. The two-level model reads "
        f"{compare(w.reads, w.two_level)}.", LADDER, f"{w.over_floor:.3g}×")


PRECISION_CHOICES = ("less error than standard attention", "about the same error", "more error than standard attention")


def flash_fp16_error(n: int, d: int, standard: float, flash: float) -> Question:
    """Lesson 6, second half: `standard` and `flash` are the emulation's fp16 RMSEs against float64
    (flashviz.run.precision, run by the caller). "About the same" within 10%."""
    ratio = flash / standard
    pick = (PRECISION_CHOICES[1] if 1 / 1.1 <= ratio <= 1.1 else
            PRECISION_CHOICES[0] if ratio < 1 else PRECISION_CHOICES[2])
    return Question(
        f"In fp16, does flash attention make more or less error than standard attention, against a float64 "
        f"reference? (n = {n}, d = {d}, the FlashAttention-3 paper's inputs: N(0, 1) with 0.1% outliers of "
        "N(0, 100))", "choice", pick,
        f"Standard attention's RMSE is {standard:.2e}, flash's {flash:.2e}: flash makes "
        f"{compare(standard, flash, 'error', fewer='less')}. Standard attention stores S and P in fp16 between "
        "its three kernels; flash keeps S, the running max and sum and the output accumulator in fp32 "
        "registers and rounds only P, as the input of P·V, and the output.",
        PRECISION_CHOICES, f"{pick} ({flash:.2e} against {standard:.2e})")


def schedule_speedup(n: int, d: int, bh: int, dtype: str, causal: bool, flash_ms: float, fa3_ms: float,
                     model_flash_ms: float, model_fa3_ms: float) -> Question:
    """Lesson 13: FlashAttention-3's design as its authors ship it (flash-attn-4, Hopper path) against PyTorch's flash
    kernel (FlashAttention-2's code), the same call measured in one run on the H200
    (flashviz/data/h200/fa3_time.csv), and what the schedule model says of it."""
    measured, model = flash_ms / fa3_ms, model_flash_ms / model_fa3_ms
    faster = f"{measured:.2f}× faster" if measured >= 1 else f"{1 / measured:.2f}× slower"
    off = model / measured
    within = abs(measured / model - 1) <= SPEEDUP_OK  # as fa3_authors.speedups counts it
    miss = f"{off:.2f}× the measured speed-up, " + (
        f"within {SPEEDUP_OK:.0%} of it" if within else "too high" if off > 1 else "too low")
    why_model = (f"The schedule model (FA2's schedule for flash, FA3's for its authors' kernel) says {model:.2f}×, "
                 f"{miss}: it puts the authors' kernel at {model_fa3_ms / fa3_ms:.2f}× of its measured time "
                 f"and flash at {model_flash_ms / flash_ms:.2f}× of its.")
    return Question(
        "FlashAttention-3's design as its authors ship it (flash-attn-4's Hopper path) does the same flops as "
        "PyTorch's flash kernel, "
        f"FlashAttention-2's code. On the H200, at n = {n:,}, d = {d}, batch × heads = {bh}, "
        f"{dtype}{', causal' if causal else ''}: how many times faster is it?", "ratio", measured,
        f"Measured on the H200 in one run: PyTorch flash takes {flash_ms:.3g} ms, the authors' kernel "
        f"{fa3_ms:.3g} ms, so it is {faster}. {why_model}", LADDER, f"{measured:.2f}×")


def window_tiles(cfg: Config, window: int) -> Question:
    """Lesson 14: the share of the tiles FlashAttention computes under a causal sliding window."""
    at = cfg.with_(causal=True, window_left=window - 1)
    computed, total = costs.census(at.n, at.Br, at.Bc, at.mask).tiles, at.Tr * at.Tc
    return Question(
        f"A causal sliding window of {window:,} keys (each query sees itself and the {window - 1:,} keys before it) "
        f"at n = {at.n:,}, in {at.Br} × {at.Bc} tiles: what share of the {total:,} tiles does FlashAttention "
        "compute?", "share", computed / total,
        f"{computed:,} of the {total:,} tiles: each block of {at.Br} queries computes only the key blocks its "
        f"window reaches and never loads the others.", shown=f"{computed / total:.1%}")
