"""After the bytes, the schedule: the forward's time from counted work, with the schedule as the variable.

Two kernels move the same bytes and do the same arithmetic; what differs is which units work at
the same time. Per tile (Br query rows by Bc keys) one streaming multiprocessor (SM) does:

  QK^T and PV   2 Br Bc d flops each, on the tensor cores (rate: the instruction the kernel uses)
  exp           Br Bc + Br exponentials (every score, one rescale factor per row), on the exp unit
  other         3 Br Bc + 4 Br + 2 Br d FP32 operations: row max and subtraction before the exp,
                row sum and the rescale of l and O after it (costs.flash_cost's counting rules)

and copies the K and V tiles in. Two schedules (FlashAttention-3's paper, arXiv 2407.08608):

  fa2   the same warps run a tile's QK^T, its softmax, then its PV (FlashAttention-2's design; PyTorch's
        flash kernel), and the model runs one block at a time on an SM, so the times add (the model's
        choice: the kernel's two resident blocks an SM interleave on the real GPU)
  fa3   producer warps issue the copies; two consumer warp groups of Br/2 rows each take turns on
        the tensor cores, so one group's softmax runs while the other's matmuls do (ping-pong,
        §3.1); within a group, iteration j issues the QK^T of tile j, then the PV of tile j-1, and
        the softmax of tile j runs under that PV (intra-warpgroup pipelining, §3.2, Algorithm 2: "the
        second WGMMA operation of iteration j is overlapped with softmax operations from iteration j+1")

`timeline` lays the steps of either schedule on lanes, each step at the earliest time its inputs
and its unit allow (each unit runs one step at a time, in the schedule's order), and the steady
interval between tiles is the schedule's time per tile. `kernel_time` deals the kernel's query
blocks to the SMs (each to the least loaded, in grid order, as blocks start where a slot frees)
and takes the busiest SM's tiles at that interval, against the DRAM time of the bytes lesson 11's
read model counts: DRAM overlaps both schedules (the larger of the two). Nothing is fitted: the
rates are the H200's, measured in the same run as the kernels (bench/gpu/schedule.py).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import lru_cache
from math import ceil

from ..model.sources import cite

SCHEDULES = ("fa2", "fa3")


def describe(schedule: str, work: TileWork | None = None) -> str:
    """One sentence on what a schedule overlaps, with its source (for the page and the claims); FA3's
    order inside a warp group is read off `timeline` at `work` (intra_group)."""
    if schedule == "fa2":
        return ("The same warps run a tile's QK^T, its softmax, then its PV "
                f"({cite('fa2', '§3.1, Algorithm 1')}). The model runs one block at a time on an SM, so nothing "
                "overlaps and the times add: that is the model's choice, not FlashAttention-2's design, whose "
                "kernel keeps two blocks of 4 warps on each SM of the H200 "
                f"({cite('h200_measured', 'Nsight Compute, flash_probe')}), and the SM's warp schedulers "
                "interleave them, one block's softmax beside the other's matmuls.")
    if schedule == "fa3":
        return ("Producer warps issue the copies; two consumer warp groups take turns on the tensor cores, so one "
                f"group's softmax runs under the other's matmuls (warp specialisation and ping-pong scheduling, "
                f"{cite('fa3', '§3.1')}); within a group, {intra_group(work)} (intra-warpgroup overlapping, "
                f"{cite('fa3', '§3.2, Algorithm 2')}).")
    raise ValueError(f"schedule must be one of {SCHEDULES}, not {schedule!r}")


@dataclass(frozen=True)
class UnitRates:
    """Per second, for the whole GPU: tensor-core flops (the instruction a kernel uses), exponentials
    (the special-function units), other FP32 operations (one instruction each), DRAM bytes."""

    tensor: float
    exp: float
    fp32: float
    dram: float
    sms: int = 132
    smem: float = 0.0  # shared-memory bytes a second, whole GPU; 0: operand reads from shared memory not charged


@dataclass(frozen=True)
class TileWork:
    """One Br x Bc tile's work on one SM, in seconds at the SM's share of each rate."""

    qk: float
    pv: float
    exp: float
    pre: float    # FP32 before the exp: row max, subtraction
    post: float   # FP32 after it: row sum, rescale of l and O
    copy: float   # the K and V tiles in, at the SM's share of DRAM

    @property
    def matmul(self) -> float:
        return self.qk + self.pv

    @property
    def softmax(self) -> float:
        return self.pre + self.exp + self.post


def tile_work(Br: int, Bc: int, d: int, rates: UnitRates, element_bytes: int = 2,
              copy_bytes: float | None = None, smem_bytes: tuple[float, float] | None = None) -> TileWork:
    """Counted work of one tile (module docstring), each part over the SM's share of its rate.
    copy_bytes: the DRAM bytes one tile costs; by default its K and V tiles, 2 Bc d elements (a
    kernel's blocks share them through the L2: kernel_time passes the read model's bytes per tile).
    smem_bytes: the shared-memory bytes the tile's QK^T and PV read as operands (the kernel's own
    layout: smem_operands); with rates.smem set, a matmul takes the longer of its tensor-core time and
    the time shared memory takes to deliver its operands."""
    per_sm = rates.sms
    mm = 2 * Br * Bc * d / (rates.tensor / per_sm)
    qk = pv = mm
    if smem_bytes is not None and rates.smem > 0:
        qk, pv = (max(mm, b / (rates.smem / per_sm)) for b in smem_bytes)
    return TileWork(qk=qk, pv=pv, exp=(Br * Bc + Br) / (rates.exp / per_sm),
                    pre=2 * Br * Bc / (rates.fp32 / per_sm),
                    post=(Br * Bc + 4 * Br + 2 * Br * d) / (rates.fp32 / per_sm),
                    copy=(2 * Bc * d * element_bytes if copy_bytes is None else copy_bytes) / (rates.dram / per_sm))


@dataclass(frozen=True)
class Step:
    """One step of a schedule's timeline on one SM: its lane, what it is, its tile and warp group,
    when it starts and how long it takes (seconds)."""

    lane: str
    label: str
    tile: int
    group: int
    start: float
    length: float

    @property
    def end(self) -> float:
        return self.start + self.length


LANES = {"fa2": ("copies", "tensor cores", "exp unit", "FP32"),
         "fa3": ("copies", "tensor cores", "exp unit", "FP32")}


def timeline(schedule: str, work: TileWork, tiles: int = 6, stages: int = 2) -> list[Step]:
    """The steps of `tiles` key tiles of one query block on one SM, each at the earliest time its
    inputs and its unit allow. Units: the copy engine, the tensor cores, the exp unit, the FP32
    lanes; each runs one step at a time, in the order the schedule issues them. fa3 splits the
    block's rows over two consumer groups (each step half the tile's work) and issues, in each
    group's turn, the QK^T of its next tile (once its softmax of this one is done) before the PV of
    this one, as Algorithm 2 of FlashAttention-3 does (lines 9 and 11 of iteration j + 1)."""
    return [Step(*s) for s in _laid(schedule, work, tiles, stages)]


# A step as _laid lays it: (lane, label, tile, group, start, length). interval and _span, which lay thousands of
# steps for lesson 13's measured rows, read these; timeline makes them Steps.
_Laid = tuple[str, str, int, int, float, float]


def _laid(schedule: str, work: TileWork, tiles: int, stages: int) -> list[_Laid]:
    """timeline's steps, laid out (timeline's docstring says how)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, not {schedule!r}")
    free: dict[str, float] = {}
    done: dict[tuple, float] = {}
    steps: list[_Laid] = []

    def put(lane: str, label: str, tile: int, group: int, length: float, after: list[tuple]) -> None:
        start = free.get(lane, 0.0)
        for k in after:  # the latest of the unit's last step and the inputs already laid
            t = done.get(k)
            if t is not None and t > start:
                start = t
        end = start + length  # as Step.end has it
        steps.append((lane, label, tile, group, start, length))
        free[lane] = end
        done[(label, tile, group)] = end

    def copy(j: int) -> None:  # K_j and V_j in; at most `stages` tiles ahead of the last PV
        put("copies", "K, V", j, -1, work.copy, [("PV", j - stages, g) for g in (0, 1)])

    def softmax(j: int, g: int, share: float) -> None:
        put("FP32", "max", j, g, work.pre * share, [("QKᵀ", j, g)])
        put("exp unit", "exp", j, g, work.exp * share, [("max", j, g)])
        put("FP32", "sum", j, g, work.post * share, [("exp", j, g)])

    for j in range(min(stages, tiles)):
        copy(j)
    if schedule == "fa2":
        for j in range(tiles):
            put("tensor cores", "QKᵀ", j, 0, work.qk, [("K, V", j, -1), ("PV", j - 1, 0)])
            softmax(j, 0, 1.0)
            put("tensor cores", "PV", j, 0, work.pv, [("sum", j, 0)])
            if j + stages < tiles:
                copy(j + stages)
        return steps
    for g in (0, 1):
        put("tensor cores", "QKᵀ", 0, g, work.qk / 2, [("K, V", 0, -1)])
        softmax(0, g, 0.5)
    for j in range(tiles):
        for g in (0, 1):  # ping-pong: group g's turn on the tensor cores follows the other group's
            if j + 1 < tiles:  # intra-warpgroup: the next QK^T, issued once this tile's softmax is done
                put("tensor cores", "QKᵀ", j + 1, g, work.qk / 2, [("K, V", j + 1, -1), ("sum", j, g)])
            put("tensor cores", "PV", j, g, work.pv / 2, [("sum", j, g)])
            if j + 1 < tiles:  # the next tile's softmax runs under this PV and the other group's turn
                softmax(j + 1, g, 0.5)
        if j + stages < tiles:
            copy(j + stages)
    return steps


def _tile_name(t: int, j: int) -> str:
    return "j" if t == j else f"j{'+' if t > j else '−'}{abs(t - j)}"


EVEN = TileWork(qk=1.0, pv=1.0, exp=1.0, pre=0.2, post=0.3, copy=0.5)  # a tile whose parts are alike


def intra_group(work: TileWork | None = None, j: int = 3) -> str:
    """FA3's order inside one warp group, read off `timeline` (by default at EVEN, a tile whose units
    are never short, so the order shows as the paper draws it, its Figure 2): the two matmuls group 0
    issues in turn from its QK^T of tile j, and the tensor-core steps of its own that run while its
    softmax of tile j does ("the QK^T of tile j is issued, then the PV of tile j−1, and the softmax of tile j runs
    under the PV of tile j−1"; FA3 §3.2, Algorithm 2, lines 9-13)."""
    steps = timeline("fa3", EVEN if work is None else work, tiles=j + 3)
    mine = [s for s in steps if s.group == 0]
    soft = [s for s in mine if s.tile == j and s.lane in ("FP32", "exp unit")]
    start, end = min(s.start for s in soft), max(s.end for s in soft)
    mm = [s for s in mine if s.lane == "tensor cores"]  # in the order the group issues them
    k = next(i for i, s in enumerate(mm) if s.label == "QKᵀ" and s.tile == j)
    under = [s for s in mm if s.start < end and s.end > start]
    first, then = (f"the {s.label} of tile {_tile_name(s.tile, j)}" for s in mm[k:k + 2])
    runs = (" and ".join(f"the {s.label} of tile {_tile_name(s.tile, j)}" for s in under) if under
            else "none of its own matmuls")
    return f"{first} is issued, then {then}, and the softmax of tile j runs under {runs}"


@lru_cache(maxsize=1024)
def interval(schedule: str, work: TileWork, tiles: int = 32) -> float:
    """The steady time per tile of a schedule: between the PV ends of the middle tile and the one
    before last, over the tiles between (the fill at the start, and the last tile, which issues no
    next QK^T, left out)."""
    ends: dict[int, float] = {}
    for _, label, tile, _, start, length in _laid(schedule, work, tiles, 2):
        if label == "PV":
            ends[tile] = max(ends.get(tile, 0.0), start + length)
    half = tiles // 2
    return (ends[tiles - 2] - ends[half - 1]) / (tiles - 1 - half)


def rates_from(table) -> dict[str, float]:
    """schedule_rates.csv's rows as {"rate dtype": value per second} (TFLOP/s, T/s and TB/s there)."""
    return {f"{r} {t}": float(v) * 1e12 for r, t, v in zip(table["rate"], table["dtype"], table["value"])}


@dataclass(frozen=True)
class ScheduleTime:
    """A kernel's modelled time (seconds): the busiest SM's tiles at the schedule's interval (or, with
    fill=True, its work units each with the pipeline's fill and drain), against DRAM, plus the host's
    dispatch of the call; the parts are the work of one tile on one SM."""

    schedule: str
    per_tile: float
    tiles_busiest: int
    arithmetic_s: float
    dram_s: float
    work: TileWork
    host_s: float = 0.0   # the host's dispatch, which a call timed from an idle GPU waits for
    fill_s: float = 0.0   # on the busiest SM: what its units' fill and drain add to tiles x interval

    @property
    def total_s(self) -> float:
        return self.host_s + max(self.arithmetic_s, self.dram_s)

    @property
    def bound(self) -> str:
        return "DRAM" if self.dram_s > self.arithmetic_s else "the schedule"


def block_tiles(n: int, Br: int, Bc: int, causal: bool) -> list[int]:
    """Key tiles each query block computes: all Tc, or under a causal mask those up to the diagonal."""
    Tr, Tc = ceil(n / Br), ceil(n / Bc)
    if not causal:
        return [Tc] * Tr
    return [min(Tc, ((i + 1) * Br - 1) // Bc + 1) for i in range(Tr)]


def busiest_sm(blocks: list[int], bh: int, sms: int) -> int:
    """Tiles on the busiest SM when the grid's blocks (every head's query blocks, in grid order)
    each go to the least loaded SM. Blocks all alike are dealt in turn, so the busiest SM holds
    ceil(units / SMs) of them, as the dealing gives (tests/test_schedule.py holds the two equal)."""
    if len(set(blocks)) == 1:
        return -(-len(blocks) * bh // sms) * blocks[0]
    load = [0] * sms
    for _ in range(bh):
        for b in blocks:
            heapq.heapreplace(load, load[0] + b)  # the least loaded takes the block
    return max(load)


def unit_time(schedule: str, work: TileWork, tiles: int, per_tile: float | None = None, exact: int = 8) -> float:
    """One work unit (a query block and its key tiles) on its SM, the pipeline's fill and drain included:
    from the first QK^T's start to the last PV's end on the timeline (the copies left out: a block
    beside it, or a persistent kernel's producer, loads the next unit's tiles under this one's work).
    Exact up to `exact` tiles; past that each further tile adds the steady interval."""
    if tiles <= 0:
        return 0.0
    span = _span(schedule, work, min(tiles, exact))
    if tiles <= exact:
        return span
    return span + (tiles - exact) * (interval(schedule, work) if per_tile is None else per_tile)


@lru_cache(maxsize=1024)
def _span(schedule: str, work: TileWork, tiles: int) -> float:
    """From the first QK^T's start to the last PV's end of `tiles` key tiles, the copies left out.
    Kept: a causal grid asks for it at each of its blocks' tile counts, all past `exact` the same."""
    spans = [(start, start + length) for lane, _, _, _, start, length in _laid(schedule, work, tiles, 2)
             if lane != "copies"]
    return max(end for _, end in spans) - min(start for start, _ in spans)


def busiest_time(blocks: list[int], bh: int, sms: int, time_of, order: list[int] | None = None) -> tuple[float, int]:
    """(time, tiles) of the busiest SM when the grid's units, in grid order, each go to the SM that
    frees first (a non-persistent grid's next block, or a persistent kernel's next unit: the dealing
    the per-SM counters of cuDNN's kernel bear out, BENCHMARKS.md); time_of(tiles) is one unit's time.
    The grid order is every head's blocks in turn, or `order` (each unit's tiles, as lpt_order gives them)."""
    cost = {b: time_of(b) for b in set(blocks)}
    if order is None and len(cost) == 1:  # units all alike go to the SMs in turn (SM order breaks the ties)
        (b, c), = cost.items()
        units, t = -(-len(blocks) * bh // sms), 0.0
        for _ in range(units):  # the busiest SM's time as its units add up, one at a time
            t += c
        return t, units * b
    load = [(0.0, 0, i) for i in range(sms)]  # already a heap
    for b in (blocks * bh if order is None else order):
        t, tiles, i = load[0]  # the SM that frees first takes the unit
        heapq.heapreplace(load, (t + cost[b], tiles + b, i))
    return max((t, tiles) for t, tiles, _ in load)


L2_SECTION_BYTES = 50 * 1024 * 1024  # flash-attn-4's LPT scheduler: the K and V of a section's heads fit in this


def lpt_order(blocks: list[int], bh: int, head_bytes: float) -> list[int]:
    """flash-attn-4's causal grid order on Hopper (flash_attn/cute/tile_scheduler.py, SingleTileLPTScheduler, chosen
    by flash_fwd_sm90.py for a causal mask): the heads in sections of as many as fit their K and V (head_bytes each)
    in 50 MB, rounded down to a power of 2 (one if none fits), and within a section the query blocks from the last,
    the longest, to the first, each block of every head of the section in turn (longest-processing-time first)."""
    fit = int(L2_SECTION_BYTES // head_bytes)
    section = 1 << (fit.bit_length() - 1) if fit >= 1 else 1
    out: list[int] = []
    for start in range(0, bh, section):
        heads = min(section, bh - start)
        for b in reversed(blocks):
            out += [b] * heads
    return out


def smem_operands(Br: int, Bc: int, d: int, warps: int, element_bytes: int = 2) -> tuple[float, float]:
    """Shared-memory bytes one tile's QK^T and PV read as operands in FlashAttention-2's forward
    (csrc/flash_attn/src/kernel_traits.h: the warps split the Br rows, so each warp reads the whole K tile
    for QK^T and the whole V tile for PV through ldmatrix; Q is not kept in registers (Is_Q_in_regs
    false), so each warp also reads its own rows of Q for every tile; P stays in registers)."""
    k_or_v = warps * Bc * d * element_bytes
    return k_or_v + Br * d * element_bytes, k_or_v


def kernel_time(n: int, d: int, bh: int, causal: bool, Br: int, Bc: int, schedule: str, rates: UnitRates,
                dram_bytes: float, element_bytes: int = 2, fill: bool = False, host_s: float = 0.0,
                smem_bytes: tuple[float, float] | None = None, lpt: bool = False) -> ScheduleTime:
    """The forward's time under a schedule: nothing fitted, everything counted or measured.
    fill=True times each work unit with its pipeline's fill and drain (unit_time) and deals units by
    time; host_s is the host's dispatch of the call (measured apart, bench/gpu/cudnn_probe.py);
    smem_bytes, with rates.smem, charges the matmuls' operand reads from shared memory (tile_work);
    lpt=True deals a causal grid in flash-attn-4's longest-first order (lpt_order)."""
    blocks = block_tiles(n, Br, Bc, causal)
    work = tile_work(Br, Bc, d, rates, element_bytes, copy_bytes=dram_bytes / (bh * sum(blocks)),
                     smem_bytes=smem_bytes)
    per_tile = interval(schedule, work)
    busiest = busiest_sm(blocks, bh, rates.sms)
    arithmetic, extra = busiest * per_tile, 0.0
    if fill:
        order = lpt_order(blocks, bh, 2 * n * d * element_bytes) if (lpt and causal) else None
        arithmetic, tiles = busiest_time(blocks, bh, rates.sms, lambda b: unit_time(schedule, work, b, per_tile),
                                         order)
        extra = arithmetic - tiles * per_tile
    return ScheduleTime(schedule=schedule, per_tile=per_tile, tiles_busiest=busiest, arithmetic_s=arithmetic,
                        dram_s=dram_bytes / rates.dram, work=work, host_s=host_s, fill_s=extra)
