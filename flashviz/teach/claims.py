"""Sentences that state a direction, a ratio or a regime, built from the numbers.

A page never writes "fewer", "memory-bound" or "N×" by hand: it asks here, so the
words cannot disagree with the figures beside them. tests/test_claims.py renders
every lesson with random settings and checks each such sentence against the engine.
"""
from __future__ import annotations

from collections.abc import Sequence

from .format import times_text

SAME = 1e-9  # relative difference below which two counts are called the same


def compare(base: float, other: float, noun: str = "bytes", fewer: str = "fewer") -> str:
    """How `other` compares with `base`: "7.5× fewer bytes", "30× more bytes", "0.4% more
    bytes" (within 1%), or "the same bytes". `fewer="less"` for a noun that is not counted
    ("3.2× less error")."""
    if base <= 0 or other <= 0:
        raise ValueError("compare needs two positive amounts")
    if abs(other - base) <= SAME * max(base, other):
        return f"the same {noun}".rstrip()
    if max(base, other) / min(base, other) < 1.01:  # "1.003×" reads as nothing: say the percent
        pct = 100 * abs(other / base - 1)
        return f"{pct:.2g}% {fewer if other < base else 'more'} {noun}".rstrip()
    if other < base:
        return f"{times_text(base / other)} {fewer} {noun}".rstrip()
    return f"{times_text(other / base)} more {noun}".rstrip()


def change_percent(base: float, other: float) -> str:
    """"+16.7%" or "−38.0%": other against base, with its sign."""
    pct = 100 * (other / base - 1)
    return f"+{pct:.1f}%" if pct >= 0 else f"−{-pct:.1f}%"


def regime(bytes_per_flop: float, balance: float) -> str:
    """"memory" when a kernel needs more bytes per flop than the machine feeds."""
    return "memory" if bytes_per_flop > balance else "compute"


def crossover(cfg) -> tuple[str, int, str, float]:
    """Where flash's n² re-reads cross standard attention's 4n² (long rows, nothing spilled):
    FA2's order re-reads K and V, 2n²d/Br, so flash moves less only while Br > d/2; the paper's
    order re-reads Q, O, m and l, (3d + 4)n²/Bc, so while Bc > (3d + 4)/4. A causal mask computes
    about half the tiles (n²/(2 Br Bc) of them, costs.census), so it halves those re-reads while
    standard attention, which masks S as it writes it, still moves 4n²: the edge halves, to d/4 and
    (3d + 4)/8. Returns the tile's name and size, and the edge's formula and value."""
    half = 2 if cfg.causal else 1
    if cfg.loop_order == "fa2":
        return "Br", cfg.Br, f"d/{2 * half}", cfg.d / (2 * half)
    return "Bc", cfg.Bc, f"(3d + 4)/{4 * half}", (3 * cfg.d + 4) / (4 * half)


def cache_fit(cache_bytes: float, hbm_gb: float) -> str:
    """"fits" or "does not fit": a K/V cache against a GPU's HBM (the vendor's GB, 1e9 bytes)."""
    return "fits" if cache_bytes <= hbm_gb * 1e9 else "does not fit"


def tiles_overflow(cfg) -> bool:
    """True when one forward tile step's working set is over the SRAM budget."""
    from ..model.memory import fits, working_set
    return not fits(working_set(cfg.Br, cfg.Bc, cfg.d), cfg.sram_elements)


def overflow_cause(cfg) -> str:
    """The clause a traffic sentence adds when the tiles overflow (empty when they fit): the
    overflow, not the algorithm, is then what the flash count is made of."""
    if not tiles_overflow(cfg):
        return ""
    from .format import bytes_text
    from ..model.memory import working_set
    ws = working_set(cfg.Br, cfg.Bc, cfg.d) * cfg.element_bytes
    return (f"its {cfg.Br} × {cfg.Bc} tiles need {bytes_text(ws)} of SRAM, over the "
            f"{bytes_text(cfg.sram_bytes)} budget, and the seed's model charges what does not fit to HBM")


def fitting_tiles(cfg) -> tuple[int, int] | None:
    """The largest square tiles the sidebar offers (cut to n) whose working set fits the budget,
    as (Br, Bc); None when not even 1 × 1 fits. The overflow banner's one-click fix."""
    from ..model.config import TILE_SIZES
    from ..model.memory import fits, working_set
    fitting = [b for b in TILE_SIZES if b <= cfg.n and fits(working_set(b, b, cfg.d), cfg.sram_elements)]
    return (fitting[-1], fitting[-1]) if fitting else None


def share_text(part: float, whole: float) -> str:
    """part / whole as a percent at two significant figures ("50%", "0.31%"), never "0%" or
    "100%" for a share that is neither."""
    pct = 100 * part / whole
    text = f"{pct:.0f}%" if pct >= 10 else f"{pct:.2g}%"  # .2g would print 99.7 as "1e+02"
    if text == "100%" and part < whole:
        return ">99%"
    return text


def overflow_share(cfg) -> str:
    """The overflow's part of flash's bytes at cfg, as share_text prints it ("" when the tiles fit)."""
    if not tiles_overflow(cfg):
        return ""
    from ..model.costs import flash_cost
    flash = flash_cost(cfg)
    return share_text(flash.spilled, flash.hbm_elements)


def overflow_headline(cfg) -> str:
    """The banner every lesson opens with while the tiles do not fit ("" when they fit): what
    does not fit, what a real kernel does, and what this model does instead, in numbers."""
    if not tiles_overflow(cfg):
        return ""
    from .format import bytes_text
    from ..model.memory import working_set
    from ..model.sources import cite
    ws = working_set(cfg.Br, cfg.Bc, cfg.d) * cfg.element_bytes
    return (f"**These {cfg.Br} × {cfg.Bc} tiles do not fit in SRAM**: at d = {cfg.d} in {cfg.dtype} they need "
            f"{bytes_text(ws)}, over the {bytes_text(cfg.sram_bytes)} budget M (the seed's, not a GPU's limit: "
            f"lesson 1 lists each GPU's). A real kernel does not spill shared memory: one whose tiles overflow it "
            f"does not launch ({cite('fa2', '§3.3')}); this model charges the overflow to HBM, "
            f"{overflow_share(cfg)} of flash's traffic at n = {cfg.n}.")


def overflow_note(cfg) -> str:
    """The sentences that go with any statement of flash's traffic at cfg when its tiles overflow
    ("" when they fit): how much of it is the overflow and why, what a real kernel does instead,
    and flash's bytes without the overflow against standard attention's."""
    if not tiles_overflow(cfg):
        return ""
    from ..model.costs import flash_cost, standard_cost
    from .format import bytes_text
    from ..model.sources import cite
    flash, std = flash_cost(cfg), standard_cost(cfg)
    eb = cfg.element_bytes
    return (f"{overflow_share(cfg)} of flash's {bytes_text(flash.hbm_bytes)} is overflow, not the algorithm: "
            f"{overflow_cause(cfg)}. A real kernel does not spill shared memory: one whose tiles overflow "
            f"it does not launch ({cite('fa2', '§3.3')}); "
            f"without the overflow flash moves {compare(std.hbm_bytes, flash.moved * eb)} than standard "
            "attention.")


def instruction_pair(d: int, flash_tile: tuple[int, int]) -> str:
    """What changes between PyTorch flash and Triton's 128 × 64 kernel (FA2's schedule on wgmma): mainly the
    instruction; the tile too where PyTorch flash's is not 128 × 64; and what Triton's compiler does itself."""
    tile = "" if tuple(flash_tile) == (128, 64) else (
        f" (at d = {d} the tile too: PyTorch flash runs {flash_tile[0]} × {flash_tile[1]})")
    return (f"between it and PyTorch flash mainly the instruction changes{tile}, with what Triton's compiler does "
            "itself (its load pipeline, its registers)")


def hopper_steps_text(steps, flash_tile: tuple[int, int]) -> str:
    """Lesson 10's two steps from PyTorch flash to cuDNN on the H200 (measured.HopperSteps), each a median
    time ratio, and which of them is the larger: the instruction (mma.sync -> wgmma, FA2's schedule kept)
    or the schedule (FA2's -> a warp-specialised kernel's, wgmma kept)."""
    a, b = steps.instruction_median, steps.schedule_median
    pace = lambda r: f"{max(r, 1 / r):.2f}× {'faster' if r >= 1 else 'slower'}"  # noqa: E731
    tile = "" if tuple(flash_tile) == (128, 64) else (
        f"; at d = {steps.d} the tile changes too (PyTorch flash runs {flash_tile[0]} × {flash_tile[1]})")
    larger = ("the two steps are the same" if abs(a - b) <= SAME * max(a, b) else
              f"here the {'instruction' if a > b else 'schedule'}'s step is the larger")
    return (f"Measured on this H200 (float16, not causal, d = {steps.d}, the median over the {steps.calls} calls "
            f"of bench/gpu/schedule.py's run): Triton's 128 × 64 kernel, FlashAttention-2's schedule on wgmma, runs "
            f"{pace(a)} than PyTorch flash. That is mainly the instruction{tile}, and Triton's compiler adds its own "
            f"load pipeline and registers. cuDNN, NVIDIA's warp-specialised wgmma kernel, which the schedule model "
            f"runs on FlashAttention-3's schedule and tiles, runs {pace(b)} than Triton, so {larger}. That second "
            f"step holds more than the schedule: cuDNN's kernel keeps one block on each SM for the whole call (a "
            f"persistent grid, in Nsight Compute's rows of flashviz/data/h200/fa3_ncu.csv) and sizes its own tiles and "
            f"shared memory, which this measurement cannot tell apart from its schedule")


ORDER_NAMES = {"fa2": "FlashAttention-2's order, query blocks outside",
               "fa1": "FlashAttention's order, key/value blocks outside"}


def rule_br_text(d: int, elements: tuple[int, int], kbs: tuple[int, int]) -> str:
    """FlashAttention's rule Br = min(⌈M/4d⌉, d) at two budgets, with its figures and where the cap at d
    binds: "Br = min(⌈M/4d⌉, d) = min(96, 128) = 96 at 96 KB and min(192, 128) = 128 at 192 KB: the cap
    binds at 192 KB only"."""
    from math import ceil
    qa, qb = (ceil(m / (4 * d)) for m in elements)
    cap = ("the cap binds at both budgets" if qa > d else f"the cap binds at {kbs[1]} KB only" if qb > d
           else "the cap binds at neither budget")
    return (f"Br = min(⌈M/4d⌉, d) = min({qa}, {d}) = {min(qa, d)} at {kbs[0]} KB and min({qb}, {d}) = "
            f"{min(qb, d)} at {kbs[1]} KB: {cap}")


def other_cublas_runs(lesson: str, runs: Sequence[tuple[str, str, float]]) -> str:
    """The H200's cuBLAS fp16 rate as the other runs measured it, for a lesson that shows its own run's
    (measured.cublas_fp16_runs): "lesson 11's run read 707 and lesson 13's 728 TFLOP/s, 3% apart from run
    to run"."""
    others = [(name, rate) for _, name, rate in runs if name != lesson]
    rates = [rate for *_, rate in runs]
    said = " and ".join(f"{name}'s {rate:.0f}" if i else f"{name}'s run read {rate:.0f}"
                        for i, (name, rate) in enumerate(others))
    return f"{said} TFLOP/s, {max(rates) / min(rates) - 1:.0%} apart from run to run"
