"""What the whole-GPU model needs of a GPU family beside its Hardware preset: how one compute
unit holds thread blocks (occupancy), and which caches the blocks of a wave share.

NVIDIA's SMs and AMD's CDNA 3 compute units hold blocks by different rules: a warp is 32
threads and a wavefront 64; an SM's registers are one pool of 64 K, a CU's are four files (one
per SIMD) of 512 per lane; the driver keeps 1 KB of an SM's shared memory per block, a CU's
64 KB of LDS is all the workgroups'. And the cache DRAM reads go through differs: an NVIDIA
L2 in two partitions, against eight chiplets (XCDs) with a private 4 MB L2 each in front of
one 256 MB Infinity Cache shared by all.

ARCH is keyed by preset name (config.HARDWARE; tests/test_gpu_model.py checks it covers them
all); a custom GPU is modelled as NVIDIA's, and the page says so. Every figure names its
source (keys of flashviz.model.sources.SOURCES).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ..model.config import KB, MB, Hardware


@dataclass(frozen=True)
class Arch:
    family: str
    unit: str                 # what the vendor calls a compute unit: "SM", "CU"
    block: str                # "thread block", "workgroup"
    smem: str                 # the on-chip memory a block's tiles sit in: "shared memory", "LDS"
    warp: int                 # threads per warp (NVIDIA) or wavefront (AMD)
    warp_name: str            # "warp", "wavefront"
    register_files: int       # a warp's registers all come from one file; CUDA's occupancy rules
                              # count an SM's registers as one pool, a CDNA CU has one file per SIMD
    regs_per_unit: int        # 32-bit registers per unit, all files together
    reg_granule: int          # registers per thread are allocated in steps of this many
    max_regs_per_thread: int  # the most one thread may address
    max_warps: int            # resident warps (wavefronts) per unit
    max_blocks: int | None    # resident blocks per unit (None: no limit below the warp limit)
    smem_reserved: int        # bytes of shared memory the driver keeps per block
    cache: str                # the cache every unit shares, which DRAM reads go through
    cache_parts: int          # the model gives the blocks of a wave one part of it
    cache_mb: int | None      # its size in MB, or None: the preset's L2
    chiplets: int = 1         # dies, each with a private L2 between its units and that cache
    chiplet_l2_mb: int = 0
    sources: tuple[str, ...] = ()
    matrix: str = "tensor cores"  # what the vendor calls the matrix units: "tensor cores", "matrix cores"

    @property
    def matrix_rate(self) -> str:
        """The units' rate in the vendor's words: "tensor-core rate", "matrix-core rate"."""
        return self.matrix.removesuffix("s").replace(" ", "-") + " rate"

    @property
    def regs_per_lane(self) -> int:
        """32-bit registers each lane of one register file holds."""
        return self.regs_per_unit // (self.register_files * self.warp)

    def cache_bytes(self, hw: Hardware) -> int:
        """Bytes of the cache every unit shares, all of it."""
        return (hw.l2_mb if self.cache_mb is None else self.cache_mb) * MB

    def shared_cache_bytes(self, hw: Hardware) -> float:
        """Bytes of the shared cache the blocks of one wave get (the model's share)."""
        return self.cache_bytes(hw) / self.cache_parts

    def occupancy(self, smem_bytes: int, threads: int, regs_per_thread: int, hw: Hardware) -> Occupancy:
        """Resident blocks per unit of a kernel whose block takes `smem_bytes` of shared memory
        and `threads` threads of `regs_per_thread` registers each: the least of the limits."""
        per_block = hw.smem_per_block_kb * KB
        # A part that lets one block use X has at least X plus the driver's reservation per unit.
        per_unit = max(hw.smem_per_sm_kb * KB, per_block + self.smem_reserved)
        warps = ceil(threads / self.warp)
        regs = ceil(regs_per_thread / self.reg_granule) * self.reg_granule
        warps_by_regs = self.register_files * (self.regs_per_lane // regs)
        limits: tuple[tuple[str, int], ...] = ((self.smem, per_unit // (smem_bytes + self.smem_reserved)),
                  ("registers", warps_by_regs // warps),
                  (f"{self.warp_name} slots", self.max_warps // warps))
        if self.max_blocks is not None:
            limits += ((f"{self.block} slots", self.max_blocks),)
        launch = None
        if smem_bytes > per_block:
            launch = (f"its tiles need {smem_bytes / KB:.0f} KB of {self.smem} per {self.block}, and the "
                      f"{hw.name} lets one {self.block} use {hw.smem_per_block_kb} KB")
        elif regs_per_thread > self.max_regs_per_thread:
            launch = (f"it needs {regs_per_thread} registers per thread, and a thread on the {hw.name} may "
                      f"address {self.max_regs_per_thread}")
        blocks = 0 if launch else min(v for _, v in limits)
        if not launch and blocks < 1:
            launch = f"one {self.block} needs more than one {self.unit} of the {hw.name} holds"
        return Occupancy(blocks=blocks, limits=limits, launch=launch, warps=warps, regs=regs)


@dataclass(frozen=True)
class Occupancy:
    blocks: int                          # resident blocks per unit; 0 when the kernel cannot launch
    limits: tuple[tuple[str, int], ...]  # (what, blocks it allows), the least is `blocks`
    launch: str | None                   # why the kernel cannot launch on this GPU, or None
    warps: int                           # warps (wavefronts) per block
    regs: int                            # registers per thread as allocated (rounded up to the granule)

    @property
    def limited_by(self) -> str:
        """What holds the blocks per unit down (the first of the tied limits)."""
        return min(self.limits, key=lambda kv: kv[1])[0]


# NVIDIA compute capabilities 8.0 (A100), 9.0 (H100, H200) and 10.0 (B200): the CUDA programming
# guide's table of technical specifications: 64 K 32-bit registers per SM, at most 255 per thread,
# allocated 256 per warp (8 per thread); at most 64 warps and 32 blocks resident per SM; "1 KB of
# shared memory is reserved for system use" per block. The A100 and H100 whitepapers: the L2 is
# two partitions, each caching for the SMs directly connected to it; the model gives a wave one.
NVIDIA = Arch(family="NVIDIA (compute capability 8.0, 9.0 or 10.0)", unit="SM", block="thread block",
              smem="shared memory", warp=32, warp_name="warp", register_files=1, regs_per_unit=65536,
              reg_granule=8, max_regs_per_thread=255, max_warps=64, max_blocks=32, smem_reserved=1 * KB,
              cache="L2", cache_parts=2, cache_mb=None, sources=("cuda", "a100_wp"))

# AMD CDNA 3 (MI300X, gfx942). ROCm's GPU specifications table (MI300X row): wavefronts of 64,
# 64 KiB of LDS per CU, a 512 KiB VGPR file per CU, 32 MiB of L2 as 4 MiB per XCD, 256 MiB of
# L3 (the Infinity Cache), 304 CUs as 38 per XCD, so 8 XCDs. LLVM's AMDGPU backend
# (AMDGPUBaseInfo.cpp, the gfx90a-family rules gfx942 follows): 4 SIMDs per CU, 512 VGPRs per
# lane (architectural and accumulation registers from one file), allocated 8 at a time, all 512
# addressable by one thread, at most 8 wavefronts per SIMD (32 per CU). A workgroup of 2 or more
# wavefronts (all here) meets that limit before LLVM's workgroups-per-CU limit, so no block
# limit of its own is modelled. AMD's ROCm blog on MI300 partition modes: in the default (SPX)
# mode workgroups go to the XCDs round-robin. The Infinity Cache sits in front of HBM and is
# shared by every XCD, so it is the level that decides DRAM reads; the model gives a wave all of it.
CDNA3 = Arch(family="AMD CDNA 3", unit="CU", block="workgroup", smem="LDS", warp=64, warp_name="wavefront",
             register_files=4, regs_per_unit=512 * KB // 4, reg_granule=8, max_regs_per_thread=512,
             max_warps=32, max_blocks=None, smem_reserved=0, cache="Infinity Cache", cache_parts=1,
             cache_mb=256, chiplets=8, chiplet_l2_mb=4,
             sources=("rocm", "llvm_amdgpu", "rocm_partitions"), matrix="matrix cores")

ARCH = {"A100 40GB": NVIDIA, "A100 80GB": NVIDIA, "H100 SXM": NVIDIA, "H200 SXM": NVIDIA, "B200": NVIDIA,
        "MI300X": CDNA3}


def arch_of(hw: Hardware) -> Arch:
    """The architecture of a preset; a custom GPU is modelled as NVIDIA's."""
    return ARCH.get(hw.name, NVIDIA)


def is_modelled(hw: Hardware) -> bool:
    """False for a custom GPU: its occupancy and cache rules are NVIDIA's by assumption."""
    return hw.name in ARCH
