"""Tiles that do not fit are never silent: the engine's overflow sentences, and the banner every
lesson opens with while the sidebar's tiles overflow, with its one-click fix."""
import pytest

from flashviz.model import costs
from flashviz.teach import questions
from flashviz.teach.bugs import belief_check, belief_verdict
from flashviz.teach.claims import fitting_tiles, overflow_headline, overflow_note, share_text, tiles_overflow
from flashviz.model.config import KB, TILE_SIZES, Config
from flashviz.model.memory import fits, working_set
from explorer.lessons import LESSONS
from tests.test_app import PAGES, open_page

# The issue's setting: 64 x 64 tiles at d = 128 in float32 need 112.5 KB against a 96 KB budget.
ISSUE = Config(n=4096, d=128, Br=64, Bc=64, sram_bytes=96 * KB, dtype="float32")
LINK = {"n": "4096", "d": "128", "Br": "64", "Bc": "64", "sram": "96", "dtype": "float32"}


def test_the_issues_tiles_overflow_and_the_seeds_fit():
    assert tiles_overflow(ISSUE) and not tiles_overflow(Config())


def test_half_of_flash_traffic_at_the_issues_setting_is_overflow():
    flash = costs.flash_cost(ISSUE)
    assert flash.spilled / flash.hbm_elements == pytest.approx(0.5, abs=0.01)
    assert overflow_note(ISSUE).startswith("50% of flash's 524 MB is overflow, not the algorithm")


def test_without_the_overflow_flash_moves_fewer_bytes_than_standard_at_the_issues_setting():
    assert "without the overflow flash moves 1.02× fewer bytes than standard attention" in overflow_note(ISSUE)


def test_tiles_that_fit_add_no_sentence():
    assert overflow_note(Config()) == overflow_headline(Config()) == ""


def test_the_headline_says_a_real_kernel_would_not_launch_with_its_source():
    text = overflow_headline(ISSUE)
    assert "does not launch ([FlashAttention-2, §3.3](https://arxiv.org/abs/2307.08691))" in text, text


@pytest.mark.parametrize("cfg", [ISSUE, ISSUE.with_(d=256), ISSUE.at_n(32).with_(sram_bytes=8 * KB),
                                 ISSUE.with_(d=256, dtype="float64", sram_bytes=8 * KB)])
def test_the_fix_is_the_largest_square_offered_tile_that_fits(cfg):
    b, _ = fitting_tiles(cfg)
    ws = {s: working_set(s, s, cfg.d) * cfg.element_bytes for s in TILE_SIZES if s <= cfg.n}
    assert fits(ws[b], cfg.sram_bytes)
    assert all(not fits(w, cfg.sram_bytes) for s, w in ws.items() if s > b), f"{b} is not the largest that fits"


@pytest.mark.parametrize("part, shown", [(0.31, "0.31%"), (3.14, "3.1%"), (50.4, "50%"), (99.7, ">99%"),
                                         (100, "100%")])
def test_a_share_never_prints_in_exponent_form_or_rounds_to_all(part, shown):
    assert share_text(part, 100) == shown


def test_the_tiling_answer_names_the_overflow_as_the_cause():
    why = questions.tiling_ratio(ISSUE).why
    assert "flash moves 2× more bytes" in why and "is overflow, not the algorithm" in why, why


def test_the_paper_order_answer_names_its_own_rereads():
    why = questions.tiling_ratio(Config(loop_order="fa1")).why
    assert "once per key/value block" in why and "K and V" not in why, why


def test_with_a_causal_mask_small_tiles_read_k_and_v_about_half_as_often():
    why = questions.small_tiles(ISSUE.with_(causal=True)).why
    assert "reads K and V about 128 times over" in why and "256 query blocks" in why, why


def test_the_belief_blames_the_overflow_not_the_rereads_where_it_is_the_cause():
    text = belief_verdict(belief_check(ISSUE), ISSUE)
    assert "is overflow, not the algorithm" in text and "read again" not in text, text


SIDEBAR_TILES = [lesson.file for lesson in LESSONS if lesson.tiles == "sidebar"]
OWN_TILES = [lesson.file for lesson in LESSONS if lesson.tiles == "own"]


@pytest.mark.parametrize("page", SIDEBAR_TILES)
def test_every_lesson_on_the_sidebars_tiles_opens_with_the_overflow_banner(page):
    at = open_page(page, **LINK)
    assert [w for w in at.warning if "do not fit in SRAM" in w.value], f"{page}: no banner"
    assert at.button(key="fix_tiles").label == "Use 48 × 48 tiles, the largest that fit"


@pytest.mark.parametrize("page", OWN_TILES)
def test_a_lesson_on_settings_of_its_own_shows_no_banner(page):
    at = open_page(page, **LINK)
    assert not [w for w in at.warning if "do not fit in SRAM" in w.value], f"{page}: its figures ignore the tiles"


def test_lesson_one_checks_the_tiles_in_the_16_bit_type_its_roofline_runs_in():
    fits_in_bf16 = open_page(PAGES[0], **LINK)  # 64 x 64 at d = 128: 112.5 KB in float32, 56 KB in bfloat16
    assert not [w for w in fits_in_bf16.warning if "do not fit in SRAM" in w.value]
    over_in_bf16 = open_page(PAGES[0], **{**LINK, "d": "256"})
    assert [w for w in over_in_bf16.warning if "in bfloat16 they need" in w.value]


def test_the_banner_shows_in_presentation_mode():
    at = open_page(PAGES[6], **LINK, present="true")
    assert at.button(key="fix_tiles")


def test_the_fix_sets_the_sidebars_tiles_and_the_banner_goes():
    at = open_page(PAGES[2], **LINK)
    at.button(key="fix_tiles").click().run()
    assert not at.exception
    assert (at.session_state["Br"], at.session_state["Bc"]) == (48, 48)
    assert not [w for w in at.warning if "do not fit in SRAM" in w.value]


def test_no_banner_where_the_tiles_fit():
    at = open_page(PAGES[2])
    assert not [b for b in at.button if b.key == "fix_tiles"]
