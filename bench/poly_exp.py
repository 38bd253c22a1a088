"""FlashAttention-4's polynomial 2^x against exact 2^x, and the exp split that balances the two units, as
BENCHMARKS.md prints them.

    python bench/poly_exp.py                # 2^20 random inputs per row plus every integer and its neighbours
    python bench/poly_exp.py --count 65536

Error table: for each polynomial degree of flash-attn-4's POLY_EX2 (3 is the one the kernel uses) and each
output type, the largest relative error before rounding over x in [lo, 0] (lo: where 2^x stops being a
normal number of the type), the type's rounding unit (half an ulp), and after both results are rounded to
the type: the share that differ and the largest difference in ulps. Then, per GPU, the model's rates and the
share of exponentials on the FMA units that balances the exp unit and the FMA units, beside the shares the
kernel's tuning table gives.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flashviz.hardware import blackwell as bw  # noqa: E402
from flashviz.run import poly_exp as pe  # noqa: E402


def error_table(count: int) -> None:
    print("\n| degree | output | x from | max relative error | half an ulp | below rounding | results that "
          "differ | largest difference |")
    print("|---:|---|---:|---:|---:|---|---:|---:|")
    for degree in sorted(pe.POLY_EX2):
        for dtype in ("bfloat16", "float16", "float32"):
            e = pe.exp_error(dtype, degree=degree, count=count)
            mark = " (the kernel's)" if degree == pe.KERNEL_DEGREE else ""
            print(f"| {degree}{mark} | {dtype} | {e.lo:g} | {e.max_rel:.2e} | {e.half_ulp:.2e} | "
                  f"{'yes' if e.below_rounding else 'no'} | {e.differ_share:.2%} | {e.max_ulps:g} ulp |")


def split_table() -> None:
    print("\n| GPU | clock (derived) | exp unit | polynomial on the FMA units alone | balance share | "
          "balance, FMA units free |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("H100 SXM", "H200 SXM", "B200"):
        g = bw.gpu_rates(name)
        print(f"| {name} | {g.clock_hz / 1e9:.3f} GHz | {g.rates.exp / 1e12:.2f} T/s | {g.poly_rate / 1e12:.2f} T/s | "
              f"{bw.balance_share(g):.1%} | {bw.balance_share(g, 0):.1%} |")
    print("\nThe kernel's shares (flash_fwd_sm100.py's tuning table, softmax.py's rule, 128-entry rows):")
    for (two_cta, causal, hd), (freq, start) in bw.KERNEL_TUNING.items():
        print(f"- 2-CTA {two_cta}, causal {causal}, head dim {hd}: ex2_emu_freq {freq}, start fragment {start}: "
              f"{bw.kernel_share(freq, start):.2%} of the entries")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=1 << 20, help="random inputs per row (default 2^20)")
    args = p.parse_args()
    t0 = time.perf_counter()
    error_table(args.count)
    split_table()
    print(f"\n({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
