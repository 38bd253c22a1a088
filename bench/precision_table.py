"""The FlashAttention-3 paper's Table 3 reproduced by flashviz.run.precision, as BENCHMARKS.md prints it:
the rows at one setting over several seeds beside the paper's figures, the headline ratio over n and
d, and the H200's kernels (flashviz/data/h200/precision.csv) beside the emulation.

    python bench/precision_table.py                  # n = 4096, d = 128, seeds 0-4 (about a minute)
    python bench/precision_table.py --n 1024 --seeds 3
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flashviz.run import precision  # noqa: E402


def table(n: int, d: int, seeds: int) -> None:
    runs = [precision.errors(n, d, seed) for seed in range(seeds)]
    print(f"\n| method | storage | paper RMSE | RMSE, seed 0 | RMSE over seeds 0-{seeds - 1} | max error, seed 0 |")
    print("|---|---|---:|---:|---:|---:|")
    for m in precision.METHODS:
        values = [r[m.key].rmse for r in runs]
        print(f"| {m.label} | {m.storage} | {m.paper or '—'} | {values[0]:.2e} | {min(values):.2e} – "
              f"{max(values):.2e} | {runs[0][m.key].max:.2e} |")
    ratios = [precision.headline(r) for r in runs]
    print(f"\nheadline (baseline FP8 / FlashAttention-3 FP8): {ratios[0]:.2f} at seed 0, "
          f"{min(ratios):.2f} – {max(ratios):.2f} over the seeds (paper {precision.PAPER_RATIO})")
    fp16 = [r["standard_fp16"].rmse / r["flash_fp16"].rmse for r in runs]
    print(f"fp16 standard / flash: {min(fp16):.2f} – {max(fp16):.2f} (paper 3.2e-4 / 1.9e-4 = 1.7)")


def sweep(seeds: int) -> None:
    print("\n| n | d | baseline FP8 / FA3 FP8 | no incoherent / FA3 | no block quant / FA3 | FA3 FP8 RMSE |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in (512, 1024, 2048, 4096):
        for d in (64, 128, 256):
            runs = [precision.errors(n, d, seed, keys=("fp8_baseline", "fp8_fa3", "fp8_no_block",
                                                        "fp8_no_incoherent")) for seed in range(seeds)]

            def span(key, runs=runs):
                r = [x[key].rmse / x["fp8_fa3"].rmse for x in runs]
                return f"{min(r):.2f} – {max(r):.2f}"
            fa3 = np.mean([x["fp8_fa3"].rmse for x in runs])
            print(f"| {n} | {d} | {span('fp8_baseline')} | {span('fp8_no_incoherent')} | {span('fp8_no_block')} "
                  f"| {fa3:.1e} |", flush=True)


def measured() -> None:
    data = precision.load_measured()
    print("\n| dtype | n | d | spread | largest score | plain | emulated | flash | cuDNN | mem-efficient | emulated |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (dtype, n, d, spread), part in data.groupby(["dtype", "n", "d", "spread"], sort=False):
        r = part.set_index("impl")

        def fmt(v, bad=0):
            return f"NaN ({int(bad):,} outputs)" if v != v else f"{v:.2e}"
        print(f"| {dtype} | {n} | {d} | {spread:g} | {r['max_score'].iloc[0]:,.0f} "
              f"| {fmt(r.loc['plain', 'rmse'], r.loc['plain', 'nonfinite'])} "
              f"| {fmt(r.loc['plain', 'emulated_rmse'], r.loc['plain', 'emulated_nonfinite'])} "
              f"| {fmt(r.loc['flash', 'rmse'])} | {fmt(r.loc['cudnn', 'rmse'])} "
              f"| {fmt(r.loc['mem_efficient', 'rmse'])} "
              f"| {fmt(r.loc['flash', 'emulated_rmse'])} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=precision.PAPER_N)
    ap.add_argument("--d", type=int, default=precision.PAPER_D)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sweep", action="store_true", help="also the headline ratio over n and d (minutes)")
    args = ap.parse_args()
    t = time.perf_counter()
    table(args.n, args.d, args.seeds)
    if args.sweep:
        sweep(3)
    measured()
    print(f"\n({time.perf_counter() - t:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
