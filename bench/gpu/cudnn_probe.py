"""Why cuDNN's attention is slower than the FlashAttention-3 schedule model (issue 21, part 2).

The schedule model (flashviz/hardware/schedule.py) divides cuDNN's counted work by unit rates measured
alone, and takes every overlap as perfect; cuDNN's kernel takes longer. This probe measures, in
one run on the H200, what the model could be missing:

  clocks     the SM clock and power while each unit-rate kernel and each attention kernel runs
             back to back for about a second (NVML sampled every 5 ms), as schedule.py times them
  host       each call timed twice by CUDA events: plainly (the GPU idles while the host
             dispatches the call, as schedule.py measures) and with the host hidden behind a
             spin kernel queued first (the kernel alone); the difference is the host's dispatch
  start-up   cuDNN and PyTorch flash with one 128-row query block per head and 132 x u heads
             (u work units per SM), keys 128 to 8192 long: time against tiles per unit gives the
             cost per unit (Q in, pipeline fill, O out) and per launch apart from the tiles
  counters   Nsight Compute on cuDNN's kernel at 12 configs (d = 64 and 128, causal and not,
             small and large), on PyTorch flash at 2, and on the unit-rate kernels: the SM clock
             under the load (sm__cycles_elapsed.avg.per_second), pipe activity (tensor, xu, FMA,
             ALU), warp stall reasons, achieved occupancy, and per-SM spread of active cycles and
             exp-unit instructions (the persistent scheduler's balance)

    python bench/gpu/cudnn_probe.py --out $OUT                # on the H200
    python bench/gpu/cudnn_probe.py --dry-run --out /tmp/p    # the CPU: tiny configs, every CSV

  loop clock (--loop-clock, a second run) the SM clock while each attention kernel runs back to back
             as schedule.py times it, read on the SMs themselves: a stamp kernel of 528 one-warp blocks
             records each SM's %smid, clock64 and %globaltimer just before and just after the call (all
             three queued behind a spin kernel, so the host's dispatch falls outside); per SM, cycles
             over nanoseconds is its clock over the call. And the call timed after 0.2 s of idle.

Writes probe_clocks.csv, probe_startup.csv, probe_ncu.csv (a summary row per kernel) and
probe_ncu_raw.csv (every metric ncu printed); with --loop-clock only probe_loop_clock.csv. Every row
carries provenance.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from schedule import PROV, Rows, fn_for, inputs, provenance  # noqa: E402

SMS = 132
# attention kernels, float16: (impl, n, d, batch x heads, causal)
ATTN = [("cudnn", 262144, 128, 1, 0), ("cudnn", 262144, 128, 1, 1), ("cudnn", 16384, 128, 16, 0),
        ("cudnn", 16384, 128, 16, 1), ("cudnn", 1024, 128, 128, 0), ("cudnn", 1024, 128, 128, 1),
        ("cudnn", 131072, 64, 1, 0), ("cudnn", 131072, 64, 1, 1), ("cudnn", 16384, 64, 32, 0),
        ("cudnn", 16384, 64, 32, 1), ("cudnn", 1024, 64, 128, 0), ("cudnn", 1024, 64, 128, 1),
        ("flash", 65536, 128, 4, 0), ("flash", 131072, 64, 1, 0)]
DRY_ATTN = [("math", 256, 64, 2, 0), ("math", 256, 64, 2, 1)]
# unit-rate kernels, long enough (about 1 ms or more) that launch and fill do not bias them:
# (unit, blocks per SM, warps per block, independent chains a thread (exp, fp32) or 0 (wgmma))
MICRO = [("wgmma", 4, 8, 0), ("wgmma", 1, 8, 0), ("wgmma", 1, 4, 0), ("exp", 31, 4, 8), ("exp", 1, 4, 64),
         ("fp32", 31, 4, 8), ("fp32", 1, 4, 64)]
EXP_STEPS, FMA_STEPS, MMA_STEPS = 8192, 32768, 2048
STARTUP_KV = (128, 256, 512, 1024, 2048, 4096, 8192)
STARTUP_UNITS = (1, 2, 4)
DRY_STARTUP_KV, DRY_STARTUP_UNITS = (128, 256), (1,)
SPIN_CYCLES = 2_000_000  # about 1 ms of spin: longer than any host dispatch, so the kernel waits on nothing
SECTIONS = ("SpeedOfLight", "ComputeWorkloadAnalysis", "WarpStateStats", "Occupancy", "LaunchStats",
            "SchedulerStats")
METRICS = ("sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,"
           "sm__cycles_active.min,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_xu.max,"
           "sm__inst_executed_pipe_xu.min,gpu__time_duration.sum,dram__bytes_read.sum")
MARKER = "spin_kernel"
CLOCK_FIELDS = ["what", "impl", "n", "d", "batch_heads", "causal", "unit", "blocks_per_sm", "warps_per_block",
                "ilp", "calls", "ms_plain", "ms_hidden", "host_us", "rate", "rate_unit", "sm_mhz_median",
                "sm_mhz_min", "power_w_median", "reasons", "samples"]
STARTUP_FIELDS = ["impl", "d", "units_per_sm", "heads", "lq", "lkv", "tiles_per_unit", "ms_plain", "ms_hidden",
                  "status"]
LOOP_FIELDS = ["impl", "n", "d", "batch_heads", "causal", "calls", "sms_matched", "ms_stamped", "mhz_median",
               "mhz_min", "mhz_max", "ms_after_idle", "mhz_after_idle", "status"]
STAMP = r"""
extern "C" __global__ void stamp(unsigned long long* out) {
    unsigned int sm;
    unsigned long long t;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    unsigned long long c = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = sm;
        out[3 * blockIdx.x + 1] = c;
        out[3 * blockIdx.x + 2] = t;
    }
}
"""
NCU_FIELDS = ["label", "kernel", "clock_mhz", "duration_ms", "cycles_elapsed_max", "active_avg", "active_max",
              "active_min", "xu_sum", "xu_max", "xu_min", "tensor_pct", "xu_pct", "fma_pct", "alu_pct",
              "issue_active_pct", "achieved_occupancy_pct", "stall_top", "grid", "block", "regs"]


class Clock:
    """NVML sampled in a thread while a workload runs: the SM clock (MHz), power (W), and the
    clock-event reasons' bit mask (power cap, thermal, ...)."""

    def __init__(self, period_s: float = 0.005):
        self.period, self.ok = period_s, False
        self.samples: list[tuple] = []
        try:
            import pynvml
            pynvml.nvmlInit()
            self.nv, self.h = pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
            self.ok = True
        except Exception as e:  # noqa: BLE001 (no NVML: clocks left empty, the rest goes on)
            print("NVML unavailable:", repr(e)[:200], flush=True)

    def _read(self) -> tuple[float, float, int]:
        nv, h = self.nv, self.h
        reasons = 0
        for name in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            if hasattr(nv, name):
                reasons = int(getattr(nv, name)(h))
                break
        return (float(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)), nv.nvmlDeviceGetPowerUsage(h) / 1e3, reasons)

    def during(self, work, seconds: float) -> dict:
        """Run work() repeatedly for about `seconds`, sampling; the samples of the last 80%."""
        self.samples = []
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                with contextlib.suppress(Exception):
                    self.samples.append(self._read())
                time.sleep(self.period)
        th = threading.Thread(target=sample, daemon=True)
        if self.ok:
            th.start()
        t0, calls = time.time(), 0
        while time.time() - t0 < seconds:
            work()
            calls += 1
        stop.set()
        if self.ok:
            th.join()
        s = self.samples[len(self.samples) // 5:]
        if not s:
            return {"calls": calls, "samples": 0}
        reasons = statistics.mode(r for _, _, r in s)
        return {"calls": calls, "samples": len(s), "sm_mhz_median": statistics.median(c for c, _, _ in s),
                "sm_mhz_min": min(c for c, _, _ in s), "power_w_median": statistics.median(p for _, p, _ in s),
                "reasons": hex(reasons)}


def time_two_ways(fn, device: str, repeats: int = 7) -> tuple[float, float]:
    """(plain, hidden) median ms of fn: events around the call, the GPU idle before it (the host's
    dispatch shows), and the same with a spin kernel queued first (the kernel alone)."""
    import torch
    if device != "cuda":
        t = time.perf_counter()
        fn()
        ms = (time.perf_counter() - t) * 1e3
        return ms, ms
    plain: list[float] = []
    hidden: list[float] = []
    fn()
    torch.cuda.synchronize()
    for _ in range(repeats):
        for spin, out in ((False, plain), (True, hidden)):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if spin:
                torch.cuda._sleep(SPIN_CYCLES)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            out.append(a.elapsed_time(b))
    return statistics.median(plain), statistics.median(hidden)


def micro_fn(unit: str, bps: int, warps: int, ilp: int):
    """(callable, operations per call) of one unit-rate kernel at blocks x warps per SM."""
    import torch
    import unit_rates as u
    grid = (SMS * bps,)
    if unit in ("exp", "fp32"):
        block = 32 * warps * ilp
        x = -torch.rand(grid[0] * block, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        kern, steps = (u.exp_chain, EXP_STEPS) if unit == "exp" else (u.fma_chain, FMA_STEPS)
        return (lambda: kern[grid](x, y, STEPS=steps, BLOCK=block, num_warps=warps)), x.numel() * steps
    M, N, K = u.MMA_M, u.MMA_N, u.MMA_K
    a = (torch.rand(grid[0] * M, K, device="cuda") / K).half()
    b = (torch.rand(K, N, device="cuda") / K).half()
    c = torch.empty(grid[0] * M, N, device="cuda")
    return ((lambda: u.mma_chain[grid](a, b, c, STEPS=MMA_STEPS, M=M, N=N, K=K, num_warps=warps)),
            grid[0] * MMA_STEPS * 2 * M * N * K)


def attn_fn(impl, n, d, bh, causal, device):
    q, k, v = inputs(n, d, bh, "float16" if device == "cuda" else "float32", device)
    f = fn_for(impl, bool(causal))
    return lambda: f(q, k, v)


def clocks(out: Path, prov: dict, device: str, attn, seconds: float) -> None:
    rows = Rows(out / "probe_clocks.csv", CLOCK_FIELDS, prov)
    clock = Clock() if device == "cuda" else None
    plan = [("micro", m) for m in (MICRO if device == "cuda" else [])] + [("attention", a) for a in attn]
    for what, spec in plan:
        row: dict = {"what": what}
        try:
            if what == "micro":
                unit, bps, warps, ilp = spec
                fn, ops = micro_fn(unit, bps, warps, ilp)
                row.update(unit=unit, blocks_per_sm=bps, warps_per_block=warps, ilp=ilp)
            else:
                impl, n, d, bh, causal = spec
                fn, ops = attn_fn(impl, n, d, bh, causal, device), 4 * bh * n * n * d * (0.5 if causal else 1)
                row.update(impl=impl, n=n, d=d, batch_heads=bh, causal=causal)
            plain, hidden = time_two_ways(fn, device)
            row.update(ms_plain=plain, ms_hidden=hidden, host_us=1e3 * (plain - hidden),
                       rate=ops / (hidden * 1e-3) / 1e12, rate_unit="TFLOP/s" if what == "attention" or
                       spec[0] == "wgmma" else "T/s")
            if clock is not None:
                import torch

                def work(fn=fn):
                    fn()
                    torch.cuda.synchronize()
                row.update(clock.during(work, seconds))
        except Exception as e:  # noqa: BLE001 (one failure logged, the rest go on)
            print("clocks failed", spec, repr(e)[:300], flush=True)
            continue
        rows.add(row)
        print(f"clock {what:9s} {str(spec):40s} plain {row['ms_plain']:9.4f} ms hidden {row['ms_hidden']:9.4f} ms "
              f"{row['rate']:8.2f} {row['rate_unit']} {row.get('sm_mhz_median', '-')} MHz "
              f"{row.get('power_w_median', '-')} W {row.get('reasons', '')}", flush=True)


def startup(out: Path, prov: dict, device: str) -> None:
    """One 128-row query block per head, 132 x u heads: the kernel's time against its key tiles."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = Rows(out / "probe_startup.csv", STARTUP_FIELDS, prov)
    units = STARTUP_UNITS if device == "cuda" else DRY_STARTUP_UNITS
    kvs = STARTUP_KV if device == "cuda" else DRY_STARTUP_KV
    impls = ("cudnn", "flash") if device == "cuda" else ("math",)
    dtype = torch.float16 if device == "cuda" else torch.float32
    for impl in impls:
        backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                   "math": SDPBackend.MATH}[impl]
        for d in (64, 128):
            for u in units:
                heads = (SMS if device == "cuda" else 2) * u
                for lkv in kvs:
                    row: dict[str, object] = {"impl": impl, "d": d, "units_per_sm": u, "heads": heads, "lq": 128,
                                              "lkv": lkv, "tiles_per_unit": lkv // 128}
                    try:
                        q = torch.randn(1, heads, 128, d, device=device, dtype=dtype)
                        k = torch.randn(1, heads, lkv, d, device=device, dtype=dtype)
                        v = torch.randn(1, heads, lkv, d, device=device, dtype=dtype)

                        def call(q=q, k=k, v=v, backend=backend):
                            with sdpa_kernel(backend):
                                return F.scaled_dot_product_attention(q, k, v)
                        plain, hidden = time_two_ways(call, device, repeats=9)
                        row.update(ms_plain=plain, ms_hidden=hidden, status="ok")
                    except Exception as e:  # noqa: BLE001
                        row["status"] = "does not run: " + (str(e).strip().splitlines() or [repr(e)])[-1][:100]
                    rows.add(row)
                    print(f"startup {impl:5s} d={d:3d} u={u} lkv={lkv:5d} {row.get('ms_plain', float('nan')):8.4f} "
                          f"{row.get('ms_hidden', float('nan')):8.4f} ms {str(row['status'])[:60]}", flush=True)


def sm_clocks(before, after) -> list[float]:
    """Per SM seen in both stamps: (cycles after - before) / (ns after - before), in MHz."""
    first = {int(sm): (int(c), int(t)) for sm, c, t in before.reshape(-1, 3).tolist()}
    got = []
    for sm, c, t in after.reshape(-1, 3).tolist():
        if int(sm) in first and int(t) > first[int(sm)][1]:
            got.append(1e3 * (int(c) - first[int(sm)][0]) / (int(t) - first[int(sm)][1]))
    return got


def loop_clock(out: Path, prov: dict, device: str, attn, seconds: float) -> None:
    """The SM clock over each call as the timing loop runs it (module docstring), and the call's time
    after the GPU idled."""
    rows = Rows(out / "probe_loop_clock.csv", LOOP_FIELDS, prov)
    if device != "cuda":
        return
    import torch
    try:
        import cupy as cp
        kern = cp.RawKernel(STAMP, "stamp")
    except Exception as e:  # noqa: BLE001
        print("no CuPy, no loop clock:", repr(e)[:200], flush=True)
        return
    blocks = 4 * SMS
    for impl, n, d, bh, causal in attn:
        row: dict[str, object] = {"impl": impl, "n": n, "d": d, "batch_heads": bh, "causal": causal}
        try:
            fn = attn_fn(impl, n, d, bh, causal, device)
            bufs = [torch.zeros(3 * blocks, dtype=torch.int64, device="cuda") for _ in range(2)]
            stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

            def stamp(buf, stream=stream):
                with stream:
                    kern((blocks,), (32,), (cp.asarray(buf),))
            fn()
            torch.cuda.synchronize()
            clocks: list[float] = []
            spans: list[float] = []
            t0 = time.time()
            while time.time() - t0 < seconds or len(spans) < 3:
                torch.cuda._sleep(SPIN_CYCLES)
                stamp(bufs[0])
                fn()
                stamp(bufs[1])
                torch.cuda.synchronize()
                before, after = (b.cpu().numpy() for b in bufs)
                mhz = sm_clocks(before, after)
                clocks.append(statistics.median(mhz) if mhz else float("nan"))
                spans.append((after.reshape(-1, 3)[:, 2].max() - before.reshape(-1, 3)[:, 2].min()) / 1e6)
                row["sms_matched"] = len(mhz)
            time.sleep(0.2)
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(SPIN_CYCLES // 4)
            stamp(bufs[0])
            a.record()
            fn()
            b.record()
            stamp(bufs[1])
            torch.cuda.synchronize()
            idle = sm_clocks(*(x.cpu().numpy() for x in bufs))
            row.update(calls=len(clocks), ms_stamped=statistics.median(spans),
                       mhz_median=statistics.median(clocks), mhz_min=min(clocks), mhz_max=max(clocks),
                       ms_after_idle=a.elapsed_time(b), mhz_after_idle=statistics.median(idle) if idle else "",
                       status="ok")
        except Exception as e:  # noqa: BLE001 (one failure logged, the rest go on)
            row["status"] = "failed: " + repr(e)[:100]
        rows.add(row)
        print("loop clock", {k: row.get(k) for k in ("impl", "n", "d", "batch_heads", "causal", "calls", "sms_matched",
                                                     "ms_stamped", "mhz_median", "ms_after_idle", "mhz_after_idle",
                                                     "status")}, flush=True)


def ncu_child(labels: list[str]) -> None:
    """Under ncu: for each label a marker kernel, then one call of that kernel (warmed first)."""
    import torch
    for label in labels:
        kind, *rest = label.split(":")
        if kind == "micro":
            unit, bps, warps, ilp = rest[0], int(rest[1]), int(rest[2]), int(rest[3])
            fn, _ = micro_fn(unit, bps, warps, ilp)
        else:
            impl, n, d, bh, causal = rest[0], *map(int, rest[1:])
            fn = attn_fn(impl, n, d, bh, causal, "cuda")
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        torch.cuda._sleep(1)
        fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        del fn
        torch.cuda.empty_cache()


def _num(x) -> float:
    try:
        return float(str(x).replace(",", ""))
    except ValueError:
        return float("nan")


def _first(row: dict, *needles: str) -> float:
    """The first metric whose name holds every needle (ncu's names differ between versions)."""
    for k, v in row.items():
        if all(s in k for s in needles):
            return _num(v)
    return float("nan")


def summarise(raw: dict, label: str) -> dict:
    stalls = {k.split("issue_stalled_")[1].split("_per_")[0]: _num(v) for k, v in raw.items()
              if "average_warps_issue_stalled_" in k and k.endswith("per_issue_active.ratio")}
    top = sorted(((v, k) for k, v in stalls.items() if v == v), reverse=True)[:6]
    return {"label": label, "kernel": raw.get("Kernel Name", "")[:70],
            "clock_mhz": _num(raw.get("sm__cycles_elapsed.avg.per_second", "nan")) / 1e6,
            "duration_ms": _num(raw.get("gpu__time_duration.sum", "nan")) / 1e6,
            "cycles_elapsed_max": raw.get("sm__cycles_elapsed.max", ""),
            "active_avg": raw.get("sm__cycles_active.avg", ""), "active_max": raw.get("sm__cycles_active.max", ""),
            "active_min": raw.get("sm__cycles_active.min", ""),
            "xu_sum": raw.get("sm__inst_executed_pipe_xu.sum", ""),
            "xu_max": raw.get("sm__inst_executed_pipe_xu.max", ""),
            "xu_min": raw.get("sm__inst_executed_pipe_xu.min", ""),
            "tensor_pct": _first(raw, "pipe_tensor", "cycles_active", "pct_of_peak_sustained_active"),
            "xu_pct": _first(raw, "pipe_xu", "cycles_active", "pct_of_peak_sustained_active"),
            "fma_pct": _first(raw, "pipe_fma", "cycles_active", "pct_of_peak_sustained_active"),
            "alu_pct": _first(raw, "pipe_alu", "cycles_active", "pct_of_peak_sustained_active"),
            "issue_active_pct": _first(raw, "issue_active", "pct_of_peak_sustained_active"),
            "achieved_occupancy_pct": _num(raw.get("sm__warps_active.avg.pct_of_peak_sustained_active", "nan")),
            "stall_top": " ".join(f"{k}={v:.2f}" for v, k in top),
            "grid": raw.get("launch__grid_size", ""), "block": raw.get("launch__block_size", ""),
            "regs": raw.get("launch__registers_per_thread", "")}


def counters(out: Path, prov: dict, attn, timeout: float, deadline: float) -> None:
    labels = [f"attn:{i}:{n}:{d}:{bh}:{c}" for i, n, d, bh, c in attn] + \
             [f"micro:{u}:{b}:{w}:{i}" for u, b, w, i in MICRO]
    from whole_gpu import ncu_path
    base = [ncu_path(), "--clock-control", "none", "--profile-from-start", "off", "--csv", "--page", "raw",
            "--print-units", "base"]
    child = [sys.executable, __file__, "--ncu-child", ";".join(labels)]
    tries = [[*(a for s in SECTIONS for a in ("--section", s)), "--metrics", METRICS],
             [*(a for s in SECTIONS for a in ("--section", s))], ["--metrics", METRICS]]
    text = ""
    for extra in tries:
        t0 = time.time()
        left = min(timeout, deadline - t0)
        if left < 30:
            print(f"ncu: {left:.0f} s left, not started", flush=True)
            break
        try:
            res = subprocess.run(base + extra + child, capture_output=True, text=True, timeout=left)
            stdout, stderr = res.stdout, res.stderr
        except subprocess.TimeoutExpired as e:
            stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            stderr = "timeout"
        text = stdout[stdout.find('"ID"'):] if '"ID"' in stdout else ""
        print(f"ncu {' '.join(extra)[:80]}: {len(text)} chars in {time.time() - t0:.0f} s; "
              f"{(stderr.strip().splitlines() or [''])[-1][:200]}", flush=True)
        if text:
            break
        print("ncu stdout tail:", stdout[-1500:], flush=True)
    (out / "probe_ncu_raw.csv").write_text(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    rows = [r for r in rows if r.get("ID", "").strip().isdigit()]  # the units row has no ID
    summary = Rows(out / "probe_ncu.csv", NCU_FIELDS, prov)
    it = iter(labels)
    label = None
    for r in rows:
        if MARKER in r.get("Kernel Name", ""):
            label = next(it, None)
            continue
        s = summarise(r, label or "?")
        summary.add(s)
        print("ncu", {k: s[k] for k in ("label", "clock_mhz", "duration_ms", "tensor_pct", "xu_pct", "fma_pct",
                                         "issue_active_pct", "achieved_occupancy_pct", "stall_top")}, flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--seconds", type=float, default=1.0, help="each workload's run under the clock sampler")
    p.add_argument("--ncu-timeout", type=float, default=300)
    p.add_argument("--budget-s", type=float, default=480, help="Nsight Compute stops before this many seconds")
    p.add_argument("--ncu-child")
    p.add_argument("--loop-clock", action="store_true", help="only the clock over each call in the timing loop")
    args = p.parse_args(argv)
    if args.ncu_child:
        ncu_child(args.ncu_child.split(";"))
        return 0
    device = "cpu" if args.dry_run else "cuda"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    prov = provenance(device)
    print(prov, flush=True)
    t0 = time.time()
    attn = DRY_ATTN if device == "cpu" else ATTN
    if args.loop_clock:
        loop_clock(out, prov, device, attn, args.seconds)
        print(f"done at {time.time() - t0:.0f} s", flush=True)
        return 0
    clocks(out, prov, device, attn, args.seconds)
    print(f"clocks done at {time.time() - t0:.0f} s", flush=True)
    startup(out, prov, device)
    print(f"start-up done at {time.time() - t0:.0f} s", flush=True)
    if device == "cuda":
        counters(out, prov, attn, args.ncu_timeout, t0 + args.budget_s)
    else:
        Rows(out / "probe_ncu.csv", NCU_FIELDS, prov)
    print(f"done at {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    assert PROV  # the provenance columns every CSV carries (schedule.PROV)
    sys.exit(main())
