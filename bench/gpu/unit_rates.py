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
  mma rate   acc = A B + acc per step on a 128 x 64 by 64 x 128 tile held on chip: the tensor
             cores alone, no DRAM. Triton emits Hopper's wgmma for it, or with DISABLE_MMA_V3=1
             (read by Triton's compiler) Ampere's mma.sync, the instruction FlashAttention-2's code
             (PyTorch's flash kernel) uses on every GPU from the A100 on

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


@triton.jit
def mma_chain(A, B, C, STEPS: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    pid = tl.program_id(0)
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(A + pid * M * K + rm[:, None] * K + rk[None, :])   # (M, K), loaded once
    b = tl.load(B + rk[:, None] * N + rn[None, :])                 # (K, N), loaded once
    acc = tl.zeros((M, N), tl.float32)
    for _ in range(STEPS):
        acc = tl.dot(a, b, acc)                                    # 2 M N K flops on the tensor cores
    tl.store(C + pid * M * N + rm[:, None] * N + rn[None, :], acc)


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


MMA_M, MMA_N, MMA_K, MMA_STEPS = 128, 128, 64, 256


def mma_rate(dtype=torch.float16) -> float:
    """Tensor-core flops per second of mma_chain (wgmma, or mma.sync where the process was started
    with DISABLE_MMA_V3=1); 4 blocks of 8 warps per SM."""
    grid = (4 * torch.cuda.get_device_properties(0).multi_processor_count,)
    a = (torch.rand(grid[0] * MMA_M, MMA_K, device="cuda") / MMA_K).to(dtype)
    b = (torch.rand(MMA_K, MMA_N, device="cuda") / MMA_K).to(dtype)
    c = torch.empty(grid[0] * MMA_M, MMA_N, device="cuda")
    t = _median_ms(lambda: mma_chain[grid](a, b, c, STEPS=MMA_STEPS, M=MMA_M, N=MMA_N, K=MMA_K, num_warps=8), 5)
    return grid[0] * MMA_STEPS * 2 * MMA_M * MMA_N * MMA_K / (t * 1e-3)


def fp8_rate(size: int = 8192) -> float:
    """Dense FP8 (e4m3) matmul flops per second through torch._scaled_mm (cuBLAS), bf16 out."""
    g = torch.Generator(device="cuda").manual_seed(2)
    a = torch.randn(size, size, device="cuda", generator=g).to(torch.float8_e4m3fn)
    b = torch.randn(size, size, device="cuda", generator=g).to(torch.float8_e4m3fn).t()  # column-major
    one = torch.tensor(1.0, device="cuda")
    t = _median_ms(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    return 2 * size**3 / (t * 1e-3)


def torch_exp_rate(dtype=torch.float32, elements: int = 2**28) -> float:
    """Elements per second of one large torch.exp: it reads and writes every element, so DRAM
    bounds it (a memory rate, not the exp unit's)."""
    x = -torch.rand(elements, device="cuda").to(dtype)
    y = torch.empty_like(x)
    t = _median_ms(lambda: torch.exp(x, out=y))
    return elements / (t * 1e-3)


if __name__ == "__main__":  # schedule.py's child: the mma rate under this process's environment
    import sys
    if "--mma" in sys.argv:
        print("mma TFLOP/s", mma_rate() / 1e12)
