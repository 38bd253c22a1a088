"""Cached engine calls: the one cache policy of every lesson.

- A page calls the engine through this module for anything that builds a table, runs NumPy or
  reads the committed measurements: `cache` (st.cache_data) keys each call by its inputs
  (Configs are frozen dataclasses, so they are keys) and hands each rerun its own copy.
- Figures go through `figure`: built once per input and shared (st.cache_resource), never copied.
- A closed form that returns one Cost (microseconds) is called directly; caching it costs more.
- Committed measurements read the same way every rerun (lesson 10's view, and the helpers of explorer/whole_gpu.py
  and schedule_view.py) are kept once a process (functools.lru_cache) and shared read-only, not copied: a copy a
  rerun cost more than the work.

Every cache is bounded (max_entries), so a busy server cannot grow without limit.
"""
from __future__ import annotations

import functools
import hashlib
import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec

import pandas as pd
import streamlit as st

from flashviz.run import attention, decode
from flashviz.teach import bugs, demos
from flashviz.model import mask_sweeps, sweeps
from flashviz.model.config import Config, Hardware

from .plot import shared

if TYPE_CHECKING:
    import plotly.graph_objects as go

P = ParamSpec("P")
# 512 entries: a live chart builds its figure at every value of its sliders (explorer/live.py), some 60
# configs a run. A frozen config is keyed by its repr, which names every field: Streamlit's own hash of one
# walked it field by field, 0.8 ms a call, most of a live chart's cost.
cache = st.cache_data(max_entries=512, show_spinner=False,
                      hash_funcs={Config: repr, decode.DecodeConfig: repr, Hardware: repr})


@cache
def demo(number: int, **params):
    return demos.DEMOS[number](**params)


@cache
def over_n(cfg: Config, ns: tuple):
    return sweeps.over_n(cfg, ns)



@cache
def bug_player(cfg: Config, bug: str, lab: Config, at_symptom: bool = False) -> tuple[str, str, str]:
    """A bug's tile player at config cfg, from one run of its frames (the 512-wide tiles take a
    second): (its page, the line naming the step where its symptom shows, what to watch for).
    `lab` is the config of the lab beside it (both lines name the player's n and d where they
    differ from the lab's); with `at_symptom` the player opens at the symptom's step."""
    from flashviz.players import animation, symptoms

    from .player import render_html
    data = animation.bug_frames(cfg, bug)
    if at_symptom:
        data = symptoms.at_symptom(data, cfg)
    watch = f"{bugs.watch_text(data, cfg)} {symptoms.sizes(data, lab)}".strip()
    return render_html(data), symptoms.caption(data, cfg, lab), watch


@cache
def gpu_measured():
    """Lesson 11's H200 runs: the kernel sweep, its rates and targets, plain attention and its targets."""
    from flashviz.hardware import gpu_targets
    df, rates = gpu_targets.load()
    plain = gpu_targets.load_plain()
    naive = gpu_targets.load_plain(impl=gpu_targets.NAIVE)
    return df, rates, gpu_targets.targets(df, rates), plain, gpu_targets.plain_targets(plain, naive)


# Tables of closed forms, rebuilt by every rerun otherwise.
roofline_points = cache(sweeps.roofline_points)
standard_time = cache(sweeps.standard_time)
hardware_table = cache(sweeps.hardware_table)
cut_by_block = cache(sweeps.cut_by_block)
loop_orders = cache(sweeps.loop_orders)
causal_savings = cache(sweeps.causal_savings)
loop_orders_over_n = cache(sweeps.loop_orders_over_n)
decode_roofline_points = cache(decode.roofline_points)
masks_at = cache(mask_sweeps.masks_at)
over_masks = cache(mask_sweeps.over_masks)
masks_exact = cache(attention.masks_exact)


@cache
def masks_measured(pass_: str = "fwd"):
    """flash-attn-4's masks on the H200 beside the engine's tiles (lesson 14), and the run's provenance."""
    from flashviz.hardware import masks_measured as mm
    return mm.measured_masks(pass_), mm.provenance()


@cache
def decode_bounds(cfg, gpus: dict) -> pd.DataFrame:
    """Lesson 12's table: each GPU's balance and where its roof puts decode and prefill. One
    cached table, where the page had unpickled and reindexed one roofline per GPU each rerun."""
    return pd.DataFrame([{"GPU": g.name, "balance, bytes/flop": g.balance(cfg.dtype),
                          **{f"{m} bound": r["bound"] for m, r in decode.roofline_points(cfg, g)
                             .set_index("method").iterrows()}} for g in gpus.values()])
decode_sharing_table = cache(decode.sharing_table)
decode_split_sweep = cache(decode.split_sweep)
decode_cache_over_n = cache(decode.cache_over_n)
decode_merge_walkthrough = cache(decode.merge_walkthrough)


@cache
def over_blocks(cfg: Config, blocks: tuple):
    return sweeps.over_blocks(cfg, blocks)


@cache
def io_curves(cfg: Config, ns: tuple):
    return sweeps.io_curves(cfg, ns)


@functools.lru_cache(maxsize=16)
def measured_view(d: int, dtype: str, pass_: str):
    """Lesson 10's reading of the H200's committed runs (flashviz.hardware.measured.view): one a process for each
    of the 12 settings, shared and read only. Its ratios are kept on it once asked; a copy a rerun (st.cache_data)
    computed them all again, a tenth of the lesson's rerun."""
    from flashviz.hardware import measured
    return measured.view(measured.load(), d, dtype, pass_)


@cache
def flash_share_at_largest_n(d: int) -> tuple[int, float]:
    """Lesson 10's question: the n of flash's largest float16 forward measured at head dim d, and its DRAM bytes over
    the model's there (measured.View.flash_share_at_largest_n), without unpickling the lesson's whole view."""
    return measured_view(d, "float16", "fwd").flash_share_at_largest_n()


@cache
def backward_measured(causal: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Lesson 5's H200 calls, with the causal mask or without (fa3_authors.backward_table: d = 128, fp16): each
    kernel's forward and backward a row, and the same calls a row each, the kernels side by side."""
    from flashviz.hardware.fa3_authors import backward_table
    bt = backward_table()
    bt = bt[bt["causal"] == causal]
    wide = bt.pivot_table(index=["n", "B·H"], columns="kernel", values=["backward ÷ forward", "backward TFLOP/s"])
    wide.columns = [f"{k} {v}" for v, k in wide.columns]
    return bt, wide.reset_index().round(2)


@cache
def h200_flash(d: int):
    """The H200's measured flash points at head dim d (float16 forward, Nsight Compute's DRAM bytes) and the
    range of its DRAM bytes over the two-level count, both head dims (flashviz.hardware.measured.view)."""
    from flashviz.hardware import measured
    v = measured.view(measured.load(), d, "float16", "fwd")
    ratio = v.dram_over_model("flash")
    return v.flash_points, float(ratio.min()), float(ratio.max()), v.ridge


@cache
def cublas_fp16_runs() -> tuple:
    """The H200's cuBLAS fp16 rate as each run measured it (flashviz.hardware.measured.cublas_fp16_runs): three
    CSVs read once, not on every rerun of lessons 10, 11 and 13."""
    from flashviz.hardware import measured
    return tuple(measured.cublas_fp16_runs())


@cache
def hopper_steps(d: int):
    """PyTorch flash -> Triton 128 x 64 -> cuDNN on the H200 at head dim d (flashviz.hardware.measured.hopper_steps)."""
    from flashviz.hardware import measured
    return measured.hopper_steps(d)


@cache
def measured_blocks(n: int | None = None):
    """The Triton tile sweep at n (flashviz.hardware.measured.block_view), or with n=None the sizes it ran at."""
    from flashviz.hardware import measured
    data = measured.load()
    return measured.block_sizes(data) if n is None else measured.block_view(data, n)


@cache
def measured_provenance() -> dict:
    from flashviz.hardware import measured
    return measured.provenance(measured.load())


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
def lagging_run(cfg: Config, spread: float, tau: float):
    """FlashAttention-4's conditional-rescale forward on random attention (flashviz.run.rescale)."""
    from flashviz.run import rescale
    return rescale.lagging_run(cfg, spread, tau)


@cache
def poly_exp_error(dtype: str):
    """FlashAttention-4's polynomial 2^x against exact 2^x in one output type (2^16 inputs)."""
    from flashviz.run import poly_exp
    return poly_exp.exp_error(dtype, count=1 << 16)


@cache
def player_html(cfg: Config, kind: str = "flash", bug: str | None = None, tau: float | None = None) -> str:
    """The tile player's finished page for one config: built once, then a cheap string
    on every rerun (the frames' JSON for a 64-step run is a few hundred KB)."""
    from flashviz.players import animation

    from .player import render_html
    if bug is not None:
        return render_html(animation.bug_frames(cfg, bug))
    if kind == "standard":
        return render_html(animation.standard_frames(cfg))
    return render_html(animation.flash_frames(cfg, tau=tau))


@cache
def masked_player(cfg: Config) -> tuple[str, dict]:
    """Lesson 14's tile player on a window, documents or a sink, from one run of its frames: (its page, the
    run's mask in words, tiles computed, tiles skipped and final difference, as the page says them)."""
    from flashviz.players import animation

    from .player import render_html
    data = animation.flash_frames(cfg)
    return render_html(data), {key: data.get(key) for key in ("mask", "tiles", "skipped", "final_diff")}


def figure(builder: Callable[P, go.Figure], *args: P.args, **kwargs: P.kwargs) -> go.Figure:
    """`builder(*args, **kwargs)`, a chart from explorer/charts/, built once per distinct input
    and shared, not copied: building a Plotly figure validates every property (tens of ms), and
    so does unpickling one. Safe to share because explorer/plot.py only reads it (plotly.io.to_json).
    Typed: mypy checks the arguments against the builder's own signature."""
    return _shared_figure(f"{builder.__module__}.{builder.__qualname__}", builder, *args, **kwargs)


def mask_tiles_figure(cfg: Config, window: int, mix: str) -> go.Figure:
    """Lesson 14's tile maps as a chart (charts.mask_tiles), kept by what they are computed from: kept by the maps
    themselves, thousands of tiles in nested lists, Streamlit's hash of them took a sixth of the lesson's rerun."""
    return figure(_mask_tiles_chart, cfg, window, mix)


def _mask_tiles_chart(cfg: Config, window: int, mix: str) -> go.Figure:
    from . import charts
    return charts.mask_tiles(mask_sweeps.tile_maps(cfg, window, mix), cfg.n)


# Lesson 14's tile maps counted (each mask's full, partial and empty tiles): the maps themselves, copied to the page
# and counted there every rerun, cost the lesson more than the chart drawn from them.
mask_tile_counts = cache(mask_sweeps.tile_counts)


def mask_growth_figure(cfg: Config, ns: tuple, window: int, mix: str, column: str) -> go.Figure:
    """Lesson 14's flops or bytes over n (charts.mask_growth of over_masks), kept by what they are computed from,
    not by the sweep's frame: the frame's copy and its key cost a rerun more than the chart."""
    return figure(_mask_growth_chart, cfg, ns, window, mix, column)


def _mask_growth_chart(cfg: Config, ns: tuple, window: int, mix: str, column: str) -> go.Figure:
    from . import charts
    return charts.mask_growth(over_masks(cfg, ns, window, mix), column)


def frame_key(frame) -> bytes:
    """A data frame's cache key: the digest of its pickle, which holds every value, label and
    dtype. Streamlit's own hash of a 20-row frame took 4-6 ms, 20x this, on every rerun of
    every chart; two equal frames laid out differently in memory only miss, never collide."""
    return hashlib.blake2b(pickle.dumps(frame, protocol=5), digest_size=16).digest()


@st.cache_resource(max_entries=256, show_spinner=False,
                   hash_funcs={pd.DataFrame: frame_key, pd.Series: frame_key, Config: repr, Hardware: repr})
def _shared_figure(name: str, _builder: Callable[..., go.Figure], *args, **kwargs) -> go.Figure:
    # Keyed by the builder's name and the hashed inputs; a leading underscore keeps Streamlit from
    # hashing the function object itself.
    return shared(_builder(*args, **kwargs))


# ---- lesson 6's second half: real precisions ----------------------------------------------------

@cache
def precision_study(n: int, d: int):
    """Every method's error against float64 and the FP8 row study (flashviz.run.precision.study), at lesson 6's one
    draw (seed 0). No seed argument: a cache's key is the arguments as passed, so a seed given by one caller and left
    to its default by another computed the study twice."""
    from flashviz.run import precision
    return precision.study(n, d, 0)


@cache
def precision_measured() -> pd.DataFrame:
    """The H200's kernels' errors (flashviz/data/h200/precision.csv)."""
    from flashviz.run import precision
    return precision.load_measured()


@cache
def precision_side_by_side(n: int, d: int) -> pd.DataFrame:
    from flashviz.run import precision
    return precision.side_by_side(precision_study(n, d).errors, precision_measured(), n, d, 0)


@cache
def precision_row_scores(n: int, d: int, seed: int, row: int) -> pd.DataFrame:
    from flashviz.run import precision
    return precision.row_scores(n, d, seed, row)


@cache
def precision_limits(score: float) -> pd.DataFrame:
    from flashviz.run import precision
    return precision.type_limits(score)


@cache
def b200_schedules(d: int, causal: bool, n: int, tau: float, spread: float):
    """Lesson 13's modelled B200: FA3's design and FA4's at the lesson's call (blackwell.b200_schedules)."""
    from flashviz.hardware import blackwell
    return blackwell.b200_schedules(d, causal, n, tau, spread)
