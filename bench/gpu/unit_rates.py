"""Two non-matmul rates of this GPU, measured with simple elementwise Triton kernels.

The flash forward spends time on more than its two matmuls: one exponential per score
(the special-function units) and the max / subtract / sum / rescale work (plain FP32
lanes). Each kernel below keeps its data in registers and runs a long dependent chain
per element, many elements per thread and many warps per SM, so neither DRAM nor
latency bounds it:

  exp rate   x = exp2(x) - 1 per step: one ex2.approx (special-function unit) per element
             and step; the subtraction runs on the FP32 lanes beside it
  FP32 rate  x = x * a + b per step: one FFMA per element and step, counted as ONE
             operation (the vendor's FP32 figure counts an FFMA as two flops)

Imported by whole_gpu.py on the CUDA machine only (it needs Triton and a GPU).
"""
from __future__ import annotations

import statistics

import torch
import triton
import triton.language as tl

ELEMENTS = 2**22
BLOCK = 1024
EXP_STEPS = 4096
FMA_STEPS = 16384


@triton.jit
def exp_chain(X, Y, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    for _ in range(STEPS):
        x = tl.math.exp2(x) - 1.0          # stays in [-0.5, 0] from [-1, 0]
    tl.store(Y + offs, x)


@triton.jit
def fma_chain(X, Y, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    for _ in range(STEPS):
        x = x * 0.999 + 0.0005             # one FFMA; stays bounded
    tl.store(Y + offs, x)


def _median_ms(fn, repeats: int = 10) -> float:
    fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def rates() -> dict:
    """Operations per second: exp (special-function unit) and FP32 FFMA instructions."""
    x = -torch.rand(ELEMENTS, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    grid = (ELEMENTS // BLOCK,)
    t_exp = _median_ms(lambda: exp_chain[grid](x, y, STEPS=EXP_STEPS, BLOCK=BLOCK, num_warps=4))
    ok_exp = bool(torch.isfinite(y).all().item())
    t_fma = _median_ms(lambda: fma_chain[grid](x, y, STEPS=FMA_STEPS, BLOCK=BLOCK, num_warps=4))
    ok_fma = bool(torch.isfinite(y).all().item())
    return {"exp": ELEMENTS * EXP_STEPS / (t_exp * 1e-3), "fp32": ELEMENTS * FMA_STEPS / (t_fma * 1e-3),
            "ok": ok_exp and ok_fma}


def matmul_rate(dtype=torch.float16, size: int = 8192) -> float:
    """Dense matmul flops per second through cuBLAS, random data (2 size^3 flops per product)."""
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(size, size, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(size, size, device="cuda", dtype=dtype, generator=g)
    t = _median_ms(lambda: a @ b)
    return 2 * size**3 / (t * 1e-3)
