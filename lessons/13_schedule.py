"""Lesson 13: after the bytes, the schedule. FlashAttention-3's schedule (its authors' own kernel, flash-attn-4's
Hopper path) against FlashAttention-2's (PyTorch's flash kernel) on the H200, with cuDNN, NVIDIA's own Hopper
kernel, beside them: the same attention, a different schedule."""
import pandas as pd
import streamlit as st

from explorer import cache, charts, predict, ui
from explorer.lessons import control
from explorer.schedule_view import (calls_in, every_call, measured, measured_at, occupancy, read_gap, setting,
                                   speedup_at, tile_text, timeline, vendor_gap)
from flashviz.players import schedule_lesson as sl
from flashviz.hardware.schedule import describe
from flashviz.hardware.schedule_targets import SPEEDUP_OK, TIME_OK
from flashviz.hardware import fa3_authors
from flashviz.model.sources import cite
from flashviz.hardware import blackwell as bw
from flashviz.teach import questions
from flashviz.teach.claims import compare

st.title("After the bytes, the schedule")
st.markdown("#### FlashAttention-3's authors' own Hopper kernel computes the same attention as PyTorch's flash "
            "kernel. Why is it faster?")
c = st.columns([1.5, 1.1, 1.15, 1.5])  # each label whole at 1280 px beside the sidebar
place = dict(zip(("sc_call", "sc_dtype", "sc_causal", "sc_rates"), c))
s = setting(lambda p: ui.bound(control(p.key), place[p.key]))  # the call, its data type and its mask
rates_name = ui.bound(control("sc_rates"), place["sc_rates"])
occ = occupancy(rates_name)
ui.own_setting("This lesson has its own call (n, d, batch × heads, data type, mask), one of those measured on the "
               "H200 in the run that timed FlashAttention-3's authors' kernel beside cuDNN and PyTorch flash, and "
               "its own unit rates for the timeline: the sidebar's settings do not apply. Only the H200 was "
               "measured, so its rates are the only GPU's on offer. The timeline's rates can be the kernel's own "
               "(its units' rates per clock times the clock the H200 held while it ran) or those measured with the "
               "SM full.")
rates, table, _, summary = measured()
KERNELS = tuple(fa3_authors.LABELS.values())  # FA3 (authors), cuDNN, PyTorch flash
at = {k: measured_at(s, k) for k in KERNELS}
sp = speedup_at(s)
call = f"n = {s.n:,}, d = {s.d}, batch × heads = {s.bh}, {s.dtype}{', causal' if s.causal else ''}"

# ---- the timeline --------------------------------------------------------------------------------
ui.slide("Two schedules, one tile", steps=tuple({"sc_tile": k} for k in range(1, sl.TILES_SHOWN + 1)))
bars, steps, per_tile = timeline(s, occ)
tile_row = st.columns([1, 2], vertical_alignment="bottom")  # the keys' line beside the slider: the section fits 720 px
tile = ui.bound(control("sc_tile"), tile_row[0], help="PageDown on a projector steps through the tiles")
lanes = {sched: sl.lanes(sched) for sched in ("fa2", "fa3")}
ui.chart(lambda: cache.figure(charts.schedule_timeline, bars, ui.peek(control("sc_tile")), lanes), "sc_timeline",
         ("sc_tile",), player="sc_tile")
with tile_row[1]:
    ui.keys("← → step the key tiles · space plays them · Home, End", "sc_timeline", presented=True)
st.markdown(tile_text(sl.tile_story(steps, tile), per_tile))
w = sl.schedule_work(s, rates, occ)
Br, Bc = sl.authors_tile(s.d)
consumers = fa3_authors.read_kernel("fa4", s.d).warps // 4 - 1  # warp groups of 4 warps, one the producer
groups_note = ("" if consumers == 2 else
               f" At d = {s.d} flash-attn-4 itself splits its {Br} rows over {consumers} consumer warp groups of "
               f"{Br // consumers} rows (Nsight Compute: {4 * (consumers + 1) * 32} threads a block); the timeline "
               "keeps FA3's two, as the model does.")
ui.explain(f"""
Both panels run the same tile, flash-attn-4's {Br} × {Bc} (the tile FlashAttention-3's authors' `flash-attn-4` picks
on Hopper at d = {s.d}, {cite('fa_code', 'flash_attn/cute/interface.py')}; FlashAttention-3's own CUDA code has a tile
table of its own, {cite('fa_code', 'hopper/tile_size.h')}) at this call ({call}), with the rates
chosen above ({rates_name}{", each unit's rate per clock times the clock flash-attn-4 held at this d" if occ
else ""}): QKᵀ and PV {w.qk * 1e9:.0f} ns each on the tensor cores, the exponentials {w.exp * 1e9:.0f} ns,
the other softmax work (row max before, row sum and rescale after) {(w.pre + w.post) * 1e9:.0f} ns, and the K, V
copy {w.copy * 1e9:.0f} ns at the SM's share of DRAM for the bytes lesson 11's read model counts. Only the
schedule differs. **FA2**: {describe("fa2")} **FA3**: {describe("fa3")} FA3's steps are half as long: each
warp group holds half of the tile's rows. WG1 and WG2 are its two consumer warp groups
{ui.assumes("schedule")}.{groups_note}
""")
if not ui.presenting():  # every step the chart draws, for a reader (and a download)
    ui.table(bars[bars["tile"] <= tile].round(1), "sc_steps", "Every step drawn above: its schedule, lane, tile and "
             "warp group (FA2 has one; 0: the copies), start and length in ns.",
             show=["schedule", "lane", "label", "tile", "group", "start_ns", "length_ns"],
             headers={"start_ns": "start ns", "length_ns": "length ns"})

# ---- the exp unit --------------------------------------------------------------------------------
ui.slide("Why the exp unit matters")
st.subheader("Why the exp unit matters")
exp_rate, wgmma, cublas = rates[sl.EXP], rates[sl.WGMMA], rates[sl.FP16_MATMUL]
share_wg, share_cb = sl.exp_share(s.d, wgmma, exp_rate), sl.exp_share(s.d, cublas, exp_rate)
other_d = 64 if s.d == 128 else 128
m = st.columns(4)
m[0].metric("exp unit", f"{exp_rate / 1e12:.2f} T/s", help="exponentials a second, the whole GPU")
m[1].metric("tensor cores (wgmma)", f"{wgmma / 1e12:.0f} TFLOP/s")
m[2].metric("cuBLAS fp16 matmul", f"{cublas / 1e12:.0f} TFLOP/s")
m[3].metric(f"exp ÷ matmul time, d = {s.d}", f"{share_cb:.2f}–{share_wg:.2f}")
runs = cache.cublas_fp16_runs()
st.caption("cuBLAS's fp16 rate was measured in three runs on this H200: " + ", ".join(
    f"{rate:.0f} TFLOP/s ({command}, {lesson})" for command, lesson, rate in runs)
    + f". They differ by {max(r for *_, r in runs) / min(r for *_, r in runs) - 1:.0%} from run to run; each lesson "
    f"uses its own run's, this one the run that measured the unit rates its model uses ({cite('h200_measured')}).")
st.markdown(f"One exponential per score against 4d = {4 * s.d} matmul flops per score (QKᵀ and PV, 2d each). At "
            f"d = {s.d} the exponentials take **{share_wg:.2f}** of the matmul time at wgmma's rate and "
            f"**{share_cb:.2f}** at cuBLAS's. At d = {other_d} the share is "
            f"{sl.exp_share(other_d, cublas, exp_rate):.2f}–{sl.exp_share(other_d, wgmma, exp_rate):.2f} (cuBLAS, "
            "wgmma): the matmul flops per score grow with d, the exponentials do not. The timeline above shows "
            f"{w.exp / w.matmul:.2f}: it takes the tensor-core rate chosen there ({rates_name}) and adds one "
            "exponential per row and tile for the rescale.")
ui.explain(f"""
All three rates were measured on the H200 in one run, the one that gives the schedule model its unit rates
({cite("h200_measured", "schedule_rates.csv")}): the exp unit by a Triton kernel of dependent `exp2` steps on
values in registers, the tensor cores by a kernel that keeps a 128 × 64 by 64 × 128 fp16 tile pair on chip, cuBLAS
on 8192³. There are {wgmma / exp_rate:.0f} matmul
flops for each exponential the GPU can take in the same time; FlashAttention-3's paper gives the H100 989 TFLOP/s of
fp16 matmul against 3.9 TFLOP/s of exponentials ({cite("fa3", "§3.1")}). So a schedule that runs the exponentials
while the tensor cores wait (FA2's) pays for them in full; FA3's hides them under the other group's matmuls.
""")

# ---- measured against the model ------------------------------------------------------------------
ui.slide("Measured against the model")
st.subheader("Measured on the H200, and the schedule model")
st.caption(f"At {call}: the H200's median time by CUDA events, the three kernels in one run, beside the schedule "
           "model's.")
bars_at = pd.DataFrame([{"kernel": k, "measured ms": at[k]["measured ms"], "model ms": at[k]["model ms"]}
                        for k in KERNELS])
ui.chart(cache.figure(charts.schedule_measured, bars_at, "Time per call, ms"), "sc_measured")
ratio = {k: at[k]["time: model ÷ measured"] for k in KERNELS}
off = sp["model"] / sp["measured"]
own, vendor = at["FA3 (authors)"]["measured ms"], at["cuDNN"]["measured ms"]
st.markdown(
    f"FA3 (authors) is FlashAttention-3's design as its authors ship it in `flash-attn-4`: that package's Hopper "
    f"path, written in CuTe DSL ({cite('fa_code', 'flash_attn/cute')}), not FlashAttention-3's own CUDA code "
    f"(the repository's hopper/ folder, not measured here); cuDNN is NVIDIA's own kernel, its code closed; PyTorch "
    f"flash is FlashAttention-2's code. At this call the authors' kernel takes **{own:.3g} ms** and cuDNN "
    f"{vendor:.3g} ms (cuDNN's time {vendor / own:.2f}× its). The model puts FA3 (authors) at "
    f"**{ratio['FA3 (authors)']:.2f}×** of its measured time, PyTorch flash at **{ratio['PyTorch flash']:.2f}×** and "
    f"cuDNN at **{ratio['cuDNN']:.2f}×**. FA3 (authors) over flash: measured **{sp['measured']:.2f}×**, the model "
    f"{sp['model']:.2f}×, {off:.2f}× the measured speed-up ({'within' if sp['within 15%'] else 'outside'} 15%). The "
    f"model takes every overlap as perfect {ui.assumes('schedule')}.")
gap = vendor_gap()
every = every_call()
st.markdown(
    f"cuDNN is the vendor's kernel beside the authors': over the {len(gap)} forwards of the authors' run "
    f"(both data types, causal and not, d = {every.d_range[0]} to {every.d_range[1]}), cuDNN's time is "
    f"{gap.median():.2f}× the authors' kernel's at the median, {gap.min():.2f}–{gap.max():.2f}×, slower at "
    f"{int((gap > 1).sum())} of them ({cite('h200_measured', 'fa3_time.csv')}).")
cudnn_ratio = table[table["kernel"] == "cuDNN"]["time: model ÷ measured"]
misses = cudnn_ratio[~cudnn_ratio.between(*TIME_OK)]
too_fast = ("" if misses.empty else
            f", so where the model misses cuDNN ({len(misses)} of {len(cudnn_ratio)} calls) it has it too fast"
            if (misses < TIME_OK[0]).all() else
            f"; the model misses cuDNN at {len(misses)} of {len(cudnn_ratio)} calls, "
            f"{int((misses < TIME_OK[0]).sum())} of them too fast")
Br3, Bc3 = sl.authors_tile(s.d)
kernel_reads = read_gap()
apart = kernel_reads.apart
ui.explain(f"""
Nothing is fitted: each kernel's tiles (flash-attn-4's {Br3} × {Bc3} at d = {s.d}, as its code picks them;
PyTorch flash's {" × ".join(map(str, fa3_authors.tiles("flash", s.d)))}), schedule and instruction (mma.sync for
PyTorch flash; wgmma for the other two), each unit's rate per clock measured on the H200 times the clock of each
call, the host's dispatch, and the DRAM bytes of lesson 11's read model, the same for the three kernels. Nsight
Compute read their DRAM bytes at {kernel_reads.calls} calls ({cite("h200_measured", "fa3_ncu.csv")}): PyTorch flash's
reads were within 20% of the authors' kernel's at {kernel_reads.near} of them, and furthest apart at
n = {apart["n"]:,}, d = {apart["d"]}{", causal" if apart["causal"] else ""}: {apart["flash"] / 1e9:.3g} GB
against {apart["fa4"] / 1e9:.3g} GB. Between PyTorch flash and
the authors' kernel the instruction, the schedule and the tile all change; lesson 10 sets the instruction's
step apart from the schedule's on Triton's kernel, FlashAttention-2's schedule on wgmma. cuDNN is NVIDIA's own
kernel, its code closed: the model runs it on FlashAttention-3's schedule and 128 × 128 tiles with every overlap perfect
{ui.assumes("schedule")}, and it spends about a quarter more cycles a tile than that, waiting on the barriers that
pass the tensor cores between its two consumer warp groups (measured by Nsight Compute, BENCHMARKS.md){too_fast}.
The smallest calls also pay each block's start-up beyond the pipeline's fill, which the model does not count.
""")
ui.slide("Every call")
st.subheader("Every measured call: model ÷ measured")
fast, least, fast_causal, fast_short = every.cudnn_fast
fast_text = ("" if not fast else
             f" The model has cuDNN too fast (under {TIME_OK[0]}× of its measured time) at {fast} calls, down "
             f"to {least:.2f}×: {fast_causal} of them causal, {fast_short} with n ≤ 2,048.")
SET_WORDS = {"model": "in the model set", "held-apart": "held apart"}  # fa3_authors.SETS, worded
set_words = [SET_WORDS[k] for k in fa3_authors.SETS]
st.markdown(
    f"Over the authors' run ({every.calls} calls a kernel, d = {every.d_range[0]} to {every.d_range[1]}, each kernel "
    f"at the clock of its own call) the model is within {TIME_OK[0]}–{TIME_OK[1]}× of the authors' kernel at "
    + " and ".join(f"{ok} of {of} calls {name}" for (ok, of), name in zip(every.fa3_within, set_words, strict=True))
    + f", and its speed-up over PyTorch flash within {SPEEDUP_OK:.0%} of the measured one at "
    + " and ".join(f"{ok} of {of}" for ok, of in every.speedup_within)
    + f" (BENCHMARKS.md says why each miss misses). PyTorch flash is within at "
    f"{every.flash_within} of {every.calls} and cuDNN at {every.cudnn_within}.{fast_text}")
ui.table(summary.reset_index(), "sc_summary", f"Per set and kernel, over every call of the authors' run: how "
         f"many within {TIME_OK[0]}–{TIME_OK[1]}×, and the range of model ÷ measured time.")
ui.slide("Each call")
ui.table(calls_in(s.dtype, s.causal), "sc_targets",
         f"Each call in {s.dtype}{', causal' if s.causal else ''}: times in ms (H200: measured, CUDA events, "
         f"median); ok: model ÷ H200 within {TIME_OK[0]}–{TIME_OK[1]}.",
         show=["set", "kernel", "n", "d", "B·H", "measured ms", "model ms", "time: model ÷ measured", "in 0.8–1.25"],
         headers={"measured ms": "H200", "model ms": "model", "time: model ÷ measured": "model ÷ H200",
                  "in 0.8–1.25": "ok"})

# ---- FP8 ---------------------------------------------------------------------------------------
ui.slide("FP8: the exponentials matter more")
st.subheader("FP8: the matmuls get faster, the exponentials do not")
f8 = sl.fp8(s.d, rates)
m = st.columns(4)
m[0].metric("FP8 matmul (cuBLAS)", f"{f8.fp8_rate / 1e12:.0f} TFLOP/s")
m[1].metric("over fp16", f"{f8.speedup:.2f}×")
m[2].metric(f"exp ÷ matmul time, d = {s.d}", f"{f8.fp8.exp / f8.fp8.matmul:.2f}",
            help=f"{f8.fp16.exp / f8.fp16.matmul:.2f} in fp16")
m[3].metric("FA3 time per tile", f"{f8.fp8_interval * 1e6:.3g} µs", help=f"{f8.fp16_interval * 1e6:.3g} µs in fp16")
busiest, busy = max(("the tensor cores", f8.fp8.matmul), ("the exp unit", f8.fp8.exp),
                   ("the FP32 lanes", f8.fp8.pre + f8.fp8.post), key=lambda p: p[1])
gain = f8.fp16_interval / f8.fp8_interval
gain_text = "no faster" if gain < 1.005 else f"{gain:.2f}× faster"
st.markdown(
    f"At FP8's rate a {Br} × {Bc} tile's matmuls take {f8.fp8.matmul * 1e6:.3g} µs against "
    f"{f8.fp16.matmul * 1e6:.3g} µs in fp16; its exponentials still take {f8.fp8.exp * 1e6:.3g} µs. They are "
    f"**{f8.fp8.exp / f8.fp8.matmul:.2f}** of the matmul time, up from {f8.fp16.exp / f8.fp16.matmul:.2f}. Under "
    f"FA3's schedule a tile takes {f8.fp8_interval * 1e6:.3g} µs against {f8.fp16_interval * 1e6:.3g} µs: "
    f"{gain_text} for {f8.speedup:.2f}× the matmul rate. The busiest unit is {busiest}, "
    f"{busy * 1e6:.3g} µs of each tile.")
ui.explain(f"""
Both matmul rates are cuBLAS's on 8192³ in the same run (FP8 through `torch._scaled_mm`, e4m3, bf16 out), the exp
unit and FP32 rates those measured with the SM full; the tile's copies are left out. No FP8 attention kernel was
timed here: FlashAttention-3's paper reaches close to 1.2 PFLOP/s in FP8 on the H100 ({cite("fa3", "abstract")}),
with block quantisation and incoherent processing to keep its error down (lesson 6) {ui.assumes("schedule")}.
""")

# ---- after Hopper: the B200, modelled (FlashAttention-4) -------------------------------------------
ui.slide("After Hopper: the B200, modelled")
st.subheader("After Hopper: FlashAttention-4 on a B200, modelled")
cmp = bw.compare_tile(s.d)
b200_cols = st.columns(2)
tau = float(ui.bound(control("sc_tau"), b200_cols[0],
                     help="flash-attn-4 uses 8 for 16-bit inputs; 0 rescales at every new max"))
spread = float(ui.bound(control("sc_spread"), b200_cols[1],
                        help="The rescales are counted on random rows whose scores have this standard deviation "
                             "(lesson 2's default)"))
ui.explain(f"""
This section models a GPU this project did not measure {ui.assumes("b200_model")}. From the H100 to the B200 the
tensor cores' dense 16-bit rate grows from about 1 to 2.25 PFLOP/s while the exp unit (16 exponentials a clock per
SM) and shared memory (128 bytes a clock per SM) stay as they were ({cite("fa4_blog")}; {cite("fa4")}). Every
figure below is the sheets' rates on 128 × 128 score tiles on one SM, FlashAttention-4's tile
({cite("fa4_fwd", "cta_qk_tiler")}), the copies from DRAM left out; the H200's figures use its sheet and
FlashAttention-3's exp rate, not the rates measured above.
""")
if predict.inline(questions.b200_exp_ratio(s.d, s.causal), "sc_b200_exp"):  # question first
    h200, b3 = cmp.h200, cmp.b200
    b_rates = bw.gpu_rates("B200")
    m = st.columns(4)
    m[0].metric("B200 tensor cores", f"{b_rates.rates.tensor / 1e15:.2f} PFLOP/s", help="dense 16-bit, the sheet's")
    m[1].metric("B200 exp unit", f"{b_rates.rates.exp / 1e12:.2f} T/s", help="16 a clock per SM, as on Hopper")
    m[2].metric("B200 shared memory", f"{b_rates.smem_bytes / 1e12:.1f} TB/s", help="128 B a clock per SM")
    m[3].metric(f"B200 exp ÷ matmul, d = {s.d}", f"{b3.exp / b3.matmul:.2f}")
    st.markdown(
        f"At d = {s.d} the B200's tensor cores do a tile's two matmuls in {b3.matmul * 1e9:.0f} ns against the H200's "
        f"{h200.matmul * 1e9:.0f} ns ({compare(h200.matmul, b3.matmul, 'time', fewer='less')}); its exp unit takes the "
        f"tile's exponentials in {b3.exp * 1e9:.0f} ns against {h200.exp * 1e9:.0f} ns "
        f"({compare(h200.exp, b3.exp, 'time', fewer='less')}). The exponentials take "
        f"**{b3.exp / b3.matmul:.2f}** of the matmul time on the B200, against {h200.exp / h200.matmul:.2f} on the "
        "H200.")

    st.markdown("##### FA3's design and FA4's, unit by unit")
    b2 = cache.b200_schedules(s.d, s.causal, s.n, tau, spread)

    def b200_figure():
        """Both designs' timelines at the settings as they stand (or as a live slider sets them)."""
        now = setting(ui.peek)
        at_b2 = cache.b200_schedules(now.d, now.causal, now.n, float(ui.peek(control("sc_tau"))),
                                     float(ui.peek(control("sc_spread"))))
        frame = pd.DataFrame(bw.b200_bars(at_b2))
        return cache.figure(charts.schedule_timeline, frame, int(frame["tile"].max()),
                            {"fa3": bw.B200_CHART_LANES, "fa4": bw.B200_CHART_LANES},
                            (("fa3", "FA3"), ("fa4", "FA4")), "One B200 SM, modelled", False, 0.12)

    ui.chart(b200_figure, "sc_b200_timeline", ("sc_tau", "sc_spread"))
    st.caption(f"The same {2 * bw.B200_TILES_SHOWN} score tiles of 128 × 128 in both panels. Each lane is a unit of "
               f"one SM. FA3's design runs one 128-row block over "
               f"{2 * bw.B200_TILES_SHOWN} key tiles in two warp groups of 64 rows; FA4's runs two 128-row Q tiles "
               f"over {bw.B200_TILES_SHOWN} key tiles: the same work. Grey: the "
               "MMA's operands read from shared memory while it runs.")
    per = b2.per_tile()
    f3, f4 = b2.fa3, b2.fa4
    (wall3, t3), (wall4, t4) = f3.wall(), f4.wall()
    mm = f3.qk_flops + f3.pv_flops
    busy4 = f4.busy()
    if abs(busy4["exp unit"] - busy4["FP32"]) <= 0.01 * max(busy4["exp unit"], busy4["FP32"]) and wall4 in (
            "exp unit", "FP32"):
        wall4_text = f"the exp unit and the FP32 lanes together, {t4 * 1e9:.0f} ns a tile each"
    else:
        wall4_text = f"{bw.UNIT_NAMES[wall4]}, {t4 * 1e9:.0f} ns a tile"
    st.markdown(
        f"Per 128 × 128 tile the tensor cores' flops take {mm * 1e9:.0f} ns in both designs. Under FA3's design the "
        f"busiest unit is **{bw.UNIT_NAMES[wall3]}**, {t3 * 1e9:.0f} ns a tile ({t3 / mm:.2f}× the flops' time), and "
        f"the timeline takes **{per['fa3'] * 1e9:.0f} ns** a tile, {per['fa3'] / t3:.2f}× that unit's time. "
        "Each of its "
        f"warp groups reads the whole K tile for its 64 rows: QKᵀ's operand reads take {f3.qk_smem * 1e9:.0f} ns "
        f"against its flops' {f3.qk_flops * 1e9:.0f} ns; FA4's 128-row MMA reads K once, {f4.qk_smem * 1e9:.0f} ns, "
        f"and its PV reads only V (P stays in tensor memory, {cite('fa4_fwd', 'OperandSource.TMEM')}). Under FA4's "
        f"design the busiest is **{wall4_text}**, and a tile takes **{per['fa4'] * 1e9:.0f} ns**, "
        f"{per['fa4'] / t4:.2f}× that: {compare(per['fa3'], per['fa4'], 'time', fewer='less')} than FA3's design on "
        f"the same B200 {ui.assumes('b200_model')}.")
    r, r0 = b2.rescales, b2.rescales_tau0
    st.markdown(
        f"**The exponentials on two units.** The model gives the polynomial {b2.balanced:.1%} of the exponentials, "
        f"the share at which the exp unit and the FP32 lanes are equally busy: {f4.exp * 1e9:.0f} ns and "
        f"{busy4['FP32'] * 1e9:.0f} ns a tile, where all on the exp unit it would be "
        f"{b2.fa4_skip_only.exp * 1e9:.0f} ns. The kernel's own tuning sends {b2.kernel:.1%} at d = {s.d}"
        f"{', causal' if s.causal else ''} ({cite('fa4_fwd', 'ex2_emu_freq')}, "
        f"{cite('fa4_softmax', 'apply_exp2_convert')}): the model's balance leaves out FP32 work the kernel also "
        "does (P's conversion to 16 bits, tensor-memory loads and stores) and the integer steps of the polynomial.")
    st.markdown(
        f"**The rescales it skips**, counted by the engine (`flashviz/run/rescale.py`) on {r.rows:,} random rows, "
        f"{r.rows // 128} query block{'s' if r.rows > 128 else ''} of 128 (the call's last among them) at "
        f"n = {s.n:,}{' under the causal mask' if s.causal else ''}, scores with std {spread:g}: at τ = {tau:g} the "
        f"lagging max rescales {r.done:,} times and skips {r.skipped:,} of the "
        f"{r.every_new_max:,} rescales τ = 0 does ({r.skip_share:.1%}). FA4's correction warps rescale a warp's 32 "
        f"rows of O when any of them moved ({cite('fa4_fwd', 'correction_loop, vote_ballot_sync')}): "
        f"{r.warp_rate:.1%} of the warp-tiles at τ = {tau:g}{f', {r0.warp_rate:.1%} at τ = 0' if tau else ''}, "
        "against every row at "
        "every tile in FA3's design.")
    st.markdown(
        f"**What each idea buys**, in the same model. FA4's pipeline with neither idea takes "
        f"{per['fa4_neither'] * 1e9:.0f} ns a tile; the polynomial alone (τ = 0) {per['fa4_split_only'] * 1e9:.0f} ns, "
        f"{compare(per['fa4_neither'], per['fa4_split_only'], 'time', fewer='less')}; the lagging max alone "
        f"{per['fa4_skip_only'] * 1e9:.0f} ns, "
        f"{compare(per['fa4_neither'], per['fa4_skip_only'], 'time', fewer='less')}; "
        f"both {per['fa4'] * 1e9:.0f} ns, {compare(per['fa4_neither'], per['fa4'], 'time', fewer='less')}. In this "
        "timeline O's rescale sits between a tile's row sum and its PV, on the FP32 lanes the polynomial also uses "
        f"{ui.assumes('b200_model')}.")
    poly = {t: cache.poly_exp_error(t) for t in ("bfloat16", "float16")}
    st.markdown(
        "The polynomial is 2^x split into an integer and a fraction, a cubic on the fraction in three FMAs and the "
        f"integer added into the exponent's bits ({cite('fa4_utils', 'ex2_emulation')}), repeated bit for bit in "
        f"`flashviz/run/poly_exp.py`. Over the inputs a softmax sees its largest error is "
        f"{poly['bfloat16'].max_rel:.2e} of the result, "
        + " and ".join(f"{'below' if e.below_rounding else 'above'} half an ulp of {t} ({e.half_ulp:.2e})"
                       for t, e in poly.items())
        + f": rounded to bf16 it moves {poly['bfloat16'].differ_share:.1%} of the results by one ulp, to fp16 "
        f"{poly['float16'].differ_share:.1%}, and P is rounded to 16 bits before PV anyway.")
    st.markdown(
        "**On the H200 neither idea is measured here.** flash-attn-4's Hopper forward, the FA3 (authors) kernel "
        f"timed above, has neither ({cite('fa4_sm90', 'Softmax.create')}): its softmax takes no rescale threshold, "
        "rescales O at every tile, and computes every exp2 on the exp unit; only the Blackwell forward "
        f"({cite('fa4_fwd')}) has both. Everything in this section is a model, not a measurement.")
    rows = [{"design": name, **{f"{lane} ns": v * 1e9 for lane, v in w.busy().items()},
             "per tile ns": per[key] * 1e9, "poly share": w.share, "O rescaled (warp-tiles)": w.rescale_rate}
            for key, name, w in (("fa3", "FA3's design", f3), ("fa4", "FA4's", f4),
                                 ("fa4_split_only", "FA4, polynomial only", b2.fa4_split_only),
                                 ("fa4_skip_only", "FA4, lagging max only", b2.fa4_skip_only),
                                 ("fa4_neither", "FA4, neither idea", b2.fa4_neither))]
    ui.table(pd.DataFrame(rows).round(3), "sc_b200",
             f"One 128 × 128 tile at d = {s.d} on one B200 SM, sheets' rates (a model of a GPU not measured here): "
             "each unit's busy time and the timeline's time per tile, in ns.")
