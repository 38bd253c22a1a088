"""PyTorch flash measured the way cudnn_probe.py measured cuDNN (issue 21, part 2 continued).

The schedule model divides PyTorch flash's counted work by mma.sync's full-SM rate (a Triton kernel
of many warps, at a clock nobody read). This run measures, on the H200, what cuDNN's model already
has, so that flash can be modelled the same way (rates per cycle times the kernel's own clock):

  mma rate   mma_sync_rate.cu: mma.sync m16n8k16 (fp16 in, fp32 accumulate, FlashAttention-2's
             instruction) from blocks of 4 warps, at 1, 2 and 4 blocks an SM (PyTorch flash runs 2:
             Nsight Compute's occupancy limit by registers and by shared memory), 1 to 16 independent
             accumulators a warp, about 10 ms a launch; per SM, flops over clock64 cycles
  loop clock the SMs' clock over each flash call as the timing loop runs it (cudnn_probe.loop_clock:
             stamp kernels before and after the call, all behind a spin kernel), at the 12 configs
             the probe used for cuDNN
  counters   Nsight Compute (--clock-control none) on flash at those 12 configs (tensor pipe, hmma
             instructions, exp unit, FMA and ALU pipes, occupancy, launch statistics, stalls) and on
             the mma.sync micro-benchmark at each occupancy (what 100% of the hmma pipe is)

    python bench/gpu/flash_probe.py --out $OUT                # on the H200
    python bench/gpu/flash_probe.py --dry-run --out /tmp/f    # the CPU: compiles, writes every CSV's header

Writes flash_mma_rate.csv, flash_loop_clock.csv, flash_ncu.csv, flash_ncu_raw.csv and
flash_mma_ncu_raw.csv; every row carries provenance.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cudnn_probe as probe  # noqa: E402
from schedule import Rows, provenance  # noqa: E402

# the configs cudnn_probe.py ran cuDNN at, now PyTorch flash: (impl, n, d, batch x heads, causal)
FLASH = [("flash", n, d, bh, c) for impl, n, d, bh, c in probe.ATTN if impl == "cudnn"]
# (blocks per SM, warps per block, independent accumulators a warp)
MMA = [(2, 4, 1), (2, 4, 2), (2, 4, 4), (2, 4, 8), (2, 4, 16), (1, 4, 8), (1, 4, 16), (4, 4, 8), (4, 8, 8)]
NCU_MMA = [(2, 4, 8), (2, 4, 16), (1, 4, 16), (4, 8, 8)]
MMAS_PER_WARP = 1 << 21   # about 10 ms at 2 blocks of 4 warps an SM
MMA_FIELDS = ["blocks_per_sm", "warps_per_block", "chains", "mmas_per_warp", "ms", "tflops",
              "flops_per_cycle_sm_median", "flops_per_cycle_sm_min", "flops_per_cycle_sm_max", "mhz_median",
              "blocks_on_sm_min", "blocks_on_sm_max", "status"]
EXTRA = ",sm__inst_executed_pipe_tensor_op_hmma.sum,sm__pipe_tensor_op_hmma_cycles_active.avg,sm__cycles_active.sum"


def build(out: Path) -> Path | None:
    """The micro-benchmark built here for sm_90; None (and the reason printed) where nvcc fails."""
    exe = Path("/tmp/mma_sync_rate_build")
    try:
        res = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-Xptxas", "-v", "-o", str(exe),
                              str(HERE / "mma_sync_rate.cu")], capture_output=True, text=True)
    except OSError as e:  # no CUDA compiler (the CPU's dry run on a machine without one)
        print("nvcc:", repr(e)[:200], flush=True)
        return None
    print("nvcc:", res.returncode, res.stderr.strip()[-600:], flush=True)
    return exe if res.returncode == 0 else None


def parse(line: str) -> dict:
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def mma_rates(out: Path, prov: dict, exe: Path | None, device: str) -> None:
    rows = Rows(out / "flash_mma_rate.csv", MMA_FIELDS, prov)
    if exe is None or device != "cuda":
        return
    for bps, warps, chains in MMA:
        mmas = MMAS_PER_WARP * 2 // bps if warps == 4 else MMAS_PER_WARP // 4  # about the same time a launch
        try:
            res = subprocess.run([str(exe), str(bps), str(warps), str(chains), str(mmas), "5"],
                                 capture_output=True, text=True, timeout=60)
            got = parse(res.stdout.strip().splitlines()[-1] if res.stdout.strip() else "")
            got["status"] = "ok" if "error" not in got and res.returncode == 0 else \
                f"failed: rc {res.returncode} {res.stdout[-100:]} {res.stderr[-100:]}"
        except Exception as e:  # noqa: BLE001 (one failure logged, the rest go on)
            got = {"blocks_per_sm": bps, "warps_per_block": warps, "chains": chains,
                   "status": "failed: " + repr(e)[:100]}
        rows.add(got)
        print("mma", got, flush=True)


def mma_counters(out: Path, exe: Path | None, deadline: float) -> None:
    """Nsight Compute on the micro-benchmark at NCU_MMA's occupancies (its second launch of each)."""
    from whole_gpu import ncu_path
    texts: list[str] = []
    for bps, warps, chains in NCU_MMA if exe is not None else []:
        left = deadline - time.time()
        if left < 20:
            print(f"mma ncu: {left:.0f} s left, not started", flush=True)
            break
        mmas = MMAS_PER_WARP // 4
        cmd = [ncu_path(), "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
               "--launch-skip", "1", "--launch-count", "1", *(a for s in probe.SECTIONS for a in ("--section", s)),
               "--metrics", probe.METRICS + EXTRA, str(exe), str(bps), str(warps), str(chains), str(mmas), "1"]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=min(120, left))
            text = res.stdout[res.stdout.find('"ID"'):] if '"ID"' in res.stdout else ""
            print(f"mma ncu {bps}x{warps} chains {chains}: {len(text)} chars; {res.stderr.strip()[-200:]}", flush=True)
        except subprocess.TimeoutExpired:
            text = ""
            print("mma ncu timed out", flush=True)
        if text:
            lines = text.splitlines()
            texts.append("\n".join(lines if not texts else lines[2:]))  # one header and units row
    (out / "flash_mma_ncu_raw.csv").write_text("\n".join(texts) + "\n" if texts else "")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="flashviz/data/h200")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--budget-s", type=float, default=420)
    args = p.parse_args(argv)
    device = "cpu" if args.dry_run else "cuda"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    prov = provenance(device)
    print(prov, flush=True)
    t0 = time.time()
    exe = build(out)
    mma_rates(out, prov, exe, device)
    print(f"mma done at {time.time() - t0:.0f} s", flush=True)
    attn = probe.DRY_ATTN if device == "cpu" else FLASH
    probe.loop_clock(out, prov, device, attn, args.seconds)
    (out / "probe_loop_clock.csv").rename(out / "flash_loop_clock.csv")
    print(f"loop clock done at {time.time() - t0:.0f} s", flush=True)
    if device == "cuda":
        mma_counters(out, exe, t0 + args.budget_s * 0.45)
        print(f"mma counters done at {time.time() - t0:.0f} s", flush=True)
        probe.MICRO = []   # the Triton unit-rate kernels: measured in cudnn_probe.py's run already
        probe.METRICS = probe.METRICS + EXTRA
        probe.counters(out, prov, attn, 300, t0 + args.budget_s)
    else:
        Rows(out / "probe_ncu.csv", probe.NCU_FIELDS, prov)
        (out / "probe_ncu_raw.csv").write_text("")
        (out / "flash_mma_ncu_raw.csv").write_text("")
    (out / "probe_ncu.csv").rename(out / "flash_ncu.csv")
    (out / "probe_ncu_raw.csv").rename(out / "flash_ncu_raw.csv")
    print(f"done at {time.time() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
