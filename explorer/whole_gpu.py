"""Lesson 11's controls and its chart: measured DRAM reads against n, with both models.

The figure builder takes engine results and returns a plotly Figure; it is called as a
function. The lesson's controls are Params here (their keys are URL parameters), so
explorer.predict can read them for the lesson's question before the lesson draws them.
"""
from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go

from flashviz.config import CUSTOM, HARDWARE, KB, Hardware
from flashviz.format import bytes_text
from flashviz.gpu_arch import Occupancy, arch_of
from flashviz.gpu_model import Kernel, crossover_n, plain_reads, sdpa_flash, triton, whole_gpu
from flashviz.sources import cite

from . import ui
from .cache import cache
from .params import Param

KERNELS = ("PyTorch flash", "Triton 128×64", "Triton 64×64", "Triton 128×128")
IMPL = {"PyTorch flash": "flash", "Triton 128×64": "triton_128x64", "Triton 64×64": "triton_64x64",
        "Triton 128×128": "triton_128x128"}
N_OPTIONS = tuple(2**k for k in range(10, 21))
X_TICKS = [4**k for k in range(5, 11)]
Y_TICKS_MB = [2.0**k for k in range(-5, 26, 5)]  # 32 KB, 1 MB, 32 MB, 1 GB, 32 GB, 1 TB, 32 TB
PLAIN_MAX_S_BYTES = 8 * 2**30  # as bench/gpu/whole_gpu.py: plain attention measured where S fits in 8 GB
PARAMS = {p.key: p for p in (
    Param("wg_n", "sequence length n", 131072, N_OPTIONS),
    Param("wg_d", "head dim d", 128, (64, 128)),
    Param("wg_bh", "batch × heads", 1, lo=1, hi=64, step=1, kind="int"),
    Param("wg_gpu", "GPU", "H200 SXM", (*HARDWARE, CUSTOM)),
    Param("wg_kernel", "kernel", "PyTorch flash", KERNELS),
)}


def kernel_named(name: str, d: int) -> Kernel:
    if name == "PyTorch flash":
        return sdpa_flash(d)
    bm, bn = (int(x) for x in name.split(" ")[1].split("×"))
    return triton(bm, bn, d)


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
def model_curves(d: int, bh: int, kernel_name: str, hw: Hardware) -> pd.DataFrame:
    k = kernel_named(kernel_name, d)
    rows = []
    for e in range(10, 21):
        w = whole_gpu(2**e, d, bh, k, hw)
        plain = plain_reads(2**e, d, bh) if bh * 4**e * 2 <= PLAIN_MAX_S_BYTES else None
        rows.append({"n": 2**e, "three-level": w.reads, "two-level": w.two_level, "floor": w.compulsory,
                     "plain": plain})
    return pd.DataFrame(rows)


def reads_figure(curves: pd.DataFrame, measured: pd.DataFrame, cross: int | None, title: str,
                 plain: pd.DataFrame | None = None, cache_name: str = "L2") -> go.Figure:
    """Reads (MB, log) against n (log): the floor, the two-level and three-level models,
    the H200's measured points, and the n where a head's K + V outgrow the share of the cache
    DRAM reads go through (`cache_name`); plain attention's model (4n² + 4nd moved per head,
    where S fits) and measured points beside them."""
    mb = 2**20
    fig = go.Figure()
    if "plain" in curves and curves["plain"].notna().any():
        pc = curves[curves["plain"].notna()]
        # wide and pale, under the rest: at d = Br the two-level flash model lies right on it
        fig.add_scatter(x=pc["n"], y=pc["plain"].astype(float) / mb, name="plain attention, model (4n²+4nd)",
                        mode="lines", line={"color": "#BBB", "width": 9})
    if plain is not None and len(plain):
        fig.add_scatter(x=plain["n"], y=plain["dram_read_bytes"] / mb, name="plain attention, H200",
                        mode="markers", marker={"color": "#666", "size": 11, "symbol": "square"})
    styles = {"floor": ("#009E73", "dot"), "two-level": ("#D55E00", "dash"), "three-level": ("#0072B2", "solid")}
    for col, (colour, dash) in styles.items():
        name = {"floor": "compulsory Q + K + V", "two-level": f"two-level model (one block, no {cache_name})",
                "three-level": f"three-level model (waves, {cache_name})"}[col]
        fig.add_scatter(x=curves["n"], y=curves[col] / mb, name=name, mode="lines",
                        line={"color": colour, "dash": dash, "width": 3})
    if len(measured):
        fig.add_scatter(x=measured["n"], y=measured["dram_read_bytes"] / mb, name="H200, Nsight Compute",
                        mode="markers", marker={"color": "#000", "size": 11, "symbol": "diamond"})
    if cross:
        fig.add_vline(x=cross, line={"color": "#CC79A7", "width": 2, "dash": "dot"})
        # a log axis places annotations by log10 of the value
        # the label on the side of the line with room for it (the axis runs from 2^10 to 2^20)
        fig.add_annotation(x=math.log10(cross), y=1, yref="paper", text=f"K + V in flight outgrow {cache_name}",
                           showarrow=False, xanchor="left" if cross <= 2**15 else "right",
                           font={"size": 17, "color": "#8B3A6B"})
    # Dark text at projector sizes, set on every part: Streamlit's theme would grey it otherwise.
    ink, label = {"size": 17, "color": "#111111"}, {"size": 18, "color": "#111111"}
    # The legend under the title, above the plot (as explorer.charts lays out): below the plot it ran
    # over the axis title on a phone, where its six entries take six rows.
    height = 480
    fig.update_layout(title={"text": title, "font": {"size": 20, "color": "#111111"}, "x": 0, "xanchor": "left",
                             "xref": "container", "y": 1, "yanchor": "top", "yref": "container",
                             "pad": {"t": 10, "l": 10}}, height=height,
                      margin={"l": 10, "r": 10, "t": 48, "b": 10}, font=ink, modebar={"orientation": "v"},
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "xref": "container",
                              "y": 1 - 44 / height, "yanchor": "top", "yref": "container", "font": ink},
                      hoverlabel={"font": ink},
                      xaxis={"type": "log", "title": {"text": "sequence length n", "font": label},
                             "tickvals": X_TICKS, "ticktext": [f"{x:,}" for x in X_TICKS], "tickfont": ink},
                      yaxis={"type": "log", "title": {"text": "DRAM reads (bytes)", "font": label},
                             "tickvals": Y_TICKS_MB, "ticktext": [bytes_text(v * mb) for v in Y_TICKS_MB],
                             "tickfont": ink})
    return fig


def crossover(d: int, bh: int, kernel_name: str, hw: Hardware) -> int | None:
    return crossover_n(d, bh, kernel_named(kernel_name, d), hw)
