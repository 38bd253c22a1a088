"""Engine speed, measured side by side in one run (this machine is shared and noisy).

Prints ratios, never asserts:
  - NumPy time of flash forward over standard attention, n = 1024 and 4096, d = 64
  - the closed-form cost at n = 2^20
  - the time to import the engine, over a bare interpreter start

    python bench/bench_engine.py
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flashviz.run.attention import flash_attention, random_qkv, standard_attention  # noqa: E402
from flashviz.model.config import Config  # noqa: E402
from flashviz.model.costs import flash_cost, standard_cost  # noqa: E402


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def interleaved(a, b, repeats: int):
    """Median seconds of a and of b, alternating so both see the same noise."""
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(a())
        tb.append(b())
    return statistics.median(ta), statistics.median(tb)


def forward_ratio(n: int, repeats: int) -> None:
    cfg = Config(n=n, d=64, Br=64, Bc=64)
    Q, K, V = random_qkv(n, 64)
    std, flash = interleaved(lambda: timed(standard_attention, Q, K, V, cfg),
                             lambda: timed(flash_attention, Q, K, V, cfg), repeats)
    print(f"n={n:5d}  standard {std * 1e3:8.1f} ms   flash {flash * 1e3:8.1f} ms   "
          f"flash/standard {flash / std:5.2f}  (target <= 1.5)")


def closed_form() -> None:
    cfg = Config(n=2**20, d=64, Br=64, Bc=64, causal=True)
    reps = 2000
    t = time.perf_counter()
    for _ in range(reps):
        flash_cost(cfg)
        standard_cost(cfg)
    per = (time.perf_counter() - t) / reps
    print(f"closed form, n=2^20 causal, flash + standard: {per * 1e6:6.1f} us per call "
          f"(target < 1000 us)")


def import_time(repeats: int = 5) -> None:
    def start(code):
        return timed(subprocess.run, [sys.executable, "-c", code])
    root = str(Path(__file__).resolve().parents[1])
    code = f"import sys; sys.path.insert(0, {root!r}); import flashviz"
    bare, engine = interleaved(lambda: start("pass"), lambda: start(code), repeats)
    print(f"interpreter start {bare * 1e3:6.1f} ms, with `import flashviz` {engine * 1e3:6.1f} ms: "
          f"import costs {(engine - bare) * 1e3:6.1f} ms")


if __name__ == "__main__":
    forward_ratio(1024, 7)
    forward_ratio(4096, 3)
    closed_form()
    import_time()
