"""The backward player's frames carry exactly what the engine's traced backward computed."""
import numpy as np
import pytest

from explorer.backward_player import render_html
from flashviz.model import costs
from flashviz.players.animation import payload, rounded, teaching_config
from flashviz.run.attention import standard_attention
from flashviz.run.backward import flash_backward
from flashviz.players.backward_animation import SHOW, backward_frames, traced_backward
from flashviz.model.config import Config
from flashviz.model.memory import Counters


def engine_grads(cfg):
    (Q, K, V, O, m, l, dO), grads, _ = traced_backward(cfg)
    return (Q, K, V, dO), grads


def final_columns(data) -> dict:
    """Column 0 of dQ, dK and dV as the frames leave them: dQ from each query block's last
    tile, dK and dV from each key block's write step."""
    out = {"dQ": {}, "dK": {}, "dV": {}}
    for f in data["frames"]:
        if f["kind"] == "tile":
            out["dQ"].update({f["rows"][0] + q: v for q, v in enumerate(f["dq1"])})
        elif f["kind"] == "write":
            out["dK"].update({f["cols"][0] + q: v for q, v in enumerate(f["dk1"])})
            out["dV"].update({f["cols"][0] + q: v for q, v in enumerate(f["dv1"])})
    return out


def test_the_trace_changes_neither_results_nor_counts():
    cfg = Config(n=100, d=8, Br=24, Bc=40, causal=True)
    (Q, K, V, O, m, l, dO), traced, trace = traced_backward(cfg)
    plain_counts, traced_counts = Counters(cfg.element_bytes), Counters(cfg.element_bytes)
    plain = flash_backward(Q, K, V, O, m, l, dO, cfg, plain_counts)
    again = flash_backward(Q, K, V, O, m, l, dO, cfg, traced_counts, trace=[])
    for a, b, c in zip(plain, traced, again):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert vars(plain_counts) == vars(traced_counts)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, Br, Bc", [(128, 32, 32), (100, 24, 40)])
def test_every_step_is_drawn_in_the_engines_order(causal, n, Br, Bc):
    cfg = Config(n=n, d=8, Br=Br, Bc=Bc, causal=causal)
    data, (_, _, trace) = backward_frames(cfg), traced_backward(cfg)
    tiles = costs.census(n, Br, Bc, causal).tiles
    assert len(data["frames"]) == len(trace) == 1 + tiles + cfg.Tc, "D, every computed tile, every write"
    assert data["frames"][0]["kind"] == "D"
    assert [(f["kind"], f.get("i", -1), f.get("j", -1)) for f in data["frames"][1:]] == \
           [(s.kind, s.i, s.j) for s in trace[1:]]
    js = [f["j"] for f in data["frames"] if f["kind"] == "tile"]
    assert js == sorted(js), "outer loop over key blocks"


@pytest.mark.parametrize("causal", [False, True])
def test_the_last_frames_hold_the_engines_gradients(causal):
    cfg = Config(n=96, d=8, Br=16, Bc=32, causal=causal)
    (_, grads), final = engine_grads(cfg), final_columns(backward_frames(cfg))
    for name, grad in zip(("dQ", "dK", "dV"), grads):
        shown = final[name]
        assert shown, name
        for row, value in shown.items():
            assert value == rounded(grad[row, 0]), f"{name}[{row}, 0]: frame {value}, engine {grad[row, 0]}"


def test_frames_carry_each_steps_tile_values():
    cfg = Config(n=64, d=8, Br=16, Bc=16)
    data, (_, _, trace) = backward_frames(cfg), traced_backward(cfg)
    for f, step in zip(data["frames"], trace):
        if f["kind"] != "tile":
            continue
        shown = min(SHOW, step.rows[1] - step.rows[0])
        assert f["dq1"] == rounded(step.dQi[:shown, 0]) and f["dv1"] == rounded(step.dVj[:SHOW, 0])
        w = f["w"]
        q, c = w["row"] - step.rows[0], w["key"] - step.cols[0]
        assert w["P"] == rounded(step.P[q, c]) and w["dS"] == rounded(step.dS[q, c])
        assert q < SHOW and np.abs(step.dS[:SHOW]).max() == abs(step.dS[q, c]), \
            "the worked entry is the shown rows' largest |dS|"


def test_p_is_rebuilt_from_the_stored_m_and_l_and_each_row_sums_to_1():
    cfg = Config(n=64, d=8, Br=16, Bc=16, causal=True)
    (Q, K, V, O, m, l, dO), _, trace = traced_backward(cfg)
    _, P = standard_attention(Q, K, V, cfg, return_P=True)
    for step in trace:
        if step.kind == "tile":
            (r0, r1), (k0, k1) = step.rows, step.cols
            np.testing.assert_allclose(step.P, P[r0:r1, k0:k1], atol=1e-14)
    last = {}
    for f in backward_frames(cfg)["frames"]:
        if f["kind"] == "tile":
            last[f["i"]] = f["ps1"]
    assert all(abs(v - 1) < 1e-3 for ps in last.values() for v in ps), "ΣP ends at 1 in every row"


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, Br, Bc", [(256, 64, 64), (100, 24, 40)])
def test_byte_and_flop_counts_end_at_the_closed_forms(causal, n, Br, Bc):
    cfg = Config(n=n, d=16, Br=Br, Bc=Bc, causal=causal)
    data = backward_frames(cfg)
    frames = data["frames"]
    hbm = [f["hbm"] for f in frames]
    assert hbm == sorted(hbm) and frames[0]["hbm"] == (2 * n * 16 + n + n * 16) * cfg.element_bytes
    assert frames[-1]["hbm"] == costs.flash_backward_cost(cfg).hbm_bytes == data["total_bytes"]
    assert frames[-1]["flops"] == costs.flash_backward_cost(cfg).flops
    assert frames[-1]["stored_flops"] == costs.storing_backward_flops(cfg)
    assert data["standard_bytes"] == costs.standard_backward_cost(cfg).hbm_bytes


def test_gradients_in_the_frames_match_finite_differences():
    cfg = Config(n=12, d=4, Br=4, Bc=3)  # every row and key shown (SHOW >= Br, Bc)
    Q, K, V, dO = engine_grads(cfg)[0]
    final = final_columns(backward_frames(cfg))
    loss = lambda args: (standard_attention(*args, cfg) * dO).sum()  # noqa: E731
    h = 1e-6
    for which, name in enumerate(("dQ", "dK", "dV")):
        assert sorted(final[name]) == list(range(cfg.n))
        for row in (0, 5, 11):
            plus, minus = [x.copy() for x in (Q, K, V)], [x.copy() for x in (Q, K, V)]
            plus[which][row, 0] += h
            minus[which][row, 0] -= h
            numeric = (loss(plus) - loss(minus)) / (2 * h)
            assert final[name][row] == pytest.approx(numeric, rel=1e-3, abs=1e-6), f"{name}[{row}, 0]"


def test_the_recomputing_gradients_equal_the_stored_ones():
    assert backward_frames(Config(n=96, d=8, Br=32, Bc=16, causal=True))["final_diff"] < 1e-12


def test_bug_flags_do_not_reach_the_backward():
    cfg = Config(n=64, d=8, Br=16, Bc=16)
    assert (backward_frames(cfg.with_(rescale=False))["frames"]
            == backward_frames(cfg)["frames"])


def test_payload_at_the_default_teaching_size_is_under_1_mb():
    cfg, _ = teaching_config(Config(), 256, 16)
    size = len(payload(backward_frames(cfg)).encode())
    assert size < 1_000_000, f"{size} bytes"


def test_payload_stays_under_1_mb_at_the_heaviest_teaching_size():
    cfg, _ = teaching_config(Config(Br=64, Bc=1), 512, 32)
    data = backward_frames(cfg)
    assert data["capped"] and len(payload(data).encode()) < 1_000_000


def test_the_page_embeds_the_data_and_the_shared_code_safely():
    data = backward_frames(Config(n=32, d=4, Br=16, Bc=16))
    data["evil"] = "</script><script>alert(1)</script>"
    html = render_html(data)
    assert html.count("</script>") == 2 and "__DATA__" not in html and "__COMMON" not in html
    assert "__CONTROLS__" not in html
    assert "function fvControls" in html and ".meter" in html

