"""Real kernels' numerical error in 16 bits, against a float64 reference computed on the GPU.

For each storage type (float16, bfloat16), size (n, d) and input spread: the FlashAttention-3
paper's inputs (§4.3: N(0, 1) plus N(0, 100) on 0.1% of entries, Q and K multiplied by the spread,
so the scores by its square), drawn in NumPy by `flashviz.run.precision.paper_inputs` and rounded to the
type there (the same seed gives the same bits here and in the emulation), copied to the GPU bit for
bit. Then PyTorch's plain attention (the paper's three kernels, `plain` of measure.py: S and P stored
in 16 bits) and scaled_dot_product_attention's flash, cuDNN and memory-efficient backends, each
against softmax(QKᵀ/√d)V computed in float64 on the GPU from the same 16-bit inputs: RMSE, the
largest error, and the outputs that are not finite (an overflow). Beside each, the emulation's
error on the same inputs (flashviz.run.precision: `standard` for plain attention, `flash` for the three
fused kernels), computed on the CPU.

    python bench/gpu/precision.py --out flashviz/data/h200                 # on a CUDA machine
    python bench/gpu/precision.py --out flashviz/data/h200 --no-emulate    # measure only (faster on the GPU host)
    python bench/gpu/precision.py --fill-emulated flashviz/data/h200/precision.csv  # add the emulation, any CPU
    python bench/gpu/precision.py --dry-run --out /tmp/p           # tiny, on the CPU (CI)

Writes precision.csv under --out, row by row; every row carries its provenance (GPU, driver, CUDA,
PyTorch, cuDNN, date, command).
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from measure import PROVENANCE, Rows, plain, provenance  # noqa: E402

from flashviz.run import precision  # noqa: E402

IMPLS = ("plain", "flash", "cudnn", "mem_efficient")
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "mem_efficient": SDPBackend.EFFICIENT_ATTENTION}
EMULATED = {"plain": "standard", "flash": "flash", "cudnn": "flash", "mem_efficient": "flash"}
TORCH_TYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}
FIELDS = ["impl", "dtype", "n", "d", "spread", "seed", "max_score", "rmse", "max_err", "nonfinite",
          "emulated", "emulated_rmse", "emulated_max_err", "emulated_nonfinite", "status"]


def to_torch(x: np.ndarray, dtype: str, device: str) -> torch.Tensor:
    """A float32 array of a 16-bit type's values as that type on the device, bit for bit: the
    rounding happened once, in NumPy (flashviz.run.precision.rounded)."""
    bits = np.ascontiguousarray(x.astype(precision.TYPES[dtype])).view(np.int16)
    return torch.from_numpy(bits).to(device).view(TORCH_TYPES[dtype]).reshape(1, 1, *x.shape)


def reference(q, k, v) -> tuple[torch.Tensor, float]:
    """softmax(QKᵀ/√d)V in float64 on the device, and the largest |score|."""
    q, k, v = (t.double() for t in (q, k, v))
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    top = float(s.abs().max())
    return torch.softmax(s, dim=-1) @ v, top


def errors(out: torch.Tensor, ref: torch.Tensor) -> dict:
    diff = (out.double() - ref).abs()
    finite = torch.isfinite(diff)
    bad = int(diff.numel() - finite.sum())
    return {"rmse": float(diff.pow(2).mean().sqrt()) if not bad else math.nan,
            "max_err": float(diff[finite].max()) if bool(finite.any()) else math.nan, "nonfinite": bad}


def kernel(impl: str, q, k, v) -> torch.Tensor:
    if impl == "plain":
        return plain(q, k, v)
    with sdpa_kernel(BACKENDS[impl]):
        return F.scaled_dot_product_attention(q, k, v)


def emulate(row: dict, cache: dict) -> dict:
    """The emulation's error for one measured row, on the inputs its seed and spread give."""
    key = (row["dtype"], int(row["n"]), int(row["d"]), float(row["spread"]), int(row["seed"]))
    if key not in cache:
        dtype, n, d, spread, seed = key
        Q, K, V = precision.stored_inputs(n, d, dtype, seed, spread)
        R = precision.reference(Q, K, V)
        cache[key] = {name: precision.error(fn(Q, K, V, dtype), R)
                      for name, fn in (("standard", precision.standard), ("flash", precision.flash))}
    name = EMULATED[row["impl"]]
    e = cache[key][name]
    return {"emulated": name, "emulated_rmse": e.rmse, "emulated_max_err": e.max, "emulated_nonfinite": e.nonfinite}


def fill_emulated(path: Path) -> int:
    """Recompute the emulated columns of a measured CSV in place."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cache: dict = {}
    for row in rows:
        row.update(emulate(row, cache))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS + PROVENANCE)
        writer.writeheader()
        writer.writerows(rows)
    print(f"filled the emulated columns of {path} ({len(rows)} rows)")
    return 0


def configs(dry: bool):
    """(dtype, n, d, spread, seed): the paper's spread 1, scores 64× larger (spread 8) and 4096× larger
    (spread 64, where the largest scores pass float16's 65,504)."""
    if dry:
        return [(t, 64, 16, s, 0) for t in precision.STORAGE for s in (1.0, 64.0)]
    return [(t, n, d, s, 0) for t in precision.STORAGE for n, d in ((1024, 64), (1024, 128), (4096, 128))
            for s in (1.0, 8.0, 64.0)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true", help="tiny sizes on the CPU")
    p.add_argument("--no-emulate", action="store_true", help="leave the emulated columns empty")
    p.add_argument("--fill-emulated", metavar="CSV", help="recompute a CSV's emulated columns, then stop")
    p.add_argument("--budget-s", type=float, default=1e9, help="stop cleanly after this many seconds")
    args = p.parse_args(argv)
    if args.fill_emulated:
        return fill_emulated(Path(args.fill_emulated))
    device = "cpu" if args.dry_run else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        sys.stderr.write("no CUDA device: use --dry-run\n")
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    prov = provenance(device)
    rows = Rows(out / "precision.csv", FIELDS)
    deadline, cache = time.time() + args.budget_s, dict[tuple, Any]()
    for dtype, n, d, spread, seed in configs(args.dry_run):
        if time.time() > deadline:
            print("time budget spent: stopping", flush=True)
            break
        Q, K, V = precision.stored_inputs(n, d, dtype, seed, spread)
        q, k, v = (to_torch(x, dtype, device) for x in (Q, K, V))
        ref, top = reference(q, k, v)
        for impl in IMPLS:
            row = {"impl": impl, "dtype": dtype, "n": n, "d": d, "spread": spread, "seed": seed, "max_score": top}
            try:
                row.update(errors(kernel(impl, q, k, v), ref), status="ok")
            except RuntimeError as err:  # a backend that does not take this dtype, shape or device
                row["status"] = "unsupported: " + str(err).splitlines()[0][:120]
            if not args.no_emulate:
                row.update(emulate(row, cache))
            rows.add({**row, **prov})
            print(f"{impl:14s} {dtype:9s} n={n:5d} d={d:4d} spread={spread:4g} max|S|={top:10.4g} "
                  f"rmse={row.get('rmse', math.nan):.3e} emulated={row.get('emulated_rmse', math.nan):.3e} "
                  f"{row['status'][:50]}", flush=True)
        if device == "cuda":
            torch.cuda.empty_cache()
    print(f"wrote {out / 'precision.csv'} ({rows.count} rows)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
