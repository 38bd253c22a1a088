"""The animation's frames carry exactly what the engine's trace recorded."""
import json
import re

import numpy as np
import pytest

from flashviz.model.masks import EMPTY, FULL, PARTIAL

from explorer import backward_player, player
from explorer.player import render_html
from flashviz.players import animation
from flashviz.model import costs
from flashviz.players.animation import flash_frames, payload, rounded, standard_frames, teaching_config
from flashviz.run.attention import flash_attention
from flashviz.players.backward_animation import backward_frames
from flashviz.teach.bugs import BUGS
from flashviz.model.config import Config


def traced(cfg):
    Q, K, V = animation.teaching_inputs(cfg)
    trace = []
    flash_attention(Q, K, V, cfg, trace=trace)
    return trace


@pytest.mark.parametrize("order", ["fa2", "fa1"])
@pytest.mark.parametrize("causal", [False, True])
def test_one_frame_per_computed_tile(order, causal):
    cfg = Config(n=96, d=8, Br=16, Bc=32, loop_order=order, causal=causal)
    data = flash_frames(cfg)
    assert len(data["frames"]) == costs.census(96, 16, 32, causal).tiles == data["tiles"]


@pytest.mark.parametrize("order", ["fa2", "fa1"])
def test_frames_carry_the_trace_values(order):
    cfg = Config(n=128, d=8, Br=32, Bc=16, loop_order=order)
    data, trace = flash_frames(cfg), traced(cfg)
    for k, (frame, step) in enumerate(zip(data["frames"], trace)):
        show = frame["show"]
        assert (frame["i"], frame["j"]) == (step.i, step.j)
        assert frame["m0"] == rounded(step.m_before[show]) and frame["m1"] == rounded(step.m_after[show])
        assert frame["l"] == rounded(step.l[show]) and frame["scale"] == rounded(step.rescale[show])
        assert frame["o1"] == rounded(step.O[show, 0] * step.l[show]), "O is shown unnormalised"
        prev = [t for t in trace[:k] if t.i == step.i]
        l0 = prev[-1].l[show] if prev else np.zeros(len(show))
        assert frame["l0"] == rounded(l0), "l before the step is the block's previous l"
        np.testing.assert_allclose(np.array(frame["scale"]) * l0 + frame["add"], frame["l"], rtol=2e-3)
        assert (frame["hbm"], frame["ws"]) == (step.hbm_bytes, step.working_set_bytes)


def test_counts_of_risen_and_rescaled_rows_come_from_the_whole_block():
    cfg = Config(n=128, d=8, Br=64, Bc=16)
    for frame, step in zip(flash_frames(cfg)["frames"], traced(cfg)):
        rose = np.isfinite(step.m_before) & (step.m_after > step.m_before)
        assert frame["rose"] == int(rose.sum())
        assert frame["rescaled"] == int((rose & (step.rescale < 1)).sum())
        assert frame["first"] == (step.j == 0)


def test_shown_rows_are_the_first_rows_then_the_largest_rises():
    m_before = np.zeros(20)
    m_after = np.zeros(20)
    m_after[[7, 12, 15, 18, 19]] = [0.5, 3.0, 1.0, 2.0, 0.1]
    assert animation.shown_rows(m_before, m_after) == [0, 1, 2, 3, 7, 12, 15, 18]
    assert animation.shown_rows(np.full(20, -np.inf), m_after) == list(range(animation.SHOW_ROWS))
    assert animation.shown_rows(m_before[:6], m_after[:6]) == list(range(6))


def test_shown_rows_put_rows_that_turned_inf_or_nan_before_the_largest_rises():
    m_before, m_after = np.zeros(20), np.zeros(20)
    m_after[[7, 12, 15, 18]] = [0.5, 3.0, 1.0, 2.0]
    broke = np.zeros(20, dtype=bool)
    broke[[2, 9, 17]] = True
    assert animation.shown_rows(m_before, m_after, broke) == [0, 1, 2, 3, 9, 12, 17, 18]


@pytest.mark.parametrize("order", ["fa2", "fa1"])
@pytest.mark.parametrize("Br, Bc", [(64, 16), (128, 16), (32, 16), (64, 64), (16, 256)])
def test_the_step_where_inf_first_appears_shows_a_row_that_holds_it(order, Br, Bc):
    cfg, _ = teaching_config(Config(Br=Br, Bc=Bc, loop_order=order), 256, 16)
    data = animation.bug_frames(cfg, "no_max")
    frame = data["frames"][data["first_bad"]]
    shown = [frame["rows"][0] + o for q, o in enumerate(frame["show"])
             if isinstance(frame["l"][q], str) or isinstance(frame["o1"][q], str)]
    assert shown, (f"step {data['first_bad'] + 1} is the first with inf/nan, but none of rows "
                   f"{[frame['rows'][0] + o for o in frame['show']]} shows one")


def test_last_frames_equal_standard_attention():
    cfg = Config(n=64, d=8, Br=16, Bc=16)
    data = flash_frames(cfg)
    assert data["final_diff"] < 1e-12
    from flashviz.run.attention import standard_attention
    ref = standard_attention(*animation.teaching_inputs(cfg), cfg)
    for i in range(cfg.Tr):
        last = [f for f in data["frames"] if f["i"] == i][-1]
        rows = [last["rows"][0] + q for q in last["show"]]
        np.testing.assert_allclose(np.array(last["o1"]) / np.array(last["l"]), ref[rows, 0], rtol=2e-3)


@pytest.mark.parametrize("order", ["fa2", "fa1"])
@pytest.mark.parametrize("n, Br, Bc", [(96, 16, 32), (100, 32, 16), (64, 64, 8), (50, 8, 48), (512, 16, 16)])
def test_kinds_name_exactly_the_tiles_the_mask_lets_through(order, n, Br, Bc):
    # the players cross out an empty tile (kind 0); the frames (all of them, uncapped) are the others
    for mask in ({}, {"causal": True}):
        cfg = Config(n=n, d=8, Br=Br, Bc=Bc, loop_order=order, **mask)
        data = flash_frames(cfg, max_frames=10_000)
        tiles = {(f["i"], f["j"]) for f in data["frames"]}
        assert tiles == {(i, j) for i, row in enumerate(data["kinds"]) for j, kind in enumerate(row) if kind}
        assert len(data["kinds"]) == cfg.Tr and {len(row) for row in data["kinds"]} == {cfg.Tc}
        assert data["tiles"] == len(data["frames"])
        if not mask:
            assert {k for row in data["kinds"] for k in row} == {FULL}
        else:  # causal: the diagonal's tiles partial, those above it empty
            assert {k for row in data["kinds"] for k in row} == {EMPTY, PARTIAL, FULL} or cfg.Tr == 1
        back = backward_frames(cfg, max_frames=10_000)
        assert back["kinds"] == data["kinds"]
        assert {(f["i"], f["j"]) for f in back["frames"] if f["kind"] == "tile"} == tiles


def test_frames_are_capped_and_say_so():
    cfg = Config(n=512, d=16, Br=16, Bc=16)  # 1024 tiles
    data = flash_frames(cfg)
    assert len(data["frames"]) == animation.MAX_FRAMES and data["capped"]


def test_payload_at_the_default_teaching_size_is_under_50_kb():
    cfg, _ = teaching_config(Config(), 256, 16)
    assert len(payload(flash_frames(cfg)).encode()) < 50_000


def test_payload_never_exceeds_1_mb():
    # As many frames as the cap allows, each with SHOW_ROWS rows.
    cfg, _ = teaching_config(Config(Br=64, Bc=1), 512, 32)
    data = flash_frames(cfg)
    assert data["capped"] and len(payload(data).encode()) < 1_000_000


def test_teaching_config_keeps_the_trace_bounded():
    cfg, note = teaching_config(Config(Br=1, Bc=1), 256, 8)
    assert cfg.n == 32 and "the animation uses n = 32" in note


def test_standard_frames_end_at_4nd_plus_4n2():
    cfg = Config(n=100, d=8, Br=32, Bc=32)
    data = standard_frames(cfg)
    assert len(data["frames"]) == 1 + 3 * cfg.Tr
    assert data["frames"][-1]["hbm"] == costs.standard_cost(cfg).hbm_bytes
    assert data["frames"][cfg.Tr]["peak"] == 100 * 100 * 4  # the whole S is in HBM


def test_no_rescale_drifts_from_the_correct_l():
    cfg, _ = teaching_config(Config(), 256, 16)
    frames = animation.bug_frames(cfg, "no_rescale")["frames"]
    assert frames[0]["l"] == frames[0]["l_true"]  # nothing to rescale on the first tile
    assert any(f["l"] != f["l_true"] for f in frames)
    assert all(s == 1.0 for f in frames for s in f["scale"])  # the bug applies no factor


def test_too_big_tiles_are_over_budget():
    cfg, _ = teaching_config(Config(), 256, 16)
    data = animation.bug_frames(cfg, "tiles_too_big")
    assert all(f["ws"] > data["budget"] for f in data["frames"])


def test_too_big_tiles_get_several_steps_and_say_why():
    cfg, _ = teaching_config(Config(), 256, 16)
    data = animation.bug_frames(cfg, "tiles_too_big")
    assert (data["Br"], data["n"]) == (512, 2048)
    assert len(data["frames"]) == 16, "4 x 4 tiles of 512, not one tile of 256"
    assert "n = 2048 here (at n = 256" in data["note"]


def test_no_rescale_frames_carry_the_factor_a_correct_run_applies():
    cfg, _ = teaching_config(Config(), 256, 16)
    frames = animation.bug_frames(cfg, "no_rescale")["frames"]
    risen = [(f, q) for f in frames for q in range(len(f["show"])) if not f["first"] and f["m1"][q] > f["m0"][q]]
    assert risen and all(f["should"][q] < 1 and f["scale"][q] == 1 for f, q in risen)


# Words that name each bug, and must not appear in another bug's headline.
OWN_WORDS = {"no_rescale": "rescale", "tiles_too_big": "too big", "tiles_too_small": "too small",
             "keep_full_S": "n × n buffer", "no_max": "without subtracting the max"}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_each_bug_headline_names_its_own_bug(bug):
    cfg, _ = teaching_config(Config(), 256, 16)
    line = animation.bug_frames(cfg, bug)["headline"]
    assert OWN_WORDS[bug] in line, line
    others = [w for b, w in OWN_WORDS.items() if b != bug and w in line]
    assert not others, f"{bug}'s headline names another bug: {line}"


def test_keep_full_S_moves_more_bytes():
    cfg, _ = teaching_config(Config(), 256, 16)
    assert (animation.bug_frames(cfg, "keep_full_S")["frames"][-1]["hbm"]
            > flash_frames(cfg)["frames"][-1]["hbm"])


def test_overflow_appears_at_a_step_and_stays():
    cfg, _ = teaching_config(Config(), 256, 16)
    data = animation.bug_frames(cfg, "no_max")
    first = data["first_bad"]
    assert first is not None
    assert not any(f["bad"] for f in data["frames"][:first])
    assert "Infinity" in json.dumps(data["frames"][first]) or "NaN" in json.dumps(data["frames"][first])


def test_player_page_embeds_the_data_safely():
    data = flash_frames(Config(n=32, d=4, Br=16, Bc=16))
    data["evil"] = "</script><script>alert(1)</script>"
    html = render_html(data)
    assert html.count("</script>") == 2  # the data block's and the player's own
    assert "__DATA__" not in html


# Anything that would make the iframe ask the network for a byte: a linked file (an HTML
# attribute, a CSS url or import), an address, or a request from the script.
FETCHES = re.compile(r"""\b(src|href)=|\.(src|href)\s*=(?!=)|url\(|@import|https?:|fetch\(|XMLHttpRequest|WebSocket""")


@pytest.mark.parametrize("page", [player.TEMPLATE, backward_player.TEMPLATE], ids=["forward", "backward"])
def test_each_player_carries_the_shared_code_and_bar_and_fetches_nothing(page):
    assert "__COMMON" not in page and "__CONTROLS__" not in page
    assert "function fvControls" in page and ".meter" in page and player.CONTROLS in page
    assert not FETCHES.search(page), FETCHES.search(page)


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_every_bug_animates_at_the_teaching_size(bug):
    for base in (Config(), Config(Br=16, Bc=16), Config(Br=1024, Bc=1024)):
        cfg, _ = teaching_config(base, 256, 16)
        data = animation.bug_frames(cfg, bug)
        assert data["frames"] and data["bug"] == bug


def test_a_reference_with_other_tiles_is_refused():
    with pytest.raises(ValueError, match="same tiles"):
        flash_frames(Config(n=64, d=4, Br=16, Bc=16), reference=Config(n=64, d=4, Br=32, Bc=32))


@pytest.mark.parametrize("order", ["fa2", "fa1"])
@pytest.mark.parametrize("bug", [None, *sorted(BUGS)])
def test_the_code_panel_shows_what_the_listing_computed_and_it_equals_the_engine(bug, order):
    cfg, _ = teaching_config(Config(loop_order=order, causal=order == "fa1"), 128, 8)
    data = animation.bug_frames(cfg, bug) if bug else flash_frames(cfg)
    assert data["code"]["bug"] == bug and (data["code"]["edited"] != []) == (bug is not None)
    lines = data["code"]["src"].splitlines()
    for frame in data["frames"]:
        code = frame["code"]
        assert code["at"] in code["ran"] and 1 <= code["at"] <= len(lines)
        offsets = [r - frame["rows"][0] for r in code["rows"]]
        assert set(offsets) <= set(frame["show"])
        table = {o: q for q, o in enumerate(frame["show"])}
        assert code["l"] == [frame["l"][table[o]] for o in offsets], "the listing's l is the engine's l"


def test_the_code_panel_adds_little_to_the_payload():
    cfg, _ = teaching_config(Config(), 256, 16)
    data = flash_frames(cfg)
    assert len(payload(data).encode()) < 20_000
    assert "def flash_forward(Q, K, V, Br, Bc, causal, hbm):" in render_html(data)


@pytest.mark.parametrize("tau", [0.0, 1.0, 8.0])
def test_lag_marks_add_up_to_the_runs_fa4_counts(tau):
    # Br = 8 shows every row of a block, so every rescale FA4 does or skips is marked on some frame.
    from flashviz.run.rescale import rescale_attention
    cfg = Config(n=64, d=4, Br=8, Bc=8)
    data = flash_frames(cfg, tau=tau, score_scale=3.0)
    marks = [m for f in data["frames"] for m in f["lag"]]
    Q, K, V = animation.teaching_inputs(cfg, 0, 3.0)
    run = rescale_attention(Q, K, V, cfg, tau)
    assert (marks.count("rescaled"), marks.count("skipped")) == (run.done, run.skips) == (
        data["lag_done"], data["lag_skipped"]), (marks.count("rescaled"), marks.count("skipped"), run.done, run.skips)
    rose = sum(f["rose"] for f in data["frames"])
    assert run.done + run.skips == rose, (run.done, run.skips, rose)


def test_a_broken_run_carries_no_lag_marks():
    data = flash_frames(Config(n=32, d=4, Br=16, Bc=16, rescale=False), tau=8.0)
    assert "tau" not in data and all("lag" not in f for f in data["frames"]), list(data)


def test_the_player_refuses_a_block_mask_and_a_mask_in_fa1s_order():
    with pytest.raises(ValueError, match="no block mask"):
        flash_frames(Config(n=64, d=8, Br=16, Bc=16, blocks=frozenset({(0, 0), (3, 3)})))
    with pytest.raises(ValueError, match="FlashAttention-2's order"):
        flash_frames(Config(n=64, d=8, Br=16, Bc=16, causal=True, window_left=8, loop_order="fa1"))


@pytest.mark.parametrize("shape", animation.MASK_SHAPES)
@pytest.mark.parametrize("sink", [None, -2.0, 1.5, 9.0])
def test_a_masked_run_steps_through_the_tiles_the_mask_leaves_with_the_sinks_start(shape, sink):
    from flashviz.model.mask_sweeps import documents
    cfg = animation.mask_teaching_config(Config(Br=16, Bc=32), 64, lambda k: documents("a half + 16 short", k),
                                         shape, sink)
    data, trace = flash_frames(cfg), traced(cfg)
    census = costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask)
    assert (cfg.n, cfg.d, cfg.loop_order, cfg.causal) == (256, animation.MASK_PLAYER_D, "fa2", True)
    assert len(data["frames"]) == len(trace) == census.tiles == data["tiles"]
    assert data["skipped"] == cfg.Tr * cfg.Tc - census.tiles > 0
    assert sum(k == EMPTY for row in data["kinds"] for k in row) == data["skipped"]
    assert data["mask"] == animation.mask_words(cfg) and ("sink" in data) == (sink is not None)
    assert ("window of 64 keys" in data["mask"]) == (shape != "documents")
    assert ("in 17 documents" in data["mask"]) == (shape != "window")
    assert float(data["final_diff"]) < 1e-12
    for k, (frame, step) in enumerate(zip(data["frames"], trace)):
        show = frame["show"]
        assert frame["m0"] == rounded(step.m_before[show]) and frame["l"] == rounded(step.l[show])
        opens = k == 0 or trace[k - 1].i != step.i
        if opens:  # a block's first tile: m before it is the sink (or -inf), l before it the sink's term 1 (or 0)
            assert frame["m0"] == rounded(np.full(len(show), -np.inf if sink is None else sink))
            assert frame["l0"] == rounded(np.full(len(show), 0.0 if sink is None else 1.0))
            assert frame["first"] == (sink is None)
        code = frame["code"]
        table = {o: q for q, o in enumerate(show)}
        assert code["l"] == [frame["l"][table[r - frame["rows"][0]]] for r in code["rows"]], "the listing's l"


def test_the_masks_player_names_its_mask():
    base = Config(n=64, d=8, Br=16, Bc=16, causal=True)
    assert animation.mask_words(base.with_(window_left=127)) == "a causal window of 128 keys"
    assert animation.mask_words(base.with_(docs=(32, 32), sink=1.0)) == "causal in 2 documents, a sink of 1"
    assert animation.mask_words(base.with_(causal=False, window_left=3, window_right=5)) == (
        "a window (left 3, right 5)")
    with pytest.raises(ValueError, match="the player's mask is one of"):
        animation.mask_teaching_config(base, 64, lambda k: (k,), "diagonal", None)
