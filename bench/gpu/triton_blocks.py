"""Block size on hardware: a Triton flash forward with BLOCK_M x BLOCK_N as parameters.

For each tile shape: the output checked against PyTorch's attention, the time by
CUDA events (median of --repeats), and with --ncu the DRAM bytes of one call
through Nsight Compute, to set beside the engine's block-size table (lesson 4).

    python bench/gpu/triton_blocks.py --out flashviz/data/h200 [--ncu]
    TRITON_INTERPRET=1 python bench/gpu/triton_blocks.py --dry-run --out /tmp   # CPU, tiny

Writes triton_blocks.csv under --out, row by row, with provenance.
"""
from __future__ import annotations

import argparse
import csv
import io
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch
import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import Rows, Timer, ncu_path, provenance  # noqa: E402

FIELDS = ["block_m", "block_n", "n", "d", "dtype", "batch_heads", "time_ms", "tflops", "max_abs_diff",
          "dram_read_bytes", "dram_write_bytes", "l2_bytes", "status"]
SHAPES = [(16, 16), (32, 32), (64, 64), (128, 64), (64, 128), (128, 128), (256, 64), (128, 256), (256, 256)]


@triton.jit
def flash_fwd(Q, K, V, O, stride_h, stride_m, N, scale,
              D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr = False):
    """One program: BLOCK_M query rows of one head. Q tile stays on chip; K, V tiles stream.
    CAUSAL: key tiles past the block's last row are skipped, and scores above the diagonal masked."""
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * stride_h
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, D)
    q = tl.load(Q + head + rows[:, None] * stride_m + dims[None, :])          # (BLOCK_M, D), loaded once
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)                           # running max
    l = tl.zeros([BLOCK_M], tl.float32)                                         # running sum
    acc = tl.zeros([BLOCK_M, D], tl.float32)                                    # unnormalised O
    log2e_scale = scale * 1.4426950408889634                                    # exp(x) = exp2(x log2 e)
    hi = N
    if CAUSAL:
        hi = (start_m + 1) * BLOCK_M                                            # no key tile past the diagonal
    for start_n in range(0, hi, BLOCK_N):
        keys = start_n + cols
        k = tl.load(K + head + keys[None, :] * stride_m + dims[:, None])        # (D, BLOCK_N) streams in
        s = tl.dot(q, k) * log2e_scale                                          # score tile, on chip only
        if CAUSAL:
            s = tl.where(rows[:, None] >= keys[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m - m_new)                                         # the rescale
        l = l * alpha + tl.sum(p, 1)
        v = tl.load(V + head + keys[:, None] * stride_m + dims[None, :])        # (BLOCK_N, D) streams in
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
    tl.store(O + head + rows[:, None] * stride_m + dims[None, :], (acc / l[:, None]).to(O.dtype.element_ty))


def run(q, k, v, block_m, block_n, causal=False):
    bh, n, d = q.shape
    o = torch.empty_like(q)
    warps = 8 if block_m * block_n >= 128 * 128 else 4
    flash_fwd[(n // block_m, bh)](q, k, v, o, q.stride(0), q.stride(1), n, d ** -0.5, D=d,
                                  BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal, num_warps=warps, num_stages=2)
    return o


def inputs(bh, n, d, dtype, device):
    g = torch.Generator(device=device).manual_seed(0)
    return [torch.randn(bh, n, d, dtype=dtype, device=device, generator=g) for _ in range(3)]


def measure(block_m, block_n, n, d, bh, device, repeats) -> dict:
    q, k, v = inputs(bh, n, d, torch.float16 if device == "cuda" else torch.float32, device)
    try:
        out = run(q, k, v, block_m, block_n)
        ref = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
        diff = (out.float() - ref.float()).abs().max().item()
        timer = Timer(device)
        times = sorted(timer(lambda: run(q, k, v, block_m, block_n)) for _ in range(repeats))
    except Exception as err:  # tiles too big for shared memory or registers: the hardware says no
        return {"status": "does not run: " + str(err).strip().splitlines()[-1][:120]}
    med = statistics.median(times)
    return {"time_ms": med, "tflops": 4 * bh * n * n * d / (med * 1e-3) / 1e12, "max_abs_diff": diff,
            "status": "ok"}


def profile_one(block_m, block_n, n, d, bh) -> None:
    q, k, v = inputs(bh, n, d, torch.float16, "cuda")
    run(q, k, v, block_m, block_n)  # compile and warm outside the profiled range
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    run(q, k, v, block_m, block_n)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def ncu(block_m, block_n, n, d, bh) -> dict:
    cmd = [ncu_path(), "--clock-control", "none", "--profile-from-start", "off", "--metrics",
           "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum", "--csv", "--print-units", "base",
           sys.executable, __file__, "--profile-one", str(block_m), str(block_n), str(n), str(d), str(bh)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    text = out.stdout[out.stdout.find('"ID"'):] if '"ID"' in out.stdout else ""
    sums: dict[str, float] = {}
    for row in csv.DictReader(io.StringIO(text)):
        sums[row["Metric Name"]] = sums.get(row["Metric Name"], 0.0) + float(row["Metric Value"].replace(",", ""))
    if not sums:
        return {}
    return {"dram_read_bytes": int(sums.get("dram__bytes_read.sum", 0)),
            "dram_write_bytes": int(sums.get("dram__bytes_write.sum", 0)),
            "l2_bytes": int(sums.get("lts__t_bytes.sum", 0))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--ncu", action="store_true")
    p.add_argument("--ns", default="1024,4096")
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--budget-s", type=float, default=1e9)
    p.add_argument("--profile-one", nargs=5, type=int, metavar=("BM", "BN", "N", "D", "BH"))
    args = p.parse_args(argv)
    if args.profile_one:
        profile_one(*args.profile_one)
        return 0
    device = "cpu" if args.dry_run else "cuda"
    d = 16 if args.dry_run else args.d
    ns = [64] if args.dry_run else [int(x) for x in args.ns.split(",")]
    shapes = [(16, 16), (32, 32)] if args.dry_run else SHAPES
    prov = provenance(device)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = Rows(out / "triton_blocks.csv", FIELDS)
    deadline = time.time() + args.budget_s
    for n in ns:
        bh = 2 if args.dry_run else max(1, 2**30 // (n * n))
        for block_m, block_n in shapes:
            if time.time() > deadline:
                print("time budget spent: stopping", flush=True)
                break
            row: dict[str, Any] = {"block_m": block_m, "block_n": block_n, "n": n, "d": d,
                   "dtype": "float16" if device == "cuda" else "float32", "batch_heads": bh}
            row.update(measure(block_m, block_n, n, d, bh, device, 3 if args.dry_run else args.repeats))
            if args.ncu and row["status"] == "ok":
                row.update(ncu(block_m, block_n, n, d, bh))
            rows.add({**row, **prov})
            print(f"n={n} {block_m:4d} x {block_n:4d}  {row.get('time_ms', float('nan')):8.3f} ms  "
                  f"diff {row.get('max_abs_diff', float('nan')):.1e}  DRAM {row.get('dram_read_bytes', '-')} read  "
                  f"{row['status'][:70]}", flush=True)
    print(f"wrote {out / 'triton_blocks.csv'} ({rows.count} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
