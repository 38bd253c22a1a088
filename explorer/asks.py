"""Each lesson's opening question, built from the settings it reads.

A builder takes a `Settings` (the lesson's own controls, the sidebar's, the GPU) and returns the
engine's question (flashviz.teach.questions) at those settings, or None where the lesson has nothing to
ask there. explorer.predict hands it the reader's settings; the registry (explorer.lessons) names
each lesson's builder.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, Protocol

from flashviz.teach import questions as q
from flashviz.model.config import Config, Hardware, tensor_dtype
from flashviz.run.decode import DecodeConfig
from flashviz.hardware.gpu_model import Kernel, sdpa_flash, triton
from flashviz.teach.questions import Question

from . import cache
from .schedule_view import measured_at, setting


P = ParamSpec("P")
_KEPT: dict[Callable, Callable] = {}


def kept(builder: Callable[P, Question]) -> Callable[P, Question]:
    """The engine's `builder` (flashviz.teach.questions), its question kept per distinct setting (explorer/cache.py):
    the counts behind a question cost its lesson's rerun a few ms, every rerun, for the same question."""
    if builder not in _KEPT:
        _KEPT[builder] = cache.cache(builder)
    return _KEPT[builder]


class Settings(Protocol):
    """What a question may read: a lesson's own control by its URL key, the sidebar's controls,
    and the engine objects the sidebar stands for."""

    def own(self, key: str) -> Any: ...
    def value(self, key: str) -> Any: ...
    def config(self) -> Config: ...
    def hardware(self) -> Hardware: ...
    def simulable(self, cfg: Config) -> Config: ...  # the n a lesson really runs in NumPy
    def gpu(self, name: str) -> Hardware: ...        # a preset by name, or the reader's custom GPU


def kernel_named(name: str, d: int) -> Kernel:
    """Lesson 11's kernel menu ("PyTorch flash", "Triton 128×64", ...) as the engine's Kernel."""
    if name == "PyTorch flash":
        return sdpa_flash(d)
    bm, bn = (int(x) for x in name.split(" ")[1].split("×"))
    return triton(bm, bn, d)


def where_time_goes(s: Settings) -> Question:
    return kept(q.where_time_goes)(s.config(), s.hardware())


def online_softmax(s: Settings) -> Question:
    return kept(q.online_softmax_sum)(s.own("os_len"), s.own("os_block"), s.own("os_spread"), s.own("os_seed"))


def tiling(s: Settings) -> Question:
    return kept(q.tiling_ratio)(s.config())


def tile_size(s: Settings) -> Question:
    return kept(q.budget_doubled)(s.config())


def backward(s: Settings) -> Question:
    return kept(q.backward_memory)(s.config())


def exact(s: Settings) -> Question:
    cfg = s.config()
    n = s.simulable(cfg.with_tiles(64, 64)).n
    window = min(s.own("ex_window"), n)
    demo = cache.demo(6, n=n, d=cfg.d, window=window)
    return q.window_error(n, window, float(demo.tables["against standard attention"].iloc[1]["max abs diff"]))


def same_flops(s: Settings) -> Question:
    return kept(q.same_flops)(s.config())


def loop_order(s: Settings) -> Question:
    return kept(q.loop_order)(s.config())


def break_it(s: Settings) -> Question:
    return kept(q.small_tiles)(s.config())


def real_hardware(s: Settings) -> Question:
    d = s.own("hw_d")
    return q.measured_share(d, *cache.flash_share_at_largest_n(d))


def whole_gpu(s: Settings) -> Question | None:
    """None while the chosen kernel cannot launch on the chosen GPU (the lesson says why)."""
    d = s.own("wg_d")
    kernel, hw = kernel_named(s.own("wg_kernel"), d), s.gpu(s.own("wg_gpu"))
    if kernel.occupancy(d, hw).launch:
        return None
    return kept(q.whole_gpu_reads)(s.own("wg_n"), d, s.own("wg_bh"), kernel, hw)


def inference_config(s: Settings) -> DecodeConfig:
    """Lesson 12's model and batch (its own controls) with the sidebar's d, as a DecodeConfig:
    16-bit storage unless the sidebar already says 16-bit, as attention runs on tensor cores."""
    heads = s.own("inf_heads")
    return DecodeConfig(n_kv=s.own("inf_ctx"), n_q=1, d=s.value("d"), heads=heads,
                        kv_heads=min(s.own("inf_kv"), heads), batch=s.own("inf_batch"), Br=s.value("Br"),
                        Bc=s.value("Bc"), dtype=tensor_dtype(s.value("dtype")))


def inference(s: Settings) -> Question:
    return kept(q.decode_step)(inference_config(s), s.hardware())


def schedule(s: Settings) -> Question:
    """Lesson 13's question: the FA3 authors' kernel over PyTorch flash at the lesson's measured call."""
    call = setting(lambda p: s.own(p.key))
    flash, fa3 = measured_at(call, "PyTorch flash"), measured_at(call, "FA3 (authors)")
    return q.schedule_speedup(call.n, call.d, call.bh, call.dtype, call.causal, flash["measured ms"],
                              fa3["measured ms"], flash["model ms"], fa3["model ms"])


def masks(s: Settings) -> Question:
    """Lesson 14: the share of the tiles a causal sliding window computes, at its own n."""
    at = s.config().with_(n=s.own("mk_n")).with_tiles(s.value("Br"), s.value("Bc"))  # the tiles as set, cut to n
    return kept(q.window_tiles)(at, s.own("mk_window"))
