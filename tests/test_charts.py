"""Every chart, built from the engine's data (default and worst-case settings), is legible
on a projector: its text is at least 16 px and near-black wherever Streamlit's theme
would otherwise paint it grey, its labels are short, and its roofline labels point at
the right points. bench/render_charts.py draws the same figures in Chromium. The cases are tests/chart_cases.py's."""
import itertools
import json
import math
import re

import pandas as pd
import pytest

from explorer import charts
from flashviz.hardware import measured
from flashviz.model import sweeps
from flashviz.model.config import HARDWARE, Config
from tests.chart_cases import builders, lazy_cases

CASES = lazy_cases()  # listed at collection in every worker; a case's data are built when its figure is drawn
MIN_PX = 16


def test_every_builder_in_charts_has_a_case():
    missing = sorted(set(builders()) - {case.builder.__name__ for case in CASES})
    assert not missing, (f"explorer/charts/ builders with no case: {missing}; add a case for each to "
                         "tests/chart_cases.py (a slug, the builder, its arguments as a lesson builds them)")


def figure(builder, args):
    return builder(*args).to_dict()


@pytest.fixture(scope="module", params=CASES, ids=[case.slug for case in CASES])
def fig(request):
    return figure(request.param.builder, request.param.make())


def dark(colour) -> bool:
    if not isinstance(colour, str) or not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        return False
    return max(int(colour[k:k + 2], 16) for k in (1, 3, 5)) <= 0x40


def axes(layout):
    return {k: v for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*", k)}


def test_every_axis_sets_tick_and_title_fonts_large_and_dark(fig):
    for name, axis in axes(fig["layout"]).items():
        for part in (axis["tickfont"], axis["title"]["font"]):
            assert part["size"] >= MIN_PX and dark(part["color"]), f"{name}: {part}"


def test_a_short_name_on_a_phone_renames_a_trace_in_the_legend_and_is_short(fig):
    """labels.phone_names: each index names a trace the legend shows, and shortens that trace's own name (every word
    of the short name begins as a word of the long one: an index off by one renames another trace), to at most 13
    characters, two to a row of a phone's legend."""
    short = fig["layout"].get("meta", {}).get("narrow", {}).get("data", {})
    for index, change in short.items():
        if "name" not in change:
            continue
        trace = fig["data"][int(index)]
        assert trace.get("showlegend", True) and len(change["name"]) <= 13, (index, change, trace.get("name"))
        assert len(change["name"]) < len(trace["name"]), (index, change["name"], trace["name"])
        long, brief = (re.findall(r"[a-z0-9]+", name.lower()) for name in (trace["name"], change["name"]))
        assert all(any(w.startswith(b[:3]) for w in long) for b in brief), (index, change["name"], trace["name"])


def test_every_axis_title_carries_a_unit(fig):
    if fig["layout"]["height"] == 360 and fig["data"][0].get("name") == "correct":
        # comparison_bars: the axis is named after the lab's figure, whose name says its unit
        # ("working set KB", "HBM MB (with spill)") or is a count or a sum
        from flashviz.teach.bugs import BUGS
        titles = {(axis["title"].get("text") or "").replace("<br>", " ")
                  for axis in axes(fig["layout"]).values()} - {""}
        assert titles <= {bug.watch for bug in BUGS.values()}, titles
        return
    for name, axis in axes(fig["layout"]).items():
        text = axis["title"].get("text") or ""
        assert not text or "(" in text, f"{name} title {text!r} has no unit"


def test_legend_title_and_hover_text_are_large_and_dark(fig):
    layout = fig["layout"]
    for where, font in (("legend", layout["legend"]["font"]), ("title", layout["title"]["font"]),
                        ("hover", layout["hoverlabel"]["font"]), ("layout", layout["font"])):
        assert font["size"] >= MIN_PX and dark(font["color"]), f"{where}: {font}"


def test_annotations_trace_text_and_colour_bars_are_large(fig):
    fonts = [("annotation " + a.get("text", ""), a["font"]) for a in fig["layout"].get("annotations", [])]
    for trace in fig["data"]:
        if trace.get("text") is not None and trace["type"] in ("scatter", "bar"):
            fonts.append((f"{trace['type']} text", trace["textfont"]))
        if "colorbar" in trace:
            fonts += [("colour bar ticks", trace["colorbar"]["tickfont"]),
                      ("colour bar title", trace["colorbar"]["title"]["font"])]
    for what, font in fonts:
        assert font["size"] >= MIN_PX and font.get("color"), f"{what}: {font}"


def test_no_label_has_more_than_eight_significant_digits(fig):
    labels = [a.get("text", "") for a in fig["layout"].get("annotations", [])]
    labels += [t.get("name") or "" for t in fig["data"]]
    labels += [str(v) for t in fig["data"] if t["type"] in ("scatter", "bar") for v in (t.get("text") or [])]
    for axis in axes(fig["layout"]).values():
        labels += [str(v) for v in axis.get("ticktext", [])]
    for label in labels:
        for number in re.findall(r"\d[\d,]*(?:\.\d+)?", label):
            digits = number.replace(",", "").replace(".", "").lstrip("0")
            assert len(digits) <= 8, f"{label!r} is too long to read"


def test_charts_fit_a_720_px_screen(fig):
    assert fig["layout"]["height"] <= 440


def test_legend_sits_between_the_title_and_the_plot(fig):
    legend, top = fig["layout"]["legend"], fig["layout"]["margin"]["t"]
    assert legend["yref"] == "container" and legend["yanchor"] == "top", legend
    assert (1 - legend["y"]) * fig["layout"]["height"] >= top - 10, "the legend would overlap the title"


def test_titles_are_short_enough_for_a_560_px_column(fig):
    for line in fig["layout"]["title"]["text"].split("<br>"):
        assert len(line) <= charts.style.TITLE_CHARS, line


def test_the_template_is_plotly_white_cut_to_what_the_chart_draws(fig):
    """Leaner JSON, the same look: the template keeps plotly_white's layout and its defaults
    for every trace type the chart draws, and leaves out only what applies to nothing here."""
    import plotly.io as pio
    white = pio.templates["plotly_white"].to_plotly_json()
    template = fig["layout"]["template"]
    drawn = {trace["type"] for trace in fig["data"]}
    assert set(template.get("data", {})) == {t for t in drawn if white["data"].get(t)}, drawn
    for kind, defaults in template.get("data", {}).items():
        assert defaults == white["data"][kind], kind
    cut = set(white["layout"]) - set(template["layout"])
    assert cut <= {"polar", "ternary", "scene", "geo"} and not cut & set(fig["layout"]), cut
    assert {k: white["layout"][k] for k in template["layout"]} == template["layout"]
    assert len(json.dumps(template)) < 0.5 * len(json.dumps(white)), len(json.dumps(template))


def test_block_sweep_names_a_huge_standard_line_compactly():
    cfg = Config(n=2**20, d=64)
    table = sweeps.over_blocks(cfg, (64, 128, 256))
    fig = charts.block_sweep(table, 16778240.0, sweeps.best_fitting_block(table)).to_dict()
    names = [t.get("name") for t in fig["data"]]
    assert "standard: 16 TB" in names, names
    assert not fig["layout"].get("annotations"), "no label on the line, where spill markers could cover it"


def roofline_labels(points):
    fig = charts.roofline(points, HARDWARE, "float16", next(iter(HARDWARE))).to_dict()
    return {a["text"]: (10 ** a["x"], 10 ** a["y"], a["ax"]) for a in fig["layout"]["annotations"]}


@pytest.mark.parametrize("flash_x", [50.0, 5.0, 10.0], ids=["apart", "crossed", "together"])
def test_roofline_labels_point_at_their_own_points(flash_x):
    points = pd.DataFrame({"method": ["standard", "flash"], "flops per byte": [10.0, flash_x],
                           "attainable TFLOP/s": [20.0, 2 * flash_x]})
    labels = roofline_labels(points)
    for _, row in points.iterrows():
        x, y, _ = labels[row["method"]]
        assert math.isclose(x, row["flops per byte"]) and math.isclose(y, row["attainable TFLOP/s"]), labels
    (_, _, std_ax), (_, _, flash_ax) = labels["standard"], labels["flash"]
    assert std_ax != flash_ax, "the two labels lean apart, so they cannot overlap"
    if flash_x != 10.0:  # together, either may lean left
        assert (std_ax < flash_ax) == (10.0 < flash_x), "the left point's label leans left: no crossed arrows"


@pytest.mark.parametrize("gpu", ["A100 40GB", "B200"])
def test_the_roofs_stay_put_along_n_so_the_roofline_follows_it_live(gpu):
    """Along the sidebar's n (its every value, the tiles cut to n as the sidebar cuts them), only the axis and the
    marks move: every roof is the same numbers, so the figures along n weigh no more than explorer/live.py carries.
    With the roofs drawn over the axis's own span they weighed 1.3 MB, four times that, and the chart waited for
    the release."""
    from explorer import live, widgets
    from flashviz.model.config import SEQUENCE_LENGTHS
    figures = []
    for n in SEQUENCE_LENGTHS:
        at = Config(n=n, **dict(zip(("Br", "Bc"), widgets.clamp_tiles(n, 64, 64))), dtype="bfloat16")
        figures.append(charts.roofline(sweeps.roofline_points(at, HARDWARE[gpu], kernels=True), HARDWARE,
                                       at.dtype, gpu))
    roofs = [[(tuple(t.x), tuple(t.y)) for t in fig.data if t.name in HARDWARE] for fig in figures]
    assert len(roofs[0]) == len(HARDWARE) and all(r == roofs[0] for r in roofs)
    assert len({tuple(fig.layout.xaxis.range) for fig in figures}) > 1, "the axis follows the points"
    for fig in figures:  # and the roofs reach across it
        (left, right), xs = fig.layout.xaxis.range, fig.data[0].x
        assert math.log10(xs[0]) <= left and math.log10(xs[-1]) >= right
    along = [live._figure_json(fig) for fig in figures]
    carried = min(len(json.dumps(live._along(along, i))) for i in range(len(along)))
    assert carried <= live.MOST_BYTES_PER_VALUE * len(SEQUENCE_LENGTHS)


def test_on_the_h200_the_roofline_keeps_its_traces_along_d_and_follows_it_live():
    """Lesson 1 on the H200 draws the measured kernel at d = 64 and 128 and an empty trace at the other d, with no
    legend entry: the traces stay the same along d, and its figures weigh no more than explorer/live.py carries
    (with the trace there at two d only, every figure went whole)."""
    from explorer import cache, live
    h200, ds, figures = "H200 SXM", (16, 32, 64, 128, 256), []
    for d in ds:
        at = Config(d=d, dtype="bfloat16")
        rows = cache.h200_flash(d if d in (64, 128) else 64)[0]  # as lesson 1 passes them
        rows = rows if d in (64, 128) else rows.iloc[:0]
        figures.append(charts.roofline(sweeps.roofline_points(at, HARDWARE[h200], kernels=True), HARDWARE,
                                       at.dtype, h200, rows))
    drawn = [[t.name for t in fig.data] for fig in figures]
    assert all(names == drawn[0] for names in drawn)
    for d, fig in zip(ds, figures):
        dots = next(t for t in fig.data if t.name == "flash measured (H200)")
        assert (len(dots.x) > 0) == (d in (64, 128)) == dots.showlegend
    along = [live._figure_json(fig) for fig in figures]
    assert min(len(json.dumps(live._along(along, i))) for i in range(len(ds))) <= live.MOST_BYTES_PER_VALUE * len(ds)


def test_roofline_draws_any_number_of_machines_with_distinct_styles():
    hw = next(iter(HARDWARE.values()))
    machines = {f"GPU {k}": hw for k in range(7)}
    points = sweeps.roofline_points(Config(dtype="bfloat16"), hw)
    fig = charts.roofline(points, machines, "bfloat16", "GPU 3").to_dict()
    roofs = [t for t in fig["data"] if t["name"].startswith("GPU")]
    assert len(roofs) == 7
    styles = {(t["line"]["color"], t["line"].get("dash")) for t in roofs}
    assert len(styles) == 7, styles
    assert "bfloat16 on matrix units" in fig["layout"]["title"]["text"]


def _contrast_on_white(colour: str) -> float:
    """WCAG's contrast ratio of a #rrggbb colour against white."""
    def channel(c: int) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(colour[k:k + 2], 16) for k in (1, 3, 5))
    return 1.05 / (0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b) + 0.05)


def test_every_machines_roof_reads_on_white():
    """The palette's yellow (1.2:1 on white) drew the sixth machine, the MI300X, a line the back row lost (a
    teacher's walk); every roof is 2:1 or more, as the palette's sky blue and orange are."""
    points = sweeps.roofline_points(Config(dtype="bfloat16"), HARDWARE["H200 SXM"])
    fig = charts.roofline(points, HARDWARE, "bfloat16", "H200 SXM").to_dict()
    roofs = {t["name"]: t["line"]["color"] for t in fig["data"] if t["name"] in HARDWARE}
    assert len(roofs) == len(HARDWARE) >= 6
    faint = {name: round(_contrast_on_white(c), 2) for name, c in roofs.items() if _contrast_on_white(c) < 2}
    assert not faint, faint


def kernel_roofline(cfg: Config, gpu: str = "A100 40GB") -> dict:
    points = sweeps.roofline_points(cfg, HARDWARE[gpu], kernels=True)
    return charts.roofline(points, HARDWARE, cfg.dtype, gpu).to_dict()


def test_roofline_shows_standard_as_its_kernels_each_at_its_own_point_named_with_its_bound():
    cfg = Config(dtype="bfloat16")
    points = sweeps.roofline_points(cfg, HARDWARE["A100 40GB"], kernels=True).set_index("kernel")
    notes = {a["text"].split("<br>")[0]: a for a in kernel_roofline(cfg)["layout"]["annotations"]}
    # S = QKᵀ and O = PV move and compute the same: one mark, one label
    # flash's verdict is the two-level count's: its label says so (issue 37, item 5)
    flash = "flash (HBM/SRAM count)"
    assert set(notes) == {"S = QKᵀ, O = PV", "softmax", flash}, list(notes)
    for label, kernel in (("S = QKᵀ, O = PV", "O = PV"), ("softmax", "softmax"), (flash, "flash")):
        row, note = points.loc[kernel], notes[label]
        assert math.isclose(10 ** note["x"], row["flops per byte"]), (label, note["x"])
        assert math.isclose(10 ** note["y"], row["attainable TFLOP/s"]), (label, note["y"])
        assert note["text"].endswith(f"<br>{row['bound']}-bound"), note["text"]


def test_roofline_shows_the_measured_kernel_where_it_is_given_and_keeps_it_in_range():
    cfg = Config(dtype="float16", d=128)
    points = sweeps.roofline_points(cfg, HARDWARE["H200 SXM"], kernels=True)
    table = measured.compare(measured.load())
    pts = measured.roofline_points(table)
    pts = pts[(pts["impl"] == "flash") & (pts["d"] == 128)]
    fig = charts.roofline(points, HARDWARE, "float16", "H200 SXM", pts).to_dict()
    dots = [t for t in fig["data"] if t.get("name") == "flash measured (H200)"]
    assert len(dots) == 1 and list(dots[0]["x"]) == list(pts["flops per DRAM byte"]), dots
    xr = fig["layout"]["xaxis"].get("range")
    if xr:  # an autoranged axis holds every trace; a fixed one must reach the measured points
        assert 10 ** xr[1] >= pts["flops per DRAM byte"].max(), xr


def test_roofline_with_kernels_draws_the_softmaxs_own_ceiling_in_16_bit_only():
    ceiling = [t for t in kernel_roofline(Config(dtype="bfloat16"))["data"] if "non-matmul" in t.get("name", "")]
    assert len(ceiling) == 1 and ceiling[0]["y"][0] == HARDWARE["A100 40GB"].fp32_flops / 1e12, ceiling
    wide = kernel_roofline(Config(dtype="float32"))["data"]
    assert not [t for t in wide if "non-matmul" in t.get("name", "")], "in float32 the roof is the CUDA cores'"


@pytest.mark.parametrize("cfg, gpu", [(Config(n=16, d=16, Br=16, Bc=16, dtype="bfloat16"), "A100 40GB"),
                                      (Config(dtype="bfloat16"), "A100 40GB"),
                                      (Config(n=4096, d=64, Br=1, Bc=1, dtype="bfloat16", causal=True), "A100 40GB"),
                                      (Config(d=64, dtype="bfloat16"), "H200 SXM"),
                                      (Config(d=128, dtype="bfloat16"), "H200 SXM")],
                         ids=["n16", "default", "tiles1x1", "h200-measured-d64", "h200-measured-d128"])
def test_roofline_labels_of_close_kernels_hang_apart_and_never_cross(cfg, gpu):
    """On the H200, with its measured points as lesson 1 draws them (they widen the axis, so the marks sit closer)."""
    from explorer import cache
    ran = cache.h200_flash(cfg.d)[0] if gpu == "H200 SXM" else None
    fig = charts.roofline(sweeps.roofline_points(cfg, HARDWARE[gpu], kernels=True), HARDWARE, cfg.dtype, gpu, ran)
    notes = sorted(fig.to_dict()["layout"]["annotations"], key=lambda a: a["x"])
    arrows = [((a["x"], a["y"]), a["ax"], a["ay"]) for a in notes]
    for (p, ax, ay), (q, bx, by) in zip(arrows, arrows[1:]):
        if abs(q[0] - p[0]) < 0.5 and abs(q[1] - p[1]) < 0.5:  # within half a decade: the labels would meet
            assert (ax, ay) != (bx, by), [a["text"] for a in notes]
            assert not (ax > 0 > bx and ay == by), "arrows that cross name the wrong points"


def phone_boxes(fig: dict) -> tuple[list, list, dict]:
    """The phone's labels' boxes and arrows on labels.PHONE's plot (px, y up), and the phone's layout."""
    from explorer.charts import labels
    layout, phone = fig["layout"], fig["layout"]["meta"]["narrow"]
    (x0, x1), (y0, y1), (w, h) = layout["xaxis"]["range"], layout["yaxis"]["range"], labels.PHONE.plot_px
    boxes, arrows = [], []
    for a, p in zip(layout["annotations"], phone["annotations"]):
        at = (w * (a["x"] - x0) / (x1 - x0), h * (a["y"] - y0) / (y1 - y0))
        boxes.append(labels.box(at, p["text"], (p["ax"], p["ay"], p["xanchor"]), labels.PHONE))
        arrows.append((at, (at[0] + p["ax"], at[1] - p["ay"])))
    return boxes, arrows, phone


@pytest.mark.parametrize("gpu", ["A100 40GB", "H100 SXM", "H200 SXM", "B200", "MI300X"])
def test_on_a_phone_the_roofline_carries_its_own_layout_whose_labels_never_meet(gpu):
    """A phone's chart (explorer/plot.js puts layout.meta.narrow on it) shows the same labels, broken into more lines,
    in a 14 px font; laid out on a phone's plot, no two of them come within 4 px, no arrows cross and none leaves the
    plot at the top or bottom. tests/test_phone_browser.py measures them as drawn."""
    from explorer import cache
    from explorer.charts import labels
    for n, d in [(256, 16), (2048, 64), (16384, 128), (65536, 256)]:
        cfg = Config(n=n, d=d, dtype="bfloat16")
        ran = cache.h200_flash(d)[0] if gpu == "H200 SXM" and d in (64, 128) else None
        fig = charts.roofline(sweeps.roofline_points(cfg, HARDWARE[gpu], kernels=True), HARDWARE, cfg.dtype, gpu,
                              ran).to_dict()
        boxes, arrows, phone = phone_boxes(fig)
        assert phone["below"] == labels.NARROW_BELOW and phone["layout"]["height"] == labels.NARROW_HEIGHT
        notes = list(zip(fig["layout"]["annotations"], phone["annotations"]))
        assert [p["text"].replace("<br>", " ").replace(", ", ",") for _, p in notes] == \
            [a["text"].replace("<br>", " ").replace(", ", ",") for a, _ in notes], "the same labels"
        assert {p["font"]["size"] for _, p in notes} == {labels.NARROW_FONT}
        assert all(0 <= b[1] and b[3] <= labels.PHONE.plot_px[1] for b in boxes), (n, d, "above or below the plot")
        for (a, p), (b, q) in itertools.combinations(zip(boxes, arrows), 2):
            assert not labels.meet(a, b, labels.PHONE.gap), (n, d, "labels that meet")
            assert not labels.crosses(p, q), (n, d, "arrows that cross")


def test_a_roofline_of_methods_not_kernels_keeps_its_layout_on_a_phone():
    """Lesson 12's (decode and prefill, two short labels) fits a phone as it is."""
    fig = charts.roofline(sweeps.roofline_points(Config(dtype="bfloat16"), HARDWARE["A100 40GB"]), HARDWARE,
                          "bfloat16", "A100 40GB").to_dict()
    assert "narrow" not in fig["layout"]["meta"]


def test_crossing_segments_are_found():
    assert charts.labels.crosses(((0, 0), (2, 2)), ((0, 2), (2, 0)))
    assert not charts.labels.crosses(((0, 0), (1, 1)), ((2, 0), (3, 1)))


def test_bytes_vs_flops_title_says_what_the_data_shows():
    ns = (256, 1024, 4096)
    plain = charts.bytes_vs_flops(sweeps.over_n(Config(n=4096, dtype="bfloat16"), ns), "bfloat16").to_dict()
    assert plain["layout"]["title"]["text"].replace("<br>", " ") == "Same flops, different bytes, bfloat16"
    causal = charts.bytes_vs_flops(sweeps.over_n(Config(n=4096, causal=True), ns)).to_dict()
    title = causal["layout"]["title"]["text"].replace("<br>", " ")
    assert title.startswith("Flash at n = 4k: ") and "fewer flops" in title, title


@pytest.mark.parametrize("table, columns", [
    (lambda: sweeps.over_n(Config(), (256, 1024)), sweeps.OverN),
    (lambda: sweeps.over_blocks(Config(), (16, 64)), sweeps.OverBlocks),
], ids=["over_n", "over_blocks"])
def test_a_sweep_has_exactly_the_columns_its_constants_name(table, columns):
    """Charts read the sweeps through their column constants: a column added or renamed without its
    constant fails here, a constant renamed on one side fails mypy."""
    named = {v for k, v in vars(columns).items() if k.isupper()}
    assert set(table().columns) == named


def test_the_running_stats_axis_gives_l_no_score_unit():
    """m is a score; l is a sum of weights e^(s − m), a pure number (issue 37, nit: the axis said "score units" for
    both)."""
    fig = charts.running_stats([(1.5, 1.0), (2.0, 1.6)])
    title = fig.layout.yaxis.title.text.replace("<br>", " ")  # wrapped to fit the plot's height
    assert "m (score units)" in title and "l (sum, no unit)" in title, title
    assert [t.name for t in fig.data] == ["running max m", "running sum l"]


@pytest.mark.parametrize("blocks", [1, 4, 9, 32, 128])
def test_the_running_statistics_count_blocks_in_whole_numbers(blocks):
    """Blocks are counted whole: plotly's own ticks put 1.5, 2.5 and 3.5 under four blocks (a teacher's walk). At most
    about eight ticks, each on a block."""
    axis = charts.running_stats([(0.5, 1.0)] * blocks).to_dict()["layout"]["xaxis"]
    assert axis["tickmode"] == "linear" and axis["tick0"] == 1
    assert isinstance(axis["dtick"], int) and axis["dtick"] >= 1 and blocks / axis["dtick"] <= 8
