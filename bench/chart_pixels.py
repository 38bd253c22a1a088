"""Does a change to explorer/charts/ change what a reader sees? Every chart case of
bench/render_charts.py is built with this checkout's charts and with another revision's,
drawn by plotly.js in Chromium at the given widths, and the screenshots compared pixel by
pixel. Prints the JSON size of each figure, before and after, and every case that differs.

    python bench/chart_pixels.py [--ref main] [--width 560 --width 1180]
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.render_charts import CHROMIUM, GALLERY, cases  # noqa: E402


def charts_at(rev: str, folder: Path):
    """explorer/charts/ (or, before it was split by chapter, explorer/charts.py) as it is at `rev`,
    imported as a package of its own, `ref_charts`."""
    def show(path: str) -> str:
        return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
    listed = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "explorer/charts/"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.split()
    package = folder / "ref_charts"
    package.mkdir()
    for path in [p for p in listed if p.endswith(".py")] or ["explorer/charts.py"]:
        name = "__init__.py" if path == "explorer/charts.py" else Path(path).name
        (package / name).write_text(show(path))
    spec = importlib.util.spec_from_file_location("ref_charts", package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    assert spec is not None and spec.loader is not None, package
    module = importlib.util.module_from_spec(spec)
    sys.modules["ref_charts"] = module  # its modules' relative imports find it here
    spec.loader.exec_module(module)
    return module


def main(rev: str, widths: list[int]) -> int:
    import numpy as np
    import plotly.offline
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        ref = charts_at(rev, Path(tmp))
        figs, sizes = {}, []
        for slug, builder, args in cases():
            mine, theirs = builder(*args).to_json(), getattr(ref, builder.__name__)(*args).to_json()
            figs[f"now:{slug}"], figs[f"ref:{slug}"] = json.loads(mine), json.loads(theirs)
            sizes.append((slug, len(theirs), len(mine)))
        gallery = Path(tmp) / "gallery.html"
        gallery.write_text(GALLERY.format(plotlyjs=plotly.offline.get_plotlyjs(), figs=json.dumps(figs)))
        differ = 0
        with sync_playwright() as p:
            browser = p.chromium.launch(**CHROMIUM)
            page = browser.new_page(viewport={"width": max(widths) + 20, "height": 480})
            page.goto(gallery.as_uri())
            for slug, before, after in sizes:
                for width in widths:
                    shots = []
                    for who in ("ref", "now"):
                        page.evaluate("([s, w]) => draw(s, w)", [f"{who}:{slug}", width])
                        page.wait_for_selector(f"#chart[data-drawn='{who}:{slug}@{width}']")
                        shots.append(np.asarray(Image.open(io.BytesIO(page.locator("#chart").screenshot()))))
                    a, b = shots
                    if a.shape != b.shape or (a != b).any():
                        differ += 1
                        pixels = int((a != b).any(axis=-1).sum()) if a.shape == b.shape else "size"
                        print(f"DIFFERS {slug} at {width} px: {pixels} pixels")
                print(f"{slug:44s} JSON {before:8,d} -> {after:8,d} bytes")
            browser.close()
    total = sum(b for _, b, _ in sizes), sum(a for _, _, a in sizes)
    print(f"{len(sizes)} charts at {', '.join(map(str, widths))} px against {rev}: {differ} differ; "
          f"JSON {total[0]:,} -> {total[1]:,} bytes ({total[1] / total[0]:.0%})")
    return 1 if differ else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--ref", default="main", help="the revision whose charts to compare against")
    p.add_argument("--width", type=int, action="append", help="px; default 560 and 1180")
    a = p.parse_args()
    sys.exit(main(a.ref, a.width or [560, 1180]))
