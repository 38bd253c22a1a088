"""Every chart in explorer/charts.py, built from the engine's data as the lessons build it,
drawn in Chromium and checked for what a projector shows: text size, text colour, text
cut off at the figure's edge, the legend overlapping the title, the plot or the axes.

    python bench/render_charts.py                # plotly's own look, 560 and 1180 px wide
    python bench/render_charts.py --streamlit    # also as st.plotly_chart draws them (theme on)
    python bench/render_charts.py --only roofline

Screenshots land in artifacts/charts/; the problems found are printed, one a line.
`cases()` is also what tests/test_charts.py builds its figures from.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer import charts  # noqa: E402
from flashviz import attention, bugs, costs, demos, measured, precision, sweeps  # noqa: E402
from flashviz.config import HARDWARE, MB, Config  # noqa: E402

OUT = ROOT / "artifacts" / "charts"
WIDTHS = (560, 1180)
CHROMIUM = {"executable_path": "/usr/bin/chromium",
            "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync"]}

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


def _config_cases(tag: str, cfg: Config) -> list:
    hw = HARDWARE["H100 SXM"] if "H100 SXM" in HARDWARE else next(iter(HARDWARE.values()))
    out = [(charts.bytes_vs_flops, (sweeps.over_n(cfg, sweeps.ns_around(cfg.n, 128, 8192, 4)), cfg.dtype)),
           (charts.roofline, (sweeps.roofline_points(cfg, hw), HARDWARE, cfg.dtype, hw.name)),
           (charts.roofline, (sweeps.roofline_points(cfg, hw, kernels=True), HARDWARE, cfg.dtype, hw.name))]
    table = sweeps.over_n(cfg, sweeps.ns_around(cfg.n, 128, 2048, 2))
    out += [(charts.memory_over_n, (table,)), (charts.traffic_over_n, (table,))]
    blocks = sweeps.over_blocks(cfg, tuple(b for b in (8, 16, 32, 64, 128, 256, 512, 1024) if b <= cfg.n))
    out += [(charts.block_sweep, (blocks, costs.standard_cost(cfg).hbm_bytes / MB, sweeps.best_fitting_block(blocks))),
            (charts.working_set_sweep, (blocks, cfg.sram_bytes / 1024)),
            (charts.io_theorem, (sweeps.io_curves(cfg, sweeps.ns_around(cfg.n, 256, 65536, 2)),))]
    mem = demos.DEMOS[5](ns=tuple(sorted({512, 2048, 8192, cfg.n})), d=cfg.d, block=min(cfg.Br, 512),
                         dtype=cfg.dtype, causal=cfg.causal).tables["memory and flops"]
    out += [(charts.backward_bars, (mem,)), (charts.flops_bars, (mem,))]
    six = demos.DEMOS[6](n=_simulable(cfg.with_tiles(64, 64)).n, d=cfg.d, window=128)
    out += [(charts.diff_heatmap, (six.arrays["flash - standard"], "|flash − standard|")),
            (charts.diff_heatmap, (six.arrays["local - standard"], "|local window 128 − standard|"))]
    out += [(charts.cut_vs_block, (sweeps.cut_by_block(max(cfg.n, 512), (32, 64, 128),
                                                  (16, 32, 64, 128, 256, 512), cfg.dtype),)),
            (charts.loop_order_bars, (sweeps.loop_orders(cfg),)),
            (charts.loop_orders_over_n, (sweeps.loop_orders_over_n(cfg, sweeps.ns_around(cfg.n, 256, 4096, 2)),))]
    lab_cfg = _simulable(cfg, block=16)
    for key, bug in bugs.BUGS.items():
        lab = bugs.break_it(lab_cfg, key)
        std = lab["standard"]
        reference = {"HBM MB (with spill)": (f"standard {std['HBM MB']:.2f} MB", std["HBM MB"]),
                     "working set KB": (f"budget {lab_cfg.sram_bytes / 1024:g} KB", lab_cfg.sram_bytes / 1024),
                     "demo 2 weights sum": ("1.0", 1.0)}.get(bug.watch)
        out.append((charts.comparison_bars, ([bug.watch], [lab["correct"][bug.watch]], [lab["broken"][bug.watch]],
                                        bug.watch, bug.label, reference)))
    return [(f"{builder.__name__}__{tag}", builder, args) for builder, args in out]


def _fixed_cases() -> list:
    """Lessons 2, 6 (its second half) and 10: their data do not follow the sidebar."""
    out = []
    for tag, (length, block) in {"row32": (32, 8), "row128_block1": (128, 1)}.items():
        row, steps = attention.random_row(length, 1, 3.0), []
        online = attention.online_softmax(row, block, steps=steps)
        weights = pd.DataFrame({"score": row, "softmax": attention.softmax(row), "online": online,
                                "no rescale": attention.online_softmax(row, block, rescale=False)})
        out += [(f"weights_bars__{tag}", charts.weights_bars, (weights,)),
                (f"running_stats__{tag}", charts.running_stats, (steps,))]
    data = measured.load()
    table = measured.compare(data)
    points = measured.roofline_points(table)
    fp16 = table[(table["dtype"] == "float16") & (table["pass"] == "fwd") & table["measured DRAM MB"].notna()]
    blocks = measured.blocks(data)
    for d in (64, 128):
        view = table[(table["d"] == d) & (table["dtype"] == "float16") & (table["pass"] == "fwd+bwd")]
        out += [(f"measured_times__d{d}", charts.measured_times, (view,)),
                (f"measured_bytes__d{d}", charts.measured_bytes, (fp16[fp16["d"] == d],)),
                (f"measured_roofline__d{d}", charts.measured_roofline,
                 (points[points["d"] == d], measured.ceiling(data, "copy bandwidth (read + write)"),
                  measured.ceiling(data, "dense matmul", "float16"), "float16"))]
    for n in sorted(blocks["n"].unique()):
        bt = blocks[blocks["n"] == n].reset_index(drop=True)
        out += [(f"block_times__n{n}", charts.block_times, (bt,)), (f"block_bytes__n{n}", charts.block_bytes, (bt,))]
    # lesson 6's second half: its own setting, the H200's kernels beside the emulation
    study = precision.study(precision.LESSON_N, precision.PAPER_D)
    side = precision.side_by_side(study.errors, precision.load_measured(), precision.LESSON_N, precision.PAPER_D)
    out += [("precision_bars", charts.precision_bars, (side,)),
            ("precision_row", charts.precision_row, (study.values, study.rotated)),
            ("precision_score_errors", charts.precision_score_errors,
             (precision.row_scores(precision.LESSON_N, precision.PAPER_D, 0, study.row),))]
    return out + _schedule_cases()


def _schedule_cases() -> list:
    """Lesson 13: the timeline at its first and last key tile, at the issue's call and at the smallest
    causal one, and the measured bars beside the model at both."""
    from flashviz import schedule_lesson as sl
    from flashviz import schedule_targets
    df, rates = schedule_targets.load()
    t = schedule_targets.targets(df, rates)
    lanes = {sched: sl.lanes(sched) for sched in ("fa2", "fa3")}
    out = []
    for tag, s in {"d128": sl.Setting(8192, 128, 64, "float16", False),
                   "d64_causal": sl.Setting(1024, 64, 128, "bfloat16", True)}.items():
        frame = sl.bars_frame(sl.bars(sl.schedule_work(s, rates)))
        for tile in (1, sl.TILES_SHOWN):
            out.append((f"schedule_timeline__{tag}_tile{tile}", charts.schedule_timeline, (frame, tile, lanes)))
        at = pd.DataFrame([{"kernel": k, "measured ms": sl.row(t, k, s)["measured ms"],
                            "model ms": sl.row(t, k, s)["model ms"]} for k in ("PyTorch flash", "cuDNN")])
        out.append((f"schedule_measured__{tag}", charts.schedule_measured, (at, "Time per call, ms")))
    return out


def cases() -> list[tuple[str, Callable, tuple]]:
    """(slug, builder, args) for every chart, over the default and the worst cases."""
    out = _fixed_cases()
    for tag, cfg in CONFIGS.items():
        out += _config_cases(tag, cfg)
    seen: dict[str, int] = {}
    unique = []
    for slug, builder, args in out:  # the two heatmaps and five labs share a builder
        seen[slug] = seen.get(slug, 0) + 1
        unique.append((slug if seen[slug] == 1 else f"{slug}_{seen[slug]}", builder, args))
    return unique


def build(builder, args: tuple):
    return builder(*args)


# What the browser is asked, for every chart: each text element's box, size and colour,
# and the boxes of the title, legend, plot area and axis titles.
MEASURE = """() => {
  const svg = document.querySelector('.main-svg').getBoundingClientRect();
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const texts = [...document.querySelectorAll('.main-svg text, .main-svg ~ .main-svg text')]
    .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
    .map(t => { const s = getComputedStyle(t);
      return {text: t.textContent.trim().slice(0, 40),
              cls: t.getAttribute('class') || t.parentNode.getAttribute('class') || '',
              size: parseFloat(s.fontSize), fill: s.fill, box: box(t)}; });
  const one = sel => { const e = document.querySelector(sel); return e ? box(e) : null; };
  return {svg: [svg.left, svg.top, svg.right, svg.bottom], texts,
          title: one('.gtitle'), legend: one('.legend'), plot: one('.nsewdrag'),
          xtitle: one('.xtitle'), ytitle: one('.ytitle'),
          xticks: [...document.querySelectorAll('.xtick text')].map(box),
          notes: [...document.querySelectorAll('.annotation')].map(box)};
}"""


def _overlap(a, b, slack: float = 1.0) -> bool:
    return bool(a and b and a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack)


def _dark(fill: str) -> bool:
    rgb = [int(v) for v in fill[fill.index("(") + 1:fill.index(")")].split(",")[:3]] if "(" in fill else [0, 0, 0]
    return max(rgb) <= 0x60


def problems(m: dict) -> list[str]:
    """What a back-row reader would not be able to read in one drawn chart."""
    out = []
    left, top, right, bottom = m["svg"]
    for t in m["texts"]:
        b = t["box"]
        if t["size"] < 16:
            out.append(f"text {t['text']!r} at {t['size']:.1f} px")
        if "annotation" not in t["cls"] and not _dark(t["fill"]):
            out.append(f"text {t['text']!r} is {t['fill']}, not dark")
        if b[0] < left - 1 or b[2] > right + 1 or b[1] < top - 1 or b[3] > bottom + 1:
            out.append(f"text {t['text']!r} cut off at the figure's edge")
    for name in ("title", "plot", "xtitle", "ytitle"):
        if _overlap(m["legend"], m[name]):
            out.append(f"legend overlaps the {name}")
    if any(_overlap(m["legend"], tick) for tick in m["xticks"]):
        out.append("legend overlaps the x tick labels")
    for k, note in enumerate(m["notes"]):
        if _overlap(note, m["legend"]) or _overlap(note, m["title"]):
            out.append("an annotation overlaps the legend or the title")
        if any(_overlap(note, other) for other in m["notes"][k + 1:]):
            out.append("two annotations overlap")
    return out


GALLERY = """<!doctype html><html><head><meta charset="utf-8"><script>{plotlyjs}</script>
<style>body {{ margin: 0; background: white; }}</style></head><body><div id="chart"></div>
<script>
const FIGS = {figs};
async function draw(slug, width) {{
  const el = document.getElementById('chart'), fig = FIGS[slug];
  Plotly.purge(el); el.removeAttribute('data-drawn');
  el.style.width = width + 'px';
  await Plotly.newPlot(el, fig.data, {{...fig.layout, width: width}}, {{displayModeBar: false}});
  el.setAttribute('data-drawn', slug + '@' + width);
}}
</script></body></html>"""


def render_plain(items, widths=WIDTHS) -> dict:
    """Every figure in one self-contained HTML page (plotly.js embedded, no network),
    drawn at each width in turn and screenshotted."""
    import plotly.offline
    from playwright.sync_api import sync_playwright
    figs = {slug: json.loads(build(builder, args).to_json()) for slug, builder, args in items}
    gallery = OUT / "gallery.html"
    gallery.write_text(GALLERY.format(plotlyjs=plotly.offline.get_plotlyjs(), figs=json.dumps(figs)))
    found = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(**CHROMIUM)
        page = browser.new_page(viewport={"width": max(widths) + 20, "height": 480})
        page.goto(gallery.as_uri())
        for slug in figs:
            for width in widths:
                page.evaluate("([slug, width]) => draw(slug, width)", [slug, width])
                page.wait_for_selector(f"#chart[data-drawn='{slug}@{width}']")
                page.locator("#chart").screenshot(path=OUT / f"{slug}__{width}.png")
                found[f"{slug}@{width}"] = problems(page.evaluate(MEASURE))
        browser.close()
    return found


STREAMLIT_SCRIPT = """
import pickle, streamlit as st
st.set_page_config(layout="wide")
st.sidebar.markdown("### Settings")
st.sidebar.slider("sequence length n", 16, 4096, 1024)
figs = pickle.load(open({path!r}, "rb"))
for k in range(0, len(figs), 2):
    for col, (slug, fig) in zip(st.columns(2), figs[k:k + 2]):
        with col:
            st.markdown(f"`{{slug}}`")
            st.plotly_chart(fig, key=slug)
"""


def render_streamlit(items, port: int = 8611) -> dict:
    """The same figures as st.plotly_chart draws them (theme="streamlit"), two to a row
    beside a sidebar, at 1280x720 with the app's own .streamlit/config.toml."""
    import pickle

    from playwright.sync_api import sync_playwright
    work = Path("/tmp/flashviz_charts_st")
    (work / ".streamlit").mkdir(parents=True, exist_ok=True)
    (work / ".streamlit" / "config.toml").write_text((ROOT / ".streamlit" / "config.toml").read_text())
    figs = [(slug, build(builder, args)) for slug, builder, args in items]
    with open(work / "figs.pkl", "wb") as f:
        pickle.dump(figs, f)
    (work / "app.py").write_text(STREAMLIT_SCRIPT.format(path=str(work / "figs.pkl")))
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(work / "app.py"),
                               "--server.port", str(port), "--server.headless", "true"],
                              cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    found = {}
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(f"http://localhost:{port}/_stcore/health").read() == b"ok":
                    break
            except OSError:
                time.sleep(0.25)  # polling the server's health, not waiting on a picture
        with sync_playwright() as p:
            browser = p.chromium.launch(**CHROMIUM)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"http://localhost:{port}/")
            page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=60_000)
            charts_ = page.locator("[data-testid='stPlotlyChart']")
            charts_.nth(len(figs) - 1).wait_for()
            for k, (slug, _) in enumerate(figs):
                chart = charts_.nth(k)
                chart.scroll_into_view_if_needed()
                chart.locator(".main-svg .cartesianlayer").first.wait_for()
                chart.screenshot(path=OUT / f"{slug}__streamlit.png")
                found[f"{slug}@streamlit({round(chart.bounding_box()['width'])}px)"] = problems(
                    chart.evaluate(MEASURE.replace("document.", "el.").replace("() =>", "el =>")))
            browser.close()
    finally:
        server.terminate()
        server.wait(10)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streamlit", action="store_true", help="also render under Streamlit's theme")
    parser.add_argument("--only", default="", help="only slugs containing one of these comma-separated texts")
    opts = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    items = [c for c in cases() if any(part in c[0] for part in opts.only.split(","))]
    found = render_plain(items)
    if opts.streamlit:
        found.update(render_streamlit(items))
    bad = {k: v for k, v in found.items() if v}
    for key, issues in bad.items():
        for issue in sorted(set(issues)):
            print(f"{key}: {issue}")
    print(f"{len(found)} drawings of {len(items)} charts, {len(bad)} with problems; pictures in {OUT}")
    (OUT / "problems.json").write_text(json.dumps(bad, indent=1))


if __name__ == "__main__":
    main()
