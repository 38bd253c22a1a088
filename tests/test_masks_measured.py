"""flash-attn-4's masks on the H200 beside the engine's tiles: the reader and its counts."""
import pandas as pd
from pytest import approx

from flashviz.hardware import fa3_authors
from flashviz.hardware.masks_measured import Measured, mask_config, measured_masks, provenance
from flashviz.model import costs


def test_every_measured_row_is_read_with_its_tiles_and_time():
    raw = fa3_authors.load_masks()
    for pass_ in ("fwd", "bwd"):
        got = measured_masks(pass_)
        want = raw[(raw["pass"] == pass_) & (raw["status"] == "ok")]
        assert len(got) == len(want) and (got[Measured.MS].to_numpy() == want["ms"].to_numpy()).all()
        assert got.loc[got[Measured.MASK] == "no mask", Measured.TIME_SHARE].tolist() == [1.0]


def test_the_packed_count_equals_flash_attns_per_document_tiles_at_every_measured_row():
    """flash-attn-4's varlen path tiles each document alone; the engine tiles the packed row with a
    block-diagonal mask: equal here, every measured document being a multiple of the kernel's tiles."""
    raw = fa3_authors.load_masks()
    for _, row in raw[raw["kind"] == "docs"].iterrows():
        cfg = mask_config(row)
        alone = sum(costs.census(k, cfg.Br, cfg.Bc, cfg.causal).tiles for k in cfg.docs)
        assert costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles == alone, row["docs"]


def test_the_engines_share_of_pairs_agrees_with_the_benchs():
    """The bench's pair_fraction (query-key pairs seen) from the same mask, entry by entry in closed form."""
    raw = fa3_authors.load_masks()
    for _, row in raw[raw["kind"].isin(["window", "docs"])].iterrows():
        mask = mask_config(row).mask
        n = mask.n
        q = pd.RangeIndex(n).to_numpy()
        lo, hi = mask.bounds(q)
        assert abs((hi - lo + 1).sum() / n**2 - row["pair_fraction"]) < 1e-9, mask


def test_provenance_names_the_run():
    p = provenance()
    assert p["gpu"] == "NVIDIA H200" and p["flash_attn_4"] and p["command"].startswith("python bench/gpu/")


def _row(kind: str, causal: int = 0):
    raw = fa3_authors.load_masks()
    return raw[(raw["kind"] == kind) & (raw["pass"] == "fwd") & (raw["causal"] == causal)].iloc[0]


def test_the_models_unmasked_time_is_the_authors_model_at_that_call():
    """No mask: every query block computes every key tile, so the mask model is fa3_authors.model_time's call."""
    from flashviz.hardware.masks_measured import model_ms
    row = _row("full")
    _, rates = fa3_authors.load_rates()
    host = fa3_authors.host_s(fa3_authors.load_time())["fa4"]
    want = fa3_authors.model_time("fa4", int(row["n"]), int(row["d"]), int(row["heads"]), False,
                                  float(row["sm_mhz"]) * 1e6, rates, host)
    assert model_ms(row) == approx(1e3 * want.total_s, rel=1e-12)


def test_a_masks_blocks_are_the_schedules_causal_blocks_and_sum_to_the_census():
    from flashviz.hardware.masks_measured import block_tiles
    from flashviz.hardware.schedule import block_tiles as causal_blocks
    cfg = mask_config(_row("causal", 1))
    assert block_tiles(cfg) == causal_blocks(cfg.n, cfg.Br, cfg.Bc, True)
    for kind in ("window", "docs"):
        cfg = mask_config(_row(kind))
        assert sum(block_tiles(cfg)) == costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles, kind


def test_the_models_ratio_is_its_time_and_every_mask_costs_more_than_the_dispatch():
    got = measured_masks("fwd")
    assert (got[Measured.RATIO] == got[Measured.MODEL_MS] / got[Measured.MS]).all()
    host = fa3_authors.host_s(fa3_authors.load_time())["fa4"]
    assert (got[Measured.MODEL_MS] > 1e3 * host).all()
    assert measured_masks("bwd")[Measured.MODEL_MS].isna().all(), "the model times forwards only"
