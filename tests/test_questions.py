"""Each lesson's question: the engine's answer, computed independently here, and the verdict."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashviz.model import costs
from flashviz.teach import questions
from flashviz.run.attention import online_softmax, random_row
from flashviz.model.config import HARDWARE, KB, Config


@st.composite
def configs(draw):
    n = draw(st.sampled_from([16, 64, 256, 1024, 4096, 65536]))
    tiles = st.sampled_from([1, 16, 64, 256])
    return Config.clamped(n, draw(tiles), draw(tiles), d=draw(st.sampled_from([16, 32, 64, 128, 256])),
                          sram_bytes=draw(st.integers(8, 512)) * KB,
                          dtype=draw(st.sampled_from(["float32", "float16"])),
                          causal=draw(st.booleans()), loop_order=draw(st.sampled_from(["fa2", "fa1"])))


@given(configs())
@settings(max_examples=40, deadline=None)
def test_the_tiling_answer_is_standard_bytes_over_flash_bytes(cfg):
    q = questions.tiling_ratio(cfg)
    assert q.answer == costs.standard_cost(cfg).hbm_bytes / costs.flash_cost(cfg).hbm_bytes


@given(configs(), st.sampled_from(list(HARDWARE)))
@settings(max_examples=40, deadline=None)
def test_the_first_question_is_bytes_per_flop_needed_over_fed_in_16_bit(cfg, gpu):
    hw = HARDWARE[gpu]
    wide = cfg.dtype in ("float32", "float64")
    roof = cfg.with_(dtype="bfloat16") if wide else cfg
    std = costs.standard_cost(roof)
    assert math.isclose(questions.where_time_goes(cfg, hw).answer,
                        (std.hbm_bytes / std.flops) / hw.balance(roof.dtype), rel_tol=1e-12)


def test_deleting_the_rescale_gives_the_seeds_sum():
    q = questions.online_softmax_sum(32, 8, 3.0, 1)
    assert q.shown == "0.190131" and "instead of 1" in q.why


@given(st.integers(4, 64), st.integers(1, 16), st.integers(0, 20))
@settings(max_examples=30, deadline=None)
def test_the_rescale_answer_is_the_broken_weights_sum(length, block, seed):
    q = questions.online_softmax_sum(length, block, 3.0, seed)
    assert q.answer == online_softmax(random_row(length, seed, 3.0), block, rescale=False).sum()


def test_doubling_a_budget_that_leaves_br_at_d_changes_nothing():
    # default: d = 64, 96 KB float32 -> the paper's Br is already d = 64, and FA2 traffic depends on Br only
    assert questions.budget_doubled(Config()).answer == "about the same"


def test_doubling_a_small_budget_halves_the_traffic():
    assert questions.budget_doubled(Config(d=256)).answer == "about half, or less"


@given(configs())
@settings(max_examples=40, deadline=None)
def test_the_backward_answer_is_the_stored_ratio(cfg):
    q = questions.backward_memory(cfg)
    n, d = cfg.n, cfg.d
    assert q.answer == (3 * n * d + n * n) / (4 * n * d + 2 * n), "Q, K, V and P against Q, K, V, O, m and l"


@pytest.mark.parametrize("error, bucket", [(4e-16, 0), (3e-9, 1), (2e-3, 2), (0.62, 3)])
def test_window_errors_fall_in_their_order_of_magnitude(error, bucket):
    assert questions.window_error(512, 128, error).answer == questions.ERROR_CHOICES[bucket]


def test_a_causal_mask_makes_flash_do_fewer_flops_than_the_whole_matrix():
    assert questions.same_flops(Config()).answer == "the same flops"
    assert questions.same_flops(Config(causal=True)).answer == "fewer flops"


def test_a_wide_bc_makes_the_papers_order_move_less():
    assert questions.loop_order(Config(Br=64, Bc=64)).answer.startswith("FlashAttention-2")
    assert questions.loop_order(Config(Br=64, Bc=512)).answer.startswith("the paper's")


def test_small_tiles_move_more_than_standard_at_the_seeds_settings():
    assert questions.small_tiles(Config()).answer == "more than standard attention"
    assert questions.small_tiles(Config(d=16)).answer == "less than standard attention"


@pytest.mark.parametrize("guess, answer, says", [
    (2.0, 2.0, "Right on."), (1.0, 2.0, "Off by 2×, too low."), (200.0, 2.0, "Off by 100×, too high.")])
def test_a_ratio_guess_is_judged_on_a_log_scale(guess, answer, says):
    q = questions.Question("?", "ratio", answer, "why", questions.LADDER)
    assert questions.verdict(q, guess) == says


def test_a_choice_guess_is_right_or_names_the_answer():
    q = questions.Question("?", "choice", "b", "why", ("a", "b"))
    assert questions.verdict(q, "b") == "Right."
    assert questions.verdict(q, "a") == "Not quite: the answer is b."


def test_the_ladder_spans_the_answers_the_lessons_give():
    # the largest: standard keeps n^2 against flash's 2n for the backward, about n/2 at n = 2^20
    largest = questions.backward_memory(Config(n=2**20, d=16, Br=64, Bc=64)).answer
    assert questions.LADDER[0] <= 1e-3 and questions.LADDER[-1] >= largest


def test_the_papers_figure_2_is_counted_at_its_setting():
    q, table = questions.paper_figure2(HARDWARE["A100 40GB"])
    cfg = questions.paper_figure2_config(HARDWARE["A100 40GB"])
    assert (cfg.n, cfg.d, cfg.dtype, cfg.loop_order) == (1024, 64, "float16", "fa1")
    assert (cfg.Br, cfg.Bc) == (64, 326)  # Bc = ceil(M / 4d) with M = 163 KB of fp16, Br = min(Bc, d)
    heads = 16 * 64
    std = heads * (costs.standard_cost(cfg).flops + costs.standard_backward_cost(cfg).flops)
    engine = table[table["source"].str.startswith("this engine")].set_index("method")
    assert engine.loc["standard", "GFLOPs"] == std / 1e9
    assert q.answer == engine.loc["standard", "HBM GB"] / engine.loc["FlashAttention", "HBM GB"]


def test_lagging_max_question_answers_the_skipped_share_of_fa2s_rescales():
    from flashviz.run.rescale import lagging_run
    cfg = Config(n=512)
    q = questions.lagging_max_skips(cfg, 6.0, 8.0)
    run = lagging_run(cfg, 6.0, 8.0)
    assert q.kind == "share" and q.answer == run.skips / run.every_new_max, (q.answer, run.skips, run.every_new_max)
    assert f"{run.done:,} rescales done, {run.skips:,} skipped" in q.why, q.why


def test_lagging_max_question_at_tau_zero_skips_nothing():
    q = questions.lagging_max_skips(Config(n=256), 3.0, 0.0)
    assert q.answer == 0.0 and "0 skipped" in q.why, q.why


@pytest.mark.parametrize("d", [64, 128])
def test_b200_question_answers_the_exponentials_over_the_matmuls(d):
    from flashviz.hardware.blackwell import compare_tile
    cmp = compare_tile(d)
    q = questions.b200_exp_ratio(d, False)
    assert q.kind == "ratio" and q.answer == cmp.b200.exp / cmp.b200.matmul, q.answer
    assert q.answer > cmp.h200.exp / cmp.h200.matmul, "the B200's exponentials weigh more than the H200's"
