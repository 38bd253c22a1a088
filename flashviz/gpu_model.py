"""The whole GPU: a three-level model (HBM <-> L2 <-> SRAM) of the flash forward's DRAM reads.

The two-level model (costs.flash_cost) runs one thread block at a time with nothing
between HBM and SRAM, so every query block reads all of K and V: Q + Tr (K + V) per
head. A real GPU runs many blocks at once and they share an L2. This model, in closed
form, with the same counting rules (each element read from DRAM counts once, Q once per
block, O written once):

  grid        one block per (head, query block): G = BH * Tr blocks, Tr = ceil(n / Br)
  residency   R = SMs * blocks per SM; blocks per SM from the kernel's shared memory
              (its tile sizes) and registers (registers per thread read off the profiler)
  order       blocks start in grid order, query block fastest: head 0's Tr blocks, then
              head 1's; blocks k*R .. (k+1)*R - 1 form wave k
  sharing     the resident blocks of one head read the same K/V tiles at about the same
              time: one DRAM read of a tile serves the whole wave through L2
  re-reads    between two waves of one head, L2 also takes the other heads' K + V of the
              wave and the wave's Q and O tiles ("K + V in flight"); if that outgrows the
              L2 share, the next wave finds nothing and reads that head's K + V again
  floor       never below the compulsory Q + K + V

Notation as in the paper: n, d, Br, Bc, Tr. BH is batch x heads; e the element size.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from . import memory as mem
from .config import HARDWARE, KB, MB, Config, Hardware
from .costs import census, flash_cost, floor_sum

# Hopper and Ampere: 64 K 32-bit registers per SM, at most 32 blocks and 64 warps per SM
# (CUDA programming guide, compute capabilities 8.0 and 9.0; the same on all four presets).
REGISTERS_PER_SM = 65536
MAX_BLOCKS_PER_SM = 32
MAX_WARPS_PER_SM = 64
REGISTER_GRANULE = 8         # registers are allocated per thread in steps of 8
SMEM_RESERVED_BYTES = 1 * KB  # the driver keeps 1 KB of shared memory per block (sm_80 and later)
# A100 and H100/H200 split their L2 into two partitions; an SM caches through the one near it
# (NVIDIA's A100 and H100 whitepapers). Assumption: the blocks of a wave get one partition's worth.
L2_PARTITIONS = 2


@dataclass(frozen=True)
class Kernel:
    """What the model needs of a kernel: its tiles, pipeline depth, warps, registers."""

    name: str
    Br: int                 # query rows per block (the grid's second axis is n / Br)
    Bc: int                 # key/value rows per step
    stages: int = 1         # K/V tiles double-buffered in shared memory when 2
    warps: int = 4
    regs_per_thread: int = 255  # read off the profiler (launch__registers_per_thread)

    def smem_bytes(self, d: int, element_bytes: int = 2) -> int:
        """Shared memory per block from the tile sizes (memory.kernel_smem)."""
        return mem.kernel_smem(self.Br, self.Bc, d, self.stages) * element_bytes

    def blocks_per_sm(self, d: int, hw: Hardware, element_bytes: int = 2) -> int:
        """Resident blocks per SM: the least of the shared-memory, register, warp and block limits."""
        by_smem = (hw.smem_per_sm_kb * KB) // (self.smem_bytes(d, element_bytes) + SMEM_RESERVED_BYTES)
        regs = -(-self.regs_per_thread // REGISTER_GRANULE) * REGISTER_GRANULE
        by_regs = REGISTERS_PER_SM // (regs * 32 * self.warps)
        return max(0, min(by_smem, by_regs, MAX_WARPS_PER_SM // self.warps, MAX_BLOCKS_PER_SM))


def sdpa_flash(d: int) -> Kernel:
    """PyTorch's flash forward (FlashAttention-2 code): 128 x 128 tiles up to d = 64, 128 x 64
    above, one stage, 4 warps, 255 registers per thread (all as Nsight Compute read them)."""
    return Kernel("PyTorch flash", 128, 128 if d <= 64 else 64, 1, 4, 255)


def triton(block_m: int, block_n: int, d: int) -> Kernel:
    """bench/gpu/triton_blocks.py: two stages, 8 warps from 128 x 128 up; registers per thread
    as Nsight Compute read them on the H200 (Triton 3.6)."""
    regs = {(128, 64, 128): 255, (64, 64, 128): 149, (128, 128, 128): 203,
            (128, 64, 64): 209, (64, 64, 64): 108, (128, 128, 64): 163}.get((block_m, block_n, d), 255)
    return Kernel(f"Triton {block_m}×{block_n}", block_m, block_n, 2,
                  8 if block_m * block_n >= 128 * 128 else 4, regs)


@dataclass(frozen=True)
class Whole:
    """One forward pass on the whole GPU. Bytes are DRAM bytes; waves are of resident blocks."""

    n: int
    d: int
    bh: int
    Tr: int
    blocks: int           # G = BH * Tr
    resident: int         # R, blocks running at once (at most G)
    waves: int            # ceil(G / R)
    passes: int           # DRAM reads of one head's K + V, summed over heads
    in_flight: float      # bytes L2 must hold between two waves of one head
    l2_share: float       # bytes of L2 the wave gets
    rereads: bool         # in_flight > l2_share
    q_bytes: int
    kv_head_bytes: int    # K + V of one head
    reads: int            # the three-level model's DRAM reads
    writes: int           # O once
    compulsory: int       # Q + K + V, each once
    two_level: int        # Q + Tr (K + V) per head: the tile model's reads

    @property
    def over_floor(self) -> float:
        return self.reads / self.compulsory


def wave_passes(bh: int, Tr: int, R: int) -> int:
    """Sum over heads of the waves that head's blocks fall in. Head h holds blocks
    h*Tr .. (h+1)*Tr - 1, so it meets waves floor(h Tr / R) .. floor(((h+1) Tr - 1) / R)."""
    last = floor_sum(bh, R, Tr, Tr - 1)   # sum of floor((h Tr + Tr - 1) / R)
    first = floor_sum(bh, R, Tr, 0)       # sum of floor(h Tr / R)
    return last - first + bh


def whole_gpu(n: int, d: int, bh: int, kernel: Kernel, hw: Hardware, element_bytes: int = 2,
              resident: int | None = None, l2_bytes: float | None = None) -> Whole:
    """The model at one config. `resident` and `l2_bytes` override the hardware's (for the
    limits: resident=1, l2_bytes=0 is the two-level model)."""
    e = element_bytes
    Tr = ceil(n / kernel.Br)
    G = bh * Tr
    R = resident if resident is not None else hw.sms * kernel.blocks_per_sm(d, hw, e)
    R = max(1, min(R, G))
    share = l2_bytes if l2_bytes is not None else hw.l2_mb * MB / L2_PARTITIONS
    q_head, kv_head = mem.load_Qi(n, d) * e, mem.load_Kj_Vj(n, d) * e  # Q, and K + V, of one head
    # Heads a wave touches: a window of R consecutive blocks meets (R - 1) / Tr + 1 heads on average.
    heads = min(bh, (R - 1) / Tr + 1)
    # Between two waves of one head, L2 takes the wave's heads' K + V plus the wave's Q tiles read
    # and O tiles written (each Br x d): what must stay for the next wave to hit.
    in_flight = heads * kv_head + R * (mem.load_Qi(kernel.Br, d) + mem.write_Oi(kernel.Br, d)) * e
    rereads = in_flight > share
    # LRU over a cyclic stream: if the cycle is longer than the cache, every tile misses (all or nothing).
    passes = wave_passes(bh, Tr, R) if rereads else bh
    reads = bh * q_head + passes * kv_head
    return Whole(n=n, d=d, bh=bh, Tr=Tr, blocks=G, resident=R, waves=ceil(G / R), passes=passes,
                 in_flight=in_flight, l2_share=share, rereads=rereads, q_bytes=bh * q_head,
                 kv_head_bytes=kv_head, reads=reads, writes=bh * q_head, compulsory=bh * (q_head + kv_head),
                 two_level=two_level_reads(n, d, bh, kernel, e))


def _tile_model(n: int, d: int, kernel: Kernel) -> Config:
    """The two-level model at the kernel's tiles (cut to n), in fp16, with room for any tile."""
    return Config.clamped(n, kernel.Br, kernel.Bc, d=d, sram_bytes=2**40, dtype="float16")


def two_level_reads(n: int, d: int, bh: int, kernel: Kernel, element_bytes: int = 2) -> int:
    """The tile model's DRAM reads (costs.flash_cost, FA2 order, no spill): its moved elements
    less the one write of O, for every head."""
    cfg = _tile_model(n, d, kernel)
    return bh * (flash_cost(cfg).moved - mem.write_Oi(n, d)) * element_bytes


def crossover_n(d: int, bh: int, kernel: Kernel, hw: Hardware, element_bytes: int = 2) -> int | None:
    """The smallest power-of-two n at which the waves of a head start to re-read K + V,
    or None up to 2^22. (Below it, reads sit on the floor.)"""
    for k in range(7, 23):
        w = whole_gpu(2**k, d, bh, kernel, hw, element_bytes)
        if w.rereads and w.passes > bh:
            return 2**k
    return None


@dataclass(frozen=True)
class Rates:
    """The rates the time model divides by. On the page they are this H200's, measured in the
    same run as the kernels (bench/gpu/whole_gpu.py, whole_gpu_ceilings.csv)."""

    matmul: float   # dense fp16 matmul, flop/s (cuBLAS on random data)
    exp: float      # exponentials per second (the special-function units; FACTS.md: 3.9 T/s on the H100)
    fp32: float     # other non-matmul operations per second, ONE FP32 instruction each (the vendor's
                    # 67 TFLOP/s counts an FFMA as two flops, so about 33.5 T instructions/s)
    dram: float     # DRAM bytes per second (device-to-device copy, read + write)


def softmax_ops(n: int, d: int, bh: int, kernel: Kernel) -> tuple[int, int]:
    """(exponentials, other non-matmul operations) of the forward, summed over heads, with
    costs.flash_cost's counting rules: per (r x c) tile, r c + r exponentials (the scores and
    the rescale factors) and 3 r c + 4 r + 2 r d others (the row max, the subtraction, the row
    sum, the rescale of l and O); n d for the final division by l."""
    cfg = _tile_model(n, d, kernel)
    exps = census(n, cfg.Br, cfg.Bc, False).total(lambda r, c: r * c + r)
    return bh * exps, bh * (flash_cost(cfg).nonmatmul - exps)


@dataclass(frozen=True)
class Timing:
    """The time model's parts, in seconds. FA2-style kernels (PyTorch's flash, the Triton kernel)
    run a tile's softmax between its two matmuls in the same warps, so the exp and FP32 work ADDS
    to the matmul time (overlap=False). FlashAttention-3 overlaps the softmax of one tile with the
    matmuls of another (ping-pong across warp groups): overlap=True takes the larger of the two.
    DRAM traffic overlaps everything (the roofline's max): each block streams K/V while it computes."""

    matmul_s: float
    exp_s: float
    other_s: float
    dram_s: float
    overlap: bool = False

    @property
    def softmax_s(self) -> float:
        return self.exp_s + self.other_s

    @property
    def arithmetic_s(self) -> float:
        return max(self.matmul_s, self.softmax_s) if self.overlap else self.matmul_s + self.softmax_s

    @property
    def total_s(self) -> float:
        return max(self.arithmetic_s, self.dram_s)

    @property
    def bound(self) -> str:
        return "DRAM" if self.dram_s > self.arithmetic_s else "arithmetic"


def forward_time(n: int, d: int, bh: int, kernel: Kernel, dram_bytes: float, rates: Rates,
                 overlap: bool = False) -> Timing:
    """Time of the forward from counted operations and bytes at the given rates; nothing fitted."""
    exps, other = softmax_ops(n, d, bh, kernel)
    return Timing(matmul_s=forward_flops(n, d, bh) / rates.matmul, exp_s=exps / rates.exp,
                  other_s=other / rates.fp32, dram_s=dram_bytes / rates.dram, overlap=overlap)


def plain_reads(n: int, d: int, bh: int, element_bytes: int = 2, passes: int = 3) -> int:
    """Plain attention's DRAM reads. passes=3 is the two-level standard model (costs.standard_cost,
    4 n^2 + 4 n d moved per head): read Q, K; read S; read P, V, so 2 n^2 + 3 n d read and
    2 n^2 + n d written. passes=4 adds the separate scale kernel PyTorch runs (S read, S' written):
    3 n^2 + 3 n d read."""
    extra = (passes - 3) * mem.read_S(n)  # each extra n x n pass reads its input
    return bh * (mem.read_Q_K(n, d) + mem.read_S(n) + mem.read_P_V(n, d) + extra) * element_bytes


def plain_writes(n: int, d: int, bh: int, element_bytes: int = 2, passes: int = 3) -> int:
    """Plain attention's DRAM writes: every n x n pass but the last writes its result, plus O."""
    extra = (passes - 3) * mem.write_S(n)
    return bh * (mem.write_S(n) + mem.write_P(n) + mem.write_O(n, d) + extra) * element_bytes


def roofline_ms(flops: float, dram_bytes: float, flops_per_s: float, bytes_per_s: float) -> float:
    """The larger of arithmetic time and DRAM time: the roofline's floor on a kernel's time."""
    return 1e3 * max(flops / flops_per_s, dram_bytes / bytes_per_s)


def forward_flops(n: int, d: int, bh: int) -> int:
    """Matmul flops of the forward, non-causal: QK^T and PV, 2 n^2 d each, per head."""
    return 4 * bh * n * n * d


def gpu(name: str) -> Hardware:
    return HARDWARE[name]
