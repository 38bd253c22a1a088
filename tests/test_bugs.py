"""Each bug of the seed's "Break it" table produces its documented failure, and no other."""
import numpy as np
import pytest

from flashviz.attention import online_softmax, random_qkv, random_row, softmax, standard_attention
from flashviz.bugs import BUGS, break_it
from flashviz.config import SEED


@pytest.fixture(scope="module")
def lab():
    return {key: break_it(SEED, key) for key in BUGS}


def test_no_rescale_weights_sum_to_0_190131(lab):
    broken = lab["no_rescale"]["broken"]
    assert round(broken["demo 2 weights sum"], 6) == 0.190131
    assert f"{broken['demo 2 max abs error']:.2e}" == "6.53e-01"
    assert broken["output max abs error"] > 1e-2


def test_no_rescale_raises_nothing():
    with np.errstate(all="raise"):
        online_softmax(random_row(), 8, rescale=False)


def test_tiles_too_big_spill(lab):
    broken = lab["tiles_too_big"]["broken"]
    assert broken["working set KB"] == 1412.0 and not broken["fits SRAM"]
    assert broken["HBM MB (with spill)"] > lab["tiles_too_big"]["standard"]["HBM MB"]
    assert broken["output max abs error"] < 1e-12  # still exact: only memory breaks


def test_tiles_too_small_move_more_than_standard(lab):
    broken = lab["tiles_too_small"]["broken"]
    assert broken["HBM MB (with spill)"] == 32.5
    assert lab["tiles_too_small"]["standard"]["HBM MB"] == 17.0


def test_keep_full_S_peak_goes_64x(lab):
    case = lab["keep_full_S"]
    assert (case["correct"]["peak extra KB"], case["broken"]["peak extra KB"]) == (64.5, 4096.0)
    assert case["broken"]["output max abs error"] < 1e-12


def test_exp_without_max_gives_nan_near_800(lab):
    assert lab["no_max"]["broken"]["nan weights on scores near 800"] == 4
    assert lab["no_max"]["correct"]["nan weights on scores near 800"] == 0


def test_exp_without_max_is_right_when_scores_are_small():
    row = random_row()
    assert np.abs(online_softmax(row, 8, subtract_max=False) - softmax(row)).max() < 1e-15


@pytest.mark.parametrize("key", sorted(BUGS))
def test_no_bug_changes_the_flops(lab, key):
    assert lab[key]["broken"]["GFLOPs"] == lab[key]["correct"]["GFLOPs"]


def test_only_the_bugged_figure_moves(lab):
    # keep_full_S and the tile-size bugs leave the weights alone.
    for key in ("keep_full_S", "tiles_too_big", "tiles_too_small"):
        assert lab[key]["broken"]["demo 2 weights sum"] == pytest.approx(1.0, abs=1e-15)


def test_lab_refuses_unknown_bug_and_huge_n():
    with pytest.raises(ValueError, match="unknown bug"):
        break_it(SEED, "typo")
    with pytest.raises(ValueError, match="n <="):
        break_it(SEED.with_(n=8192), "no_max")


def test_flash_without_max_overflows_on_large_scores():
    from flashviz.attention import flash_attention
    Q, K, V = random_qkv(128, 16)
    cfg = SEED.with_(n=128, d=16, subtract_max=False)
    out = flash_attention(Q * 40, K * 40, V, cfg)  # scores of several hundred
    assert np.isnan(out).any()
    assert np.isfinite(standard_attention(Q * 40, K * 40, V, cfg)).all()
