"""The schedule model against FlashAttention-3's design as its authors ship it (flash-attn-4 on the H200), as
BENCHMARKS.md prints it: the measured speeds side by side, the model's time over the measured per set and
kernel, the speed-up over PyTorch flash, modelled against measured (flashviz/hardware/fa3_authors.py over
flashviz/data/h200/fa3_time.csv), and each mask's time through flash-attn-4 against the model's
(flashviz/hardware/masks_measured.py over fa4_masks.csv); no GPU needed.

    python bench/fa3_model.py            # the tables
    python bench/fa3_model.py --rows     # and every forward's row
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flashviz.hardware import fa3_authors as fa  # noqa: E402
from flashviz.hardware import masks_measured as mm  # noqa: E402

HEADLINE = [(8192, 128, 64), (32768, 128, 8), (131072, 128, 1), (4096, 64, 128), (16384, 256, 4)]


def markdown(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for r in df.itertuples(index=False):
        out.append("| " + " | ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in r) + " |")
    return "\n".join(out)


def speeds(t: pd.DataFrame) -> str:
    w = fa.measured_speed(t)
    w = w[w[["n", "d", "batch_heads"]].apply(tuple, axis=1).isin(HEADLINE) & (w["dtype"] == "float16")]
    w = w[["pass", "causal", "n", "d", "batch_heads", "fa4", "cudnn", "flash", "FA3 ÷ cuDNN", "FA3 ÷ flash"]]
    w = w.rename(columns={"fa4": "FA3 (authors) TFLOP/s", "cudnn": "cuDNN TFLOP/s", "flash": "PyTorch flash TFLOP/s",
                          "batch_heads": "B·H"})
    return markdown(w.sort_values(["pass", "d", "n", "causal"], ascending=[False, True, True, True]))


def overall(t: pd.DataFrame) -> str:
    """Each kernel's forward and backward rate over every config, median and range."""
    rows = []
    for (impl, pass_), g in t.groupby(["impl", "pass"]):
        rows.append({"kernel": fa.LABELS[impl], "pass": pass_, "configs": len(g),
                     "median": g["tflops"].median(), "min": g["tflops"].min(), "max": g["tflops"].max()})
    w = fa.measured_speed(t)
    for pass_, g in w.groupby("pass"):
        rows.append({"kernel": "FA3 ÷ cuDNN", "pass": pass_, "configs": len(g), "median": g["FA3 ÷ cuDNN"].median(),
                     "min": g["FA3 ÷ cuDNN"].min(), "max": g["FA3 ÷ cuDNN"].max()})
        rows.append({"kernel": "FA3 ÷ flash", "pass": pass_, "configs": len(g), "median": g["FA3 ÷ flash"].median(),
                     "min": g["FA3 ÷ flash"].min(), "max": g["FA3 ÷ flash"].max()})
    return markdown(pd.DataFrame(rows))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", action="store_true", help="every forward's row too")
    args = p.parse_args(argv)
    t = fa.load_time()
    print(f"flash-attn-4 {t['flash_attn_4'].iloc[0]}, nvidia-cutlass-dsl {t['cutlass_dsl'].iloc[0]}, torch "
          f"{t['torch'].iloc[0]}, cuDNN {t['cudnn'].iloc[0]}, {t['gpu'].iloc[0]}, {t['date'].iloc[0]}")
    print("\nMeasured, float16 (TFLOP/s; the backward counted as 2.5 forwards):\n")
    print(speeds(t))
    print("\nEvery config, both dtypes:\n")
    print(overall(t))
    host = fa.host_s(t)
    print("\nHost dispatch (median ms - ms_hidden, model-set forwards): "
          + ", ".join(f"{fa.LABELS[k]} {1e6 * v:.0f} µs" for k, v in host.items()))
    tt = fa.targets(t)
    print("\nThe model's forward time over the measured (target 0.8-1.25):\n")
    print(markdown(fa.summary(tt).reset_index()))
    print("\nSpeed-up over PyTorch flash, measured ÷ modelled (target: within 15%):\n")
    print(markdown(fa.speedup_summary(tt)))
    masks = mm.measured_masks("fwd")
    fit = masks[mm.Measured.RATIO].between(*fa.TIME_OK)
    print(f"\nMasks through flash-attn-4 (fa4_masks.csv, forward): the model's time against the measured, within "
          f"0.8-1.25 at {int(fit.sum())} of {len(masks)}:\n")
    print(markdown(masks[["mask", "tiles computed", "measured ms", "model ms", mm.Measured.RATIO]]))
    if args.rows:
        print()
        print(markdown(tt.round(3)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
