"""Frames of the whole-GPU model, one per wave of resident blocks, for the client-side player.

Each frame says which blocks run (as head and query-block ranges), which heads' K + V sit
in the shared cache (L2, or CDNA 3's Infinity Cache) and how full the wave's share is, and
the DRAM reads so far against the compulsory floor and the two-level model. Numbers only:
explorer/gpu_player.html draws them.
"""
from __future__ import annotations

from ..model.config import Hardware
from ..hardware.gpu_arch import arch_of
from ..hardware.gpu_model import Kernel, wave_reuse, whole_gpu
from .player_schema import HeadSpan, WaveFrame, WaveRun

MAX_FRAMES = 64  # past this many waves, frames show every k-th wave (the last one always)


def wave_frames(n: int, d: int, bh: int, kernel: Kernel, hw: Hardware, element_bytes: int = 2) -> WaveRun:
    w = whole_gpu(n, d, bh, kernel, hw, element_bytes)
    tiles = (kernel.Br * d * 2) * element_bytes  # one block's Q and O tiles
    reuse = wave_reuse(bh, w.Tr, w.resident, w.kv_head_bytes, tiles, w.l2_share)
    R, Tr, G = w.resident, w.Tr, w.blocks
    q_block = kernel.Br * d * element_bytes  # one block's Qi
    seen: set[int] = set()
    frames: list[WaveFrame] = []
    reads = 0.0
    for k in range(w.waves):
        b0, b1 = k * R, min(G, (k + 1) * R)
        heads: list[HeadSpan] = []
        for h in range(b0 // Tr, (b1 - 1) // Tr + 1):
            lo, hi = max(b0, h * Tr) - h * Tr, min(b1, (h + 1) * Tr) - h * Tr  # query blocks [lo, hi)
            fresh = h not in seen
            missed = 1.0 if fresh else reuse.pairs[k - 1][1]  # a new head, or what L2 lost since its last wave
            seen.add(h)
            heads.append({"h": h, "lo": lo, "hi": hi,
                          "kv_from": "DRAM" if missed == 1.0 else "L2" if missed == 0.0 else "DRAM and L2"})
            reads += (hi - lo) * q_block + missed * w.kv_head_bytes
        frames.append({"wave": k, "b0": b0, "b1": b1, "heads": heads, "reads": round(reads),
                       "l2_fill": min(w.in_flight, w.l2_share), "overflow": max(0.0, w.in_flight - w.l2_share)})
    if len(frames) > MAX_FRAMES:
        every = -(-len(frames) // MAX_FRAMES)
        frames = [f for i, f in enumerate(frames) if i % every == 0 or i == len(frames) - 1]
    arch = arch_of(hw)
    return {"bh": bh, "Tr": Tr, "Br": kernel.Br, "G": G, "sms": hw.sms, "unit": arch.unit,
            "per_sm": R // hw.sms if R >= hw.sms else 1, "waves": w.waves, "kernel": kernel.name,
            "cache": arch.cache, "l2_share": w.l2_share, "l2_total": arch.cache_bytes(hw),
            "compulsory": w.compulsory, "two_level": w.two_level, "reads": w.reads, "rereads": w.rereads,
            "frames": frames}
