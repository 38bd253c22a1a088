"""Every chart builder in explorer/charts/, with the engine's data as the lessons build it, at
the lessons' defaults and the worst cases a reader can reach: tests/test_charts.py checks each
figure, and fails for a builder with no case here; bench/render_charts.py draws them in Chromium.

Add a chart: its builder in explorer/charts/ (the module of its lesson's chapter), and a case here (a slug,
the builder, its arguments).

A case's arguments are built when it is drawn, not when it is listed (`Case.make`): listing every
case is what each pytest worker does at collection, and building them all takes seconds of engine
work (sweeps, the labs, the precision study), done once per worker that draws them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import pandas as pd

from explorer import charts
from explorer.whole_gpu import IMPL, crossover, measured_reads, model_curves
from flashviz.run import attention, decode, precision
from flashviz.teach import bugs, demos
from flashviz.model import costs, mask_sweeps, sweeps
from flashviz.hardware import measured
from flashviz.model.config import HARDWARE, MB, Config


def builders() -> dict[str, Callable]:
    """Every public function explorer/charts/ offers (its modules' builders, as `charts.<name>`), by
    name: each is a figure builder (a helper's name starts with "_")."""
    import inspect
    return {name: f for name, f in vars(charts).items() if inspect.isfunction(f) and not name.startswith("_")
            and f.__module__.startswith(charts.__name__ + ".")}


def covered() -> set[str]:
    """The builders this file makes a case of, read from its text (building every case takes a while):
    tests/test_charts.py checks the built cases against builders() too."""
    import re
    from pathlib import Path
    named = set(re.findall(r"charts\.(\w+)", Path(__file__).read_text()))
    return named & set(builders())


# The lessons' default, and the worst cases a reader can reach from the sidebar.
CONFIGS = {
    "default": Config(),
    "n16": Config(n=16, Br=16, Bc=16),
    "n1M_d256_fp16_causal": Config(n=2**20, d=256, Br=128, Bc=128, dtype="float16", causal=True),
    "tiles1x1_bf16": Config(n=4096, d=64, Br=1, Bc=1, dtype="bfloat16", causal=True),
}


def _simulable(cfg: Config, block: int | None = None) -> Config:
    """The n a lesson really runs in NumPy (explorer.ui.simulable, without Streamlit)."""
    b = min(cfg.Br, cfg.Bc, block or cfg.Br)
    n = min(cfg.n, 2048, 64 * b)
    return cfg.at_n(n)


class Case(NamedTuple):
    """A chart case: its slug, its builder, and what builds the builder's arguments (`make()`)."""

    slug: str
    builder: Callable
    make: Callable[[], tuple]


@dataclass(frozen=True)
class _Built:
    """Arguments built already (the data are read at listing time to name the cases)."""

    args: tuple

    def __call__(self) -> tuple:
        return self.args


def _config_cases(tag: str, cfg: Config) -> list[Case]:
    hw = HARDWARE["H100 SXM"] if "H100 SXM" in HARDWARE else next(iter(HARDWARE.values()))
    # data two charts share, built once when the first of them is drawn
    table = cache(lambda: sweeps.over_n(cfg, sweeps.ns_around(cfg.n, 128, 2048, 2)))
    blocks = cache(lambda: sweeps.over_blocks(cfg, tuple(b for b in (8, 16, 32, 64, 128, 256, 512, 1024)
                                                         if b <= cfg.n)))
    mem = cache(lambda: demos.DEMOS[5](ns=tuple(sorted({512, 2048, 8192, cfg.n})), d=cfg.d, block=min(cfg.Br, 512),
                                       dtype=cfg.dtype, causal=cfg.causal).tables["memory and flops"])
    six = cache(lambda: demos.DEMOS[6](n=_simulable(cfg.with_tiles(64, 64)).n, d=cfg.d, window=128))
    masked = cache(lambda: mask_sweeps.over_masks(cfg, tuple(2**k for k in range(10, 21)), 8192, "64 documents"))
    map_cfg = cfg.at_n(min(max(cfg.n, 1024), 32 * min(cfg.Br, cfg.Bc)))
    out: list[tuple[Callable, Callable[[], tuple]]] = [
        (charts.bytes_vs_flops, lambda: (sweeps.over_n(cfg, sweeps.ns_around(cfg.n, 128, 8192, 4)), cfg.dtype)),
        (charts.roofline, lambda: (sweeps.roofline_points(cfg, hw), HARDWARE, cfg.dtype, hw.name)),
        (charts.roofline, lambda: (sweeps.roofline_points(cfg, hw, kernels=True), HARDWARE, cfg.dtype, hw.name)),
        (charts.memory_over_n, lambda: (table(),)), (charts.traffic_over_n, lambda: (table(),)),
        (charts.block_sweep, lambda: (blocks(), costs.standard_cost(cfg).hbm_bytes / MB,
                                      sweeps.best_fitting_block(blocks()))),
        (charts.working_set_sweep, lambda: (blocks(), cfg.sram_bytes / 1024)),
        (charts.io_theorem, lambda: (sweeps.io_curves(cfg, sweeps.ns_around(cfg.n, 256, 65536, 2)),)),
        (charts.backward_bars, lambda: (mem(),)), (charts.flops_bars, lambda: (mem(),)),
        (charts.diff_heatmap, lambda: (six().arrays["flash - standard"], "|flash − standard|")),
        (charts.diff_heatmap, lambda: (six().arrays["local - standard"], "|local window 128 − standard|")),
        (charts.cut_vs_block, lambda: (sweeps.cut_by_block(max(cfg.n, 512), (32, 64, 128),
                                                           (16, 32, 64, 128, 256, 512), cfg.dtype, cfg.causal),
                                       cfg.causal)),
        (charts.loop_order_bars, lambda: (sweeps.loop_orders(cfg),)),
        (charts.loop_orders_over_n, lambda: (sweeps.loop_orders_over_n(cfg, sweeps.ns_around(cfg.n, 256, 4096, 2)),)),
        # lesson 14 at its widest window and most documents, over the n it offers, and its tile maps
        (charts.mask_growth, lambda: (masked(), mask_sweeps.OverMasks.GFLOPS)),
        (charts.mask_growth, lambda: (masked(), mask_sweeps.OverMasks.HBM_MB)),
        (charts.mask_tiles, lambda: (mask_sweeps.tile_maps(map_cfg, 8192, "64 documents"), map_cfg.n)),
        (charts.mask_tiles, lambda: (mask_sweeps.tile_maps(map_cfg, 64, "a half + 16 short"), map_cfg.n)),
    ]
    lab_cfg = _simulable(cfg, block=16)

    def lab_bars(key: str) -> tuple:
        bug, lab = bugs.BUGS[key], bugs.break_it(lab_cfg, key)
        std = lab["standard"]
        reference = {"HBM MB (with spill)": (f"standard {std['HBM MB']:.2f} MB", std["HBM MB"]),
                     "working set KB": (f"budget {lab_cfg.sram_bytes / 1024:g} KB", lab_cfg.sram_bytes / 1024),
                     "demo 2 weights sum": ("1.0", 1.0)}.get(bug.watch)
        return ([bug.watch], [lab["correct"][bug.watch]], [lab["broken"][bug.watch]], bug.watch, bug.label, reference)

    for key in bugs.BUGS:
        out.append((charts.comparison_bars, lambda key=key: lab_bars(key)))
    return [Case(f"{builder.__name__}__{tag}", builder, make) for builder, make in out]


def _fixed_cases() -> list[Case]:
    """Lessons 2, 6 (its second half), 10 and 14's measured masks: their data do not follow the sidebar."""
    from flashviz.hardware.masks_measured import measured_masks
    out = [Case(f"masks_measured__{p}", charts.masks_measured, lambda p=p: (measured_masks(p),))
           for p in ("fwd", "bwd")]

    def row_of(length: int, block: int) -> tuple[pd.DataFrame, list]:
        row, steps = attention.random_row(length, 1, 3.0), []
        online = attention.online_softmax(row, block, steps=steps)
        return pd.DataFrame({"score": row, "softmax": attention.softmax(row), "online": online,
                             "no rescale": attention.online_softmax(row, block, rescale=False)}), steps

    for tag, (length, block) in {"row32": (32, 8), "row128_block1": (128, 1)}.items():
        made = cache(lambda length=length, block=block: row_of(length, block))
        out += [Case(f"weights_bars__{tag}", charts.weights_bars, lambda made=made: (made()[0],)),
                Case(f"running_stats__{tag}", charts.running_stats, lambda made=made: (made()[1],))]
    # the measurements name their cases (a chart per block size measured): read at listing time
    data = measured.load()
    table = measured.compare(data)
    points = measured.roofline_points(table)
    fp16 = table[(table["dtype"] == "float16") & (table["pass"] == "fwd") & table["measured DRAM MB"].notna()]
    blocks = measured.blocks(data)
    for d in (64, 128):
        view = table[(table["d"] == d) & (table["dtype"] == "float16") & (table["pass"] == "fwd+bwd")]
        out += [Case(f"measured_times__d{d}", charts.measured_times, _Built((view,))),
                Case(f"measured_bytes__d{d}", charts.measured_bytes, _Built((fp16[fp16["d"] == d],))),
                Case(f"measured_roofline__d{d}", charts.measured_roofline,
                     _Built((points[points["d"] == d], measured.ceiling(data, "copy bandwidth (read + write)"),
                             measured.ceiling(data, "dense matmul", "float16"), "float16")))]
    for n in sorted(blocks["n"].unique()):
        bt = blocks[blocks["n"] == n].reset_index(drop=True)
        out += [Case(f"block_times__n{n}", charts.block_times, _Built((bt,))),
                Case(f"block_bytes__n{n}", charts.block_bytes, _Built((bt,)))]
    # lesson 6's second half: its own setting, the H200's kernels beside the emulation
    study = cache(lambda: precision.study(precision.LESSON_N, precision.PAPER_D))
    out += [Case("precision_bars", charts.precision_bars,
                 lambda: (precision.side_by_side(study().errors, precision.load_measured(), precision.LESSON_N,
                                                 precision.PAPER_D),)),
            Case("precision_row", charts.precision_row, lambda: (study().values, study().rotated)),
            Case("precision_score_errors", charts.precision_score_errors,
                 lambda: (precision.row_scores(precision.LESSON_N, precision.PAPER_D, 0, study().row),))]
    return out


def _hardware_cases() -> list[Case]:
    """Lessons 11 and 12: the whole GPU's reads against n, the K/V cache and split-KV."""
    from flashviz.hardware import gpu_targets
    out = []
    data, plain = gpu_targets.load()[0], gpu_targets.load_plain()
    h200 = HARDWARE["H200 SXM"]
    for d, bh, name in ((128, 1, "PyTorch flash"), (64, 64, "Triton 64×64")):
        pts = data[(data["impl"] == IMPL[name]) & (data["d"] == d) & (data["batch_heads"] == bh)].sort_values("n")
        plain_pts = plain[(plain["d"] == d) & (plain["batch_heads"] == bh)].sort_values("n")
        out.append(Case(f"reads_figure__d{d}_bh{bh}", charts.reads_figure, _Built(
                    (model_curves(d, bh, name, h200), measured_reads(pts), crossover(d, bh, name, h200),
                     f"{name}, d = {d}, batch × heads = {bh}, {h200.name}", measured_reads(plain_pts), "L2"))))
    for tag, cfg, gpu in (("default", decode.DecodeConfig(n_kv=8192, n_q=1, d=64, heads=32, kv_heads=8),
                           "H200 SXM"),
                          ("batch256_mqa", decode.DecodeConfig(n_kv=2**20, n_q=1, d=256, heads=128, kv_heads=1,
                                                               batch=256), "A100 40GB")):
        hw = HARDWARE[gpu]
        ns = tuple(2**k for k in range(8, 21))
        out.append(Case(f"cache_over_n__{tag}", charts.cache_over_n,
                        _Built((decode.cache_over_n(ns, cfg, 32), hw.hbm_gb, hw.name))))
        sweep = decode.split_sweep(cfg, hw)
        out.append(Case(f"split_times__{tag}", charts.split_times, _Built((sweep, decode.best_splits(sweep)))))
    return out


def _schedule_cases() -> list[Case]:
    """Lesson 13: the timeline at its first and last key tile, at the issue's call and at the smallest
    causal one, and the measured bars beside the model at both."""
    from flashviz.players import schedule_lesson as sl
    from flashviz.hardware import fa3_authors
    loaded = cache(lambda: fa3_authors.load_rates())
    table = cache(lambda: fa3_authors.targets())
    lanes = cache(lambda: {sched: sl.lanes(sched) for sched in ("fa2", "fa3")})
    out = []
    for tag, s in {"d128": sl.Setting(8192, 128, 64, "float16", False),
                   "d64_causal": sl.Setting(1024, 64, 192, "bfloat16", True)}.items():
        frame = cache(lambda s=s: sl.bars_frame(sl.bars(sl.schedule_work(s, loaded()[1]))))
        for tile in (1, sl.TILES_SHOWN):
            out.append(Case(f"schedule_timeline__{tag}_tile{tile}", charts.schedule_timeline,
                            lambda frame=frame, tile=tile: (frame(), tile, lanes())))

        def measured_bars(s: sl.Setting = s) -> tuple:
            t = table()
            return (pd.DataFrame([{"kernel": k, "measured ms": sl.row(t, k, s)["measured ms"],
                                   "model ms": sl.row(t, k, s)["model ms"]} for k in fa3_authors.LABELS.values()]),
                    "Time per call, ms")

        out.append(Case(f"schedule_measured__{tag}", charts.schedule_measured, measured_bars))
    # the B200 section's two designs, unit by unit: the call at the kernel's threshold, and d = 64 causal
    # at tau = 0 (a rescale at every new max: the most steps FA4's panel draws)
    from flashviz.hardware import blackwell as bw
    b200_lanes = {"fa3": bw.B200_CHART_LANES, "fa4": bw.B200_CHART_LANES}
    for tag, args in {"d128_tau8": (128, False, 8192, 8.0, 3.0), "d64_causal_tau0": (64, True, 1024, 0.0, 8.0)}.items():
        frame = cache(lambda args=args: pd.DataFrame(bw.b200_bars(bw.b200_schedules(*args))))
        out.append(Case(f"schedule_timeline__b200_{tag}", charts.schedule_timeline,
                        lambda frame=frame: (frame(), int(frame()["tile"].max()), b200_lanes,
                                             (("fa3", "FA3"), ("fa4", "FA4")), "One B200 SM, modelled", False,
                                             0.12)))
    return out


def lazy_cases() -> list[Case]:
    """Every chart's case, over the default and the worst cases, its arguments still to build (`make()`)."""
    out = _fixed_cases() + _hardware_cases() + _schedule_cases()
    for tag, cfg in CONFIGS.items():
        out += _config_cases(tag, cfg)
    seen: dict[str, int] = {}
    unique = []
    for case in out:  # the two heatmaps and five labs share a builder
        seen[case.slug] = seen.get(case.slug, 0) + 1
        unique.append(case if seen[case.slug] == 1 else case._replace(slug=f"{case.slug}_{seen[case.slug]}"))
    return unique


def cases() -> list[tuple[str, Callable, tuple]]:
    """(slug, builder, args) for every chart, its arguments built (the benches draw them all)."""
    return [(case.slug, case.builder, case.make()) for case in lazy_cases()]


