"""The per-tile trace carries exactly what the run computed."""
import numpy as np
import pytest

from flashviz.run.attention import flash_attention, random_qkv, standard_attention
from flashviz.model.config import Config
from flashviz.model.costs import census, flash_cost


def run(cfg, seed=0):
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    trace = []
    O = flash_attention(Q, K, V, cfg, trace=trace)
    return trace, O, standard_attention(Q, K, V, cfg)


@pytest.mark.parametrize("loop_order", ["fa2", "fa1"])
@pytest.mark.parametrize("causal", [False, True])
def test_one_step_per_computed_tile(loop_order, causal):
    cfg = Config(n=100, d=8, Br=16, Bc=24, causal=causal, loop_order=loop_order)
    trace, _, _ = run(cfg)
    assert len(trace) == census(100, 16, 24, causal).tiles


def test_causal_trace_skips_masked_tiles():
    cfg = Config(n=64, d=8, Br=16, Bc=16, causal=True)
    trace, _, _ = run(cfg)
    assert all(s.j <= s.i for s in trace) and len(trace) == 10


@pytest.mark.parametrize("loop_order", ["fa2", "fa1"])
def test_last_step_of_each_row_block_equals_standard(loop_order):
    cfg = Config(n=96, d=8, Br=32, Bc=16, loop_order=loop_order)
    trace, O, ref = run(cfg)
    for i in range(cfg.Tr):
        last = [s for s in trace if s.i == i][-1]
        r0, r1 = last.rows
        assert np.abs(last.O - ref[r0:r1]).max() < 1e-12


def test_trace_values_chain_and_counters_end_at_the_totals():
    cfg = Config(n=64, d=8, Br=16, Bc=16)
    trace, _, _ = run(cfg)
    for prev, step in zip(trace, trace[1:]):
        if step.i == prev.i:
            np.testing.assert_array_equal(step.m_before, prev.m_after)
        assert step.hbm_bytes > prev.hbm_bytes and step.flops > prev.flops
    np.testing.assert_allclose(trace[0].rescale, 0.0)  # first tile: m was -inf
    moved = trace[-1]
    assert moved.flops == flash_cost(cfg).flops
    # everything but the final write of the last O block has been counted
    assert moved.hbm_bytes == flash_cost(cfg).hbm_bytes - 16 * 8 * 4


def test_rescale_is_one_where_the_max_held():
    trace, _, _ = run(Config(n=64, d=8, Br=16, Bc=16), seed=2)
    for step in trace[1:]:
        held = ~step.max_moved
        np.testing.assert_array_equal(step.rescale[held], 1.0)
        assert (step.rescale[step.max_moved] < 1).all()


def test_trace_refuses_more_than_32_by_32_tiles():
    cfg = Config(n=1024, d=8, Br=16, Bc=16)
    Q, K, V = random_qkv(1024, 8)
    with pytest.raises(ValueError, match="at most 1024 tiles"):
        flash_attention(Q, K, V, cfg, trace=[])


def test_working_set_against_budget():
    trace, _, _ = run(Config(n=64, d=8, Br=64, Bc=64, sram_bytes=1024))
    assert not trace[0].fits and trace[0].working_set_bytes == (64*8 + 2*64*8 + 64*64 + 128) * 4
