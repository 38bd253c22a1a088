"""The whole GPU: DRAM bytes and time of the flash forward across both L2 regimes.

For each config (n, d, batch x heads), fp16, forward only:
  * PyTorch's flash kernel (SDPA, FLASH_ATTENTION backend) and this project's
    Triton kernel (bench/gpu/triton_blocks.py) at three block shapes;
  * plain attention where S fits in memory: the FlashAttention paper's standard
    attention (three kernels: S = QK^T with the scale in the matmul, softmax, P V;
    measure.py's `plain`), and a naive script's version whose `(q @ k^T) * scale`
    adds a fourth kernel, a pass over S that only scales it (`naive_script`).
Time by CUDA events (median of --repeats after warm-up, warm L2). DRAM read and
write bytes by Nsight Compute: one ncu process per fused kernel family profiles
every config once (cudaProfilerStart/Stop around one call, kernel-name filter,
three metrics plus launch statistics, which cost no replay); the unfused versions get
one ncu process PER CONFIG, so every kernel that process sees belongs to that one
call and is summed (their names are kept). ncu flushes the caches before each replay,
so its reads are cold; writes still in L2 when the kernel ends are never counted as
DRAM writes.

Ceilings, measured first in the same run (whole_gpu_ceilings.csv): copy bandwidth,
cuBLAS fp16 matmul rate, and two non-matmul rates from unit_rates.py (exp on the
special-function units; FP32 FFMA instructions).

    python bench/gpu/whole_gpu.py --out $OUT            # on a CUDA machine with ncu
    python bench/gpu/whole_gpu.py --dry-run --out /tmp  # list the configs only

Writes whole_gpu_time.csv and whole_gpu_ncu.csv row by row, whole_gpu.csv (both
joined) at the end, and whole_gpu_ceilings.csv; every row carries provenance.
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# (n, d, batch x heads). K + V per head = 4 n d bytes in fp16: 2 MB to 256 MB.
CONFIGS = [
    (16384, 128, 1), (32768, 128, 1), (65536, 128, 1), (131072, 128, 1), (262144, 128, 1), (524288, 128, 1),
    (16384, 128, 4), (65536, 128, 4), (131072, 128, 4), (262144, 128, 4),
    (4096, 128, 32), (16384, 128, 32), (32768, 128, 32), (65536, 128, 32),
    (131072, 128, 16), (262144, 128, 2),
    (32768, 64, 1), (131072, 64, 1), (262144, 64, 1), (524288, 64, 1),
    (16384, 64, 8), (65536, 64, 8), (131072, 64, 8),
    (8192, 64, 32), (32768, 64, 32),
]
TRITON_SHAPES = [(128, 64), (64, 64), (128, 128)]
UNFUSED = ("plain", "naive_script")  # materialise S: measured where it fits, one ncu process per call
PLAIN_MAX_S_BYTES = 8 * 2**30  # plain attention keeps bh x n x n fp16 scores; beyond this, skip it
METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum"
LAUNCH = ("launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,"
          "launch__shared_mem_per_block_static,launch__occupancy_limit_registers,"
          "launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks")
FIELDS = ["impl", "n", "d", "batch_heads", "kv_head_bytes", "time_ms", "time_ms_p10", "time_ms_p90",
          "dram_read_bytes", "dram_write_bytes", "ncu_time_ms", "n_kernels", "kernels", "grid", "regs", "smem_dyn",
          "smem_static", "lim_regs", "lim_smem", "lim_warps", "lim_blocks", "status"]
PROV = ["gpu", "sms", "l2_bytes", "driver", "cuda", "torch", "triton", "date", "cudnn", "command"]


def impls() -> list[str]:
    return ["flash"] + [f"triton_{m}x{n}" for m, n in TRITON_SHAPES] + list(UNFUSED)


def plain_fits(n: int, bh: int) -> bool:
    return bh * n * n * 2 <= PLAIN_MAX_S_BYTES


def fn_for(impl: str):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if impl == "flash":
        def flash(q, k, v):
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(q[None], k[None], v[None])
        return flash
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if impl in UNFUSED:
        import measure  # noqa: E402
        return getattr(measure, impl)
    from triton_blocks import run  # noqa: E402
    bm, bn = (int(x) for x in impl.split("_")[1].split("x"))
    return lambda q, k, v: run(q, k, v, bm, bn)


def inputs(n, d, bh):
    import torch
    g = torch.Generator(device="cuda").manual_seed(n + d + bh)
    return [torch.randn(bh, n, d, dtype=torch.float16, device="cuda", generator=g) for _ in range(3)]


def configs_for(impl):
    return [c for c in CONFIGS if impl not in UNFUSED or plain_fits(c[0], c[2])]


def provenance() -> dict:
    import datetime as dt

    import torch
    import triton
    p = torch.cuda.get_device_properties(0)
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        driver = "unknown"
    return {"gpu": p.name, "sms": p.multi_processor_count, "l2_bytes": p.L2_cache_size, "driver": driver,
            "cuda": torch.version.cuda, "torch": torch.__version__, "triton": triton.__version__,
            "date": dt.date.today().isoformat(), "cudnn": str(torch.backends.cudnn.version() or "none"),
            "command": " ".join(["python", f"bench/gpu/{Path(sys.argv[0]).name}", *sys.argv[1:]])}


def time_one(impl, n, d, bh, repeats) -> dict:
    import torch
    fn = fn_for(impl)
    try:
        q, k, v = inputs(n, d, bh)
        ref = fn_for("flash")(q, k, v)[0] if impl != "flash" else None
        out = fn(q, k, v)
        out = out[0] if impl == "flash" else out
        err = 0.0 if ref is None else (out.float() - ref.float()).abs().max().item()
        times = []
        for i in range(repeats + 2):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn(q, k, v)
            b.record()
            torch.cuda.synchronize()
            if i >= 2:  # two warm-ups
                times.append(a.elapsed_time(b))
    except Exception as e:  # a shape the kernel refuses (shared memory) or memory runs out
        return {"status": "does not run: " + str(e).strip().splitlines()[-1][:100]}
    finally:
        torch.cuda.empty_cache()
    times.sort()
    ok = "ok" if err < 5e-2 else f"wrong: max abs diff {err:.3g}"
    return {"time_ms": statistics.median(times), "time_ms_p10": times[0], "time_ms_p90": times[-1], "status": ok}


def profile_all(impl, listing, only: str | None = None) -> None:
    """Child of ncu: one profiled call per config (or the one config `only`, "n,d,bh");
    the configs run go to `listing`."""
    import torch
    fn = fn_for(impl)
    todo = configs_for(impl) if only is None else [tuple(int(x) for x in only.split(","))]
    with open(listing, "w") as f:
        for n, d, bh in todo:
            try:
                q, k, v = inputs(n, d, bh)
                fn(q, k, v)  # compile and warm outside the profiled range
                torch.cuda.synchronize()
            except Exception:
                torch.cuda.empty_cache()
                continue
            torch.cuda.profiler.start()
            fn(q, k, v)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            f.write(f"{n},{d},{bh}\n")
            f.flush()
            del q, k, v
            torch.cuda.empty_cache()


def ncu_path() -> str:
    import glob
    import shutil
    found = shutil.which("ncu") or sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu")
                                          + glob.glob("/usr/local/cuda*/bin/ncu"))
    return found if isinstance(found, str) else (found[-1] if found else "ncu")


def run_ncu(impl, out: Path, timeout: float, launch: bool, only: tuple | None = None) -> tuple[list[dict], str]:
    """One ncu process: every config of a fused kernel, or (unfused) the one config `only`."""
    tag = impl if only is None else f"{impl}_{'_'.join(map(str, only))}"
    listing = Path(os.environ.get("TMPDIR", "/tmp")) / f"whole_gpu_listing_{tag}.txt"  # not under out
    listing.unlink(missing_ok=True)
    cmd = [ncu_path(), "--clock-control", "none", "--profile-from-start", "off",
           "--metrics", METRICS + ("," + LAUNCH if launch else ""), "--csv", "--print-units", "base"]
    if impl not in UNFUSED:
        cmd += ["-k", "regex:flash_fwd"]
    cmd += [sys.executable, __file__, "--profile-all", impl, str(listing)]
    if only is not None:
        cmd += ["--only", ",".join(map(str, only))]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        stdout, stderr = res.stdout, res.stderr
    except subprocess.TimeoutExpired as e:
        stdout = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = "timeout"
    text = stdout[stdout.find('"ID"'):] if '"ID"' in stdout else ""
    kernels: dict[int, dict] = {}
    for row in csv.DictReader(io.StringIO(text)):
        k = kernels.setdefault(int(row["ID"]), {"name": row["Kernel Name"]})
        try:
            k[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            k[row["Metric Name"]] = row["Metric Value"]
    done = [tuple(int(x) for x in line.split(",")) for line in listing.read_text().split()] \
        if listing.exists() else []
    groups: list[list[dict]] = []
    if only is not None:  # one call in this process: every kernel it launched is that call's
        groups = [[k for _, k in sorted(kernels.items())]] if kernels else []
    else:
        # One group per profiled call: a split-KV combine kernel joins the call before it.
        for _, k in sorted(kernels.items()):
            if groups and "combine" in k["name"]:
                groups[-1].append(k)
            else:
                groups.append([k])
    tail = (stderr.strip().splitlines() or [""])[-1][:100]
    if len(groups) != len(done):
        return [], f"{impl}: {len(groups)} kernel groups for {len(done)} configs; {tail}" + \
            (" [metric]" if "metric" in stderr.lower() else "")
    rows = []
    for (n, d, bh), ks in zip(done, groups):
        first = ks[0]

        def get(name, first=first):
            return first.get(name, "")
        rows.append({"impl": impl, "n": n, "d": d, "batch_heads": bh,
                     "dram_read_bytes": int(sum(k.get("dram__bytes_read.sum", 0) for k in ks)),
                     "dram_write_bytes": int(sum(k.get("dram__bytes_write.sum", 0) for k in ks)),
                     "ncu_time_ms": sum(k.get("gpu__time_duration.sum", 0) for k in ks) / 1e6,
                     "n_kernels": len(ks), "kernels": "|".join(k["name"][:40] for k in ks),
                     "grid": get("launch__grid_size"), "regs": get("launch__registers_per_thread"),
                     "smem_dyn": get("launch__shared_mem_per_block_dynamic"),
                     "smem_static": get("launch__shared_mem_per_block_static"),
                     "lim_regs": get("launch__occupancy_limit_registers"),
                     "lim_smem": get("launch__occupancy_limit_shared_mem"),
                     "lim_warps": get("launch__occupancy_limit_warps"),
                     "lim_blocks": get("launch__occupancy_limit_blocks"), "status": "ok"})
    return rows, f"{impl}: {len(rows)} configs; {tail}"


class Rows:
    def __init__(self, path: Path, prov: dict):
        self.file = open(path, "w", newline="")  # noqa: SIM115 (flushed per row, kept open)
        self.w = csv.DictWriter(self.file, fieldnames=FIELDS + PROV, extrasaction="ignore")
        self.w.writeheader()
        self.prov = prov

    def add(self, row: dict) -> None:
        self.w.writerow({**row, **self.prov})
        self.file.flush()


def ceilings(out: Path, prov: dict) -> None:
    import torch
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from unit_rates import matmul_rate, rates  # noqa: E402
    a = torch.empty(2**28, dtype=torch.float32, device="cuda").normal_()
    b = torch.empty_like(a)
    ts = []
    for i in range(13):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        b.copy_(a)
        e.record()
        torch.cuda.synchronize()
        if i >= 3:
            ts.append(s.elapsed_time(e))
    del a, b
    torch.cuda.empty_cache()
    rows = [["copy bandwidth (read + write)", 2 * 2**30 / (statistics.median(ts) * 1e-3) / 1e12, "TB/s"]]
    unit = {"ok": True}
    try:  # a failure here must not cost the run its kernel measurements
        rows.append(["dense matmul float16 (cuBLAS, 8192^3, random)", matmul_rate() / 1e12, "TFLOP/s"])
        unit = rates()
        rows += [["exp (ex2.approx, special-function units)", unit["exp"] / 1e12, "Tops/s"],
                 ["FP32 FFMA instructions (one op each)", unit["fp32"] / 1e12, "Tops/s"]]
    except Exception as e:  # noqa: BLE001
        print("ceiling failed:", repr(e)[:300], flush=True)
    with open(out / "whole_gpu_ceilings.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ceiling", "value", "unit"] + PROV)
        for r in rows:
            w.writerow(r + [prov[k] for k in PROV])
            print("ceiling", *r, "" if unit["ok"] else "(non-finite output!)", flush=True)
    torch.cuda.empty_cache()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--budget-s", type=float, default=540)
    p.add_argument("--profile-all", nargs=2, metavar=("IMPL", "LISTING"))
    p.add_argument("--only", help="with --profile-all: the one config n,d,bh")
    args = p.parse_args(argv)
    if args.profile_all:
        impl, listing = args.profile_all
        profile_all(impl, listing, only=args.only)
        return 0
    if args.dry_run:
        for impl in impls():
            print(impl, len(configs_for(impl)), "configs")
        return 0
    start = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    prov = provenance()
    print(prov, flush=True)
    ceilings(out, prov)
    timed = Rows(out / "whole_gpu_time.csv", prov)
    table: dict[tuple, dict] = {}
    for impl in impls():
        for n, d, bh in configs_for(impl):
            row = {"impl": impl, "n": n, "d": d, "batch_heads": bh, "kv_head_bytes": 4 * n * d}
            row.update(time_one(impl, n, d, bh, args.repeats))
            timed.add(row)
            table[(impl, n, d, bh)] = row
            print(f"time {impl:16s} n={n:7d} d={d:3d} bh={bh:3d} {row.get('time_ms', float('nan')):9.3f} ms "
                  f"{row['status'][:60]}", flush=True)
    print(f"timing done at {time.time() - start:.0f} s", flush=True)
    profiled = Rows(out / "whole_gpu_ncu.csv", prov)
    launch = True
    # the unfused versions first (one ncu process per config), then the fused families
    jobs: list[tuple[str, tuple | None]] = [(impl, c) for impl in UNFUSED for c in configs_for(impl)]
    jobs += [(impl, None) for impl in impls() if impl not in UNFUSED]
    for impl, only in jobs:
        left = args.budget_s - (time.time() - start)
        if left < 20:
            print(f"budget spent before ncu {impl} {only or ''}", flush=True)
            break
        rows, note = run_ncu(impl, out, left - 10, launch, only)
        if not rows and launch and note.endswith("[metric]"):  # a launch metric ncu lacks: three alone
            launch = False
            rows, note = run_ncu(impl, out, args.budget_s - (time.time() - start) - 10, launch, only)
        print("ncu", note, only or "", f"at {time.time() - start:.0f} s", flush=True)
        for r in rows:
            profiled.add(r)
            key = (r["impl"], r["n"], r["d"], r["batch_heads"])
            table.setdefault(key, {}).update({k: v for k, v in r.items() if k != "status"})
    joined = Rows(out / "whole_gpu.csv", prov)
    for row in table.values():
        joined.add(row)
    print(f"wrote {len(table)} rows at {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
