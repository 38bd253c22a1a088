"""Gradients of both backward passes agree with each other and with finite differences."""
import numpy as np
import pytest

from flashviz.run.attention import flash_attention, random_qkv, standard_attention
from flashviz.run.backward import flash_backward, standard_backward
from flashviz.model.config import Config


def grads(cfg, seed=0):
    Q, K, V = random_qkv(cfg.n, cfg.d, seed)
    dO = np.random.default_rng(seed + 1).standard_normal((cfg.n, cfg.d))
    O, m, l = flash_attention(Q, K, V, cfg, stats=True)
    _, P = standard_attention(Q, K, V, cfg, return_P=True)
    return (Q, K, V, dO), standard_backward(Q, K, V, P, dO, cfg), flash_backward(Q, K, V, O, m, l, dO, cfg)


@pytest.mark.parametrize("causal", [False, True])
def test_gradients_match_finite_differences(causal):
    cfg = Config(n=12, d=4, Br=5, Bc=3, causal=causal)
    (Q, K, V, dO), _, flash = grads(cfg)
    inputs = [Q, K, V]
    h = 1e-6
    for which, grad in enumerate(flash):
        for idx in [(0, 0), (5, 2), (11, 3)]:
            plus = [x.copy() for x in inputs]
            minus = [x.copy() for x in inputs]
            plus[which][idx] += h
            minus[which][idx] -= h
            loss = lambda args: (standard_attention(*args, cfg) * dO).sum()  # noqa: E731
            numeric = (loss(plus) - loss(minus)) / (2 * h)
            assert grad[idx] == pytest.approx(numeric, abs=1e-7), f"d{'QKV'[which]}{idx}"


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n, Br, Bc", [(128, 32, 32), (100, 24, 40)])
def test_recomputing_backward_equals_stored_backward(causal, n, Br, Bc):
    _, std, flash = grads(Config(n=n, d=16, Br=Br, Bc=Bc, causal=causal), seed=3)
    for a, b, name in zip(std, flash, "QKV"):
        assert np.abs(a - b).max() < 1e-12, f"d{name}"


def test_recompute_does_five_matmuls_per_tile_against_four():
    from flashviz.model import costs
    cfg = Config(n=512, d=64)
    assert costs.flash_backward_cost(cfg).flops == 10 * 512 * 512 * 64
    assert costs.standard_backward_cost(cfg).flops == 8 * 512 * 512 * 64
