"""The claims of real hardware (lessons 10 to 12: on real hardware, the whole GPU, inference), each
sentence against the engine and the H200's measurements; and FA3's overlap inside a warp group,
wherever a page or an assumption states it.
"""
from __future__ import annotations

import functools
import re

from flashviz.hardware import measured
from flashviz.hardware.gpu_arch import arch_of
from flashviz.model.config import custom_hardware, DTYPE_BYTES, HARDWARE, KB, tensor_dtype
from tests.claims_core import agrees, BYTES, bytes_of, Claims, COMPARE, half_unit, NUM, number, same_bytes


def check_real_hardware(ck: Claims, p: dict) -> None:
    check_other_cublas_runs(ck, "lesson 10")
    data = measured.load()
    # the ridge with its basis, and the sheet's beside it (issue 37's expert read)
    v = measured.view(data, int(p["hw_d"]), p["hw_dtype"], p.get("hw_pass", "fwd"))
    m = ck.find(rf"against a ridge at ({NUM}), the measured ceilings' \(({NUM}) TFLOP/s over ({NUM}) TB/s in "
                rf"float16; the vendor's rates put it at\s+({NUM})\)")
    ck.expect(agrees(m.group(1), v.ridge) and agrees(m.group(2), v.float16_tflops) and agrees(m.group(3), v.copy_tbs)
              and agrees(m.group(4), 1 / HARDWARE["H200 SXM"].balance("float16"))
              and abs(v.ridge - v.float16_tflops / v.copy_tbs) < 1e-6 * v.ridge, f"{m.group(0)!r}")
    table = measured.compare(data)
    speed, points = measured.speedups(table), measured.roofline_points(table)
    d, dtype, pass_ = p["hw_d"], p["hw_dtype"], p["hw_pass"]
    fp16 = table[(table["dtype"] == "float16") & (table["pass"] == "fwd") & table["measured DRAM MB"].notna()]
    plain = fp16[fp16["impl"] == "plain"]["DRAM / model"]
    m = ck.find(rf"Plain attention moves about ({NUM})× the model's bytes")
    ck.expect(agrees(m.group(1), plain.mean()), f"{m.group(0)!r} vs {plain.mean():.3f}")
    naive = measured.naive_vs_plain(data)
    bytes_over, mine = naive["DRAM: naive ÷ plain"].dropna(), naive[
        (naive["d"] == d) & (naive["dtype"] == dtype) & (naive["pass"] == pass_)]["time: naive ÷ plain"]
    m = ck.find(rf"it moves ({NUM})–({NUM})× plain attention's DRAM bytes \(float16 forward\)"
                rf"(?: and takes ({NUM})–({NUM})× its time in this\s+view)?")
    ck.expect(agrees(m.group(1), bytes_over.min()) and agrees(m.group(2), bytes_over.max()), f"{m.group(0)!r}")
    ck.expect(bool(m.group(3)) == bool(len(mine)), f"{m.group(0)!r}: {len(mine)} naive rows in this view")
    if m.group(3):
        ck.expect(agrees(m.group(3), mine.min()) and agrees(m.group(4), mine.max()), f"{m.group(0)!r}")
    flash_ratio = fp16[fp16["impl"] == "flash"]["DRAM / model"]
    m = ck.find(rf"Flash moves (far fewer|more) bytes than the model says(?: at some sizes, fewer at others)?:\*\* "
                rf"down to ({NUM})% of it at n = (\d+)")
    if m.group(1) == "far fewer":
        ck.expect(flash_ratio.max() < 1, f"'flash moves far fewer bytes than the model' but DRAM/model reaches "
                  f"{flash_ratio.max():.2f}")
    else:
        ck.expect(flash_ratio.max() > 1 > flash_ratio.min(), f"'more at some sizes, fewer at others' with "
                  f"DRAM/model from {flash_ratio.min():.2f} to {flash_ratio.max():.2f}")
    ck.expect(agrees(m.group(2), 100 * flash_ratio.min())
              and int(m.group(3)) == int(fp16.loc[flash_ratio.idxmin(), "n"]), f"{m.group(0)!r}")
    # Bound by the model's bytes, from measured.model and the measured ceilings, and by the DRAM bytes.
    bw = measured.ceiling(data, "copy bandwidth (read + write)") * 1e12
    peak = measured.ceiling(data, "dense matmul", "float16") * 1e12
    rows = fp16[(fp16["impl"] == "flash") & (fp16["d"] == d)]
    model_bounds = set()
    for _, r in rows.iterrows():
        mod = measured.model("flash", "fwd", r["n"], r["d"], "float16", r["batch heads"])
        model_bounds.add("memory" if mod["model_bytes"] / bw > mod["model_flops"] / peak else "compute")
    pts = points[(points["impl"] == "flash") & (points["d"] == d)]["flops per DRAM byte"]
    ridge = peak / bw
    dram = "compute" if (pts > ridge).all() else "memory" if (pts <= ridge).all() else "partly memory"
    m = ck.find(r"By the model's bytes flash is ([\w/]+)-bound; by the measured bytes it is ([\w ]+)-bound")
    ck.expect(m.group(1) == "/".join(sorted(model_bounds)), f"{m.group(0)!r}: model bounds {model_bounds}")
    ck.expect(m.group(2) == dram, f"{m.group(0)!r}: by DRAM bytes {dram} (ridge {ridge:.0f})")
    # The rate it reaches is the best over n, and the first reason it stops there is the instruction
    # (FA2 §4.1: FA2's Ampere code on Hopper, no TMA or wgmma), set beside the schedule by lesson 13's run.
    fpts = points[(points["impl"] == "flash") & (points["d"] == d)]
    best = fpts.loc[fpts["achieved TFLOP/s"].idxmax()]
    m = ck.find(rf"reaches ({NUM}) TFLOP/s at its best n \(([\d,]+); d = (\d+)\)")
    ck.expect(agrees(m.group(1), best["achieved TFLOP/s"]) and number(m.group(2)) == best["n"]
              and int(m.group(3)) == d, f"{m.group(0)!r}: the best is {best['achieved TFLOP/s']:.1f} at {best['n']}")
    ck.find(r"PyTorch's flash kernel is FlashAttention-2's code for Ampere, whose matmuls issue mma\.sync, with no "
            r"TMA copies and no wgmma.+?\[FlashAttention-2, §4\.1\]")
    ck.expect(instruction_steps(d) is not None, f"no schedule run at d = {d}")
    calls, instruction, schedule = instruction_steps(d)
    # two steps, neither called the first: which is larger is computed (issue 37's expert read: "the first reason
    # is the instruction" beside a smaller instruction step at d = 64), and what else changes with the instruction
    ck.expect("The first reason is the instruction" not in ck.text, "the instruction put first, whatever its step")
    ck.find(r"Two steps lie between it and a Hopper kernel\. One is the instruction: .+? The other is the schedule\.")
    m = ck.find(rf"d = (\d+), the median over the (\d+) calls of bench/gpu/schedule\.py's run\): Triton's 128 × 64 "
                rf"kernel, FlashAttention-2's schedule on wgmma, runs ({NUM})× (faster|slower) than PyTorch flash\. "
                rf"That is mainly the instruction(?P<tile>; at d = \d+ the tile changes too \(PyTorch flash runs "
                rf"(?P<br>\d+) × (?P<bc>\d+)\))?, and Triton's compiler adds its own load pipeline and registers\. "
                rf"cuDNN, NVIDIA's warp-specialised wgmma kernel, which the schedule model runs on FlashAttention-3's "
                rf"schedule and tiles, runs (?P<sched>{NUM})× (?P<space>faster|slower) than Triton, so (?:here the "
                rf"(?P<larger>instruction|schedule)'s step is the larger|the two steps are the same)")
    tile = measured.TILES[("flash", d)]
    ck.expect((m.group("br"), m.group("bc")) == ((None, None) if tile == (128, 64) else tuple(map(str, tile))),
              f"{m.group(0)!r}: PyTorch flash's tile at d = {d} is {tile}")
    ck.expect((int(m.group(1)), int(m.group(2))) == (d, calls), f"{m.group(0)!r}: {calls} calls at d = {d}")
    ck.expect((m.group(4) == "faster") == (instruction >= 1) and (m.group("space") == "faster") == (schedule >= 1)
              and agrees(m.group(3), max(instruction, 1 / instruction))
              and agrees(m.group("sched"), max(schedule, 1 / schedule)),
              f"{m.group(0)!r}: PyTorch flash ÷ Triton {instruction:.4f}, Triton ÷ cuDNN {schedule:.4f}")
    ck.expect(m.group("larger") == ("instruction" if instruction > schedule else "schedule"),
              f"{m.group(0)!r}: the instruction's {instruction:.4f} against the schedule's {schedule:.4f}")
    view = speed[(speed["d"] == d) & (speed["dtype"] == dtype) & (speed["pass"] == pass_)]
    sp, mem = view[view["impl"] == "flash"], view[view["impl"] == "mem_efficient"]
    wins = int((sp["measured speed-up"] > 1).sum())
    if len(sp) == 0:
        ck.expect(dtype == "float32" and ck.metric("flash speed-up") == "n/a", f"no flash rows for {dtype}")
        ck.find(r"No flash kernel for this data type")
    elif wins == len(sp):
        m = ck.find(r"The ranking holds for flash\.\*\* In this view it beats plain attention at all (\d+) sizes, "
                    r"as the byte count predicts")
        ck.expect(int(m.group(1)) == len(sp), f"{m.group(0)!r}: {len(sp)} sizes")
    else:
        m = ck.find(r"Flash beats plain attention at (\d+) of (\d+) sizes\.\*\* The byte count predicts a "
                    r"gain at every size")
        ck.expect((int(m.group(1)), int(m.group(2))) == (wins, len(sp)), f"{m.group(0)!r}: {wins} of {len(sp)}")
    if len(sp):
        ck.expect((sp["predicted speed-up"] > 1).all(), "'the byte count predicts': the model "
                  f"predicts {sp['predicted speed-up'].min():.2f} somewhere")
    m = ck.find(r"memory-efficient kernel is faster than plain at (\d+) of (\d+) sizes here\.\*\* "
                r"The model predicts a gain at (?:only )?(\d+) of \2(: they agree)?")
    mem_wins = int((mem["measured speed-up"] > 1).sum())
    model_wins = int((mem["predicted speed-up"] > 1).sum())
    ck.expect((int(m.group(1)), int(m.group(2))) == (mem_wins, len(mem)), f"{m.group(0)!r}: {mem_wins} of {len(mem)}")
    ck.expect(int(m.group(3)) == model_wins, f"{m.group(0)!r}: the model predicts a gain at {model_wins}")
    ck.expect(bool(m.group(4)) == (mem_wins == model_wins), f"{m.group(0)!r}")
    bt = measured.blocks(data)
    # the n the page shows: a link's hw_block_n may have been refused (then a note says so)
    block_n = int(next(w.value for kind in ("radio", "select_slider", "selectbox") for w in ck.at.get(kind)
                       if w.key == "hw_block_n"))
    bt = bt[bt["n"] == block_n].reset_index(drop=True)
    m = ck.find(rf"bigger\s+tiles re-read K and V less: ({NUM}) MB at (\d+) x (\d+)\s+down to ({NUM}) MB")
    hi, lo = bt.loc[bt["model MB"].idxmax()], bt.loc[bt["model MB"].idxmin()]
    ck.expect(int(m.group(2)) * int(m.group(3)) < lo["Br"] * lo["Bc"] and int(m.group(2)) < lo["Br"],
              f"'bigger tiles re-read less': the most traffic is at {hi['Br x Bc']}, the least at {lo['Br x Bc']}")
    spread = bt["measured DRAM MB"].max() / bt["measured DRAM MB"].min()
    m = ck.find(rf"every shape moves about the same\s+({NUM}) MB \(a spread of ({NUM})×\)")
    ck.expect(agrees(m.group(2), spread) and spread < 1.2, f"'about the same' with a spread of {spread:.3f}")
    ck.expect(agrees(m.group(1), bt["measured DRAM MB"].median()), f"{m.group(0)!r}: reads and writes together")
    # the reads are Q, K and V once; the writes are O, less what the L2 still holds (issue 37's expert read: the
    # page called reads and writes together "reads ... Q, K and V once")
    m = ck.find(rf"It reads\s+({NUM}) MB, Q, K and V \(({NUM}) MB\) once each, since the\s+\d+ MB L2 serves the "
                rf"re-reads, and writes ({NUM}) MB of O's\s+({NUM}) MB")
    raw = measured.load()["blocks"]
    raw = raw[(raw["status"] == "ok") & (raw["n"] == block_n)]
    reads, writes = raw["dram_read_bytes"].median() / 2**20, raw["dram_write_bytes"].median() / 2**20
    row = raw.iloc[0]
    o = row["batch_heads"] * row["n"] * row["d"] * 2 / 2**20  # float16
    qkv = 3 * o
    ck.expect(agrees(m.group(1), reads) and agrees(m.group(2), qkv) and agrees(m.group(3), writes)
              and agrees(m.group(4), o) and abs(reads / qkv - 1) < 0.05 and writes <= o,
              f"{m.group(0)!r}: reads {reads:.1f}, Q+K+V {qkv:.1f}, writes {writes:.1f}, O {o:.1f} MB")
    m = ck.find(rf"from\s+({NUM}) ms at (\d+ x \d+) to ({NUM}) ms at\s+(\d+ x \d+)")
    ck.expect(number(m.group(1)) >= number(m.group(3)), f"{m.group(0)!r}")


@functools.cache
def instruction_steps(d: int):
    """(calls, median PyTorch flash ÷ Triton 128×64, median Triton 128×64 ÷ cuDNN) from schedule.csv, float16,
    not causal, at head dim d, read here apart from flashviz.hardware.measured."""
    import pandas as pd
    s = pd.read_csv(measured.DATA / "schedule.csv")
    s = s[(s["status"] == "ok") & (s["dtype"] == "float16") & (s["causal"] == 0) & (s["d"] == d)]
    by = {impl: s[s["impl"] == impl].set_index(["n", "batch_heads"])["time_ms"]
          for impl in ("flash", "triton_128x64", "cudnn")}
    both = pd.concat(by, axis=1).dropna()
    if both.empty:
        return None
    return (len(both), float((both["flash"] / both["triton_128x64"]).median()),
            float((both["triton_128x64"] / both["cudnn"]).median()))


def check_inference_roofline(ck: Claims, p: dict) -> None:
    """Lesson 12's roofline verdicts are the two-level count's, and say so (issue 37, item 5)."""
    ck.find(r"decode is \*\*(memory|compute)-bound\*\* at .+?, prefill \*\*(memory|compute)-bound\*\* at .+?, by the "
            r"two-level count, HBM and SRAM with no L2 between")


def _wg_hardware(p: dict):
    """The GPU lesson 11 models at these settings: a preset, or the custom figures (the link's,
    else the defaults, which are the A100 40GB's)."""
    from explorer.params import CUSTOM_GPU
    if p["wg_gpu"] != "custom":
        return HARDWARE[p["wg_gpu"]]
    figures = {q.key: q.parse([str(p[q.key])])[0] if q.key in p else q.default for q in CUSTOM_GPU}
    return custom_hardware(*(figures[q.key] for q in CUSTOM_GPU))


def check_plain_attention(ck: Claims) -> None:
    """Lesson 11's plain-attention paragraph: three kernels against the model, the naive script's
    four against its count, and both against PyTorch's flash kernel, every ratio from the CSV."""
    from flashviz.hardware.gpu_targets import NAIVE, load, load_plain, plain_targets
    plain, naive = load_plain(), load_plain(impl=NAIVE)
    t = plain_targets(plain, naive)
    pr, p4, slower = t["reads: model ÷ measured"], t["naive reads: count ÷ measured"], t["time: naive ÷ plain"]
    m = ck.find(r"in\s+(\d+) kernels: S = QKᵀ")
    ck.expect(int(m.group(1)) == t["kernels"].max() == t["kernels"].min(), f"{m.group(0)!r}: {set(t['kernels'])}")
    m = ck.find(rf"It reads\s+\*\*({NUM})–({NUM})×\*\* of what the H200 measures")
    ck.expect(agrees(m.group(1), pr.min()) and agrees(m.group(2), pr.max()), f"{m.group(0)!r}")
    low = t.loc[pr.idxmin()]
    m = ck.find(rf"The low end is n = ({NUM}), where S has\s+more than 2³¹ elements")
    ck.expect(number(m.group(1)) == low["n"] and low["B·H"] * low["n"] ** 2 > 2**31, f"{m.group(0)!r}")
    m = ck.find(rf"gives ({NUM})–({NUM})× of that script's measured reads, and it takes\s+({NUM})–({NUM})× plain "
                r"attention's time")
    for got, want in zip(m.groups(), (p4.min(), p4.max(), slower.min(), slower.max())):
        ck.expect(agrees(got, want), f"{m.group(0)!r}")
    # why the L2 does not help it: the S of every head, which each kernel sweeps before the next, outgrows the L2
    from flashviz.model.config import HARDWARE
    m = ck.find(rf"the S of all B·H heads is ({NUM}) MB or more\s+at these configs, against the H200's (\d+) MB L2")
    whole = (t["B·H"] * t["S per head MB"]).min()
    ck.expect(agrees(m.group(1), whole) and int(m.group(2)) == HARDWARE["H200 SXM"].l2_mb
              and whole > HARDWARE["H200 SXM"].l2_mb, f"{m.group(0)!r}: the whole S {whole:.0f} MB")
    df = load()[0]
    key = ["n", "d", "batch_heads"]
    flash = df[df["impl"] == "flash"].set_index(key)["dram_read_bytes"]
    less = plain.set_index(key)["dram_read_bytes"] / flash.reindex(plain.set_index(key).index)
    m = ck.find(rf"PyTorch's flash kernel reads\s+({NUM})–({NUM})× less")
    ck.expect(agrees(m.group(1), less.min()) and agrees(m.group(2), less.max()), f"{m.group(0)!r}")


def check_other_cublas_runs(ck: Claims, lesson: str) -> None:
    """A lesson that shows its own run's cuBLAS fp16 rate names the other runs' (issue 37, nit: 725, 707 and 728 in
    three lessons, unexplained)."""
    runs = {name: rate for _, name, rate in measured.cublas_fp16_runs()}
    others = [name for name in runs if name != lesson]
    m = ck.find(rf"{others[0]}'s run read ({NUM}) and {others[1]}'s ({NUM}) TFLOP/s,\s+({NUM})% apart from run to run")
    spread = 100 * (max(runs.values()) / min(runs.values()) - 1)
    ck.expect(agrees(m.group(1), runs[others[0]]) and agrees(m.group(2), runs[others[1]])
              and agrees(m.group(3), spread), f"{m.group(0)!r}: {runs}")


def check_whole_gpu(ck: Claims, p: dict) -> None:
    check_plain_attention(ck)
    from flashviz.hardware.gpu_arch import arch_of
    from flashviz.hardware.gpu_model import forward_time, whole_gpu
    from flashviz.hardware.gpu_targets import load, targets
    from explorer.whole_gpu import kernel_named
    n, d, bh = p["wg_n"], p["wg_d"], p["wg_bh"]
    hw, kernel = _wg_hardware(p), kernel_named(p["wg_kernel"], d)
    arch, occ = arch_of(hw), kernel.occupancy(d, hw)
    ck.expect(not re.search(r"keeps 0 of them|× 0\b", ck.text), "a page that says 0 blocks per unit")
    check_fa3_order(ck, ck.text, "lesson 11")
    if occ.launch:
        m = ck.find(rf"cannot launch on the {re.escape(hw.name)} at d = {d}:\*\* (.+?)\. A kernel")
        ck.expect(m.group(1) == occ.launch, f"{m.group(0)!r}: the engine says {occ.launch!r}")
        ck.expect(kernel.smem_bytes(d) > hw.smem_per_block_kb * KB, f"refused though {kernel.smem_bytes(d)} B fit")
        pick = ck.find(r"pick ([^.]+)\.|No kernel of this lesson fits")
        for name in (pick.group(1).split(", ") if pick.group(1) else []):
            ck.expect(kernel_named(name, d).occupancy(d, hw).launch is None, f"suggests {name}, which cannot launch")
        ck.expect(not [x for x in ck.at.metric if x.label == "resident at once"], "residency for a refused kernel")
        return
    w = whole_gpu(n, d, bh, kernel, hw)
    check_other_cublas_runs(ck, "lesson 11")
    ck.expect(occ.blocks >= 1, f"{occ}")
    ck.expect(ck.metric("resident at once") == f"{hw.sms} × {occ.blocks}", f"resident vs {hw.sms} × {occ.blocks}")
    ck.expect(ck.metric("waves") == f"{w.waves:,}", f"waves vs {w.waves}")
    ck.expect(agrees(ck.metric("DRAM reads ÷ floor").rstrip("×"), w.over_floor), f"over floor {w.over_floor:.4f}")
    # FA1 against FA2's split: at the page's own batch × heads while it leaves units idle, and a smaller batch
    # named as another setting only where the page's fills them (issue 37, nit: min(B·H, 8) beside the page's)
    m = ck.find(rf"FlashAttention-1 gave each \(batch, head\) one thread block\. With batch × heads = (\d+) that is\s+"
                rf"(\d+) busy {arch.unit}s? out of (\d+)\.")
    few = int(m.group(1))
    ck.expect(min(few, hw.sms) == int(m.group(2)) and int(m.group(3)) == hw.sms, f"{m.group(0)!r}")
    ck.expect(few == bh if bh < hw.sms or hw.sms == 1 else
              (few < hw.sms and f"At this page's batch × heads = {bh:,}" in ck.text),
              f"the split's example at batch × heads = {few}, the page's is {bh} for {hw.sms} {arch.unit}s")
    m = ck.find(rf"keeps (\d+) of them on each of its (\d+) ({arch.unit})s")
    ck.expect((int(m.group(1)), int(m.group(2))) == (occ.blocks, hw.sms), f"{m.group(0)!r} vs {occ.blocks}")
    m = ck.find(r"(?s)the least of what each limit allows:\s+(.+?)(?: \[\*model|\.\s+So )")
    said = re.findall(r"\b(shared memory|LDS|registers|(?:warp|wavefront|thread block) slots)(?: allows)? (\d+)\b",
                      m.group(1))
    ck.expect([(what, int(v)) for what, v in said] == list(occ.limits),
              f"limits said {said}, the engine's {occ.limits}")
    m = ck.find(r"So ([\d,]+) run at once and the grid runs in ([\d,]+) waves?")
    ck.expect((number(m.group(1)), number(m.group(2))) == (w.resident, w.waves), f"{m.group(0)!r}")
    size = r"-?\d[\d,.]* [KMGT]?B"
    if w.l2_share == 0:
        ck.find(r"with no L2 none of it is kept")
        ck.expect(w.rereads, "no L2, yet no re-reads")
    else:
        m = ck.find(rf"({size}) in flight,\s+which (fit in|outgrow) the ({size})")
        ck.expect(same_bytes(m.group(1), w.in_flight) and same_bytes(m.group(3), w.l2_share), f"{m.group(0)!r}")
        ck.expect((m.group(2) == "outgrow") == w.rereads, f"{m.group(0)!r}: in flight {w.in_flight} vs {w.l2_share}")
    m = ck.find(r"comes from DRAM (once|(\S+) times on average)")
    per_head = w.passes / bh
    ck.expect(per_head == 1 if m.group(1) == "once" else per_head > 1 and agrees(m.group(2), per_head),
              f"{m.group(0)!r} vs {per_head}")
    m = ck.find(rf"the reads come to ({size}):\s+the\s+two-level model \(one block at a time, no cache\) reads "
                rf"{COMPARE} bytes")
    ck.expect(same_bytes(m.group(1), w.reads), f"{m.group(0)!r} vs {w.reads}")
    ck.ratio_claim(m, w.reads, w.two_level, "two-level against three-level reads")
    if arch.chiplets > 1:
        m = ck.find(rf"its L2 must keep ({size}), which\s+(fits in|outgrows) its (\d+) MB")
        ck.expect(same_bytes(m.group(1), w.chiplet_in_flight) and (m.group(2) == "outgrows") == w.chiplet_rereads,
                  f"{m.group(0)!r} vs {w.chiplet_in_flight} in {w.chiplet_l2}")
        m = ck.find(rf"({size}) of Infinity Cache\s+reads in all against ({size}) from DRAM")
        ck.expect(same_bytes(m.group(1), w.chiplet_fills) and same_bytes(m.group(2), w.reads), f"{m.group(0)!r}")
    # the page's own batch × heads while FA1 leaves units idle (or there is one unit to fill)
    few = bh if bh < hw.sms or hw.sms == 1 else min(8, hw.sms // 2)
    small = whole_gpu(n, d, few, kernel, hw)
    m = ck.find(rf"that is\s+(\d+) busy {arch.unit}s? out of (\d+)")
    ck.expect((int(m.group(1)), int(m.group(2))) == (min(few, hw.sms), hw.sms), f"{m.group(0)!r}")
    m = ck.find(r"fills\s+([\d,]+) of the ([\d,]+) slots at once")
    ck.expect((number(m.group(1)), number(m.group(2))) == (min(small.blocks, small.resident), hw.sms * occ.blocks),
              f"{m.group(0)!r}")
    # The time model's sentence: the H200's rates at the reader's settings, the softmax marked as a model choice.
    df, rates = load()
    h200 = HARDWARE["H200 SXM"]
    at = whole_gpu(n, d, bh, kernel, h200)
    t = forward_time(n, d, bh, kernel, at.reads + at.writes, rates)
    m = ck.find(rf"on this H200: matmuls ({NUM}) ms \+ exponentials\s+({NUM}) ms \+ other\s+softmax work ({NUM}) ms "
                rf"= ({NUM}) ms; the exponentials alone are\s+(\d+)% of the matmul time")
    for got, want in zip(m.groups(), (t.matmul_s, t.exp_s, t.other_s, t.arithmetic_s)):
        ck.expect(abs(number(got) - 1e3 * want) <= 0.005 * 1e3 * want + half_unit(got), f"{m.group(0)!r}")
    ck.expect(abs(int(m.group(5)) - 100 * t.exp_s / t.matmul_s) <= 0.5 + 1e-9, f"{m.group(0)!r}")
    ck.find(r"the model \*\*adds\*\* the softmax time to the matmul time \[\*model: softmax time added")
    table = targets(df, rates)
    dram = int((table["model bound"] == "DRAM").sum())
    m = ck.find(r"is the larger at\s+(none|\d+) of the (\d+) configs")
    ck.expect((0 if m.group(1) == "none" else int(m.group(1)), int(m.group(2))) == (dram, len(table)),
              f"{m.group(0)!r}")


# ---- lesson 12: one sequence's token against the batch's step, and the cache against the GPU's memory ----

def check_inference(ck: Claims, p: dict) -> None:
    check_inference_roofline(ck, p)
    # the cache against the GPU's memory in one unit, the sheet's decimal GB (the verifying read: "136 GB of the
    # H200's 141 GB: it does not fit", binary against decimal)
    m = ck.find(rf"the cache takes \*\*{NUM} [KMGTP]?B\*\* \(({NUM}) GB in the sheet's decimal units\) of the "
                rf".+?'s (\d+) GB: it \*?\*?(fits|does not fit)")
    ck.expect((number(m.group(1)) <= int(m.group(2))) == (m.group(3) == "fits") or abs(number(m.group(1))
              - int(m.group(2))) < 0.1, f"{m.group(0)!r}")
    # multi-head attention, one query head a K/V head: no "the 1 query row ... reuse" (issue 37's expert read)
    ck.expect(not re.search(r"\bthe 1 query (rows?|heads?)\b", "\n".join([ck.text, ck.why])),
              "a group of one query head written as a plural")
    if p["hw"] in HARDWARE:  # the vendor's name for its units (issue 37, nit: "SMs" on the MI300X)
        hw, unit = HARDWARE[p["hw"]], arch_of(HARDWARE[p["hw"]]).unit
        ck.find(rf"for the {re.escape(hw.name)}'s \*\*{hw.sms}\*\* {unit}s\.")
        ck.expect(unit == ("CU" if hw.name == "MI300X" else "SM"), f"{hw.name}'s units: {unit}")
        ck.find(rf"fills k of S {unit}s k/S of")
        ck.find(rf"the work fills {NUM}% of the {unit}s\.|already fill the {hw.sms} {unit}s:")
    from flashviz.run.decode import DecodeConfig, decode_cost
    heads, layers, batch = p["inf_heads"], p["inf_layers"], p["inf_batch"]
    cfg = DecodeConfig(n_kv=p["inf_ctx"], n_q=1, d=p["d"], heads=heads, kv_heads=min(p["inf_kv"], heads),
                       batch=batch, Br=min(p["Br"], p["inf_ctx"]), Bc=min(p["Bc"], p["inf_ctx"]),
                       dtype=tensor_dtype(p["dtype"]))
    eb = DTYPE_BYTES[cfg.dtype]
    one_cache = 2 * layers * cfg.kv_heads * cfg.n_kv * cfg.d * eb  # K and V of one sequence, every layer
    step = layers * decode_cost(cfg).hbm_bytes
    # the metric: a token's reads are one sequence's; the batch's step is batch times that
    for label, value in (("read per token, all layers", step / batch), ("read per step, whole batch", step)):
        shown = [x.value for x in ck.at.metric if x.label == label]
        ck.count += len(shown)
        ck.expect(all(same_bytes(v, value) for v in shown), f"the metric {label!r} shows {shown}, the engine "
                  f"{value:,.0f} B (batch {batch}: one step reads {step:,} B for all {batch} sequences)")
    m = ck.find(rf"Each new token's query reads its own sequence's cache once, ({BYTES}) over (\d+) layers"
                rf"(?:; one decoding step of the batch of (\d+) reads (\d+) such caches, ({BYTES}),)? and does")
    per_sequence, tol = bytes_of(m.group(1))
    ck.expect(abs(per_sequence * batch - step) <= tol * batch + 1e-9 * step and per_sequence >= one_cache * 0.995,
              f"{m.group(0)!r}: one decoding step of batch {batch} reads {step:,} B, so {step / batch:,.0f} B per "
              f"sequence's token (one sequence's cache is {one_cache:,} B)")
    ck.expect((m.group(3) is not None) == (batch > 1) and (batch == 1 or (int(m.group(3)) == int(m.group(4)) == batch
              and same_bytes(m.group(5), step))), f"{m.group(0)!r}: batch {batch}, the step reads {step:,} B")
    if p["hw"] in HARDWARE:
        hw = HARDWARE[p["hw"]]
        cache = batch * one_cache
        over = cache > hw.hbm_gb * 1e9
        said = f"This cache does not fit on one {hw.name}" in ck.text
        ck.expect(said == over, f"'does not fit' shown: {said}; the cache is {cache:,} B against {hw.name}'s "
                  f"{hw.hbm_gb} GB")
        fit = ck.find(r"GB: it (fits|\*\*does not fit\*\*)")
        ck.expect((fit.group(1) != "fits") == over, f"{fit.group(0)!r}: {cache:,} B against {hw.hbm_gb} GB")


# ---- FA3's overlap inside a warp group (FA3 §3.2, Algorithm 2), wherever a page or an assumption states it ----

# the wrong direction the pages once gave: a tile's softmax under the *next* tile's matmul
FA3_BACKWARDS = (r"softmax of (?:one|this) tile overlaps the matmul of the next|issued before the softmax of this one"
                 r"|a tile's softmax with the next tile's QK|softmax of tile j runs under the QKᵀ of tile j\+1")
FA3_ORDER = (r"the (QKᵀ) of tile (j) is issued, then the (\w+) of tile (j(?:[−+]\d)?), and the softmax of tile j runs "
             r"under the (\w+) of tile (j(?:[−+]\d)?)")


def fa3_order_truth(j: int = 3) -> tuple[tuple[str, int], tuple[str, int]]:
    """From schedule.timeline at a tile whose parts are alike: the matmul group 0 issues right after its
    QK^T of tile j, and the one of its own that starts together with its softmax of tile j (as tile
    offsets from j). Algorithm 2: QK^T of tile j (line 9), then PV of tile j−1 (line 11), softmax of tile j
    (line 13) while that PV runs."""
    from flashviz.hardware.schedule import EVEN, timeline
    steps = [x for x in timeline("fa3", EVEN, tiles=j + 3) if x.group == 0]
    mm = sorted((x for x in steps if x.lane == "tensor cores"), key=lambda x: x.start)
    k = next(i for i, x in enumerate(mm) if x.label == "QKᵀ" and x.tile == j)
    first = min(x.start for x in steps if x.tile == j and x.lane in ("FP32", "exp unit"))
    under = next(x for x in mm if x.start <= first < x.end)
    return (mm[k + 1].label, mm[k + 1].tile - j), (under.label, under.tile - j)


def check_fa3_order(ck: Claims, text: str, what: str) -> None:
    """The FA3 order sentence in `text`, against the timeline; no sentence there gives the old direction."""
    bad = re.search(FA3_BACKWARDS, text)
    ck.expect(not bad, f"{what} says {bad and bad.group(0)!r}, the backwards order (FA3 §3.2: a tile's softmax runs "
                       "under the previous tile's PV)")
    m = ck.find(FA3_ORDER, text)
    offset = {"j": 0, "j−1": -1, "j+1": 1}
    (then, then_at), (under, under_at) = fa3_order_truth()
    said = ((m.group(3), offset[m.group(4)]), (m.group(5), offset[m.group(6)]))
    ck.expect(said == ((then, then_at), (under, under_at)),
              f"{what}: {m.group(0)!r}, the timeline issues the {then} of tile j{then_at:+d} after the QKᵀ of tile j "
              f"and runs the softmax of tile j under the {under} of tile j{under_at:+d}")


def check_masks(ck: Claims, p: dict) -> None:
    """Lesson 14: every ratio, count and error against the closed forms and runs, recomputed here."""
    from flashviz.model import costs
    from flashviz.model.mask_sweeps import documents
    from flashviz.model.masks import EMPTY, FULL, PARTIAL
    from flashviz.run.attention import masks_exact
    from flashviz.teach.bugs import NOISE
    from tests.claims_settings import engine_config
    n, w, mix = int(p["mk_n"]), int(p["mk_window"]), p["mk_docs"]
    cfg = engine_config(p, n).with_(causal=False)
    causal, win = cfg.with_(causal=True), cfg.with_(causal=True, window_left=w - 1)
    docs = cfg.with_(causal=True, docs=documents(mix, n))
    c, wn, dc = (costs.flash_cost(x) for x in (causal, win, docs))
    total = cfg.Tr * cfg.Tc
    tiles = costs.census(n, cfg.Br, cfg.Bc, win.mask).tiles
    ck.expect(ck.metric("tiles computed, window") == f"{tiles:,} of {total:,}", f"window tiles {tiles} of {total}")
    for label, base, other in (("window against causal, flops", c.flops, wn.flops),
                               ("window against causal, HBM", c.hbm_bytes, wn.hbm_bytes)):
        m = re.fullmatch(COMPARE + r" \w+", ck.metric(label))
        ck.expect(m, f"{label}: {ck.metric(label)!r}")
        ck.ratio_claim(m, base, other, label)
    m = ck.find(rf"a causal window of {w:,} keys .* does \*\*{COMPARE} flops\*\* than causal attention")
    ck.ratio_claim(m, c.flops, wn.flops, "window flops")
    m = ck.find(rf"and moves \*\*{COMPARE} bytes\*\*")
    ck.ratio_claim(m, c.hbm_bytes, wn.hbm_bytes, "window bytes")
    m = ck.find(rf"packed as {re.escape(mix)}, each causal, the n tokens take {COMPARE} flops (as|than) one causal")
    ck.ratio_claim(m, c.flops, dc.flops, "documents' flops")
    ck.expect((m.group(m.lastindex) == "as") == bool(m.group("same")), f"{m.group(0)!r}")
    # the tile maps, counted one by one here
    small = cfg.at_n(min(n, 32 * min(cfg.Br, cfg.Bc)))
    for name, at in (("no mask", small), ("causal", small.with_(causal=True)),
                     (f"window {w:,}", small.with_(causal=True, window_left=w - 1)),
                     (f"{mix}, causal", small.with_(causal=True, docs=documents(mix, small.n)))):
        flat = [k for row in at.mask.kinds(at.Br, at.Bc) for k in row]
        said = ck.find(rf"{re.escape(name)}: ([\d,]+) full, ([\d,]+) partial, ([\d,]+) empty")
        ck.expect([int(g.replace(",", "")) for g in said.groups()] == [flat.count(FULL), flat.count(PARTIAL),
                                                                        flat.count(EMPTY)], f"{said.group(0)!r}")
    # growth from the last doubling of the sweep
    ns = (2**19, 2**20)
    grown = {}
    for name, make in (("no mask", lambda x: x), ("causal", lambda x: x.with_(causal=True)),
                       ("window", lambda x: x.with_(causal=True, window_left=w - 1)),
                       ("docs", lambda x: x.with_(causal=True, docs=documents(mix, x.n)))):
        a, b = (costs.flash_cost(make(cfg.at_n(k))) for k in ns)
        grown[name] = (b.flops / a.flops, b.hbm_bytes / a.hbm_bytes)
    m = ck.find(rf"the flops of the whole matrix grow ({NUM})×, causal's ({NUM})×, the window's ({NUM})× and its HBM "
                rf"bytes ({NUM})×")
    ck.expect(agrees(m.group(1), grown["no mask"][0]) and agrees(m.group(2), grown["causal"][0])
              and agrees(m.group(3), grown["window"][0]) and agrees(m.group(4), grown["window"][1]), f"{m.group(0)!r}")
    ck.expect(abs(grown["window"][0] - 2) < 0.05, f"'proportional to n': the window grew {grown['window'][0]:.4f}×")
    m = ck.find(rf"so theirs grow ({NUM})×")
    ck.expect(agrees(m.group(1), grown["docs"][0]), f"{m.group(0)!r} vs {grown['docs'][0]:.4g}")
    # the runs: the seed's window, exact, and the sink
    run_n = min(n, 2048, int(256 ** 0.5) * min(cfg.Br, cfg.Bc))
    run = cfg.at_n(run_n)
    rows = masks_exact(run, min(w, run.n), documents(mix, run.n), float(p["mk_sink"]))
    keys = min(w, run.n)
    if keys < run.n:
        m = ck.find(rf"the window of {keys:,} keys is off by up to \*\*({NUM})\*\*")
        ck.expect(agrees(m.group(1), rows[0]["max |diff|"]) and rows[0]["max |diff|"] > NOISE, f"{m.group(0)!r}")
    else:
        ck.find(rf"a window of {keys:,} keys holds every key before each query, so it is causal attention itself")
        ck.expect(rows[0]["max |diff|"] <= NOISE, f"a window over every key is {rows[0]['max |diff|']:.2e} off")
    m = ck.find(rf"FlashAttention computes it to \*\*({NUM})\*\*, float noise")
    ck.expect(rows[1]["max |diff|"] <= NOISE, f"{m.group(0)!r}: {rows[1]['max |diff|']:.2e}")
    m = ck.find(rf"flash matches gpt-oss's softmax to \*\*({NUM})\*\*")
    ck.expect(rows[3]["max |diff|"] <= NOISE, f"{m.group(0)!r}: {rows[3]['max |diff|']:.2e}")
    # the masks player: its mask, its tiles and its run, rebuilt here from the lesson's settings
    from flashviz.players.animation import flash_frames, mask_teaching_config, mask_words
    with_sink = str(p.get("mk_psink", "false")).lower() == "true"
    pcfg = mask_teaching_config(cfg, w, lambda k: documents(mix, k), p.get("mk_pmask", "window"),
                                float(p["mk_sink"]) if with_sink else None)
    played = costs.census(pcfg.n, pcfg.Br, pcfg.Bc, pcfg.mask).tiles
    m = ck.find(rf"Mask: {re.escape(mask_words(pcfg))}\. .* it walks only the key blocks its queries see, "
                rf"{played:,} of {pcfg.Tr * pcfg.Tc:,} tiles")
    ck.expect(("starts at the sink" in ck.text) == with_sink, "the sink's sentence when, and only when, it is on")
    m = ck.find(rf"max \|O − masked standard attention\| = ({NUM})\.(?:\s|$)")
    diff = float(flash_frames(pcfg)["final_diff"])
    ck.expect(agrees(m.group(1), diff) and diff <= NOISE, f"{m.group(0)!r}: {diff:.2e}")
    check_masks_measured(ck, w)


def check_masks_measured(ck: Claims, w: int) -> None:
    """Lesson 14's H200 paragraph against fa4_masks.csv and the census, recomputed here."""
    import pandas as pd
    from flashviz.model import costs
    from flashviz.model.config import Config
    df = pd.read_csv(measured.DATA / "fa4_masks.csv")
    fwd = df[(df["pass"] == "fwd") & (df["status"] == "ok")]
    plain = fwd[(fwd["kind"] == "full")].iloc[0]
    full_ms = float(plain["ms"])
    shown = w if ((fwd["kind"] == "window") & (fwd["window_left"] == w - 1) & (fwd["window_right"] == 0)).any() else 128
    ck.expect((f"(the lesson's {w} was not measured)" in ck.text) == (shown != w), f"window {w}: the not-measured note")
    said = (rf"window of {shown:,} keys(?: \(the lesson's \d+ was not measured\))? keeps \*\*({NUM})%\*\* of the "
            rf"tiles and takes \*\*({NUM})%\*\* of the full matrix's time, ({NUM}) ms against ({NUM}) ms: each of its "
            rf"tiles takes ({NUM})× the time")
    wide = rf"The window \(4,095, 0\) keeps ({NUM})% of the tiles and takes ({NUM})% of the time"
    for first, (left, text) in enumerate(((shown - 1, said), (4095, wide))):
        r = fwd[(fwd["kind"] == "window") & (fwd["window_left"] == left) & (fwd["window_right"] == 0)].iloc[0]
        cfg = Config(n=int(r["n"]), d=int(r["d"]), Br=128, Bc=128, window_left=left, window_right=0)
        tiles = costs.census(cfg.n, 128, 128, cfg.mask).tiles / (cfg.Tr * cfg.Tc)
        time = float(r["ms"]) / full_ms
        m = ck.find(text)
        ck.expect(agrees(m.group(1), 100 * tiles) and agrees(m.group(2), 100 * time), f"{m.group(0)!r}: "
                  f"{tiles:.4%} of the tiles, {time:.4%} of the time")
        if first == 0:
            ck.expect(agrees(m.group(3), float(r["ms"])) and agrees(m.group(4), full_ms)
                      and agrees(m.group(5), time / tiles), f"{m.group(0)!r}")
    sink = fwd[(fwd["kind"] == "sink") & (fwd["causal"] == 0) & fwd["window_left"].isna()].iloc[0]
    m = ck.find(rf"A sink takes {COMPARE} time than no sink over the full matrix",
                ck.text.replace("less time", "fewer time"))
    ck.ratio_claim(m, full_ms, float(sink["ms"]), "the sink's time")
    # the schedule model's time per mask beside the measured (masks_measured.model_ms; its own tests hold it)
    from flashviz.hardware.masks_measured import measured_masks
    mm = measured_masks("fwd")
    by = mm.set_index("mask")
    ratio = mm["time: model ÷ measured"]
    fit = ratio.between(0.8, 1.25)
    m = ck.find(rf"It puts the window of {shown:,} keys at ({NUM}) ms, \*\*({NUM})×\*\* of the measured time, and the "
                rf"full matrix at ({NUM})×; over the (\d+) masks it is ({NUM})–({NUM})× of the measured time, within "
                rf"0\.8–1\.25× at (\d+)\.")
    row = by.loc[f"window ({shown - 1:,}, 0)"]
    ck.expect(agrees(m.group(1), row["model ms"]) and agrees(m.group(2), row["time: model ÷ measured"])
              and agrees(m.group(3), by.loc["no mask", "time: model ÷ measured"]) and int(m.group(4)) == len(mm)
              and agrees(m.group(5), ratio.min()) and agrees(m.group(6), ratio.max()) and int(m.group(7)) == fit.sum(),
              f"{m.group(0)!r}: {row['model ms']:.4g} ms, {ratio.min():.3f}–{ratio.max():.3f}, {int(fit.sum())} within")
    misses = mm[~fit]
    m = ck.find(r"(Every miss has it too fast|(\d+) of the (\d+) misses have it too fast)(, and every miss is a mask "
                r"of at most ([\d,]+) tiles, every mask within at least ([\d,]+))?", required=not misses.empty)
    if m:
        fast = int((misses["time: model ÷ measured"] < 0.8).sum())
        ck.expect((m.group(1).startswith("Every")) == (fast == len(misses))
                  and (not m.group(2) or [int(m.group(2)), int(m.group(3))] == [fast, len(misses)]), f"{m.group(0)!r}")
        split = bool(fit.any()) and misses["tiles computed"].max() < mm.loc[fit, "tiles computed"].min()
        ck.expect(bool(m.group(4)) == split and (not split or (
            int(m.group(5).replace(",", "")) == misses["tiles computed"].max()
            and int(m.group(6).replace(",", "")) == mm.loc[fit, "tiles computed"].min())), f"{m.group(0)!r}")
    back = df[(df["pass"] == "bwd") & (df["status"] == "ok")]
    b_full = float(back[back["kind"] == "full"].iloc[0]["ms"])
    b_win = float(back[(back["kind"] == "window") & (back["window_left"] == shown - 1)
                       & (back["window_right"] == 0)].iloc[0]["ms"])
    m = ck.find(rf"The backward pass of the same window takes ({NUM})% of the full backward's time \(({NUM}) ms "
                rf"against ({NUM}) ms\)")
    ck.expect(agrees(m.group(1), 100 * b_win / b_full) and agrees(m.group(2), b_win) and agrees(m.group(3), b_full),
              f"{m.group(0)!r}: {b_win} of {b_full} ms")


def why_masks(ck: Claims, p: dict) -> None:
    from flashviz.model import costs
    from tests.claims_settings import engine_config
    cfg = engine_config(p, int(p["mk_n"])).with_(causal=True, window_left=int(p["mk_window"]) - 1)
    m = ck.find(r"([\d,]+) of the ([\d,]+) tiles: each block of", ck.why)
    ck.expect((int(m.group(1).replace(",", "")), int(m.group(2).replace(",", "")))
              == (costs.census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles, cfg.Tr * cfg.Tc), f"{m.group(0)!r}")
