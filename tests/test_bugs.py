"""Each bug of the seed's "Break it" table produces its documented failure, and no other."""
import numpy as np
import pytest

from flashviz.run.attention import online_softmax, random_qkv, random_row, softmax, standard_attention
from flashviz.players import animation
from flashviz.players.animation import teaching_config
from flashviz.teach.bugs import (BELIEFS, BUGS, SEED_SETTINGS, belief_check, belief_verdict, break_it, changed,
                                 comparison, watch)
from flashviz.model.config import KB, SEED


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
    from flashviz.run.attention import flash_attention
    Q, K, V = random_qkv(128, 16)
    cfg = SEED.with_(n=128, d=16, subtract_max=False)
    out = flash_attention(Q * 40, K * 40, V, cfg)  # scores of several hundred
    assert np.isnan(out).any()
    assert np.isfinite(standard_attention(Q * 40, K * 40, V, cfg)).all()


def changed_figures(lab):
    return {row["figure"] for row in comparison(lab) if row["changed"]}


def test_float_noise_in_the_output_error_is_not_a_change(lab):
    row = next(r for r in comparison(lab["tiles_too_big"]) if r["figure"] == "output max abs error")
    assert not row["changed"], f"{row['correct']} -> {row['with the bug']} is float noise"


def test_an_error_beyond_float_noise_is_a_change(lab):
    assert "output max abs error" in changed_figures(lab["no_rescale"])


def test_keep_full_S_changes_only_traffic_and_peak(lab):
    assert changed_figures(lab["keep_full_S"]) == {"HBM MB (with spill)", "peak extra KB"}


def test_exp_without_max_changes_only_the_nan_count_at_the_seed_settings(lab):
    assert changed_figures(lab["no_max"]) == {"nan weights on scores near 800"}


def test_sizes_change_on_any_difference():
    assert changed("HBM MB (with spill)", 8.5, 8.5 + 1e-13)


def test_errors_within_the_tolerance_are_the_same_figure():
    assert not changed("output max abs error", 4.16e-16, 3.89e-16)


def test_a_nan_error_is_a_change_and_two_nans_are_not():
    assert changed("output max abs error", 4e-16, float("nan"))
    assert not changed("output max abs error", float("nan"), float("nan"))


def test_the_seed_figures_are_labelled_with_the_seed_settings():
    assert SEED_SETTINGS == "n = 1024, d = 64, 64 × 64 tiles, 96 KB SRAM, float32"


def test_tiles_too_big_says_it_fits_under_a_large_budget():
    text = BUGS["tiles_too_big"].now(break_it(SEED.with_(sram_bytes=2048 * KB), "tiles_too_big"))
    assert "fit the 2048 KB budget" in text, text


def test_tiles_too_small_reads_its_direction_off_the_numbers():
    text = BUGS["tiles_too_small"].now(break_it(SEED.with_(n=2048, d=16), "tiles_too_small"))
    assert "below standard attention" in text, text


def test_keep_full_S_at_small_n_says_the_peak_stays():
    text = BUGS["keep_full_S"].now(break_it(SEED.with_(n=128), "keep_full_S"))
    assert "stays at 64.5 KB" in text, text


def teaching(**changes):
    return teaching_config(SEED.with_(**changes), 256, 16)[0]


def test_player_note_turns_red_only_over_budget():
    assert "turns red" in watch("tiles_too_big", teaching())
    assert "stays green" in watch("tiles_too_big", teaching(sram_bytes=4096 * KB))


def test_player_note_without_a_second_key_tile_says_no_max_moves():
    text = watch("no_rescale", teaching(Br=1024, Bc=1024))
    assert text.startswith("Black ticks") and "No shown row's max moves" in text, text


def test_player_note_names_the_step_where_inf_first_appears():
    cfg = teaching()
    first = animation.bug_frames(cfg, "no_max")["first_bad"]
    assert f"Watch step {first + 1} of" in watch("no_max", cfg)


def test_player_note_counts_the_bug_run_steps():
    text = watch("tiles_too_small", teaching())
    assert text.startswith("256 tile steps instead of 16"), text


def test_the_belief_is_no_bug_so_the_player_never_plays_it():
    assert not set(BELIEFS) & set(BUGS)


def test_without_a_mask_flash_does_the_same_flops():
    check = belief_check(SEED)
    assert check["standard"]["GFLOPs"] == check["flash"]["GFLOPs"]


def test_without_a_mask_flash_moves_fewer_bytes_at_the_seed_settings():
    check = belief_check(SEED)
    assert check["flash"]["HBM MB"] == 8.5 and check["standard"]["HBM MB"] == 17.0


def test_the_verdict_says_the_flops_are_equal():
    assert "The flops are equal, 0.268 GFLOPs each" in belief_verdict(belief_check(SEED), SEED)


def test_the_verdict_credits_the_mask_for_fewer_causal_flops():
    cfg = SEED.with_(causal=True)
    text = belief_verdict(belief_check(cfg), cfg)
    assert "causal mask" in text and "without a mask the two are equal" in text, text


def test_the_verdict_says_when_small_tiles_move_more_bytes():
    text = belief_verdict(belief_check(SEED.with_(Br=16, Bc=16)), SEED.with_(Br=16, Bc=16))
    assert "flash moves more bytes than standard attention (32.50 against 17.00 MB)" in text, text
