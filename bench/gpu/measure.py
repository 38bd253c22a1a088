"""Measure plain attention against PyTorch's fused kernels on a GPU.

For each n, d and dtype: plain attention that materialises S, as the FlashAttention
paper's standard attention (its §2.2: three kernels, S = QK^T, P = softmax(S), O = PV,
the 1/sqrt(d) scale riding in the first matmul); a naive script's version of it, whose
`(q @ k^T) * scale` adds a fourth kernel, a pass over S that only scales it; and
scaled_dot_product_attention with its flash and memory-efficient backends. Forward and
forward+backward, timed by CUDA events (median of --repeats runs after warm-up). With
--ncu, Nsight Compute reads DRAM (and L2) bytes of every kernel of one forward call per
config. The machine's own ceilings (copy bandwidth, dense matmul rate) are measured in
the same run. --math-path lists the operators and CUDA kernels of PyTorch's own
unfused path (SDPA's math backend), which scales q and k, not S.

    python bench/gpu/measure.py --out flashviz/data/h200        # timings and ceilings, on a CUDA machine
    python bench/gpu/measure.py --out flashviz/data/h200 --ncu  # DRAM bytes (dram.csv)
    python bench/gpu/measure.py --math-path            # what PyTorch's math backend launches
    python bench/gpu/measure.py --dry-run --out /tmp   # tiny, on the CPU (CI)

Writes attention.csv and ceilings.csv (or dram.csv with --ncu) under --out, row by
row; every row carries its provenance (GPU, driver, CUDA, PyTorch, cuDNN, date, command).
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

IMPLS = ("plain", "naive_script", "flash", "mem_efficient")
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "mem_efficient": SDPBackend.EFFICIENT_ATTENTION}
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
ATTENTION_FIELDS = ["impl", "pass", "n", "d", "dtype", "batch_heads", "time_ms", "time_ms_p10",
                    "time_ms_p90", "tflops", "status"]
DRAM_FIELDS = ["impl", "pass", "n", "d", "dtype", "batch_heads", "dram_read_bytes", "dram_write_bytes",
               "l2_bytes", "kernels", "kernel_names", "status"]
CEILING_FIELDS = ["ceiling", "dtype", "value", "unit"]
PROVENANCE = ["gpu", "driver", "cuda", "torch", "date", "cudnn", "command"]
NCU_METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,gpu__time_duration.sum"


def provenance(device: str) -> dict:
    if device == "cuda":
        try:
            driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                    capture_output=True, text=True, timeout=30).stdout.strip()
        except OSError:
            driver = "unknown"
        gpu = torch.cuda.get_device_name()
    else:
        driver, gpu = "none", "cpu (dry run)"
    return {"gpu": gpu, "driver": driver or "unknown", "cuda": torch.version.cuda or "none",
            "torch": torch.__version__, "date": dt.date.today().isoformat(),
            "cudnn": str(torch.backends.cudnn.version() or "none"), "command": command()}


def command() -> str:
    """How this run was started, as the repository names the script (it may run from a copy)."""
    return " ".join(["python", f"bench/gpu/{Path(sys.argv[0]).name}", *sys.argv[1:]])


def batch_heads(n: int, target: int) -> int:
    """Enough heads that one call does far more than launch overhead: B*H*n^2 ~ target."""
    return max(1, target // (n * n))


def plain(q, k, v):
    """Standard attention, three kernels: S = QK^T with the scale as the GEMM's alpha (so no pass
    over S is spent on it, as in Megatron-LM's baddbmm), P = softmax(S), O = PV. (..., n, d) in."""
    q3, k3, v3 = (t.reshape(-1, *t.shape[-2:]) for t in (q, k, v))  # (B*H, n, d) views
    unused = q3.new_empty(1, 1, 1).expand(q3.shape[0], q3.shape[1], k3.shape[1])  # beta = 0: never read
    s = torch.baddbmm(unused, q3, k3.transpose(1, 2), beta=0, alpha=q.shape[-1] ** -0.5)  # (B*H, n, n)
    return (torch.softmax(s, dim=-1) @ v3).view(q.shape)


def naive_script(q, k, v):
    """What a naive script writes: the scale is a fourth kernel that reads S and writes it back.
    (PyTorch's own math path scales q and k instead: see --math-path.)"""
    s = (q @ k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
    return torch.softmax(s, dim=-1) @ v


def attention_fn(impl: str):
    if impl == "plain":
        return plain
    if impl == "naive_script":
        return naive_script

    def fused(q, k, v):
        with sdpa_kernel(BACKENDS[impl]):
            return F.scaled_dot_product_attention(q, k, v)
    return fused


def inputs(bh, n, d, dtype, device, grad):
    g = torch.Generator(device=device).manual_seed(0)
    return [torch.randn(1, bh, n, d, dtype=dtype, device=device, generator=g, requires_grad=grad)
            for _ in range(3)]


class Timer:
    """Wall time of one call: CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, device):
        self.device = device

    def __call__(self, fn) -> float:
        if self.device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end)
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e3


def time_config(impl, pass_, n, d, dtype, bh, device, repeats, warmup) -> dict:
    fn = attention_fn(impl)
    grad = pass_ == "fwd+bwd"
    q, k, v = inputs(bh, n, d, DTYPES[dtype], device, grad)
    dout = torch.randn_like(q) if grad else None

    def call():
        out = fn(q, k, v)
        if grad:
            out.backward(dout)
            q.grad = k.grad = v.grad = None

    timer = Timer(device)
    try:
        for _ in range(warmup):
            call()
        times = sorted(timer(call) for _ in range(repeats))
    except RuntimeError as err:  # a backend that does not take this dtype or shape
        return {"status": "unsupported: " + str(err).splitlines()[0][:120]}
    med = statistics.median(times)
    flops = 4 * bh * n * n * d * (3.5 if grad else 1)  # FlashAttention-2's accounting: bwd = 2.5 fwd
    return {"time_ms": med, "time_ms_p10": times[len(times) // 10], "time_ms_p90": times[(9 * len(times)) // 10],
            "tflops": flops / (med * 1e-3) / 1e12, "status": "ok"}


def ceilings(device, dtypes, dry) -> list[dict]:
    timer, rows = Timer(device), []
    size = 2**20 if dry else 2**30  # bytes per copy buffer
    a = torch.empty(size // 4, dtype=torch.float32, device=device).normal_()
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    t = statistics.median(timer(lambda: b.copy_(a)) for _ in range(20))
    rows.append({"ceiling": "copy bandwidth (read + write)", "dtype": "any",
                 "value": 2 * size / (t * 1e-3) / 1e12, "unit": "TB/s"})
    m = 256 if dry else 8192
    torch.backends.cuda.matmul.allow_tf32 = False  # a true fp32 rate, not TF32
    for name in dtypes:
        x = torch.randn(m, m, dtype=DTYPES[name], device=device)
        y = torch.randn(m, m, dtype=DTYPES[name], device=device)
        for _ in range(3):
            x @ y
        t = statistics.median(timer(lambda x=x, y=y: x @ y) for _ in range(10))  # this dtype's pair
        rows.append({"ceiling": "dense matmul", "dtype": name, "value": 2 * m**3 / (t * 1e-3) / 1e12,
                     "unit": "TFLOP/s"})
    return rows


def profile_one(impl, n, d, dtype, bh) -> None:
    """One forward call between cudaProfilerStart/Stop, for ncu --profile-from-start off."""
    fn = attention_fn(impl)
    q, k, v = inputs(bh, n, d, DTYPES[dtype], "cuda", False)
    fn(q, k, v)  # warm-up outside the profiled range
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    fn(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


def math_path(device: str) -> None:
    """PyTorch's own unfused path (SDPA's math backend): its operators, with their input shapes,
    and the kernels they launch, for one call. It scales q and k (n x d each) before the matmul."""
    from torch.profiler import ProfilerActivity, profile
    bh, n, d, dtype = (4, 4096, 64, torch.float16) if device == "cuda" else (2, 128, 16, torch.float32)
    q, k, v = inputs(bh, n, d, dtype, device, False)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with sdpa_kernel(SDPBackend.MATH):
        F.scaled_dot_product_attention(q, k, v)  # warm-up outside the profile
        with profile(activities=activities, record_shapes=True) as prof:
            F.scaled_dot_product_attention(q, k, v)
            if device == "cuda":
                torch.cuda.synchronize()
    print(f"PyTorch {torch.__version__}, SDPA math backend, {dtype}, B*H = {bh}, n = {n}, d = {d}:")
    print(prof.key_averages(group_by_input_shape=True).table(row_limit=40, max_name_column_width=70,
                                                             max_shapes_column_width=60))


def ncu_path() -> str:
    import glob
    import shutil
    found = shutil.which("ncu") or sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu")
                                          + glob.glob("/usr/local/cuda*/bin/ncu"))
    return found if isinstance(found, str) else (found[-1] if found else "ncu")


def ncu_bytes(impl, n, d, dtype, bh) -> dict:
    cmd = [ncu_path(), "--clock-control", "none", "--profile-from-start", "off", "--metrics", NCU_METRICS,
           "--csv", "--print-units", "base", sys.executable, __file__, "--profile-one", impl,
           str(n), str(d), dtype, str(bh)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    text = out.stdout[out.stdout.find('"ID"'):] if '"ID"' in out.stdout else ""
    sums: dict[str, float] = {}
    kernels: dict[str, str] = {}
    for row in csv.DictReader(io.StringIO(text)):
        value = float(row["Metric Value"].replace(",", ""))
        sums[row["Metric Name"]] = sums.get(row["Metric Name"], 0.0) + value
        kernels[row["ID"]] = row["Kernel Name"]
    if not kernels:
        return {"status": "ncu read nothing: " + (out.stderr or out.stdout).strip().splitlines()[-1][:120]
                if (out.stderr or out.stdout).strip() else "ncu read nothing"}
    return {"dram_read_bytes": int(sums.get("dram__bytes_read.sum", 0)),
            "dram_write_bytes": int(sums.get("dram__bytes_write.sum", 0)),
            "l2_bytes": int(sums.get("lts__t_bytes.sum", 0)), "kernels": len(kernels),
            "kernel_names": "|".join(kernels[i][:40] for i in sorted(kernels, key=int)), "status": "ok"}


class Rows:
    """A CSV written row by row, so a run cut short keeps what it measured."""

    def __init__(self, path: Path, fields: list[str]):
        # Held open for the whole run and flushed per row, so no `with` block fits.
        self.file = open(path, "w", newline="")  # noqa: SIM115
        self.writer = csv.DictWriter(self.file, fieldnames=fields + PROVENANCE, extrasaction="ignore")
        self.writer.writeheader()
        self.count = 0

    def add(self, row: dict) -> None:
        self.writer.writerow(row)
        self.file.flush()
        self.count += 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=False, default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true", help="tiny sizes on the CPU")
    p.add_argument("--ncu", action="store_true", help="only DRAM bytes per config, through Nsight Compute")
    p.add_argument("--budget-s", type=float, default=1e9, help="stop cleanly after this many seconds")
    p.add_argument("--ns", default="512,1024,2048,4096,8192,16384,32768")
    p.add_argument("--ds", default="64,128")
    p.add_argument("--dtypes", default="float16,bfloat16,float32")
    p.add_argument("--ncu-ns", default="1024,4096,16384")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--target", type=int, default=2**30, help="B*H*n^2 per call")
    p.add_argument("--profile-one", nargs=5, metavar=("IMPL", "N", "D", "DTYPE", "BH"))
    p.add_argument("--math-path", action="store_true", help="list what PyTorch's math backend runs, then stop")
    args = p.parse_args(argv)
    if args.math_path:
        math_path("cpu" if args.dry_run else "cuda")
        return 0
    if args.profile_one:
        impl, n, d, dtype, bh = args.profile_one
        profile_one(impl, int(n), int(d), dtype, int(bh))
        return 0
    device = "cpu" if args.dry_run else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        sys.stderr.write("no CUDA device: use --dry-run\n")
        return 2
    ns = [64, 128] if args.dry_run else [int(x) for x in args.ns.split(",")]
    ds = [16] if args.dry_run else [int(x) for x in args.ds.split(",")]
    dtypes = ["float32"] if args.dry_run else args.dtypes.split(",")
    target = 2**16 if args.dry_run else args.target
    repeats, warmup = (3, 1) if args.dry_run else (args.repeats, 3)
    prov = provenance(device)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    deadline = time.time() + args.budget_s
    if args.ncu:  # DRAM bytes of one forward call per config, fp16 only (ncu replays: slow)
        dram = Rows(out / "dram.csv", DRAM_FIELDS)
        for d in ds:
            for n in [int(x) for x in args.ncu_ns.split(",")]:
                for impl in IMPLS:
                    if time.time() > deadline:
                        print("time budget spent: stopping", flush=True)
                        return 0
                    bh = batch_heads(n, target)
                    row: dict[str, Any] = {"impl": impl, "pass": "fwd", "n": n, "d": d, "dtype": "float16",
                                           "batch_heads": bh}
                    row.update(ncu_bytes(impl, n, d, "float16", bh))
                    dram.add({**row, **prov})
                    print(f"ncu {impl:14s} n={n:6d} d={d:4d} {row.get('dram_read_bytes', '-')} read "
                          f"{row.get('dram_write_bytes', '-')} written  {row['status'][:60]}", flush=True)
        print(f"wrote {out / 'dram.csv'} ({dram.count} rows)")
        return 0
    ceil = Rows(out / "ceilings.csv", CEILING_FIELDS)
    for r in ceilings(device, dtypes, args.dry_run):
        ceil.add({**r, **prov})
    rows = Rows(out / "attention.csv", ATTENTION_FIELDS)
    for dtype in dtypes:
        for d in ds:
            for n in ns:
                bh = batch_heads(n, target)
                for impl in IMPLS:
                    for pass_ in ("fwd", "fwd+bwd"):
                        if time.time() > deadline:
                            print("time budget spent: stopping", flush=True)
                            return 0
                        row = {"impl": impl, "pass": pass_, "n": n, "d": d, "dtype": dtype, "batch_heads": bh}
                        row.update(time_config(impl, pass_, n, d, dtype, bh, device, repeats, warmup))
                        if device == "cuda":
                            torch.cuda.empty_cache()  # the last config's tensors are gone; free them
                        rows.add({**row, **prov})
                        print(f"{impl:14s} {pass_:8s} n={n:6d} d={d:4d} {dtype:9s} bh={bh:5d} "
                              f"{row.get('time_ms', math.nan):10.3f} ms  {row['status'][:60]}", flush=True)
    print(f"wrote {out / 'attention.csv'} ({rows.count} rows) and {out / 'ceilings.csv'}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
