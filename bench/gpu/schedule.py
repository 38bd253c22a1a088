"""After the bytes, the schedule: cuDNN's attention, PyTorch's flash and the Triton kernel, side by side.

For each config (n, d, batch x heads), forward only, in float16 and bfloat16, causal and not:
  * cuDNN's SDPA backend (SDPBackend.CUDNN_ATTENTION): a Hopper-native kernel (TMA copies,
    wgmma, warp specialisation: FlashAttention-3's design);
  * PyTorch's flash backend (FlashAttention-2's code: mma.sync, the same warps for matmuls and softmax);
  * this project's Triton kernel (bench/gpu/triton_blocks.py, 128 x 64 tiles; causal skips the
    tiles past the diagonal and masks the diagonal ones).
Time by CUDA events (median after two warm-ups, repeats sized to about 0.15 s a variant); each
output checked against PyTorch's flash in the same dtype. DRAM read and write bytes by Nsight
Compute in float16: one ncu process per (kernel, causal) profiles every config once, a marker
kernel (ATen's spin_kernel) between configs, so every kernel of a call is summed into it; plus
launch statistics (grid, threads, registers, shared memory) and the exp unit's instructions
(sm__inst_executed_pipe_xu) where ncu has them.

Two sets of configs: MODEL, which the schedule model (flashviz/hardware/schedule.py) and the read model
(flashviz/hardware/gpu_model.py) may be built from, and HELD_APART, written to their own CSV and read only
to check the frozen models. The held-apart set also runs the Triton kernel at 64 x 64 and
128 x 128 (float16, not causal), for the read model's three tile shapes.

Unit rates first, in the same run (schedule_rates.csv): copy bandwidth; dense matmul in float16
and bfloat16 (cuBLAS) and FP8 e4m3 (torch._scaled_mm); the tensor cores alone through a Triton
kernel that keeps its tiles on chip, as wgmma and, in a child process with DISABLE_MMA_V3=1, as
mma.sync; the exp unit through a Triton kernel of dependent exp2 steps (compute-bound), and a
large torch.exp in float32 and float16 (memory-bound: its element rate is a DRAM rate); FP32
FFMA instructions.

    python bench/gpu/schedule.py --out flashviz/data/h200                 # on a CUDA machine with ncu
    python bench/gpu/schedule.py --dry-run --out /tmp/s          # the CPU: tiny configs, every CSV

Writes schedule_time.csv and schedule_ncu.csv row by row, then schedule.csv (MODEL, joined) and
schedule_heldout.csv (HELD_APART, joined); every row carries provenance (GPU, driver, CUDA,
PyTorch, cuDNN, Triton, date, command).
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# (n, d, batch x heads): d = 64 and 128, B*H = 1 to 128, n = 1024 to 524288 (K + V per head 0.25 to 128 MB)
MODEL = [
    (1024, 128, 128), (2048, 128, 128), (4096, 128, 128), (4096, 128, 64), (8192, 128, 64), (16384, 128, 16),
    (16384, 128, 1), (32768, 128, 1), (32768, 128, 8), (65536, 128, 1), (65536, 128, 4), (131072, 128, 1),
    (262144, 128, 1),
    (1024, 64, 128), (2048, 64, 128), (4096, 64, 128), (8192, 64, 32), (16384, 64, 8), (16384, 64, 32),
    (32768, 64, 1), (65536, 64, 8), (131072, 64, 1), (262144, 64, 1), (524288, 64, 1),
]
# Held apart: other n and B*H, near the L2 crossover and where K + V per head is large.
HELD_APART = [
    (3072, 128, 96), (12288, 128, 8), (24576, 128, 32), (49152, 128, 2), (98304, 128, 1), (196608, 128, 1),
    (12288, 64, 16), (49152, 64, 8), (98304, 64, 2), (393216, 64, 1),
]
DRY = [(128, 64, 2), (256, 64, 1)]
DRY_HELD = [(192, 64, 2)]
TIMED = ("cudnn", "flash", "triton_128x64")
READS_ONLY = ("triton_64x64", "triton_128x128")  # held-apart set only, float16, not causal
DTYPES = ("float16", "bfloat16")
METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum"
EXTRA = ("sm__inst_executed_pipe_xu.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,"
         "launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static")
MARKER = "spin_kernel"
FIELDS = ["set", "impl", "dtype", "causal", "n", "d", "batch_heads", "time_ms", "time_ms_p10", "time_ms_p90",
          "repeats", "tflops", "max_abs_diff", "dram_read_bytes", "dram_write_bytes", "ncu_time_ms", "xu_inst",
          "n_kernels", "kernels", "grid", "block", "regs", "smem_dyn", "smem_static", "status"]
RATE_FIELDS = ["rate", "dtype", "value", "unit", "how"]
PROV = ["gpu", "sms", "l2_bytes", "driver", "cuda", "torch", "cudnn", "triton", "date", "command"]


def flops(n: int, d: int, bh: int, causal: bool) -> float:
    """Matmul flops of the forward: 4 n^2 d per head, half of it with a causal mask."""
    return 4 * bh * n * n * d * (0.5 if causal else 1.0)


def fn_for(impl: str, causal: bool):
    """impl's forward on (B*H, n, d) tensors."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if impl in ("cudnn", "flash"):
        backend = SDPBackend.CUDNN_ATTENTION if impl == "cudnn" else SDPBackend.FLASH_ATTENTION

        def sdpa(q, k, v):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal)[0]
        return sdpa
    if impl == "math":  # the CPU's dry run: no fused backend there
        return lambda q, k, v: F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal)[0]
    sys.path.insert(0, str(HERE))
    from triton_blocks import run  # noqa: E402
    bm, bn = (int(x) for x in impl.split("_")[1].split("x"))
    return lambda q, k, v: run(q, k, v, bm, bn, causal)


def inputs(n, d, bh, dtype, device="cuda"):
    import torch
    g = torch.Generator(device=device).manual_seed(n + d + bh)
    dt_ = getattr(torch, dtype)
    return [torch.randn(bh, n, d, device=device, generator=g).to(dt_) for _ in range(3)]


def provenance(device: str) -> dict:
    import torch
    try:
        import triton
        tv = triton.__version__
    except ImportError:
        tv = "none"
    if device == "cuda":
        p = torch.cuda.get_device_properties(0)
        try:
            driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                    capture_output=True, text=True, timeout=30).stdout.strip()
        except OSError:
            driver = "unknown"
        gpu, sms, l2 = p.name, p.multi_processor_count, p.L2_cache_size
    else:
        gpu, sms, l2, driver = "cpu (dry run)", 0, 0, "none"
    return {"gpu": gpu, "sms": sms, "l2_bytes": l2, "driver": driver or "unknown",
            "cuda": torch.version.cuda or "none", "torch": torch.__version__,
            "cudnn": str(torch.backends.cudnn.version() or "none"), "triton": tv,
            "date": dt.date.today().isoformat(),
            "command": " ".join(["python", f"bench/gpu/{Path(sys.argv[0]).name}", *sys.argv[1:]])}


class Rows:
    """A CSV written row by row (a run cut short keeps what it measured), provenance on every row."""

    def __init__(self, path: Path, fields: list[str], prov: dict):
        self.file = open(path, "w", newline="")  # noqa: SIM115 (flushed per row, kept open)
        self.w = csv.DictWriter(self.file, fieldnames=fields + PROV, extrasaction="ignore")
        self.w.writeheader()
        self.prov = prov
        self.count = 0

    def add(self, row: dict) -> None:
        self.w.writerow({**row, **self.prov})
        self.file.flush()
        self.count += 1


def timed(fn, device: str, budget_s: float = 0.15) -> list[float]:
    """Milliseconds per call: CUDA events on a GPU (perf_counter on the CPU), two warm-ups, then
    enough calls for about budget_s (5 to 40)."""
    import torch

    def once() -> float:
        if device == "cuda":
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            return a.elapsed_time(b)
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e3
    once()
    first = once()
    repeats = max(5, min(40, int(budget_s * 1e3 / max(first, 1e-3))))
    return sorted(once() for _ in range(repeats))


def time_one(impl, dtype, causal, n, d, bh, device, ref) -> dict:
    import torch
    try:
        q, k, v = inputs(n, d, bh, dtype, device)
        fn = fn_for(impl, causal)
        out = fn(q, k, v)
        diff = (out.float() - ref.float()).abs().max().item() if ref is not None else 0.0
        del out
        ts = timed(lambda: fn(q, k, v), device)
    except Exception as e:  # a backend that refuses the shape or dtype, or memory runs out
        return {"status": "does not run: " + (str(e).strip().splitlines() or [repr(e)])[-1][:100]}
    finally:
        if device == "cuda":
            torch.cuda.empty_cache()
    med = statistics.median(ts)
    ok = "ok" if diff < 5e-2 else f"wrong: max abs diff {diff:.3g}"
    return {"time_ms": med, "time_ms_p10": ts[len(ts) // 10], "time_ms_p90": ts[(9 * len(ts)) // 10],
            "repeats": len(ts), "tflops": flops(n, d, bh, causal) / (med * 1e-3) / 1e12, "max_abs_diff": diff,
            "status": ok}


def reference(dtype, causal, n, d, bh, device):
    """PyTorch's flash output (the math backend on the CPU), the yardstick of the other kernels."""
    import torch
    try:
        out = fn_for("flash" if device == "cuda" else "math", causal)(*inputs(n, d, bh, dtype, device))
        return out.float() if device == "cpu" else out
    except Exception:  # noqa: BLE001
        return None
    finally:
        if device == "cuda":
            torch.cuda.empty_cache()


def profile_all(impl, causal, listing, configs) -> None:
    """Child of ncu: a marker kernel, then one call, per config; the configs run go to `listing`."""
    import torch
    fn = fn_for(impl, causal)
    with open(listing, "w") as f:
        for n, d, bh in configs:
            try:
                q, k, v = inputs(n, d, bh, "float16")
                fn(q, k, v)  # compile and warm outside the profiled range
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001
                torch.cuda.empty_cache()
                continue
            torch.cuda.profiler.start()
            torch.cuda._sleep(1)  # ATen's spin_kernel: the marker that opens this config's kernels
            fn(q, k, v)
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            f.write(f"{n},{d},{bh}\n")
            f.flush()
            del q, k, v
            torch.cuda.empty_cache()


def ncu_path() -> str:
    sys.path.insert(0, str(HERE))
    from whole_gpu import ncu_path as found  # noqa: E402
    return found()


def run_ncu(impl, causal, configs, timeout, extra: bool) -> tuple[list[dict], str]:
    listing = Path(os.environ.get("TMPDIR", "/tmp")) / f"schedule_listing_{impl}_{int(causal)}.txt"
    listing.unlink(missing_ok=True)
    spec = ";".join(f"{n},{d},{bh}" for n, d, bh in configs)
    cmd = [ncu_path(), "--clock-control", "none", "--profile-from-start", "off",
           "--metrics", METRICS + ("," + EXTRA if extra else ""), "--csv", "--print-units", "base",
           sys.executable, __file__, "--profile-all", impl, str(int(causal)), str(listing), spec]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=max(timeout, 5))
        stdout, stderr = res.stdout, res.stderr
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = "timeout"
    text = stdout[stdout.find('"ID"'):] if '"ID"' in stdout else ""
    kernels: dict[int, dict] = {}
    for row in csv.DictReader(io.StringIO(text)):
        k = kernels.setdefault(int(row["ID"]), {"name": row["Kernel Name"]})
        try:
            k[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            k[row["Metric Name"]] = row["Metric Value"]
    groups: list[list[dict]] = []
    for _, k in sorted(kernels.items()):  # a marker opens each config's group
        if MARKER in k["name"]:
            groups.append([])
        elif groups:
            groups[-1].append(k)
    done = [tuple(int(x) for x in line.split(",")) for line in listing.read_text().split()] \
        if listing.exists() else []
    tail = (stderr.strip().splitlines() or [""])[-1][:100]
    errors = stderr + "".join(line for line in stdout.splitlines() if line.startswith("==ERROR=="))
    if len(groups) != len(done):
        return [], f"{impl} causal={causal}: {len(groups)} groups for {len(done)} configs; {tail}" + \
            (" [metric]" if "metric" in errors.lower() else "")
    rows = []
    for (n, d, bh), ks in zip(done, groups):
        main = max(ks, key=lambda k: k.get("gpu__time_duration.sum", 0)) if ks else {}
        rows.append({"impl": impl, "dtype": "float16", "causal": int(causal), "n": n, "d": d, "batch_heads": bh,
                     "dram_read_bytes": int(sum(k.get("dram__bytes_read.sum", 0) for k in ks)),
                     "dram_write_bytes": int(sum(k.get("dram__bytes_write.sum", 0) for k in ks)),
                     "ncu_time_ms": sum(k.get("gpu__time_duration.sum", 0) for k in ks) / 1e6,
                     "xu_inst": sum(k.get("sm__inst_executed_pipe_xu.sum", 0) for k in ks) if extra else "",
                     "n_kernels": len(ks), "kernels": "|".join(k["name"][:60] for k in ks),
                     "grid": main.get("launch__grid_size", ""), "block": main.get("launch__block_size", ""),
                     "regs": main.get("launch__registers_per_thread", ""),
                     "smem_dyn": main.get("launch__shared_mem_per_block_dynamic", ""),
                     "smem_static": main.get("launch__shared_mem_per_block_static", ""), "status": "ok"})
    return rows, f"{impl} causal={causal}: {len(rows)} configs; {tail}"


def unit_rates(out: Path, prov: dict) -> None:
    """The rates the schedule model divides by, each measured here and now; a failure of one is
    logged and the run goes on."""
    import torch
    sys.path.insert(0, str(HERE))
    import unit_rates as u  # noqa: E402
    rows = Rows(out / "schedule_rates.csv", RATE_FIELDS, prov)

    def add(rate, dtype, fn, unit, how):
        try:
            value = fn()
            rows.add({"rate": rate, "dtype": dtype, "value": value, "unit": unit, "how": how})
            print(f"rate {rate:28s} {dtype:9s} {value:10.3f} {unit}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"rate {rate} {dtype} failed: {repr(e)[:200]}", flush=True)
        torch.cuda.empty_cache()

    def copy_bw():
        a = torch.empty(2**28, dtype=torch.float32, device="cuda").normal_()
        b = torch.empty_like(a)
        return 2 * a.numel() * 4 / (u._median_ms(lambda: b.copy_(a)) * 1e-3) / 1e12
    add("copy bandwidth", "any", copy_bw, "TB/s", "device-to-device copy of 1 GiB, read + write")
    for name in DTYPES:
        add("dense matmul", name, lambda name=name: u.matmul_rate(getattr(torch, name)) / 1e12, "TFLOP/s",
            "cuBLAS 8192^3, random data")
    add("dense matmul", "float8_e4m3fn", lambda: u.fp8_rate() / 1e12, "TFLOP/s",
        "torch._scaled_mm 8192^3, random data, bf16 out, unit scales")
    add("tensor cores wgmma", "float16", lambda: u.mma_rate() / 1e12, "TFLOP/s",
        "Triton mma_chain: 128x64 by 64x128 tiles on chip, 256 dependent dots, 4 blocks of 8 warps per SM")
    child = subprocess.run([sys.executable, str(HERE / "unit_rates.py"), "--mma"], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "DISABLE_MMA_V3": "1",
                                             "TRITON_CACHE_DIR": "/tmp/triton_cache_mma_v2"})
    got = child.stdout.strip().splitlines()
    add("tensor cores mma.sync", "float16", lambda: float(got[-1].split()[-1]), "TFLOP/s",
        "the same kernel compiled with DISABLE_MMA_V3=1 (Ampere's mma.sync), in a child process")
    if child.returncode:
        print("mma.sync child:", child.stderr[-300:], flush=True)
    r: dict[str, Any] = {}
    add("exp unit (ex2.approx)", "float32", lambda: r.setdefault("u", u.rates())["exp"] / 1e12, "T/s",
        "Triton exp_chain: 2^22 elements x 4096 dependent exp2 steps, in registers (compute-bound)")
    add("FP32 FFMA instructions", "float32", lambda: r["u"]["fp32"] / 1e12, "T/s",
        "Triton fma_chain: 2^22 elements x 16384 dependent FFMA, one op each")
    for name in ("float32", "float16"):
        add("torch.exp elements", name, lambda name=name: u.torch_exp_rate(getattr(torch, name)) / 1e12, "T/s",
            "one torch.exp over 2^28 elements: reads and writes each, DRAM-bound")


def measure(out: Path, device: str, budget_s: float, start: float) -> None:
    import torch
    prov = provenance(device)
    print(prov, flush=True)
    if device == "cuda":
        unit_rates(out, prov)
    sets = [("model", DRY if device == "cpu" else MODEL), ("held-apart", DRY_HELD if device == "cpu" else HELD_APART)]
    impls = ("math",) if device == "cpu" else TIMED
    dtypes = ("float32",) if device == "cpu" else DTYPES
    rows = Rows(out / "schedule_time.csv", FIELDS, prov)
    table: dict[tuple, dict] = {}
    time_budget = 0.55 * budget_s  # the rest is Nsight Compute's
    # smallest calls first, both sets interleaved: a run cut short loses the largest of each set
    every = sorted(((set_, c) for set_, cs in sets for c in cs),
                   key=lambda sc: flops(sc[1][0], sc[1][1], sc[1][2], False))
    for set_, (n, d, bh) in every:
        if time.time() - start > time_budget:
            print(f"timing budget spent at {time.time() - start:.0f} s, before {n}/{d}/{bh}", flush=True)
            break
        for dtype in dtypes:
            for causal in (False, True):
                ref = reference(dtype, causal, n, d, bh, device)
                reads_only = READS_ONLY if set_ == "held-apart" and dtype == "float16" and not causal else ()
                for impl in (*impls, *(() if device == "cpu" else reads_only)):
                    row = {"set": set_, "impl": impl, "dtype": dtype, "causal": int(causal), "n": n, "d": d,
                           "batch_heads": bh}
                    row.update(time_one(impl, dtype, causal, n, d, bh, device, ref))
                    rows.add(row)
                    table[(impl, dtype, int(causal), n, d, bh)] = row
                    print(f"time {set_:10s} {impl:15s} {dtype:8s} c={int(causal)} n={n:6d} d={d:3d} bh={bh:3d} "
                          f"{row.get('time_ms', float('nan')):9.3f} ms {row.get('tflops', 0):6.1f} TF/s "
                          f"{row['status'][:50]}", flush=True)
                del ref
    print(f"timing done at {time.time() - start:.0f} s", flush=True)
    if device == "cuda":
        ncu = Rows(out / "schedule_ncu.csv", FIELDS, prov)
        both = MODEL + HELD_APART  # not causal first, then the read model's held-apart shapes, then causal
        jobs = [(impl, False, both) for impl in TIMED] + [(impl, False, HELD_APART) for impl in READS_ONLY]
        jobs += [(impl, True, both) for impl in TIMED]
        extra = True
        for impl, causal, configs in jobs:
            left = budget_s - (time.time() - start)
            if left < 25:
                print(f"budget spent before ncu {impl} causal={causal}", flush=True)
                break
            got, note = run_ncu(impl, causal, configs, min(100, left - 15), extra)
            if not got and extra and note.endswith("[metric]"):  # a metric this ncu lacks: the three alone
                extra = False
                got, note = run_ncu(impl, causal, configs, budget_s - (time.time() - start) - 15, extra)
            print("ncu", note, f"at {time.time() - start:.0f} s", flush=True)
            for r in got:
                r["set"] = "model" if (r["n"], r["d"], r["batch_heads"]) in MODEL else "held-apart"
                ncu.add(r)
                table.setdefault((r["impl"], "float16", r["causal"], r["n"], r["d"], r["batch_heads"]), {}).update(
                    {k: v for k, v in r.items() if k != "status"})
        del torch
    for set_, name in (("model", "schedule.csv"), ("held-apart", "schedule_heldout.csv")):
        joined = Rows(out / name, FIELDS, prov)
        for row in table.values():
            if row.get("set") == set_:
                joined.add(row)
        print(f"wrote {out / name} ({joined.count} rows) at {time.time() - start:.0f} s", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true", help="tiny configs on the CPU, PyTorch's math backend")
    p.add_argument("--budget-s", type=float, default=420, help="stop cleanly after about this many seconds")
    p.add_argument("--profile-all", nargs=4, metavar=("IMPL", "CAUSAL", "LISTING", "CONFIGS"))
    args = p.parse_args(argv)
    if args.profile_all:
        impl, causal, listing, spec = args.profile_all
        profile_all(impl, causal == "1", listing, [tuple(int(x) for x in c.split(",")) for c in spec.split(";")])
        return 0
    device = "cpu" if args.dry_run else "cuda"
    import torch
    if device == "cuda" and not torch.cuda.is_available():
        sys.stderr.write("no CUDA device: use --dry-run\n")
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    measure(out, device, args.budget_s, time.time())
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
