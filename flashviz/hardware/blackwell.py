"""FlashAttention-4's two ideas on a GPU's unit rates: the exponentials split between the exp unit and the
FMA units, and the rescales a lagging max skips. A model of GPUs this project did not measure (the B200)
built from sourced rates, beside the H100 and H200 built the same way.

Rates, per SM and clock unless said (the FlashAttention-4 paper and blog): the exp unit (MUFU) takes 16
exponentials a clock on the H100 and the B200 alike; shared memory gives 128 bytes a clock on both; the
B200's tensor cores do 8,192 dense 16-bit flops a clock. Whole-GPU figures come from the presets' sheets
(config.HARDWARE): dense 16-bit tensor rate, FP32 rate, SMs. The B200's clock is not on its sheet: it is
taken as the one at which 8,192 flops a clock per SM give the sheet's 2.25 PFLOP/s. The H100's and
H200's exp rate is FlashAttention-3's 3.9 T/s; their clock, the one at which 16 a clock per SM give it.

  gpu_rates        a GPU's unit rates for the model (H100, H200, B200)
  balance_share    the polynomial's share that balances the two units per score (BENCHMARKS.md's table)
  kernel_share_at  the share flash-attn-4's tuning table gives the polynomial
  compare_tile     one tile's matmuls against its exponentials on the H200 and the B200 (lesson 13's question)
  b200_schedules   lesson 13's B200: FA3's design and FA4's as timelines, unit by unit (design_work,
                   balanced_share, b200_steps, time_per_tile, b200_bars), with the rescales counted by
                   rescale.sampled_rescales
"""
from __future__ import annotations

from dataclasses import dataclass

from ..model.config import HARDWARE
from .schedule import Step, TileWork, UnitRates, tile_work

EXP_PER_CLK = 16          # MUFU exponentials per clock per SM, Hopper and Blackwell (FA4 paper, blog)
SMEM_BYTES_PER_CLK = 128  # shared-memory bytes per clock per SM, Hopper and Blackwell (FA4 paper, blog)
B200_TENSOR_PER_CLK = 8192  # dense 16-bit tensor-core flops per clock per SM (FA4 paper)
H100_EXP_RATE = 3.9e12    # exponentials a second, the whole H100 (FA3 paper, §3.1)
OTHER_OPS_PER_ENTRY = 3   # FP32 operations per score besides its exponential: max, subtraction, sum


@dataclass(frozen=True)
class GpuRates:
    """One GPU's unit rates for the model, whole GPU, per second."""

    name: str
    clock_hz: float        # derived (module docstring), not a sheet's figure
    rates: UnitRates
    smem_bytes: float      # shared-memory bandwidth

    @property
    def poly_rate(self) -> float:
        """Exponentials a second the FMA units could take by the polynomial if they did nothing else."""
        from ..run.poly_exp import FMA_OPS_PER_EXP
        return self.rates.fp32 / FMA_OPS_PER_EXP


def gpu_rates(name: str) -> GpuRates:
    """The model's rates for "H100 SXM", "H200 SXM" or "B200"."""
    hw = HARDWARE[name]
    if name == "B200":
        clock = hw.fp16_tensor_flops / (hw.sms * B200_TENSOR_PER_CLK)
    elif name in ("H100 SXM", "H200 SXM"):
        clock = H100_EXP_RATE / (hw.sms * EXP_PER_CLK)
    else:
        raise ValueError(f"the exp-unit model has rates for the H100, H200 and B200, not {name!r}")
    # FP32 operations a second: the sheet counts an FMA as 2 flops and the pipe issues one operation a lane.
    rates = UnitRates(tensor=hw.fp16_tensor_flops, exp=EXP_PER_CLK * hw.sms * clock, fp32=hw.fp32_flops / 2,
                      dram=hw.hbm_bytes_per_s, sms=hw.sms)
    return GpuRates(name, clock, rates, SMEM_BYTES_PER_CLK * hw.sms * clock)


def balance_share(gpu: GpuRates, other: float = OTHER_OPS_PER_ENTRY) -> float:
    """The share f of exponentials to give the polynomial so that the exp unit and the FMA units finish
    together, the FMA units also doing `other` FP32 operations per score: (other + c f) / fp32 =
    (1 - f) / exp, c the polynomial's operations. 0 where the FMA units are the busier already."""
    from ..run.poly_exp import FMA_OPS_PER_EXP
    r32, rexp = gpu.rates.fp32, gpu.rates.exp
    return max(0.0, (r32 - other * rexp) / (FMA_OPS_PER_EXP * rexp + r32))


# flash_fwd_sm100.py's tuning table (B200, not SM103): (2-CTA, causal, head dim) -> (ex2_emu_freq, start fragment).
KERNEL_TUNING = {(True, False, 128): (10, 1), (False, True, 128): (16, 1), (True, False, 192): (16, 0),
                 (False, True, 192): (32, 1)}


def kernel_share(freq: int, start_frg: int, row: int = 128, res: int = 4, frg: int = 32) -> float:
    """Share of a row's entries apply_exp2_convert (softmax.py) sends to the polynomial: in each fragment of
    32 entries from `start_frg` to the one before last, the pairs k with k mod freq >= freq - res."""
    if freq == 0:
        return 0.0
    count = row // frg
    emulated = sum(2 for j in range(count) for k in range(0, frg, 2)
                   if not (k % freq < freq - res or j >= count - 1 or j < start_frg))
    return emulated / row


TILE = (128, 128)  # flash_fwd_sm100.py's cta_qk_tiler: a 128 x 128 score tile; FA3's at d = 128 is as large


def kernel_share_at(d: int, causal: bool) -> float:
    """The kernel's polynomial share at head dim d: its tuning entry for the 2-CTA forward (not causal) or the
    1-CTA one (causal), else its default ex2_emu_freq of 16 from fragment 1 (flash_fwd_sm100.py)."""
    freq, start = KERNEL_TUNING.get((not causal, causal, d), (16, 1))
    return kernel_share(freq, start)


@dataclass(frozen=True)
class Comparison:
    """One 128 x 128 tile at head dim d, its arithmetic only (tile_work, no copies), at the H200's and the
    B200's sheet rates: the matmuls against the exponentials, before any schedule (lesson 13's question)."""

    d: int
    h200: TileWork
    b200: TileWork


def compare_tile(d: int) -> Comparison:
    Br, Bc = TILE
    return Comparison(d, *(tile_work(Br, Bc, d, gpu_rates(name).rates, copy_bytes=0.0)
                           for name in ("H200 SXM", "B200")))


# ---------------------------------------------------------------------------------------------
# Lesson 13's B200 timelines: FA3's design and FA4's, unit by unit, on one SM (a model: B200_ASSUMED).
#
# Units: the tensor cores (the MMA's flops), shared memory (the MMA's operands read from it, at 128
# bytes a clock per SM, while the MMA runs: an MMA lasts the longer of its flops and its reads), the
# exp unit (MUFU), the FP32 lanes. Counted per 128 x 128 score tile, as tile_work counts it: QK^T and PV
# 2 Br Bc d flops each; Br Bc exponentials and one per row for the rescale factor; 2 Br Bc FP32
# operations before the exp (max, subtraction), Br Bc + 4 Br after (row sum, l), 2 Br d for O's rescale.
#
#   fa3  FlashAttention-3's design as on Hopper: two consumer warp groups of Br/2 rows take turns on the
#        tensor cores (schedule.timeline's "fa3"); each group's MMA (wgmma, 64 rows) reads its Q rows
#        and the whole K tile from shared memory for QK^T, and V for PV (P from registers); every row's
#        O is rescaled at every tile; every exponential on the exp unit.
#   fa4  FlashAttention-4's (flash_fwd_sm100.py): a CTA holds two Q tiles of 128 rows (q_stage = 2),
#        each with its own softmax warp group; one MMA warp issues S0 = Q0 K_j and S1 = Q1 K_j, then per
#        Q tile the PV of tile j-1 before the QK^T of tile j (S and P share tensor memory); a correction
#        warp group rescales O in tensor memory, only for a warp whose rows' max moved (its
#        vote_ballot_sync); QK^T reads Q and K from shared memory, PV reads V (P from tensor memory); a
#        share of the exponentials runs as the polynomial on the FP32 lanes beside the exp unit's.

B200_LANES = ("tensor cores", "shared memory", "exp unit", "FP32")
B200_TILE = 128          # Br = Bc = 128 for both designs here: one score tile is 128 x 128

DESIGNS = ("fa3", "fa4")


@dataclass(frozen=True)
class Design:
    """One design's work for one 128 x 128 score tile on one SM (seconds at the SM's share of each rate)."""

    name: str
    qk_flops: float
    pv_flops: float
    qk_smem: float       # QK^T's operand reads from shared memory
    pv_smem: float
    exp: float           # the exp unit: its share of the exponentials and the rescale factors
    pre: float           # FP32: max, subtraction
    poly: float          # FP32: the polynomial's share of the exponentials
    post: float          # FP32: row sum and l (and, FA3, O's rescale)
    correct: float       # FP32: O's rescale by FA4's correction warps
    share: float         # exponentials on the polynomial
    rescale_rate: float  # share of (warp, tile) pairs whose O is rescaled

    @property
    def qk(self) -> float:
        return max(self.qk_flops, self.qk_smem)

    @property
    def pv(self) -> float:
        return max(self.pv_flops, self.pv_smem)

    def busy(self) -> dict[str, float]:
        """Each unit's busy time per score tile (s): what no schedule can go below."""
        return {"tensor cores": self.qk_flops + self.pv_flops, "shared memory": self.qk_smem + self.pv_smem,
                "exp unit": self.exp, "FP32": self.pre + self.poly + self.post + self.correct}

    def wall(self) -> tuple[str, float]:
        """The busiest unit and its time per tile; the MMA steps' length counts for the tensor cores when
        their operand reads are longer (an MMA waits on them): that is charged to shared memory."""
        return max(self.busy().items(), key=lambda kv: kv[1])


def operand_bytes(design: str, d: int, Br: int = B200_TILE, Bc: int = B200_TILE, element_bytes: int = 2
                  ) -> tuple[float, float]:
    """Shared-memory bytes the MMAs of one score tile read (QK^T, PV): module comment above."""
    if design == "fa3":   # two groups of Br/2 rows, each reading its Q rows and all of K; then V each
        return 2 * (Br // 2 + Bc) * d * element_bytes, 2 * Bc * d * element_bytes
    if design == "fa4":   # one 128-row MMA: Q and K; PV reads V, P is in tensor memory
        return (Br + Bc) * d * element_bytes, Bc * d * element_bytes
    raise ValueError(f"design must be one of {DESIGNS}, not {design!r}")


def design_work(gpu: GpuRates, d: int, design: str, share: float = 0.0, rescale_rate: float = 1.0) -> Design:
    """One score tile's work under a design at a GPU's rates; FA3's takes neither idea (share 0, rate 1)."""
    from ..run.poly_exp import FMA_OPS_PER_EXP
    if not (0 <= share <= 1 and 0 <= rescale_rate <= 1):
        raise ValueError(f"share and rescale_rate must lie in [0, 1], got {share}, {rescale_rate}")
    if design == "fa3" and (share, rescale_rate) != (0.0, 1.0):
        raise ValueError("FA3's design has no polynomial and rescales every row at every tile")
    Br = Bc = B200_TILE
    sms = gpu.rates.sms
    tensor, exp, fp32, smem = (gpu.rates.tensor / sms, gpu.rates.exp / sms, gpu.rates.fp32 / sms,
                               gpu.smem_bytes / sms)
    qk_b, pv_b = operand_bytes(design, d, Br, Bc)
    E = Br * Bc
    o_rescale = 2 * Br * d / fp32
    return Design(design, 2 * E * d / tensor, 2 * E * d / tensor, qk_b / smem, pv_b / smem,
                  exp=((1 - share) * E + Br) / exp, pre=2 * E / fp32, poly=share * E * FMA_OPS_PER_EXP / fp32,
                  post=(E + 4 * Br) / fp32 + (o_rescale if design == "fa3" else 0.0),
                  correct=rescale_rate * o_rescale if design == "fa4" else 0.0, share=share,
                  rescale_rate=rescale_rate)


UNIT_NAMES = {"tensor cores": "the tensor cores", "shared memory": "shared memory", "exp unit": "the exp unit",
              "FP32": "the FP32 lanes"}


def balanced_share(gpu: GpuRates, d: int, rescale_rate: float) -> float:
    """The polynomial's share that makes FA4's exp unit and FP32 lanes equally busy on a tile (both
    linear in it: exp falls by E/exp_rate per unit share, FP32 rises by 7E/fp32_rate), in [0, 1]."""
    lo, hi = (design_work(gpu, d, "fa4", s, rescale_rate) for s in (0.0, 1.0))
    gap0 = lo.busy()["exp unit"] - lo.busy()["FP32"]
    gap1 = hi.busy()["exp unit"] - hi.busy()["FP32"]
    return min(1.0, max(0.0, gap0 / (gap0 - gap1)))


def _fa3_steps(w: Design, tiles: int) -> list[Step]:
    """schedule.timeline's FA3 on the design's lengths (an MMA as long as the longer of flops and reads),
    the copies left out, and each MMA's reads on the shared-memory lane beside it."""
    from .schedule import timeline
    work = TileWork(qk=w.qk, pv=w.pv, exp=w.exp, pre=w.pre, post=w.post, copy=0.0)
    out = []
    for s in timeline("fa3", work, tiles):
        if s.lane == "copies":
            continue
        out.append(s)
        if s.lane == "tensor cores":
            reads = (w.qk_smem if s.label == "QKᵀ" else w.pv_smem) / 2   # each group's half of the tile
            out.append(Step("shared memory", "operands", s.tile, s.group, s.start, reads))
    return out


def _fa4_steps(w: Design, tiles: int) -> list[Step]:
    """FA4's per-CTA pipeline (module comment): two Q tiles, each step at the earliest time its inputs
    and its unit allow, each unit one step at a time in issue order. Per Q tile q and key tile j:
    S(q, j) on the tensor cores, then max on the FP32 lanes; the exp unit's share and the polynomial's
    run side by side (the kernel interleaves them: softmax.py, apply_exp2_convert); the row sum after
    both; O's rescale by the correction warps after the sum and after PV(q, j-1); PV(q, j) after the sum
    and the rescale. The MMA warp's order: S(0, 0), S(1, 0), then per j and q: PV(q, j-1), S(q, j)."""
    free: dict[str, float] = {}
    done: dict[tuple, float] = {}
    steps: list[Step] = []

    def put(lane: str, label: str, tile: int, q: int, length: float, after: list[tuple]) -> None:
        start = max([free.get(lane, 0.0)] + [done[k] for k in after if k in done])
        steps.append(Step(lane, label, tile, q, start, length))
        free[lane] = start + length
        done[(label, tile, q)] = start + length

    def mma(label: str, j: int, q: int, after: list[tuple]) -> None:
        length, reads = (w.qk, w.qk_smem) if label == "QKᵀ" else (w.pv, w.pv_smem)
        put("tensor cores", label, j, q, length, after)
        steps.append(Step("shared memory", "operands", j, q, steps[-1].start, reads))

    def softmax(j: int, q: int) -> None:
        put("FP32", "max", j, q, w.pre, [("QKᵀ", j, q)])
        put("exp unit", "exp", j, q, w.exp, [("max", j, q)])
        if w.poly > 0:
            put("FP32", "poly", j, q, w.poly, [("max", j, q)])
        put("FP32", "sum", j, q, w.post, [("exp", j, q), ("poly", j, q)])
        if j > 0 and w.correct > 0:
            put("FP32", "rescale", j, q, w.correct, [("sum", j, q), ("PV", j - 1, q)])

    for q in (0, 1):
        mma("QKᵀ", 0, q, [])
    for q in (0, 1):
        softmax(0, q)
    for j in range(1, tiles):
        for q in (0, 1):
            mma("PV", j - 1, q, [("sum", j - 1, q), ("rescale", j - 1, q)])
            mma("QKᵀ", j, q, [("PV", j - 1, q)])
            softmax(j, q)
    for q in (0, 1):
        mma("PV", tiles - 1, q, [("sum", tiles - 1, q), ("rescale", tiles - 1, q)])
    return steps


def b200_steps(w: Design, tiles: int = 4) -> list[Step]:
    """The design's timeline over `tiles` key tiles: FA3's for one 128-row block (two groups of 64 rows),
    FA4's for its CTA's two 128-row Q tiles."""
    return _fa3_steps(w, tiles) if w.name == "fa3" else _fa4_steps(w, tiles)


def score_tiles_per_key_tile(design: str) -> int:
    """128 x 128 score tiles one key tile brings: FA3's block has 128 rows, FA4's CTA two Q tiles of 128."""
    return 1 if design == "fa3" else 2


def time_per_tile(w: Design, tiles: int = 32) -> float:
    """The steady time per 128 x 128 score tile: between the last PV ends of the middle key tile and
    the one before last, over the key tiles between, per score tile (schedule.interval's rule)."""
    ends: dict[int, float] = {}
    for s in b200_steps(w, tiles):
        if s.label == "PV":
            ends[s.tile] = max(ends.get(s.tile, 0.0), s.end)
    half = tiles // 2
    return (ends[tiles - 2] - ends[half - 1]) / (tiles - 1 - half) / score_tiles_per_key_tile(w.name)


@dataclass(frozen=True)
class B200Schedules:
    """Lesson 13's B200 at head dim d: FA3's design, FA4's, and FA4 with one idea at a time, with the
    rescale counts (rescale.sampled_rescales) and the shares behind them."""

    d: int
    causal: bool
    n: int
    tau: float
    spread: float
    rescales: object         # rescale.SampledRescales at tau
    rescales_tau0: object    # the same rows at tau = 0 (a rescale at every new max)
    balanced: float          # the polynomial's share that balances the exp unit and the FP32 lanes
    kernel: float            # the kernel's own share at (d, causal) (kernel_share_at)
    fa3: Design
    fa4: Design
    fa4_split_only: Design   # the polynomial, O rescaled where any row's max moved (tau = 0)
    fa4_skip_only: Design    # the lagging max at tau, every exponential on the exp unit
    fa4_neither: Design      # FA4's pipeline alone: no polynomial, O rescaled where any row's max moved

    def per_tile(self) -> dict[str, float]:
        return {k: time_per_tile(getattr(self, k)) for k in VARIANTS}


VARIANTS = ("fa3", "fa4", "fa4_split_only", "fa4_skip_only", "fa4_neither")


def b200_schedules(d: int, causal: bool, n: int, tau: float, spread: float, blocks: int = 4) -> B200Schedules:
    """The B200's two designs at the lesson's call (n, d, mask) and FA4's threshold tau, the rescales
    counted on random rows whose scores have std `spread` (lesson 2's inputs)."""
    from ..run.rescale import sampled_rescales
    g = gpu_rates("B200")
    at_tau = sampled_rescales(n, d, tau, spread, causal, B200_TILE, B200_TILE, blocks)
    at_0 = sampled_rescales(n, d, 0.0, spread, causal, B200_TILE, B200_TILE, blocks)
    share = balanced_share(g, d, at_tau.warp_rate)
    return B200Schedules(
        d, causal, n, float(tau), spread, at_tau, at_0, share, kernel_share_at(d, causal),
        design_work(g, d, "fa3"), design_work(g, d, "fa4", share, at_tau.warp_rate),
        design_work(g, d, "fa4", balanced_share(g, d, at_0.warp_rate), at_0.warp_rate),
        design_work(g, d, "fa4", 0.0, at_tau.warp_rate), design_work(g, d, "fa4", 0.0, at_0.warp_rate))


B200_TILES_SHOWN = 4  # key tiles the B200 timelines lay out: the fill, then the steady overlap
# The chart's lane names: short enough that a phone keeps the plot wide (tests/test_phone_browser.py).
LANE_SHORT = {"tensor cores": "tensor", "shared memory": "smem", "exp unit": "exp unit", "FP32": "FP32"}
B200_CHART_LANES = [LANE_SHORT[lane] for lane in B200_LANES]


def b200_bars(s: B200Schedules, tiles: int = B200_TILES_SHOWN) -> list[dict]:
    """Both designs' timelines over the same score tiles, as the lesson's chart takes them
    (schedule_lesson.bars_frame's columns): FA4's two Q tiles over `tiles` key tiles, FA3's one block over
    as many key tiles as make the same work. Columns: schedule ("fa3", "fa4"), lane (a unit), label, tile
    (the key tile, 1-based), group (1-based: FA3's warp group, FA4's Q tile), start_ns, length_ns, end_ns;
    each lane a unit (LANE_SHORT's name)."""
    return [{"schedule": w.name, "lane": LANE_SHORT[st.lane], "label": st.label, "tile": st.tile + 1,
             "group": st.group + 1,
             "start_ns": st.start * 1e9, "length_ns": st.length * 1e9, "end_ns": st.end * 1e9}
            for w in (s.fa3, s.fa4)
            for st in b200_steps(w, tiles * score_tiles_per_key_tile("fa4") // score_tiles_per_key_tile(w.name))]
