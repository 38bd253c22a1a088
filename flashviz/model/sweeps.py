"""Tables over n, over block size and over loop order, for the live lessons.

All from closed forms, so any n up to 2^22 is instant.
"""
from __future__ import annotations

from typing import Final

import pandas as pd

from . import costs
from .config import KB, MB, Config, Hardware
from .memory import fits, paper_block_sizes
from .sources import PRESET_SOURCES, SOURCES


class OverN:
    """over_n's columns, by name: explorer/charts/ reads them through these, so a renamed column is
    renamed for both (and a constant renamed on one side only fails mypy)."""
    N: Final = "n"
    STD_HBM_MB: Final = "std HBM MB"
    FLASH_HBM_MB: Final = "flash HBM MB"
    STD_GFLOPS: Final = "std GFLOPs"
    FLASH_GFLOPS: Final = "flash GFLOPs"
    STD_PEAK_KB: Final = "std peak KB"
    FLASH_PEAK_KB: Final = "flash peak KB"
    TRAFFIC_CUT: Final = "traffic cut"


def over_n(cfg: Config, ns) -> pd.DataFrame:
    """Standard beside flash at each n, with the config's other knobs (columns: OverN)."""
    c, rows = OverN, []
    for n in ns:
        at = cfg.at_n(n)
        std, flash = costs.standard_cost(at), costs.flash_cost(at)
        rows.append({
            c.N: n, c.STD_HBM_MB: std.hbm_bytes / MB, c.FLASH_HBM_MB: flash.hbm_bytes / MB,
            c.STD_GFLOPS: std.flops / 1e9, c.FLASH_GFLOPS: flash.flops / 1e9,
            c.STD_PEAK_KB: std.peak_bytes / KB, c.FLASH_PEAK_KB: flash.peak_bytes / KB,
            c.TRAFFIC_CUT: std.hbm_bytes / flash.hbm_bytes,
        })
    return pd.DataFrame(rows)


def ns_around(n: int, start: int = 128, top: int = 8192, factor: int = 2) -> tuple[int, ...]:
    """start, start*factor, ... up to max(n, top), with n itself among them."""
    out, k = {n}, start
    while k <= max(n, top):
        out.add(k)
        k *= factor
    return tuple(sorted(out))


class OverBlocks:
    """over_blocks' columns, by name (as OverN)."""
    BLOCK: Final = "block"
    HBM_MB: Final = "HBM MB"
    SPILL_MB: Final = "spill MB"
    HBM_MB_WITH_SPILL: Final = "HBM MB with spill"
    WORKING_SET_KB: Final = "tile working set KB"
    FITS: Final = "fits SRAM"


def over_blocks(cfg: Config, blocks) -> pd.DataFrame:
    """Square tiles Br = Bc = b against the config's SRAM budget (columns: OverBlocks)."""
    c, rows = OverBlocks, []
    for b in blocks:
        cost = costs.flash_cost(cfg.with_(Br=b, Bc=b))
        eb = cost.element_bytes
        rows.append({c.BLOCK: b, c.HBM_MB: cost.moved * eb / MB,
                     c.SPILL_MB: cost.spilled * eb / MB, c.HBM_MB_WITH_SPILL: cost.hbm_bytes / MB,
                     c.WORKING_SET_KB: cost.working_set_bytes / KB,
                     c.FITS: fits(cost.working_set_bytes, cfg.sram_bytes)})
    return pd.DataFrame(rows)


def best_fitting_block(table: pd.DataFrame):
    c = OverBlocks
    fitting = table[table[c.FITS]]
    return int(fitting.loc[fitting[c.HBM_MB].idxmin(), c.BLOCK]) if len(fitting) else None


def paper_rule(cfg: Config) -> dict:
    """The paper's block sizes for this budget and their cost."""
    rule = cfg.with_tiles(*paper_block_sizes(cfg.sram_elements, cfg.d))
    cost = costs.flash_cost(rule)
    return {"Br": rule.Br, "Bc": rule.Bc, "HBM MB": cost.hbm_bytes / MB,
            "working set KB": cost.working_set_bytes / KB,
            "fits SRAM": fits(cost.working_set_bytes, cfg.sram_bytes)}


def io_curves(cfg: Config, ns) -> pd.DataFrame:
    """Counted traffic beside Theorem 2's orders (elements, constant 1). The counted flash
    curves use the tiles the paper's rule picks for the budget M (cut to n), spill included,
    in both loop orders: the paper's (fa1), whose traffic falls as M grows, and FlashAttention-2's
    (fa2), whose traffic the rule's cap Br <= d holds still once M/4d passes d."""
    Br, Bc = paper_block_sizes(cfg.sram_elements, cfg.d)
    rows = []
    for n in ns:
        at = cfg.at_n(n, Br, Bc)
        io = costs.io_theorem(n, cfg.d, at.sram_elements)
        rows.append({"n": n, "std counted": costs.standard_cost(at).hbm_elements,
                     "Nd + N^2": io["standard"],
                     "flash fa1": costs.flash_cost(at.with_(loop_order="fa1")).hbm_elements,
                     "flash fa2": costs.flash_cost(at.with_(loop_order="fa2")).hbm_elements,
                     "N^2 d^2 / M": io["flash"]})
    return pd.DataFrame(rows)


def _on_roof(hw: Hardware, dtype: str, hbm_bytes: float, flops: float, nonmatmul: float = 0) -> dict:
    """One kernel on the roofline: its time is the larger of moving its bytes and doing its
    work, matmul flops at the dtype's rate (Hardware.peak_flops), the rest on CUDA cores at
    the FP32 rate. The rate is its work over that time."""
    work = flops + nonmatmul
    memory_s = hbm_bytes / hw.hbm_bytes_per_s
    compute_s = flops / hw.peak_flops(dtype) + nonmatmul / hw.fp32_flops
    time_s = max(memory_s, compute_s)
    return {"flops per byte": work / hbm_bytes, "bytes per flop": hbm_bytes / work,
            "attainable TFLOP/s": work / time_s / 1e12,
            "bound": "memory" if memory_s > compute_s else "compute",
            "time us (roofline)": time_s * 1e6}


def roofline_points(cfg: Config, hw: Hardware, kernels: bool = False) -> pd.DataFrame:
    """Arithmetic intensity of each method and the rate and time the roofline allows.

    By default standard attention is one point, its bytes and flops summed (the seed's
    comparison). With `kernels`, it is the kernels it runs (costs.standard_kernels), each
    on its own roof, with a 'kernel' column; its time is then their sum, since each waits
    for the one before. Flash is one kernel either way, at its matmul flops (its own exp
    and rescaling are left out, as in the seed's point)."""
    rows = []
    if kernels:
        for name, cost in costs.standard_kernels(cfg):
            rows.append({"method": "standard", "kernel": name,
                         **_on_roof(hw, cfg.dtype, cost.hbm_bytes, cost.flops, cost.nonmatmul)})
    else:
        std = costs.standard_cost(cfg)
        rows.append({"method": "standard", **_on_roof(hw, cfg.dtype, std.hbm_bytes, std.flops)})
    flash = costs.flash_cost(cfg)
    rows.append({"method": "flash", **({"kernel": "flash"} if kernels else {}),
                 **_on_roof(hw, cfg.dtype, flash.hbm_bytes, flash.flops)})
    return pd.DataFrame(rows)


def standard_time(cfg: Config, hw: Hardware) -> dict:
    """Standard attention's time on the roofline, µs: its kernels one after another, the part
    of that spent in memory-bound kernels, and the seed's single point for comparison; and the
    verdict kernel by kernel (lesson 1's and its question's): "memory"-bound when the kernels that
    wait on HBM take more than half the time, with those kernels' names ("waiting") of its "kernels"."""
    kernels = roofline_points(cfg, hw, kernels=True)
    kernels = kernels[kernels["method"] == "standard"]
    time = kernels["time us (roofline)"]
    total, waits = float(time.sum()), float(time[kernels["bound"] == "memory"].sum())
    return {"kernels us": total, "memory-bound us": waits,
            "one point us": float(roofline_points(cfg, hw).iloc[0]["time us (roofline)"]),
            "bound": "memory" if 2 * waits > total else "compute",
            "waiting": kernels[kernels["bound"] == "memory"]["kernel"].tolist(), "kernels": len(kernels)}


def loop_orders(cfg: Config) -> pd.DataFrame:
    """FlashAttention-2's order beside the paper's Algorithm 1, same config."""
    rows = []
    for order, label in (("fa2", "FlashAttention-2 (Q outer)"), ("fa1", "FlashAttention-1 (K/V outer)")):
        cost = costs.flash_cost(cfg.with_(loop_order=order))
        rows.append({"loop order": label, "HBM MB": cost.hbm_bytes / MB,
                     "GFLOPs": cost.flops / 1e9, "non-matmul Mops": cost.nonmatmul / 1e6,
                     "tiles computed": costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.causal).tiles})
    return pd.DataFrame(rows)


def loop_orders_over_n(cfg: Config, ns) -> pd.DataFrame:
    """Standard, FA1-order and FA2-order traffic at each n."""
    fa1 = over_n(cfg.with_(loop_order="fa1"), ns)
    fa2 = over_n(cfg.with_(loop_order="fa2"), ns)
    return pd.DataFrame({"n": fa1["n"], "std HBM MB": fa1["std HBM MB"],
                         "FA1 HBM MB": fa1["flash HBM MB"], "FA2 HBM MB": fa2["flash HBM MB"]})


def causal_savings(cfg: Config) -> dict:
    """Tiles, flops and traffic with and without the causal mask."""
    full, masked = costs.flash_cost(cfg.with_(causal=False)), costs.flash_cost(cfg.with_(causal=True))
    tiles = costs.census(cfg.n, cfg.Br, cfg.Bc, False).tiles
    kept = costs.census(cfg.n, cfg.Br, cfg.Bc, True).tiles
    return {"tiles": tiles, "tiles computed (causal)": kept, "tiles skipped": tiles - kept,
            "flops ratio": masked.flops / full.flops, "traffic ratio": masked.hbm_bytes / full.hbm_bytes}


def cut_by_block(n: int, ds, blocks, dtype: str = "float32", causal: bool = False) -> pd.DataFrame:
    """Standard traffic over flash tile traffic (spill left out) for square tiles, with or without the
    causal mask (which halves flash's K/V re-reads and leaves standard attention's 4n²)."""
    rows = []
    for d in ds:
        for b in blocks:
            cfg = Config.clamped(n, b, b, d=d, dtype=dtype, causal=causal)
            rows.append({"d": d, "block": b, "block / d": b / d,
                         "traffic cut": costs.standard_cost(cfg).moved / costs.flash_cost(cfg).moved})
    return pd.DataFrame(rows)


def hardware_table(hardware: dict) -> pd.DataFrame:
    """The GPUs' memories and rates side by side, each row with the sheet its rates and memory come
    from (sources.PRESET_SOURCES has every figure's; a GPU that is no preset was typed in)."""
    return pd.DataFrame([{
        "GPU": hw.name, "HBM GB": hw.hbm_gb, "HBM TB/s": hw.hbm_bytes_per_s / 1e12,
        "SMs": hw.sms, "SRAM/SM KB": hw.smem_per_sm_kb, "SRAM/block KB": hw.smem_per_block_kb,
        "L2 MB": hw.l2_mb, "bf16 TFLOP/s": hw.fp16_tensor_flops / 1e12,
        "fp32 TFLOP/s": hw.fp32_flops / 1e12, "source": _sheet(name)} for name, hw in hardware.items()])


def _sheet(preset: str) -> str:
    """The short name of the sheet that gives a preset's rates and memory, or "typed in"."""
    if preset not in PRESET_SOURCES:
        return "typed in"
    return SOURCES[PRESET_SOURCES[preset]["hbm_bytes_per_s"][0]].short
