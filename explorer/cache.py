"""Cached engine calls. Configs are frozen dataclasses, so they are cache keys.

Every cache is bounded (max_entries), so a busy server cannot grow without limit.
"""
from __future__ import annotations

import streamlit as st

from flashviz import attention, bugs, demos, sweeps
from flashviz.config import Config

cache = st.cache_data(max_entries=64, show_spinner=False)


@cache
def demo(number: int, **params):
    return demos.DEMOS[number](**params)


@cache
def over_n(cfg: Config, ns: tuple):
    return sweeps.over_n(cfg, ns)


@cache
def over_blocks(cfg: Config, blocks: tuple):
    return sweeps.over_blocks(cfg, blocks)


@cache
def io_curves(cfg: Config, ns: tuple):
    return sweeps.io_curves(cfg, ns)


@cache
def break_it(cfg: Config, bug: str):
    return bugs.break_it(cfg, bug)


@cache
def max_abs_diff(cfg: Config, seed: int = 0) -> float:
    """flash against standard attention, really run."""
    import numpy as np
    Q, K, V = attention.random_qkv(cfg.n, cfg.d, seed)
    flash = attention.flash_attention(Q, K, V, cfg)
    return float(np.abs(flash - attention.standard_attention(Q, K, V, cfg)).max())


@cache
def flash_frames(cfg: Config, score_scale: float = 1.0, reference: Config | None = None):
    from flashviz import animation
    return animation.flash_frames(cfg, score_scale=score_scale, reference=reference)


@cache
def standard_frames(cfg: Config):
    from flashviz import animation
    return animation.standard_frames(cfg)


@cache
def bug_frames(cfg: Config, bug: str):
    from flashviz import animation
    return animation.bug_frames(cfg, bug)


@st.cache_data(max_entries=256, show_spinner=False)
def figure(builder: str, *args, **kwargs):
    """A chart from flashviz.charts, built once per distinct input. Building a Plotly
    figure validates every property (tens of ms); a cached copy costs a few."""
    from flashviz import charts
    return getattr(charts, builder)(*args, **kwargs)
