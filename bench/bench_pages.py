"""Per-lesson script time of a re-run after one slider move, through AppTest.

Measured side by side with an empty Streamlit page in the same run, so the
figures read as a ratio to Streamlit's own floor on this (noisy, shared)
machine. Prints; never asserts.

    python bench/bench_pages.py [repeats]
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from explorer.lessons import LESSONS  # noqa: E402

# n steps between two neighbouring values: each re-run sees a new config half the
# time and a cached one the other half, as a teacher stepping back and forth would.
STEPS = [1024, 1536]


def timed_reruns(at: AppTest, move, repeats: int) -> list[float]:
    out = []
    for k in range(repeats):
        move(at, k)
        t = time.perf_counter()
        at.run()
        out.append(time.perf_counter() - t)
        assert not at.exception, [e.value for e in at.exception]
    return out


def floor(repeats: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "empty.py"
        script.write_text("import streamlit as st\nx = st.slider('x', 0, 10, key='x')\nst.write(x)\n")
        at = AppTest.from_file(str(script)).run()
        return timed_reruns(at, lambda at, k: at.slider(key="x").set_value(k % 10), repeats)


def lesson(file: str, repeats: int) -> list[float]:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    if file != LESSONS[0].file:
        at.switch_page(file).run()
    return timed_reruns(at, lambda at, k: at.select_slider(key="n").set_value(STEPS[k % 2]), repeats)


def p95(xs):
    return sorted(xs)[max(0, int(round(0.95 * len(xs))) - 1)]


if __name__ == "__main__":
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    base = floor(repeats)
    print(f"{'page':32s} {'p50 ms':>8s} {'p95 ms':>8s} {'p50 / empty':>12s}")
    b50 = statistics.median(base)
    print(f"{'empty Streamlit page':32s} {b50 * 1e3:8.1f} {p95(base) * 1e3:8.1f} {1.0:12.1f}")
    for les in LESSONS:
        xs = lesson(les.file, repeats)
        print(f"{les.title:32s} {statistics.median(xs) * 1e3:8.1f} {p95(xs) * 1e3:8.1f} "
              f"{statistics.median(xs) / b50:12.1f}")
