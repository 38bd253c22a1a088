"""The masks real models run with, side by side: no mask, causal, a causal sliding window and
packed documents (causal within each), as tiles computed, flops and HBM bytes, over n.

All from the closed forms (costs.census sums masks.py's rule), so any n up to 2^22 is instant.
"""
from __future__ import annotations

from typing import Final

import pandas as pd

from . import costs, masks
from .config import MB, Config

# How a lesson packs n tokens into documents: equal ones, or one long document beside short ones.
DOC_MIXES = ("one document", "2 documents", "4 documents", "16 documents", "64 documents", "a half + 16 short")


def equal_parts(n: int, k: int) -> tuple[int, ...]:
    """n tokens in k documents whose lengths differ by at most one token."""
    k = max(1, min(k, n))
    base, extra = divmod(n, k)
    return tuple(base + (1 if i < extra else 0) for i in range(k))


def documents(mix: str, n: int) -> tuple[int, ...]:
    """The lengths of a DOC_MIXES entry at n tokens."""
    if mix not in DOC_MIXES:
        raise ValueError(f"a document mix is one of {', '.join(DOC_MIXES)}; got {mix!r}")
    if mix == "a half + 16 short":
        return (n // 2, *equal_parts(n - n // 2, 16))
    return equal_parts(n, 1 if mix == "one document" else int(mix.split()[0]))


class OverMasks:
    """over_masks' columns, by name: explorer/charts reads them through these."""
    N: Final = "n"
    MASK: Final = "mask"
    TILES: Final = "tiles computed"
    SHARE: Final = "share of tiles"
    GFLOPS: Final = "GFLOPs"
    HBM_MB: Final = "HBM MB"


def window_name(window: int) -> str:
    return f"window {window:,}"


def docs_name(mix: str) -> str:
    return f"{mix}, causal" if mix != "one document" else "one document, causal"


def mask_configs(cfg: Config, window: int, mix: str) -> dict[str, Config]:
    """The four masks at cfg's n and tiles: the whole matrix, causal, a causal window of `window`
    keys (the query and the window - 1 keys before it: gpt-oss's 128-token window is (127, 0)),
    and `mix`'s documents, causal within each."""
    plain = cfg.with_(causal=False, window_left=None, window_right=None, docs=(), blocks=None, sink=None)
    return {"no mask": plain, "causal": plain.with_(causal=True),
            window_name(window): plain.with_(causal=True, window_left=window - 1),
            docs_name(mix): plain.with_(causal=True, docs=documents(mix, cfg.n))}


def masks_at(cfg: Config, window: int, mix: str) -> pd.DataFrame:
    """One row per mask at cfg's n (columns: OverMasks)."""
    c, rows = OverMasks, []
    for name, at in mask_configs(cfg, window, mix).items():
        tiles = costs.census(at.n, at.Br, at.Bc, at.mask).tiles
        cost = costs.flash_cost(at)
        rows.append({c.N: at.n, c.MASK: name, c.TILES: tiles, c.SHARE: tiles / (at.Tr * at.Tc),
                     c.GFLOPS: cost.flops / 1e9, c.HBM_MB: cost.hbm_bytes / MB})
    return pd.DataFrame(rows)


def over_masks(cfg: Config, ns, window: int, mix: str) -> pd.DataFrame:
    """masks_at at each n (cfg's tiles, cut to n)."""
    return pd.concat([masks_at(cfg.at_n(n), window, mix) for n in ns], ignore_index=True)


def tile_maps(cfg: Config, window: int, mix: str) -> dict[str, list[list[int]]]:
    """Each mask's tiles at cfg's n, each full, partial or empty (masks.FULL, PARTIAL, EMPTY)."""
    return {name: at.mask.kinds(at.Br, at.Bc) for name, at in mask_configs(cfg, window, mix).items()}


def tile_counts(cfg: Config, window: int, mix: str) -> dict[str, tuple[int, int, int]]:
    """Each mask's full, partial and empty tiles at cfg's n (tile_maps, counted)."""
    counts = {}
    for name, rows in tile_maps(cfg, window, mix).items():
        flat = [k for row in rows for k in row]
        counts[name] = (flat.count(masks.FULL), flat.count(masks.PARTIAL), flat.count(masks.EMPTY))
    return counts
