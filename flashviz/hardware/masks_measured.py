"""flash-attn-4's masks measured on the H200 (flashviz/data/h200/fa4_masks.csv, bench/gpu/fa3_authors.py) beside
the engine's count of the tiles each mask leaves, at the kernel's own tiles, and the schedule model's time for
the same mask (model_ms: the tiles each query block computes at the model's time per tile; nothing fitted).

flash-attn-4 runs packed documents through its variable-length path, each document tiled on its own; the engine
counts them as one sequence with a block-diagonal mask. The two counts are equal where every document's length is
a multiple of the tiles' (all the measured ones are: tests/test_masks_measured.py checks it).
"""
from __future__ import annotations

from typing import Final

import pandas as pd

from ..model import costs
from ..model.config import HARDWARE, Config
from .fa3_authors import host_s, load_masks, load_rates, load_time, model_time, tiles
from .schedule import busiest_time, interval, lpt_order, unit_time


class Measured:
    """measured_masks' columns, by name (explorer/charts reads them through these)."""
    MASK: Final = "mask"
    KIND: Final = "kind"
    TILES: Final = "tiles computed"
    TILE_SHARE: Final = "share of tiles"
    MS: Final = "measured ms"
    TIME_SHARE: Final = "share of full time"
    PER_TILE: Final = "time per tile ÷ full's"
    MODEL_MS: Final = "model ms"
    RATIO: Final = "time: model ÷ measured"


def mask_config(row, dtype: str = "") -> Config:
    """The engine's Config of one measured row, at flash-attn-4's forward tiles for its d."""
    Br, Bc = tiles("fa4", int(row["d"]))
    docs = tuple(int(x) for x in str(row["docs"]).split(";")) if isinstance(row["docs"], str) else ()
    side = lambda v: None if pd.isna(v) else int(v)  # noqa: E731
    return Config(n=int(row["n"]), d=int(row["d"]), Br=Br, Bc=Bc, dtype=dtype or str(row["dtype"]),
                  causal=bool(row["causal"]), window_left=side(row["window_left"]),
                  window_right=side(row["window_right"]), docs=docs, sink=1.0 if int(row["sink"]) else None)


def mask_label(row) -> str:
    """How a page names a measured mask."""
    kind, causal = row["kind"], bool(row["causal"])
    if kind == "window":
        return f"window ({int(row['window_left']):,}, {int(row['window_right']):,})"
    if kind == "docs":
        k = len(str(row["docs"]).split(";"))
        return (f"{k} documents" if k > 1 else "one document") + (", causal" if causal else "")
    base = "causal" if causal else "no mask"
    if kind == "sink":
        extra = f"window ({int(row['window_left'])}, {int(row['window_right'])})" if pd.notna(row["window_left"]) \
            else base
        return f"{extra} + sink"
    return base


def block_tiles(cfg: Config) -> list[int]:
    """Key tiles each query block computes under the config's mask (masks.Mask.key_blocks), in grid order."""
    return [len(cfg.mask.key_blocks(i * cfg.Br, min((i + 1) * cfg.Br, cfg.n), cfg.Bc)) for i in range(cfg.Tr)]


def model_ms(row, rates: dict[str, float] | None = None, host: float | None = None, gpu: str = "H200 SXM") -> float:
    """The schedule model's forward time for one measured mask, nothing fitted: flash-attn-4's tile and FA3's
    schedule at the row's own SM clock, as fa3_authors.model_time takes the unmasked call (its time per tile, its
    DRAM bytes per tile), each query block given the key tiles the mask leaves it (block_tiles) and dealt to the SM
    that frees first with its pipeline's fill and drain (schedule.busiest_time; a plain causal mask in
    flash-attn-4's longest-first order, schedule.lpt_order), against DRAM for the tiles
    computed, plus flash-attn-4's host dispatch (fa3_authors.host_s). A sink adds no tile and is not counted."""
    rates = load_rates()[1] if rates is None else rates
    host = host_s(load_time())["fa4"] if host is None else host
    cfg = mask_config(row)
    heads, clock = int(row["heads"]), float(row["sm_mhz"]) * 1e6
    full = model_time("fa4", cfg.n, cfg.d, heads, False, clock, rates, host, gpu)
    blocks = block_tiles(cfg)
    per_tile = interval("fa3", full.work)
    plain_causal = cfg.causal and cfg.window_left is None and cfg.window_right is None and not cfg.docs
    order = lpt_order(blocks, heads, 2 * cfg.n * cfg.d * 2) if plain_causal else None  # flash-attn-4's causal grid
    arithmetic, _ = busiest_time(blocks, heads, HARDWARE[gpu].sms, lambda b: unit_time("fa3", full.work, b, per_tile),
                                 order)
    dram = full.dram_s * sum(blocks) / (cfg.Tr * cfg.Tc)  # the read model's bytes, for the tiles computed
    return 1e3 * (host + max(arithmetic, dram))


def measured_masks(pass_: str = "fwd") -> pd.DataFrame:
    """One row per mask measured in `pass_` ("fwd" or "bwd"), with the engine's tiles at the kernel's tiles and
    the measured time, each as a share of the full matrix's (columns: Measured)."""
    c = Measured
    df = load_masks()
    df = df[(df["status"] == "ok") & (df["pass"] == pass_)].reset_index(drop=True)
    rows = []
    rates, host = load_rates()[1], host_s(load_time())["fa4"]
    for _, r in df.iterrows():
        cfg = mask_config(r)
        model = model_ms(r, rates, host) if pass_ == "fwd" else float("nan")  # the model times forwards only
        rows.append({c.MASK: mask_label(r), c.KIND: r["kind"],
                     c.TILES: costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles, c.MS: float(r["ms"]),
                     c.MODEL_MS: model, c.RATIO: model / float(r["ms"]),
                     "n": int(r["n"]), "d": int(r["d"]), "heads": int(r["heads"]), "dtype": r["dtype"],
                     "Br": cfg.Br, "Bc": cfg.Bc, "total tiles": cfg.Tr * cfg.Tc})
    out = pd.DataFrame(rows)
    full = out[out[c.MASK] == "no mask"].iloc[0]
    out[c.TILE_SHARE] = out[c.TILES] / out["total tiles"]
    out[c.TIME_SHARE] = out[c.MS] / full[c.MS]
    out[c.PER_TILE] = out[c.TIME_SHARE] / out[c.TILE_SHARE]
    return out


def provenance() -> dict:
    """The measured rows' GPU, versions, date and command (one run)."""
    df = load_masks()
    keys = ("gpu", "driver", "cuda", "torch", "flash_attn_4", "date", "command")
    return {k: str(df[k].iloc[0]) for k in keys}
