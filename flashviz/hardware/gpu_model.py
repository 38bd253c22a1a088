"""The whole GPU: a three-level model (HBM <-> shared cache <-> SRAM) of the flash forward's DRAM reads.

The two-level model (costs.flash_cost) runs one thread block at a time with nothing
between HBM and SRAM, so every query block reads all of K and V: Q + Tr (K + V) per
head. A real GPU runs many blocks at once and they share a cache (NVIDIA's L2, AMD CDNA 3's
Infinity Cache: gpu_arch). This model, in closed form, with the same counting rules (each
element read from DRAM counts once, Q once per block, O written once):

  grid        one block per (head, query block): G = BH * Tr blocks, Tr = ceil(n / Br)
  residency   R = units * blocks per unit; blocks per SM (CU) from the kernel's shared memory
              (its tile sizes), registers (per thread, read off the profiler) and warp slots,
              by the GPU family's rules (gpu_arch.Arch.occupancy)
  order       blocks start in grid order, query block fastest: head 0's Tr blocks, then
              head 1's; blocks k*R .. (k+1)*R - 1 form wave k
  sharing     the resident blocks of one head read the same K/V tiles at about the same
              time: one DRAM read of a tile serves the whole wave through the shared cache
  re-reads    between two waves of one head, the cache also takes the other heads' K + V of
              the two waves and the wave's Q and O tiles (the reuse distance, "K + V in flight");
              the waves sweep K and V in step, so that distance depends on where in the sweep a
              tile is (a head only in the earlier wave adds the part after it, a head only in the
              later wave the part before it): the next wave finds the tiles whose distance fits the
              wave's share and reads the rest again (partial retention near the crossover,
              wave_reuse; LRU per tile: all or nothing only where every tile's distance is over)
  floor       never below the compulsory Q + K + V
  chiplets    on CDNA 3, blocks go round-robin to 8 XCDs, each with a private 4 MB L2 between
              its CUs and the Infinity Cache; the same rule per XCD counts what the L2s read
              from the Infinity Cache (not DRAM reads)

Notation as in the paper: n, d, Br, Bc, Tr. BH is batch x heads; e the element size.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ..model import memory as mem
from ..model.config import HARDWARE, Config, Hardware
from ..model.costs import census, flash_cost, floor_sum
from .gpu_arch import Occupancy, arch_of

THREADS_PER_WARP = 32  # the kernels' warps, as written for NVIDIA and measured on the H200

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

    @property
    def threads(self) -> int:
        return self.warps * THREADS_PER_WARP

    def occupancy(self, d: int, hw: Hardware, element_bytes: int = 2) -> Occupancy:
        """Resident blocks per SM (CU) by the GPU's architecture (gpu_arch): the same tiles, threads
        and registers per thread on every GPU. On a CDNA 3 CU its 128 threads are two wavefronts."""
        return arch_of(hw).occupancy(self.smem_bytes(d, element_bytes), self.threads, self.regs_per_thread, hw)


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
    """One forward pass on the whole GPU. Bytes are DRAM bytes unless named otherwise; waves are
    of resident blocks; "l2_share" is the wave's share of the cache DRAM reads go through."""

    n: int
    d: int
    bh: int
    Tr: int
    blocks: int           # G = BH * Tr
    resident: int         # R, blocks running at once (at most G)
    waves: int            # ceil(G / R)
    passes: float         # DRAM reads of one head's K + V, summed over heads (partial reads count in part)
    in_flight: float      # bytes L2 must hold between two waves of one head (the largest over wave pairs)
    l2_share: float       # bytes of L2 the wave gets
    rereads: bool         # in_flight > l2_share: some of a head's K + V is read again if it has two waves
    q_bytes: int
    kv_head_bytes: int    # K + V of one head
    reads: int            # the three-level model's DRAM reads
    writes: int           # O once
    compulsory: int       # Q + K + V, each once
    two_level: int        # Q + Tr (K + V) per head: the tile model's reads
    chiplets: int = 1     # dies with a private L2 (CDNA 3: 8 XCDs); the fields below only when > 1
    chiplet_in_flight: float = 0.0  # bytes one XCD's L2 must hold between two waves of a head
    chiplet_l2: float = 0.0         # bytes of L2 per XCD
    chiplet_rereads: bool = False   # chiplet_in_flight > chiplet_l2
    chiplet_fills: int = 0          # bytes the XCDs' L2s read from the shared cache (Q, and K + V)

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
    limits: resident=1, l2_bytes=0 is the two-level model). A kernel that cannot launch on this
    GPU (its tiles need more shared memory than a block may use) raises ValueError, saying why."""
    e, arch = element_bytes, arch_of(hw)
    Tr = ceil(n / kernel.Br)
    G = bh * Tr
    if resident is None:
        occ = kernel.occupancy(d, hw, e)
        if occ.launch:
            raise ValueError(f"{kernel.name} cannot launch on the {hw.name} at d = {d}: {occ.launch}")
        resident = hw.sms * occ.blocks
    R = max(1, min(resident, G))
    share = l2_bytes if l2_bytes is not None else arch.shared_cache_bytes(hw)
    q_head, kv_head = mem.load_Qi(n, d) * e, mem.load_Kj_Vj(n, d) * e  # Q, and K + V, of one head
    tiles = (mem.load_Qi(kernel.Br, d) + mem.write_Oi(kernel.Br, d)) * e  # one block's Q and O tiles
    reuse = wave_reuse(bh, Tr, R, kv_head, tiles, share)
    in_flight = reuse.in_flight if reuse.pairs else _in_flight(bh, Tr, R, kv_head, tiles)
    rereads = in_flight > share  # what the cache must hold between waves outgrows it (no re-read with one wave)
    passes = reuse.passes
    reads = bh * q_head + round(passes * kv_head)
    chip_R = max(1, R // arch.chiplets)  # each XCD holds its share of a wave's blocks
    chip_in_flight = _in_flight(bh, Tr, chip_R, kv_head, tiles) if arch.chiplets > 1 else 0.0
    chip_l2 = arch.chiplet_l2_mb * 2**20
    chip_rereads = arch.chiplets > 1 and chip_in_flight > chip_l2
    fills = (bh * q_head + chiplet_fills(bh, Tr, R, arch.chiplets, chip_rereads) * kv_head
             if arch.chiplets > 1 else 0)
    return Whole(n=n, d=d, bh=bh, Tr=Tr, blocks=G, resident=R, waves=ceil(G / R), passes=passes,
                 in_flight=in_flight, l2_share=share, rereads=rereads, q_bytes=bh * q_head,
                 kv_head_bytes=kv_head, reads=reads, writes=bh * q_head, compulsory=bh * (q_head + kv_head),
                 two_level=two_level_reads(n, d, bh, kernel, e), chiplets=arch.chiplets,
                 chiplet_in_flight=chip_in_flight, chiplet_l2=chip_l2, chiplet_rereads=chip_rereads,
                 chiplet_fills=fills)


@dataclass(frozen=True)
class Reuse:
    """What the cache keeps between consecutive waves: K + V passes summed over heads, the largest
    reuse distance (bytes) between two waves of a head, and for each wave k >= 1 (heads in both waves
    k - 1 and k, fraction of their K + V that wave k reads again)."""

    passes: float
    in_flight: float
    pairs: tuple[tuple[int, float], ...]


def wave_reuse(bh: int, Tr: int, R: int, kv_head: int, tiles: int, share: float) -> Reuse:
    """Partial retention, wave pair by wave pair. Wave k runs blocks kR .. (k+1)R - 1, so it meets
    the heads first(k) .. last(k); its blocks sweep K and V in step, all heads at the same fraction x
    of the sweep. A head h in waves k-1 and k reads its tile at x in wave k-1 and again in wave k;
    in between, the cache takes (LRU reuse distance, in bytes):
        the whole K + V of every head in both waves (h among them),
        the rest (1 - x) of each head only in wave k-1, after x,
        the first x of each head only in wave k, before x,
        and the wave's Q and O tiles (R blocks' tiles).
    The tile stays (a hit) where that distance fits the share: the fraction of K + V a head reads
    again in wave k is the x at which it does not. Each head's first wave reads all of it. With
    R = 1 and no cache every block re-reads everything: the two-level model."""
    G = bh * Tr
    waves = ceil(G / R)
    passes, worst, pairs = float(bh), 0.0, []
    prev = (0, min(G, R) - 1) if waves else (0, -1)
    prev = (prev[0] // Tr, prev[1] // Tr)
    for k in range(1, waves):
        cur = (k * R // Tr, (min(G, (k + 1) * R) - 1) // Tr)
        both = max(0, min(prev[1], cur[1]) - max(prev[0], cur[0]) + 1)
        only_prev, only_cur = prev[1] - prev[0] + 1 - both, cur[1] - cur[0] + 1 - both
        a = kv_head * (both + only_prev) + R * tiles        # reuse distance at x = 0
        b = kv_head * (only_cur - only_prev)                # its slope in x
        worst = max(worst, a, a + b)
        missed = _fraction_over(a, b, share)
        pairs.append((both, missed))
        passes += both * missed
        prev = cur
    return Reuse(passes=passes, in_flight=worst, pairs=tuple(pairs))


def _fraction_over(a: float, b: float, share: float) -> float:
    """The share of x in [0, 1] where a + b x > share."""
    if b == 0:
        return 1.0 if a > share else 0.0
    x0 = (share - a) / b  # where the distance crosses the share
    over = 1.0 - x0 if b > 0 else x0
    return min(1.0, max(0.0, over))


def _in_flight(bh: int, Tr: int, R: int, kv_head: int, tiles: int) -> float:
    """Bytes a cache must hold between two waves of one head for the next wave to hit: the K + V
    of the heads a wave touches (a window of R consecutive blocks meets (R - 1) / Tr + 1 heads on
    average) and the wave's Q tiles read and O tiles written."""
    return min(bh, (R - 1) / Tr + 1) * kv_head + R * tiles


def chiplet_fills(bh: int, Tr: int, R: int, chiplets: int, rereads: bool) -> int:
    """Times a head's K + V is read into a chiplet's L2, summed over heads: each chiplet that runs a
    block of the head (block b runs on chiplet b mod `chiplets`) reads it once, or once per wave
    of the head when its L2 loses it between waves (`rereads`)."""
    total = 0
    for h in range(bh):
        first, last = h * Tr, (h + 1) * Tr  # the head's blocks [first, last)
        if not rereads:
            total += min(chiplets, Tr)
            continue
        for k in range(first // R, (last - 1) // R + 1):
            total += min(chiplets, min(last, (k + 1) * R) - max(first, k * R))
    return total


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
    to the matmul time (overlap=False). FlashAttention-3 overlaps one warp group's softmax with the
    other's matmuls (ping-pong, FA3 §3.1), and within a group a tile's softmax with the previous tile's
    PV (§3.2, Algorithm 2): overlap=True takes the larger of the two.
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
    2 n^2 + n d written. passes=4 adds the separate scale kernel a naive script runs with
    `(q @ k^T) * scale` (S read, S' written): 3 n^2 + 3 n d read. (PyTorch's own math path scales
    q and k, not S.)"""
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
