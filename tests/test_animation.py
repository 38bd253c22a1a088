"""The animation's frames carry exactly what the engine's trace recorded."""
import json

import numpy as np
import pytest

from explorer.player import render_html
from flashviz import animation, costs
from flashviz.animation import flash_frames, payload, rounded, standard_frames, teaching_config
from flashviz.attention import flash_attention
from flashviz.bugs import BUGS
from flashviz.config import Config


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


def test_frames_carry_the_trace_values():
    cfg = Config(n=64, d=8, Br=16, Bc=16)
    data, trace = flash_frames(cfg), traced(cfg)
    for frame, step in zip(data["frames"], trace):
        assert (frame["i"], frame["j"]) == (step.i, step.j)
        assert frame["m0"] == rounded(step.m_before) and frame["m1"] == rounded(step.m_after)
        assert frame["l"] == rounded(step.l) and frame["scale"] == rounded(step.rescale)
        assert frame["O"] == rounded(step.O)
        assert (frame["hbm"], frame["flops"], frame["ws"]) == (step.hbm_bytes, step.flops,
                                                                step.working_set_bytes)


def test_last_frames_equal_standard_attention():
    cfg = Config(n=64, d=8, Br=16, Bc=16)
    data = flash_frames(cfg)
    assert data["final_diff"] < 1e-12
    from flashviz.attention import standard_attention
    ref = standard_attention(*animation.teaching_inputs(cfg), cfg)
    for i in range(cfg.Tr):
        last = [f for f in data["frames"] if f["i"] == i][-1]
        r0, r1 = last["rows"]
        np.testing.assert_allclose(last["O"], ref[r0:r1], rtol=1e-3, atol=1e-4)


def test_frames_are_capped_and_say_so():
    cfg = Config(n=512, d=16, Br=16, Bc=16)  # 1024 tiles
    data = flash_frames(cfg)
    assert len(data["frames"]) == animation.MAX_FRAMES and data["capped"]


def test_payload_at_the_default_teaching_size_is_under_1_mb():
    cfg, _ = teaching_config(Config(), 256, 16)
    assert len(payload(flash_frames(cfg)).encode()) < 1_000_000


def test_payload_never_exceeds_5_mb():
    # The heaviest frames: 64 rows x 16 columns of O, as many frames as the cap allows.
    cfg, _ = teaching_config(Config(Br=64, Bc=1), 512, 32)
    data = flash_frames(cfg)
    assert data["capped"] and len(payload(data).encode()) < 5_000_000


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


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_every_bug_animates_at_the_teaching_size(bug):
    for base in (Config(), Config(Br=16, Bc=16), Config(Br=1024, Bc=1024)):
        cfg, _ = teaching_config(base, 256, 16)
        data = animation.bug_frames(cfg, bug)
        assert data["frames"] and data["bug"] == bug


def test_a_reference_with_other_tiles_is_refused():
    with pytest.raises(ValueError, match="same tiles"):
        flash_frames(Config(n=64, d=4, Br=16, Bc=16), reference=Config(n=64, d=4, Br=32, Bc=32))
