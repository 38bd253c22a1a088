"""Lesson 11's helpers: the kernel menu, the residency and launch texts, the model's curves.
(Its controls are its registry entry's, explorer/lessons.py; its figure is charts.reads_figure.)"""
from __future__ import annotations

import functools

import pandas as pd

from flashviz.model.config import CUSTOM, HARDWARE, KB, Hardware
from flashviz.hardware.gpu_arch import Occupancy, arch_of
from flashviz.hardware.gpu_model import Kernel, crossover_n, plain_reads, whole_gpu
from flashviz.hardware import gpu_targets
from flashviz.model.sources import cite

from . import ui
from .asks import kernel_named
from .cache import cache, gpu_measured
from .charts import MeasuredReads, ModelReads
from .lessons import KERNELS

IMPL = {"PyTorch flash": "flash", "Triton 128×64": "triton_128x64", "Triton 64×64": "triton_64x64",
        "Triton 128×128": "triton_128x128"}
PLAIN_MAX_S_BYTES = 8 * 2**30  # as bench/gpu/whole_gpu.py: plain attention measured where S fits in 8 GB


def gpu_named(name: str) -> Hardware:
    """A preset, or for "custom" the reader's own figures (typed in the sidebar or in this lesson)."""
    return ui.custom_gpu() if name == CUSTOM else HARDWARE[name]


def launchable(d: int, hw: Hardware) -> list[str]:
    """The kernels of the menu whose tiles fit this GPU at head dim d."""
    return [k for k in KERNELS if kernel_named(k, d).occupancy(d, hw).launch is None]


def residency_text(kernel: Kernel, d: int, hw: Hardware, occ: Occupancy) -> str:
    """What each limit on blocks per SM (CU) allows, and from which figures: "shared memory allows
    3 (64 KB per block ...), registers 2 (...), warp slots 16 and block slots 32"."""
    arch = arch_of(hw)
    allows = dict(occ.limits)
    smem = kernel.smem_bytes(d)
    per_unit = max(hw.smem_per_sm_kb * KB, hw.smem_per_block_kb * KB + arch.smem_reserved)
    kept = f" plus the {arch.smem_reserved // KB} KB the driver keeps" if arch.smem_reserved else ""
    parts = [f"{arch.smem} allows {allows[arch.smem]} ({smem / KB:.0f} KB per {arch.block} from the tiles{kept}, "
             f"of {per_unit / KB:.0f} KB per {arch.unit})"]
    warps = f"{occ.warps} {arch.warp_name}{'s' if occ.warps > 1 else ''}"
    if arch.register_files > 1:
        lanes = arch.regs_per_lane
        parts.append(f"registers {allows['registers']} (its {kernel.threads} threads are {warps} of {arch.warp} "
                     f"with {kernel.regs_per_thread} registers each, allocated as {occ.regs}; each of the "
                     f"{arch.unit}'s {arch.register_files} SIMDs holds {lanes} per lane, so "
                     f"{lanes // occ.regs} {arch.warp_name}{'s' if lanes // occ.regs > 1 else ''} per SIMD)")
    else:
        parts.append(f"registers {allows['registers']} ({kernel.regs_per_thread} per thread, {warps} of "
                     f"{arch.warp} threads, against {arch.regs_per_unit // 1024} K per {arch.unit})")
    slots = [f"{what} {allows[what]}" for what, _ in occ.limits[2:]]
    return ", ".join(parts + slots[:-1]) + (" and " if len(slots) > 1 else ", ") + slots[-1]


def figures_cited(hw: Hardware) -> str:
    """Where the residency and cache figures come from, as links."""
    if arch_of(hw).chiplets > 1:
        return (f"{cite('rocm')} (CUs, wavefronts of 64, LDS, the VGPR file, the L2 per XCD and the "
                f"Infinity Cache), {cite('llvm_amdgpu')} (4 SIMDs per CU, 512 registers per lane allocated 8 at "
                f"a time, at most 8 wavefronts per SIMD), {cite('rocm_partitions')} (workgroups go to the XCDs "
                "in turn)")
    return (f"{cite('cuda')} (registers, warps and blocks per SM, 1 KB kept per block), {cite('a100_wp')} "
            "(the L2 in two partitions)")


def launch_error(kernel_name: str, d: int, hw: Hardware, occ: Occupancy) -> str:
    """Why the kernel cannot launch here, its source, and what would."""
    others = [k for k in launchable(d, hw) if k != kernel_name]
    fix = (f"For this GPU at d = {d}, pick {', '.join(others)}." if others else
           f"No kernel of this lesson fits this GPU at d = {d}.")
    amd = (" These are the kernels as built for the H200; a ROCm build picks tiles and stages that fit 64 KB "
           "of LDS." if arch_of(hw).chiplets > 1 else "")
    return (f"**{kernel_name} cannot launch on the {hw.name} at d = {d}:** {occ.launch}. A kernel whose tiles "
            f"do not fit is refused, not slowed down ({cite('fa2', '§3.3')}: \"the kernel cannot run at "
            f"all\"). {fix}{amd}")


@cache
def model_curves(d: int, bh: int, kernel_name: str, hw: Hardware) -> ModelReads:
    """The models' DRAM reads over n = 2^10 .. 2^20; plain attention's where S fits in 8 GB."""
    k = kernel_named(kernel_name, d)
    ns = tuple(2**e for e in range(10, 21))
    runs = [whole_gpu(n, d, bh, k, hw) for n in ns]
    return ModelReads(n=ns, three_level=tuple(float(w.reads) for w in runs),
                      two_level=tuple(float(w.two_level) for w in runs),
                      floor=tuple(float(w.compulsory) for w in runs),
                      plain=tuple(float(plain_reads(n, d, bh)) if bh * n * n * 2 <= PLAIN_MAX_S_BYTES else None
                                  for n in ns))


def measured_reads(points: pd.DataFrame) -> MeasuredReads:
    """The H200's measured DRAM reads (flashviz/data/h200/whole_gpu.csv's rows) for charts.reads_figure."""
    return MeasuredReads(n=tuple(int(n) for n in points["n"]),
                         reads=tuple(float(b) for b in points["dram_read_bytes"]))


def crossover(d: int, bh: int, kernel_name: str, hw: Hardware) -> int | None:
    return crossover_n(d, bh, kernel_named(kernel_name, d), hw)


# The H200's tables, filtered and summed once a process (shared read-only by every rerun and reader): done every
# rerun, the reindex and the pivot below and the filters took lesson 11's rerun from 79 to 117 ms of server CPU on
# the slower host (BENCHMARKS.md, "Per rerun, by lesson").
@functools.lru_cache(maxsize=64)
def measured_at(impl: str, d: int, bh: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The H200's measured rows of kernel `impl` and of plain attention at head dim d and batch × heads bh, in n's
    order (read-only)."""
    df, _, _, plain, _ = gpu_measured()
    ran = df[(df["impl"] == impl) & (df["d"] == d) & (df["batch_heads"] == bh)].sort_values("n")
    return ran, plain[(plain["d"] == d) & (plain["batch_heads"] == bh)].sort_values("n")


@functools.lru_cache(maxsize=16)
def measured_bh(impl: str, d: int) -> tuple[int, ...]:
    """The batch × heads the H200 ran kernel `impl` at, at head dim d."""
    df = gpu_measured()[0]
    return tuple(sorted(int(x) for x in df[(df["impl"] == impl) & (df["d"] == d)]["batch_heads"].unique()))


@functools.lru_cache(maxsize=1)
def plain_over_flash() -> tuple[float, float]:
    """gpu_targets.plain_over_flash of the committed sweep."""
    df, _, _, plain, _ = gpu_measured()
    return gpu_targets.plain_over_flash(df, plain)


@functools.lru_cache(maxsize=1)
def triton_128_slower() -> tuple[float, float, float, float]:
    """gpu_targets.triton_128_slower of the committed sweep's targets."""
    return gpu_targets.triton_128_slower(gpu_measured()[2])


@functools.lru_cache(maxsize=1)
def time_bias() -> tuple[tuple[str, float], ...]:
    """gpu_targets.time_bias of the committed sweep's targets."""
    return gpu_targets.time_bias(gpu_measured()[2])
