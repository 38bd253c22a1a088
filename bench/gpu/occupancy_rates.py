"""The exp, FP32 and tensor-core rates at the occupancy an attention kernel runs at (issue 21, part 2).

bench/gpu/unit_rates.py measures each unit with the SM full: 4096 blocks of 4 warps (up to 16
blocks, 64 warps, on each SM) for exp and FP32, 4 blocks of 8 warps per SM for the tensor cores.
cuDNN's attention kernel (FlashAttention-3's design) runs one block of 3 warp groups per SM: one
producer group issues the copies, and under ping-pong ONE consumer group of 4 warps (one warp per
SM sub-partition) runs its softmax while the other runs its matmuls. If the exp unit needs more
warps in flight than that to reach its rate (latency-bound), the rate the schedule model should
divide by is the one at that occupancy. This script measures the same chain kernels at:

  exp, FP32   1 block of 4 warps per SM (132 blocks), and 1 block of 8 warps per SM; each thread
              runs ILP independent chains (ILP = 8, 16, 64; a consumer thread of FA3 holds 64 x 128
              / 128 = 64 scores of its 64-row half tile); and the full-SM reference of unit_rates.py
  wgmma       mma_chain at 1 block of 4 warps (one warp group) per SM, 1 block of 8 warps, 2 blocks
              of 4 warps, and unit_rates.py's 4 blocks of 8 warps

Blocks of a grid of 132 on an idle H200 go one to an SM (one block per SM is assumed, and the rate
says per SM what it is). Each rate is elements x steps (or flops) over the kernel's median time
(CUDA events, 10 repeats after a warm-up); nothing else runs.

    python bench/gpu/occupancy_rates.py --out flashviz/data/h200         # on the H200
    python bench/gpu/occupancy_rates.py --check                 # the CPU: the plan, no kernels
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SMS = 132
EXP_STEPS, FMA_STEPS = 2048, 8192
# (unit, blocks per SM, warps per block, ILP): ILP is independent chains per thread (exp, FP32) or 0 (wgmma)
PLAN = [("exp", bps, w, ilp) for bps, w in ((1, 4), (1, 8)) for ilp in (8, 16, 64)] + [("exp", 31, 4, 8)] + \
       [("fp32", bps, w, ilp) for bps, w in ((1, 4), (1, 8)) for ilp in (8, 64)] + [("fp32", 31, 4, 8)] + \
       [("wgmma", bps, w, 0) for bps, w in ((1, 4), (1, 8), (2, 4), (4, 8))]
FIELDS = ["unit", "blocks_per_sm", "warps_per_block", "warps_per_sm", "ilp", "value", "unit_of_value", "ms", "how",
          "gpu", "sms", "driver", "cuda", "torch", "triton", "date", "command"]


def plan_rows() -> list[dict]:
    return [{"unit": u, "blocks_per_sm": b, "warps_per_block": w, "warps_per_sm": b * w, "ilp": i}
            for u, b, w, i in PLAN]


def measure(row: dict) -> tuple[float, float]:
    """(rate per second, median ms) of one plan row on this GPU."""
    import torch
    sys.path.insert(0, str(HERE))
    import unit_rates as u  # noqa: E402
    grid = (SMS * row["blocks_per_sm"],)
    w, ilp = row["warps_per_block"], row["ilp"]
    if row["unit"] in ("exp", "fp32"):
        block = 32 * w * ilp                       # each of the block's threads holds ilp elements
        x = -torch.rand(grid[0] * block, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        kern, steps = (u.exp_chain, EXP_STEPS) if row["unit"] == "exp" else (u.fma_chain, FMA_STEPS)
        ms = u._median_ms(lambda: kern[grid](x, y, STEPS=steps, BLOCK=block, num_warps=w))
        assert bool(torch.isfinite(y).all().item())
        return x.numel() * steps / (ms * 1e-3), ms
    M, N, K, steps = u.MMA_M, u.MMA_N, u.MMA_K, u.MMA_STEPS
    a = (torch.rand(grid[0] * M, K, device="cuda") / K).half()
    b = (torch.rand(K, N, device="cuda") / K).half()
    c = torch.empty(grid[0] * M, N, device="cuda")
    ms = u._median_ms(lambda: u.mma_chain[grid](a, b, c, STEPS=steps, M=M, N=N, K=K, num_warps=w))
    return grid[0] * steps * 2 * M * N * K / (ms * 1e-3), ms


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--check", action="store_true", help="print the plan (CPU), run nothing")
    args = p.parse_args(argv)
    if args.check:
        for r in plan_rows():
            print(r)
        return 0
    import datetime as dt
    import subprocess

    import torch
    import triton
    prop = torch.cuda.get_device_properties(0)
    assert prop.multi_processor_count == SMS, prop
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip()
    prov = {"gpu": prop.name, "sms": SMS, "driver": driver, "cuda": torch.version.cuda, "torch": torch.__version__,
            "triton": triton.__version__, "date": dt.date.today().isoformat(),
            "command": "python bench/gpu/occupancy_rates.py " + " ".join(sys.argv[1:])}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    with open(out / "schedule_occupancy_rates.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=FIELDS)
        wr.writeheader()
        for r in plan_rows():
            try:
                rate, ms = measure(r)
            except Exception as e:  # noqa: BLE001 (one failure logged, the rest go on)
                print("failed", r, repr(e)[:300], flush=True)
                continue
            unit = "TFLOP/s" if r["unit"] == "wgmma" else "T/s"
            how = ("Triton mma_chain 128x128x64 float16, 256 dependent dots" if r["unit"] == "wgmma" else
                   f"Triton {'exp_chain' if r['unit'] == 'exp' else 'fma_chain'}, "
                   f"{EXP_STEPS if r['unit'] == 'exp' else FMA_STEPS} dependent steps")
            wr.writerow({**r, "value": rate / 1e12, "unit_of_value": unit, "ms": ms, "how": how, **prov})
            f.flush()
            print(f"{r['unit']:6s} {r['blocks_per_sm']:2d} x {r['warps_per_block']} warps/SM ilp {r['ilp']:2d}: "
                  f"{rate / 1e12:8.3f} {unit} ({ms:.3f} ms) at {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
