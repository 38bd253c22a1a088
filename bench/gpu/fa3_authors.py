"""FlashAttention-3's design as its authors ship it, on the H200, beside cuDNN and PyTorch flash (issue 38).

flash-attn-4 (Dao-AILab's CuTe-DSL FlashAttention, PyPI `flash-attn-4`) runs FlashAttention-3's Hopper
design on sm90 (flash_attn/cute/flash_fwd_sm90.py and flash_bwd_sm90.py: TMA copies, wgmma, a producer
warp group and two consumer warp groups, intra-warpgroup overlap; tiles from FA3's hopper/tile_size.h)
behind `flash_attn.cute.flash_attn_func`. This bench times it beside SDPA's cuDNN and flash backends on
the same values (fa4 takes (batch, n, heads, d), SDPA (batch, heads, n, d): the same numbers, each in
its own native layout), forward and backward, float16 and bfloat16, causal and not, d = 64, 128, 256:

  time      CUDA events, each call twice: from an idle GPU (ms, as bench/gpu/schedule.py times) and
            queued behind a spin kernel (ms_hidden: the kernels alone; the difference is the host's
            dispatch); the median of REPEATS pairs after a warm-up
  clock     the SM clock over one call in the loop, read on the SMs themselves (cudnn_probe's stamp
            kernel: %smid, clock64 and %globaltimer just before and after the call)
  checked   every output against PyTorch flash's in the same dtype (forward: max abs difference;
            backward: ||g - g_flash|| / ||g_flash|| of dQ, dK, dV, the worst of the three)
  DRAM      Nsight Compute's dram__bytes_read/write on NCU configs (float16 forward)
  masks     through flash-attn-4 alone: sliding windows of 128 keys up to n, packed documents
            (cu_seqlens, flash_attn_varlen_func) and learnable sinks, timed at MASK_SHAPE, each mask
            first checked against masked standard attention in float32 at a small shape

Two sets: MODEL, which the schedule model may be compared on, and HELD_APART, read only to check it;
both lists are committed before any model is compared. Every row carries provenance (GPU, driver,
CUDA, PyTorch, cuDNN, and the flash-attn-4, nvidia-cutlass-dsl, quack-kernels and apache-tvm-ffi
versions). The wheels: bench/gpu/requirements-gpu.txt.

    python bench/gpu/fa3_authors.py --out $OUT                  # on the H200
    python bench/gpu/fa3_authors.py --dry-run --out /tmp/f      # the CPU: tiny configs, a math stand-in

Writes fa3_time.csv (every timed row, both sets), fa3_ncu.csv and fa4_masks.csv, row by row.
"""
from __future__ import annotations

import argparse
import csv
import io
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from schedule import PROV as SDPA_PROV  # noqa: E402
from schedule import provenance as sdpa_provenance  # noqa: E402

# (n, d, batch x heads): the model set. d = 64, 128 and 256; B*H = 1 to 192; n = 1024 to 262144.
MODEL = [
    (1024, 128, 192), (2048, 128, 128), (4096, 128, 64), (8192, 128, 64), (16384, 128, 16), (16384, 128, 1),
    (32768, 128, 8), (65536, 128, 2), (131072, 128, 1), (262144, 128, 1),
    (1024, 64, 192), (4096, 64, 128), (8192, 64, 32), (16384, 64, 8), (32768, 64, 4), (262144, 64, 1),
    (4096, 256, 32), (16384, 256, 4),
]
# Held apart: other n and B*H, never read to build or tune anything.
HELD_APART = [
    (3072, 128, 96), (12288, 128, 8), (24576, 128, 32), (49152, 128, 2), (196608, 128, 1),
    (6144, 64, 64), (49152, 64, 8), (98304, 64, 2), (8192, 256, 16),
]
DRY = [(128, 64, 2), (256, 64, 1)]
DRY_HELD = [(192, 64, 2)]
IMPLS = ("fa4", "cudnn", "flash")
DTYPES = ("float16", "bfloat16")
REPEATS = 5
# Nsight Compute: float16 forward, causal and not, every impl
NCU = [(8192, 128, 64), (32768, 128, 8), (131072, 128, 1), (4096, 64, 128), (16384, 64, 8), (4096, 256, 32)]
# masks: one shape (n, d, heads), float16, through flash-attn-4
MASK_SHAPE = (32768, 128, 16)
DRY_MASK_SHAPE = (128, 32, 2)
CHECK_SHAPE = (1024, 128, 2)   # each mask checked against masked standard attention (float32) here
DRY_CHECK_SHAPE = (128, 32, 2)
SPIN_CYCLES = 2_000_000
MARKER = "spin_kernel"
NCU_METRICS = ("dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,launch__grid_size,"
               "launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic")
PROV = [*SDPA_PROV, "flash_attn_4", "cutlass_dsl", "quack", "tvm_ffi"]
TIME_FIELDS = ["set", "impl", "pass", "dtype", "causal", "n", "d", "batch_heads", "ms", "ms_hidden", "ms_p10",
               "ms_p90", "repeats", "tflops", "sm_mhz", "max_abs_diff", "grad_rel_err", "status"]
NCU_FIELDS = ["impl", "dtype", "causal", "n", "d", "batch_heads", "dram_read_bytes", "dram_write_bytes",
              "ncu_time_ms", "n_kernels", "kernels", "grid", "block", "regs", "smem_dyn", "status"]
MASK_FIELDS = ["kind", "pass", "dtype", "n", "d", "heads", "causal", "window_left", "window_right", "docs",
               "sink", "pairs", "pair_fraction", "ms", "ms_hidden", "repeats", "sm_mhz", "tflops_computed",
               "check_shape", "check_max_abs_diff", "check_grad_rel_err", "status"]


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    out = {}
    for key, name in (("flash_attn_4", "flash-attn-4"), ("cutlass_dsl", "nvidia-cutlass-dsl"),
                      ("quack", "quack-kernels"), ("tvm_ffi", "apache-tvm-ffi")):
        try:
            out[key] = version(name)
        except PackageNotFoundError:
            out[key] = "none"
    return out


def provenance(device: str) -> dict:
    p = {**sdpa_provenance(device), **versions()}
    if device == "cpu":
        p["flash_attn_4"] = f"{p['flash_attn_4']} (dry run: a math stand-in)"
    return p


class Rows:
    """A CSV written row by row, provenance on every row (schedule.Rows with the package versions)."""

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


def fwd_flops(n: int, d: int, bh: int, causal: bool) -> float:
    """Matmul flops of the forward, 4 n^2 d a head, half under a causal mask; the backward does 2.5 times as many."""
    return 4 * bh * n * n * d * (0.5 if causal else 1.0)


# ---------------------------------------------------------------- the reference and the CPU stand-in

def allowed(nq: int, nk: int, causal: bool, left: int | None, right: int | None, device="cpu"):
    """Boolean (nq, nk): key j visible to query i. flash-attn's convention, queries aligned to the
    keys' end: i' = i + nk - nq; causal is right = 0; a window keeps i' - left <= j <= i' + right."""
    import torch
    i = torch.arange(nq, device=device)[:, None] + (nk - nq)
    j = torch.arange(nk, device=device)[None, :]
    ok = torch.ones(nq, nk, dtype=torch.bool, device=device)
    if causal:
        right = 0
    if left is not None and left >= 0:
        ok &= j >= i - left
    if right is not None and right >= 0:
        ok &= j <= i + right
    return ok


def reference(q, k, v, causal=False, window=(None, None), sink=None, cu_seqlens=None):
    """Masked standard attention in float32, (batch, n, heads, d) in and out (varlen: (total, heads, d)
    with cu_seqlens): softmax(scale QK^T + mask) V, a learnable sink as one more logit per head in the
    denominator (its column dropped from the output)."""
    import torch
    if cu_seqlens is not None:
        cuts = cu_seqlens.tolist()
        return torch.cat([reference(q[None, a:b], k[None, a:b], v[None, a:b], causal, window, sink)[0]
                          for a, b in zip(cuts[:-1], cuts[1:])])
    qf, kf, vf = (t.float().transpose(1, 2) for t in (q, k, v))  # (b, h, n, d)
    s = qf @ kf.transpose(-1, -2) / math.sqrt(q.shape[-1])
    ok = allowed(q.shape[1], k.shape[1], causal, window[0], window[1], q.device)
    s = s.masked_fill(~ok, float("-inf"))
    if sink is not None:
        col = sink.float().view(1, -1, 1, 1).expand(s.shape[0], -1, s.shape[2], 1)
        p = torch.softmax(torch.cat([s, col], -1), -1)[..., :-1]
    else:
        p = torch.softmax(s, -1)
    p = torch.nan_to_num(p)  # a row with no visible key gives 0
    return (p @ vf).transpose(1, 2).to(q.dtype)


def fa4_module(device: str):
    """flash_attn.cute's two functions, or on the CPU the reference with their signatures."""
    if device == "cuda":
        from flash_attn.cute import flash_attn_func, flash_attn_varlen_func  # type: ignore[import-not-found]
        return flash_attn_func, flash_attn_varlen_func

    def func(q, k, v, causal=False, window_size=(None, None), learnable_sink=None):
        return reference(q, k, v, causal, window_size, learnable_sink), None

    def varlen(q, k, v, cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None, max_seqlen_k=None, causal=False,
               window_size=(None, None), learnable_sink=None):
        return reference(q, k, v, causal, window_size, learnable_sink, cu_seqlens_q), None
    return func, varlen


def sdpa(impl: str, causal: bool):
    """SDPA's backend on (batch, heads, n, d); the CPU's dry run has only the math backend."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
               "math": SDPBackend.MATH}[impl]

    def f(q, k, v):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return f


# ---------------------------------------------------------------- timing

def paired(fn, device: str, repeats: int) -> tuple[list[float], list[float]]:
    """(plain, hidden) ms per call: events around the call from an idle GPU, and the same call queued
    behind a spin kernel (the host's dispatch hidden); one warm-up call first."""
    import torch
    fn()
    if device != "cuda":
        ts = []
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t) * 1e3)
        return sorted(ts), sorted(ts)
    torch.cuda.synchronize()
    plain: list[float] = []
    hidden: list[float] = []
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
    return sorted(plain), sorted(hidden)


class Stamp:
    """The SM clock over one call, read on the SMs (cudnn_probe's stamp kernel through CuPy)."""

    def __init__(self, device: str):
        self.kern: Any = None
        if device != "cuda":
            return
        try:
            import cupy as cp
            import torch
            from cudnn_probe import STAMP
            self.cp, self.torch = cp, torch
            self.kern = cp.RawKernel(STAMP, "stamp")
            self.blocks = 4 * torch.cuda.get_device_properties(0).multi_processor_count
            self.bufs = [torch.zeros(3 * self.blocks, dtype=torch.int64, device="cuda") for _ in range(2)]
        except Exception as e:  # noqa: BLE001 (no CuPy: clocks left empty, the rest goes on)
            print("no stamp kernel, no clock:", repr(e)[:200], flush=True)
            self.kern = None

    def mhz(self, fn) -> float | str:
        if self.kern is None:
            return ""
        from cudnn_probe import sm_clocks
        cp, torch = self.cp, self.torch
        stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

        def stamp(buf):
            with stream:
                self.kern((self.blocks,), (32,), (cp.asarray(buf),))
        torch.cuda._sleep(SPIN_CYCLES)
        stamp(self.bufs[0])
        fn()
        stamp(self.bufs[1])
        torch.cuda.synchronize()
        got = sm_clocks(*(b.cpu().numpy() for b in self.bufs))
        return statistics.median(got) if got else ""


def rel_err(got, ref) -> float:
    return ((got.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30)).item()


def layouts(n, d, bh, dtype, device):
    """The same values twice: (1, bh, n, d) for SDPA and (1, n, bh, d) for flash-attn-4, each contiguous."""
    import torch
    g = torch.Generator(device=device).manual_seed(n + d + bh)
    dt_ = getattr(torch, dtype)
    sd = [torch.randn(1, bh, n, d, device=device, generator=g).to(dt_) for _ in range(3)]
    fa = [t.transpose(1, 2).contiguous() for t in sd]
    dout = torch.randn(1, bh, n, d, device=device, generator=g).to(dt_)
    return sd, fa, dout


def impl_fn(impl, causal, device):
    """(forward on its own layout, whether that layout is (1, n, bh, d))."""
    if impl == "fa4":
        func, _ = fa4_module(device)
        return (lambda q, k, v: func(q, k, v, causal=causal)[0]), True
    return sdpa(impl if device == "cuda" else "math", causal), False


def measure_config(set_, n, d, bh, dtype, causal, device, stamp, rows, repeats):
    import torch
    sd, fa, dout_sd = layouts(n, d, bh, dtype, device)
    dout_fa = dout_sd.transpose(1, 2).contiguous()
    ref = grads_ref = None
    table = []
    for impl in ("flash", "fa4", "cudnn"):  # flash first: the yardstick of the others
        base = {"set": set_, "impl": impl, "dtype": dtype, "causal": int(causal), "n": n, "d": d, "batch_heads": bh}
        f, native = impl_fn(impl, causal, device)
        ins, dout = (fa, dout_fa) if native else (sd, dout_sd)
        to_sd = (lambda t: t.transpose(1, 2)) if native else (lambda t: t)
        for pass_ in ("fwd", "bwd"):
            row = {**base, "pass": pass_}
            diff: float | str = ""
            err: float | str = ""
            call: Any = None
            try:
                if pass_ == "fwd":
                    with torch.no_grad():
                        out = to_sd(f(*ins))
                        diff = "" if ref is None else (out.float() - ref.float()).abs().max().item()
                        if impl == "flash":
                            ref, diff = out, 0.0
                        else:
                            del out

                        def fwd_call(f=f, ins=ins):
                            return f(*ins)
                        call = fwd_call
                    ok = diff == "" or float(diff) < 5e-2
                else:
                    leaves = [t.detach().requires_grad_(True) for t in ins]
                    out = f(*leaves)
                    grads = [to_sd(g) for g in torch.autograd.grad(out, leaves, dout, retain_graph=True)]
                    err = "" if grads_ref is None else max(rel_err(g, r) for g, r in zip(grads, grads_ref))
                    if impl == "flash":
                        grads_ref, err = grads, 0.0
                    else:
                        del grads
                    ok = err == "" or float(err) < 3e-2

                    def bwd_call(out=out, leaves=leaves, dout=dout):
                        return torch.autograd.grad(out, leaves, dout, retain_graph=True)
                    call = bwd_call
                plain, hidden = paired(call, device, repeats)
                flops = fwd_flops(n, d, bh, causal) * (1.0 if pass_ == "fwd" else 2.5)
                med = statistics.median(plain)
                row.update(ms=med, ms_hidden=statistics.median(hidden), ms_p10=plain[len(plain) // 10],
                           ms_p90=plain[(9 * len(plain)) // 10], repeats=len(plain),
                           tflops=flops / (med * 1e-3) / 1e12, sm_mhz=stamp.mhz(call), max_abs_diff=diff,
                           grad_rel_err=err,
                           status="ok" if ok else f"wrong: {'max abs diff' if pass_ == 'fwd' else 'grad rel err'} "
                                                  f"{diff if pass_ == 'fwd' else err:.3g}")
                if impl != "flash" and (diff if pass_ == "fwd" else err) == "":
                    row["status"] = "ok, unchecked: PyTorch flash did not run here"
            except Exception as e:  # noqa: BLE001 (a backend that refuses the shape, or memory runs out)
                row["status"] = "does not run: " + (str(e).strip().splitlines() or [repr(e)])[-1][:120]
            rows.add(row)
            table.append(row)
            print(f"{set_:10s} {impl:5s} {pass_} {dtype:8s} c={int(causal)} n={n:6d} d={d:3d} bh={bh:3d} "
                  f"{row.get('ms', float('nan')):9.3f} ms (hidden {row.get('ms_hidden', float('nan')):9.3f}) "
                  f"{row.get('tflops', 0):6.1f} TF/s {row.get('sm_mhz', '')!s:>7.7} MHz {row['status'][:60]}",
                  flush=True)
    del sd, fa, ref, grads_ref
    if device == "cuda":
        torch.cuda.empty_cache()
    return table


def timing(out: Path, prov: dict, device: str, deadline: float, repeats: int) -> None:
    rows = Rows(out / "fa3_time.csv", TIME_FIELDS, prov)
    stamp = Stamp(device)
    sets = [("model", DRY if device == "cpu" else MODEL), ("held-apart", DRY_HELD if device == "cpu" else HELD_APART)]
    dtypes = ("float32",) if device == "cpu" else DTYPES
    every = sorted(((s, c) for s, cs in sets for c in cs),
                   key=lambda sc: fwd_flops(sc[1][0], sc[1][1], sc[1][2], False))
    for set_, (n, d, bh) in every:
        if time.time() > deadline:
            print(f"timing deadline reached before {set_} {n}/{d}/{bh}", flush=True)
            break
        for dtype in dtypes:
            for causal in (False, True):
                measure_config(set_, n, d, bh, dtype, causal, device, stamp, rows, repeats)


# ---------------------------------------------------------------- masks through flash-attn-4

def pair_count(n: int, causal: bool, left, right, docs=None) -> int:
    """Query-key pairs the mask keeps, row by row as `allowed` draws them (per document when packed)."""
    import numpy as np
    if docs:
        return sum(pair_count(L, causal, left, right) for L in docs)
    i = np.arange(n, dtype=np.int64)
    right = 0 if causal else right
    lo = np.maximum(0, i - left) if left is not None and left >= 0 else np.zeros_like(i)
    hi = np.minimum(n - 1, i + right) if right is not None and right >= 0 else np.full_like(i, n - 1)
    return int(np.maximum(0, hi - lo + 1).sum())


MaskCase = tuple[str, bool, tuple[int | None, int | None], list[int] | None, bool]


def mask_cases(n: int) -> list[MaskCase]:
    """(kind, causal, (left, right), docs or None, sink?) at sequence length (or total tokens) n."""
    cases: list[MaskCase] = [("full", False, (None, None), None, False), ("causal", True, (None, None), None, False)]
    w = 128
    while w <= n:
        cases.append(("window", False, (w - 1, 0), None, False))        # w keys a row, the query's own last
        cases.append(("window", False, (w // 2, w // 2 - 1), None, False))  # w keys centred on the query
        w *= 2
    L = n
    while L >= max(128, n // 64):
        docs = [L] * (n // L)
        cases.append(("docs", True, (None, None), docs, False))
        cases.append(("docs", False, (None, None), docs, False))
        L //= 2
    mixed = [n // 2, n // 4, n // 8, n // 16, n // 16]
    cases.append(("docs", True, (None, None), mixed, False))
    cases.append(("sink", False, (None, None), None, True))
    cases.append(("sink", True, (None, None), None, True))
    cases.append(("sink", False, (127, 0), None, True))  # a 128-key window with a sink, as gpt-oss's
    return cases


def run_mask(func, varlen, q, k, v, causal, window, docs, sink, device):
    """One call of flash-attn-4 with the mask; q, k, v (1, n, h, d)."""
    import torch
    if docs:
        cu = torch.tensor([0, *torch.tensor(docs).cumsum(0).tolist()], dtype=torch.int32, device=device)
        return lambda q=q, k=k, v=v: varlen(q[0], k[0], v[0], cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(docs),
                                            max_seqlen_k=max(docs), causal=causal, window_size=window,
                                            learnable_sink=sink)[0][None]
    return lambda q=q, k=k, v=v: func(q, k, v, causal=causal, window_size=window, learnable_sink=sink)[0]


def masks(out: Path, prov: dict, device: str, deadline: float, repeats: int) -> None:
    import torch
    rows = Rows(out / "fa4_masks.csv", MASK_FIELDS, prov)
    func, varlen = fa4_module(device)
    stamp = Stamp(device)
    n, d, h = MASK_SHAPE if device == "cuda" else DRY_MASK_SHAPE
    cn, cd, ch = CHECK_SHAPE if device == "cuda" else DRY_CHECK_SHAPE
    dtype = torch.float16 if device == "cuda" else torch.float32
    g = torch.Generator(device=device).manual_seed(38)
    q, k, v, dout = (torch.randn(1, n, h, d, device=device, generator=g).to(dtype) for _ in range(4))
    cq, ck, cv, cdout = (torch.randn(1, cn, ch, cd, device=device, generator=g).to(dtype) for _ in range(4))
    full = fwd_flops(n, d, h, False) / 4 / d / h  # n^2 pairs a head
    for kind, causal, window, docs, has_sink in mask_cases(n):
        if time.time() > deadline:
            print(f"mask deadline reached before {kind} {window} {docs}", flush=True)
            break
        cdocs = [max(1, round(L * cn / n)) for L in docs] if docs else None
        if cdocs:
            cdocs[-1] += cn - sum(cdocs)
        cwin = tuple(None if x is None else min(x, cn) for x in window)
        sink = (torch.randn(h, device=device, generator=g) if has_sink else None)
        csink = (torch.randn(ch, device=device, generator=g) if has_sink else None)
        left, right = window
        pairs = pair_count(n, causal, left, right, docs) * h
        base = {"kind": kind, "dtype": str(dtype).replace("torch.", ""), "n": n, "d": d, "heads": h,
                "causal": int(causal), "window_left": "" if left is None else left,
                "window_right": "" if right is None else right, "docs": ";".join(map(str, docs)) if docs else "",
                "sink": int(has_sink), "pairs": pairs, "pair_fraction": pairs / (full * h),
                "check_shape": f"{cn}x{cd}x{ch}"}
        # the check: flash-attn-4 against masked standard attention at the small shape, forward and backward
        check: dict = {}
        try:
            leaves = [t.detach().requires_grad_(True) for t in (cq, ck, cv)]
            sink_leaf = csink
            got = run_mask(func, varlen, leaves[0], leaves[1], leaves[2], causal, cwin, cdocs, sink_leaf, device)()
            g1 = torch.autograd.grad(got, leaves, cdout)
            rl = [t.detach().float().requires_grad_(True) for t in (cq, ck, cv)]
            cu = (torch.tensor([0, *torch.tensor(cdocs).cumsum(0).tolist()], dtype=torch.int32, device=device)
                  if cdocs else None)
            want = (reference(rl[0][0], rl[1][0], rl[2][0], causal, cwin, csink, cu)[None] if cdocs
                    else reference(rl[0], rl[1], rl[2], causal, cwin, csink))
            g2 = torch.autograd.grad(want, rl, cdout.float())
            check = {"check_max_abs_diff": (got.float() - want).abs().max().item(),
                     "check_grad_rel_err": max(rel_err(a, b) for a, b in zip(g1, g2))}
        except Exception as e:  # noqa: BLE001
            check = {"check_max_abs_diff": "", "check_grad_rel_err": "",
                     "check_status": "check failed: " + (str(e).strip().splitlines() or [repr(e)])[-1][:100]}
        for pass_ in ("fwd", "bwd"):
            row = {**base, **check, "pass": pass_}
            try:
                if pass_ == "fwd":
                    with torch.no_grad():
                        call = run_mask(func, varlen, q, k, v, causal, window, docs, sink, device)
                        plain, hidden = paired(call, device, repeats)
                        mhz = stamp.mhz(call)
                else:
                    leaves = [t.detach().requires_grad_(True) for t in (q, k, v)]
                    o = run_mask(func, varlen, leaves[0], leaves[1], leaves[2], causal, window, docs, sink, device)()

                    def call(o=o, leaves=leaves):
                        return torch.autograd.grad(o, leaves, dout, retain_graph=True)
                    plain, hidden = paired(call, device, repeats)
                    mhz = stamp.mhz(call)
                med = statistics.median(plain)
                computed = 4 * d * pairs * (1.0 if pass_ == "fwd" else 2.5)
                bad = check.get("check_status") or (
                    "" if (check["check_max_abs_diff"] < 5e-2 and check["check_grad_rel_err"] < 3e-2)
                    else f"wrong: max abs diff {check['check_max_abs_diff']:.3g}, grad rel err "
                         f"{check['check_grad_rel_err']:.3g}")
                row.update(ms=med, ms_hidden=statistics.median(hidden), repeats=len(plain), sm_mhz=mhz,
                           tflops_computed=computed / (med * 1e-3) / 1e12, status=bad or "ok")
            except Exception as e:  # noqa: BLE001
                row["status"] = "does not run: " + (str(e).strip().splitlines() or [repr(e)])[-1][:120]
            rows.add(row)
            print(f"mask {kind:6s} {pass_} c={int(causal)} win={window} docs={str(base['docs'])[:40]:40s} "
                  f"sink={int(has_sink)} "
                  f"frac={base['pair_fraction']:.4f} {row.get('ms', float('nan')):8.3f} ms "
                  f"{row.get('tflops_computed', 0):6.1f} TF/s {row['status'][:60]}", flush=True)
        if device == "cuda":
            torch.cuda.empty_cache()


# ---------------------------------------------------------------- Nsight Compute

def profile_all(listing: str, jobs) -> None:
    """Child of ncu: per (impl, causal, n, d, B*H) a marker kernel, then one float16 forward call."""
    import torch
    with open(listing, "w") as fh:
        for impl, causal, n, d, bh in jobs:
            try:
                f, native = impl_fn(impl, bool(causal), "cuda")
                sd, fa, _ = layouts(n, d, bh, "float16", "cuda")
                ins = fa if native else sd
                with torch.no_grad():
                    f(*ins)  # compile and warm outside the profiled range
                    torch.cuda.synchronize()
                    torch.cuda.profiler.start()
                    torch.cuda._sleep(1)
                    f(*ins)
                    torch.cuda.synchronize()
                    torch.cuda.profiler.stop()
            except Exception as e:  # noqa: BLE001
                print("profile failed", impl, causal, n, d, bh, repr(e)[:200], flush=True)
                torch.cuda.empty_cache()
                continue
            fh.write(f"{impl},{causal},{n},{d},{bh}\n")
            fh.flush()
            del sd, fa, ins
            torch.cuda.empty_cache()


def ncu(out: Path, prov: dict, deadline: float) -> None:
    """One ncu process over every (impl, causal, config) of NCU; a marker kernel opens each group."""
    from whole_gpu import ncu_path
    rows = Rows(out / "fa3_ncu.csv", NCU_FIELDS, prov)
    left = deadline - time.time()
    if left < 30:
        print(f"ncu: {left:.0f} s left, not started", flush=True)
        return
    listing = Path(os.environ.get("TMPDIR", "/tmp")) / "fa3_listing.txt"
    listing.unlink(missing_ok=True)
    jobs = [(impl, c, n, d, bh) for c in (0, 1) for (n, d, bh) in NCU for impl in IMPLS]
    spec = ";".join(",".join(map(str, j)) for j in jobs)
    cmd = [ncu_path(), "--clock-control", "none", "--profile-from-start", "off", "--metrics", NCU_METRICS,
           "--csv", "--print-units", "base", sys.executable, __file__, "--profile-all", str(listing), spec]
    t0 = time.time()
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=left - 10)
        stdout, stderr = res.stdout, res.stderr
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = "timeout"
    text = stdout[stdout.find('"ID"'):] if '"ID"' in stdout else ""
    kernels: dict[int, dict] = {}
    for r in csv.DictReader(io.StringIO(text)):
        if not r.get("ID", "").strip().isdigit():
            continue
        kk = kernels.setdefault(int(r["ID"]), {"name": r["Kernel Name"]})
        try:
            kk[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            kk[r["Metric Name"]] = r["Metric Value"]
    groups: list[list[dict]] = []
    for _, kk in sorted(kernels.items()):
        if MARKER in kk["name"]:
            groups.append([])
        elif groups:
            groups[-1].append(kk)
    done = [line.split(",") for line in listing.read_text().split()] if listing.exists() else []
    print(f"ncu: {len(groups)} groups, {len(done)} of {len(jobs)} jobs in {time.time() - t0:.0f} s; "
          f"{(stderr.strip().splitlines() or [''])[-1][:160]}", flush=True)
    if len(groups) != len(done):
        print("ncu stdout tail:", stdout[-1500:], "stderr tail:", stderr[-800:], flush=True)
        return
    for (impl, causal, n, d, bh), ks in zip(done, groups):
        main = max(ks, key=lambda kk: kk.get("gpu__time_duration.sum", 0)) if ks else {}
        rows.add({"impl": impl, "dtype": "float16", "causal": int(causal), "n": int(n), "d": int(d),
                  "batch_heads": int(bh), "dram_read_bytes": int(sum(kk.get("dram__bytes_read.sum", 0) for kk in ks)),
                  "dram_write_bytes": int(sum(kk.get("dram__bytes_write.sum", 0) for kk in ks)),
                  "ncu_time_ms": sum(kk.get("gpu__time_duration.sum", 0) for kk in ks) / 1e6,
                  "n_kernels": len(ks), "kernels": "|".join(kk["name"][:60] for kk in ks),
                  "grid": main.get("launch__grid_size", ""), "block": main.get("launch__block_size", ""),
                  "regs": main.get("launch__registers_per_thread", ""),
                  "smem_dyn": main.get("launch__shared_mem_per_block_dynamic", ""), "status": "ok"})
        read = sum(kk.get("dram__bytes_read.sum", 0) for kk in ks) / 1e6
        print("ncu", impl, causal, n, d, bh, f"read {read:.1f} MB", len(ks), "kernels", flush=True)


def smoke(device: str) -> None:
    """One small forward and backward through flash-attn-4 before anything is timed: a broken install
    stops the run at once, with its traceback."""
    import torch
    func, _ = fa4_module(device)
    dt_ = torch.float16 if device == "cuda" else torch.float32
    q, k, v = (torch.randn(1, 512, 2, 128, device=device, dtype=dt_, requires_grad=True) for _ in range(3))
    t0 = time.time()
    o = func(q, k, v, causal=True)[0]
    o.sum().backward()
    want = reference(q.detach(), k.detach(), v.detach(), causal=True)
    print(f"smoke: flash-attn-4 forward and backward in {time.time() - t0:.1f} s (compiles included), "
          f"max abs diff {(o.float() - want.float()).abs().max().item():.3g}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true", help="tiny configs on the CPU, a math stand-in for flash-attn-4")
    p.add_argument("--parts", default="time,masks,ncu", help="which of time, masks, ncu to run, in that order")
    p.add_argument("--budget-s", type=float, default=540, help="stop cleanly after about this many seconds")
    p.add_argument("--repeats", type=int, help=f"timed pairs a call ({REPEATS}; 2 in the dry run)")
    p.add_argument("--profile-all", nargs=2, metavar=("LISTING", "JOBS"))
    args = p.parse_args(argv)
    if args.profile_all:
        listing, spec = args.profile_all
        profile_all(listing, [(j.split(",")[0], *map(int, j.split(",")[1:])) for j in spec.split(";")])
        return 0
    device = "cpu" if args.dry_run else "cuda"
    import torch
    if device == "cuda" and not torch.cuda.is_available():
        sys.stderr.write("no CUDA device: use --dry-run\n")
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    prov = provenance(device)
    print(prov, flush=True)
    parts = args.parts.split(",")
    repeats = args.repeats or (2 if device == "cpu" else REPEATS)
    smoke(device)
    # the budget's shares: timing to 55%, masks to 80%, Nsight Compute the rest
    if "time" in parts:
        timing(out, prov, device, start + args.budget_s * (0.55 if "masks" in parts else 0.8), repeats)
        print(f"timing done at {time.time() - start:.0f} s", flush=True)
    if "masks" in parts:
        masks(out, prov, device, start + args.budget_s * 0.8, repeats)
        print(f"masks done at {time.time() - start:.0f} s", flush=True)
    if "ncu" in parts and device == "cuda":
        ncu(out, prov, start + args.budget_s)
    elif "ncu" in parts:
        Rows(out / "fa3_ncu.csv", NCU_FIELDS, prov)
    print(f"done at {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
