"""FlashAttention-4's two ideas on a GPU's unit rates: the exponentials split between the exp unit and the
FMA units, and the rescales a lagging max skips. A model of GPUs this project did not measure (the B200)
built from sourced rates, beside the H100 and H200 built the same way.

Rates, per SM and clock unless said (the FlashAttention-4 paper and blog): the exp unit (MUFU) takes 16
exponentials a clock on the H100 and the B200 alike; shared memory gives 128 bytes a clock on both; the
B200's tensor cores do 8,192 dense 16-bit flops a clock. Whole-GPU figures come from the presets' sheets
(config.HARDWARE): dense 16-bit tensor rate, FP32 rate, SMs. The B200's clock is not on its sheet: it is
taken as the one at which 8,192 flops a clock per SM give the sheet's 2.25 PFLOP/s. The H100's and
H200's exp rate is FlashAttention-3's 3.9 T/s; their clock, the one at which 16 a clock per SM give it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..model.config import HARDWARE
from .schedule import TileWork, UnitRates, interval, tile_work

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


@dataclass(frozen=True)
class Fa4Tile:
    """One tile's work under FA3's design and under FA4's two ideas, on one GPU (seconds, one SM)."""

    fa3: TileWork
    fa4: TileWork
    share: float      # exponentials on the FMA units
    skipped: float    # share of rescales skipped


def fa4_tile(gpu: GpuRates, Br: int, Bc: int, d: int, share: float, skipped: float) -> Fa4Tile:
    """FA3's tile work at these rates, and FA4's: the exp unit takes 1 - share of the exponentials and the
    FP32 lanes the rest by the polynomial, after the row sum (no unit does two steps at once, and within a
    warp group the polynomial follows the exp unit's part: the model's choice, a conservative one); the
    rescale of l and O (2 Br d + 4 Br FP32 operations, and Br of the exponentials) is done for the rows
    not skipped."""
    from ..run.poly_exp import FMA_OPS_PER_EXP
    if not (0 <= share <= 1 and 0 <= skipped <= 1):
        raise ValueError(f"share and skipped must lie in [0, 1], got {share}, {skipped}")
    w = tile_work(Br, Bc, d, gpu.rates, copy_bytes=0.0)   # on-chip work only: the copies left out
    per_sm = gpu.rates.sms
    entries = Br * Bc + Br * (1 - skipped)
    mufu = entries * (1 - share) / (gpu.rates.exp / per_sm)
    poly = entries * share * FMA_OPS_PER_EXP / (gpu.rates.fp32 / per_sm)
    saved = skipped * (2 * Br * d + 4 * Br) / (gpu.rates.fp32 / per_sm)
    return Fa4Tile(w, replace(w, exp=mufu, post=w.post - saved + poly), share, skipped)


def per_tile(work: TileWork) -> float:
    """FA3's schedule's steady time per tile (schedule.interval): FA4's tile is run on the same ping-pong."""
    return interval("fa3", work)


TILE = (128, 128)  # flash_fwd_sm100.py's cta_qk_tiler: a 128 x 128 score tile; FA3's at d = 128 is as large


def kernel_share_at(d: int, causal: bool) -> float:
    """The kernel's polynomial share at head dim d: its tuning entry for the 2-CTA forward (not causal) or the
    1-CTA one (causal), else its default ex2_emu_freq of 16 from fragment 1 (flash_fwd_sm100.py)."""
    freq, start = KERNEL_TUNING.get((not causal, causal, d), (16, 1))
    return kernel_share(freq, start)


@dataclass(frozen=True)
class Comparison:
    """One 128 x 128 tile at head dim d on the H200 (FA3's design) and the B200 (FA3's, then FA4's)."""

    d: int
    share: float
    skipped: float
    h200: Fa4Tile
    b200: Fa4Tile

    def rows(self) -> list[dict]:
        out = []
        for gpu, design, w in (("H200", "FA3", self.h200.fa3), ("B200", "FA3", self.b200.fa3),
                               ("B200", "FA4", self.b200.fa4)):
            out.append({"GPU": gpu, "design": design, "matmuls ns": 1e9 * w.matmul, "exp unit ns": 1e9 * w.exp,
                        "FP32 lanes ns": 1e9 * (w.pre + w.post), "per tile ns": 1e9 * per_tile(w),
                        "exp ÷ matmul": w.exp / w.matmul})
        return out


def compare_tile(d: int, causal: bool, skipped: float) -> Comparison:
    """The tile of lesson 13's FA4 section: the kernel's polynomial share at (d, causal), `skipped` of the
    rescales skipped on the B200; the H200 runs FA3's design (no share, no skip)."""
    share = kernel_share_at(d, causal)
    Br, Bc = TILE
    return Comparison(d, share, skipped, fa4_tile(gpu_rates("H200 SXM"), Br, Bc, d, 0.0, 0.0),
                      fa4_tile(gpu_rates("B200"), Br, Bc, d, share, skipped))
