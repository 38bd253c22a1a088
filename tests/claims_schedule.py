"""The claims of lesson 13 (after the bytes, the schedule): every figure recomputed from the schedule
model's own functions; and the why line of its question.
"""
from __future__ import annotations

import functools
import re

from tests.claims_core import agrees, Claims, compare_words, NUM
from tests.claims_hardware import check_fa3_order


# ---- lesson 13, the schedule: every figure recomputed from the schedule model's own functions ----

def _schedule_setting(p: dict):
    from explorer.schedule_view import CONFIGS
    from flashviz.players import schedule_lesson as sl
    n, d, bh = CONFIGS[p["sc_call"]]
    return sl.Setting(n, d, bh, p["sc_dtype"], bool(p["sc_causal"]))


@functools.lru_cache(maxsize=1)
def _schedule_model():
    """The authors' run against the schedule model: the unit rates, every forward, FA3's speed-ups over flash."""
    from flashviz.hardware import fa3_authors
    _, rates = fa3_authors.load_rates()
    t = fa3_authors.targets()
    return rates, t, fa3_authors.speedups(t)


def _times_word(base: float, other: float) -> tuple[str, float]:
    """compare()'s words for a time: "same", or "less"/"more" and the ratio."""
    word, ratio = compare_words(base, other)
    return {"fewer": "less"}.get(word, word), ratio


def check_schedule(ck: Claims, p: dict) -> None:
    from flashviz.players import schedule_lesson as sl
    from flashviz.hardware.schedule import interval, timeline
    s, occupancy = _schedule_setting(p), p["sc_rates"] == "each kernel's own"
    rates, t, sp = _schedule_model()
    check_fa3_order(ck, ck.text, "lesson 13")
    check_b200(ck, p)
    # the question over the page: faster at every call a reader can pick (the whole authors' run), or it must not say so
    head = ck.find(r"FlashAttention-3's authors' own Hopper kernel computes the same attention as PyTorch's flash "
                   r"kernel\. Why is it (faster|slower)\?")
    # the three kernels' measured reads: the model gives them the same bytes, and the page says where they differ
    from flashviz.hardware import fa3_authors as fa3
    read = fa3.reads()
    m = ck.find(rf"Nsight\s+Compute read their DRAM bytes at (\d+) calls .*?PyTorch flash's\s+reads were within 20% of "
                rf"the authors' kernel's at (\d+) of them, and furthest apart at\s+n = ({NUM}), "
                rf"d = (\d+)(, causal)?: ({NUM}) GB\s+against ({NUM}) GB")
    near = read[(read["flash / fa4"] - 1).abs() <= 0.2]
    worst = read.loc[read["flash / fa4"].map(lambda r: max(r, 1 / r)).idxmax()]
    ck.expect(int(m.group(1)) == len(read) and int(m.group(2)) == len(near)
              and int(m.group(3).replace(",", "")) == worst["n"] and int(m.group(4)) == worst["d"]
              and bool(m.group(5)) == bool(worst["causal"])
              and agrees(m.group(6), worst["flash"] / 1e9) and agrees(m.group(7), worst["fa4"] / 1e9),
              f"the kernels' measured reads {m.group(0)!r}")
    # the kernel measured is flash-attn-4's Hopper path (CuTe DSL), its tiles flash-attn-4's: never FlashAttention-3's
    # own code (the CUDA hopper/ package, which picks 128 x 176 at d = 128), as an expert's read found it named
    wrong = re.search(r"FlashAttention-3's\s+own\s+(?!CUDA)\S+", ck.text)
    ck.expect(wrong is None, f"lesson 13 names flash-attn-4's kernel or tile {wrong and wrong.group(0)!r}")
    by = t.pivot_table(index=["dtype", "causal", "n", "d", "B·H"], columns="kernel", values="measured ms")
    ck.expect((head.group(1) == "faster") == bool((by["FA3 (authors)"] < by["PyTorch flash"]).all()),
              f"{head.group(0)!r}: FA3 (authors) faster at {int((by['FA3 (authors)'] < by['PyTorch flash']).sum())} "
              f"of {len(by)} calls")
    # the kernels' tiles as the page names them: the authors' own at d, PyTorch flash's
    from flashviz.hardware import fa3_authors as fa
    m = ck.find(r"each kernel's tiles \(flash-attn-4's (\d+) × (\d+) at d = (\d+), as its code picks them;\s+"
                r"PyTorch flash's (\d+) × (\d+)\)")
    ck.expect([int(x) for x in m.groups()] == [*fa.tiles("fa4", s.d), s.d, *fa.tiles("flash", s.d)], f"{m.group(0)!r}")
    m = ck.find(r"on one SM nothing overlaps, so the times add|The model runs one block at a time on an SM, so "
                r"nothing overlaps and the times add: that is the model's choice, not FlashAttention-2's design")
    ck.expect(m.group(0).startswith("The model runs"), f"lesson 13 says {m.group(0)!r} as FA2's design; it is the "
              "model's choice (two resident blocks interleave on an SM)")
    # the timeline runs FlashAttention-3's own tile (flash-attn-4's Hopper choice), never cuDNN's as "FA3's design"
    from flashviz.hardware import fa3_authors
    m = ck.find(r"Both panels run the same tile, (flash-attn-4's|cuDNN's) (\d+) × (\d+)")
    ck.expect(m.group(1) == "flash-attn-4's"
              and (int(m.group(2)), int(m.group(3))) == fa3_authors.tiles("fa4", s.d) == sl.authors_tile(s.d),
              f"{m.group(0)!r}: the authors' tile at d = {s.d} is {fa3_authors.tiles('fa4', s.d)}")
    k = fa3_authors.read_kernel("fa4", s.d)
    note = re.search(r"At d = (\d+) flash-attn-4 itself splits its (\d+) rows over (\d+) consumer warp groups of "
                     r"(\d+) rows \(Nsight Compute: (\d+) threads a block\)", ck.text)
    consumers = k.warps // 4 - 1
    ck.expect((note is None) == (consumers == 2) and (note is None or [int(x) for x in note.groups()] == [
        s.d, k.Br, consumers, k.Br // consumers, k.warps * 32]), f"the warp groups at d = {s.d}: "
        f"{note and note.group(0)!r}, {consumers} consumers")
    old = re.search(r"cuDNN's (?:Hopper-native )?kernel \(FlashAttention-3's design\)|cuDNN's kernel of\s+the same "
                    r"design|cuDNN[^.]{0,40}FA3's design", ck.text)
    ck.expect(old is None, f"lesson 13 calls cuDNN FlashAttention-3's design: {old and old.group(0)!r}")
    # the vendor's kernel beside the authors': cuDNN's measured time over theirs, over the authors' whole run
    gap = sl.vendor_gap()
    m = ck.find(rf"over the (\d+) forwards of the authors' run \(both data types, causal and not, d = (\d+) to "
                rf"(\d+)\), cuDNN's time is ({NUM})× the authors' kernel's at the median, ({NUM})–({NUM})×, slower at "
                rf"(\d+) of them")
    fwd = fa3_authors.load_time().query("`pass` == 'fwd' and impl == 'fa4'")
    ck.expect(int(m.group(1)) == len(gap) == len(fwd) and (int(m.group(2)), int(m.group(3))) == (fwd["d"].min(),
              fwd["d"].max()) and agrees(m.group(4), gap.median()) and agrees(m.group(5), gap.min())
              and agrees(m.group(6), gap.max()) and int(m.group(7)) == int((gap > 1).sum()),
              f"{m.group(0)!r}: cuDNN ÷ FA3 median {gap.median():.4f}, {gap.min():.4f}–{gap.max():.4f}, "
              f"slower at {int((gap > 1).sum())}")
    # the model against the authors' kernel, per set, and its speed-up over PyTorch flash
    own = t
    m = ck.find(r"within 0\.8–1\.25× of the authors' kernel at (\d+) of (\d+) calls (in the model set|held apart) "
                r"and (\d+) of (\d+) calls (in the model set|held apart), and its speed-up over PyTorch flash within "
                r"15% of the measured one at (\d+) of (\d+) and (\d+) of (\d+)")
    sets = {"in the model set": "model", "held apart": "held-apart"}
    sp_own = fa3_authors.speedups(own)
    for (a, b, name), (c, e) in zip(((1, 2, 3), (4, 5, 6)), ((7, 8), (9, 10))):
        fa3 = own[(own["kernel"] == "FA3 (authors)") & (own["set"] == sets[m.group(name)])]
        spd = sp_own[sp_own["set"] == sets[m.group(name)]]
        ck.expect([int(m.group(k)) for k in (a, b, c, e)] == [int(fa3["in 0.8–1.25"].sum()), len(fa3),
                                                             int(spd["within 15%"].sum()), len(spd)],
                  f"{m.group(0)!r}: {m.group(name)}")
    ck.expect(m.group(3) != m.group(6), f"{m.group(0)!r} names one set twice")
    # the player's sentence: tile k's exponentials under each schedule, read off schedule.timeline itself
    work = sl.schedule_work(s, rates, occupancy)
    k = p["sc_tile"]
    m = ck.find(rf"\*\*Tile (\d+)\.\*\* FA2: its exponentials run ({NUM})–({NUM}) ns and (the tensor cores wait|"
                rf"the tensor cores are busy ({NUM}) ns of it)\. FA3: WG1's exponentials run ({NUM})–({NUM}) ns, "
                rf"(under (.+?) on the tensor cores, busy ({NUM}) of those ({NUM}) ns|with the tensor cores idle)\. "
                rf"Per tile: FA2 ({NUM}) µs, FA3 ({NUM}) µs, (?:(?P<ratio>{NUM})× (?P<word>less|more) time|"
                rf"(?P<pct>{NUM})% (?P<pword>less|more) time|the (?P<same>same) time) on the same work\.")
    ck.expect(int(m.group(1)) == k, f"{m.group(0)!r}: tile {k}")
    exp = {sched: next(x for x in timeline(sched, work, sl.TILES_SHOWN) if x.label == "exp" and x.tile == k - 1
                       and x.group == 0) for sched in ("fa2", "fa3")}

    def busy(sched: str) -> float:
        e = exp[sched]
        return sum(max(0.0, min(e.end, x.end) - max(e.start, x.start)) for x in timeline(sched, work, sl.TILES_SHOWN)
                   if x.lane == "tensor cores") * 1e9

    for (a, b), sched in (((2, 3), "fa2"), ((6, 7), "fa3")):
        ck.expect(agrees(m.group(a), exp[sched].start * 1e9) and agrees(m.group(b), exp[sched].end * 1e9),
                  f"{m.group(0)!r}: {sched} exp {exp[sched]}")
    ck.expect((m.group(4) == "the tensor cores wait") == (busy("fa2") == 0), f"{m.group(0)!r}: busy {busy('fa2')}")
    ck.expect((m.group(8) == "with the tensor cores idle") == (busy("fa3") == 0), f"{m.group(0)!r}")
    if m.group(10):
        ck.expect(agrees(m.group(10), busy("fa3")) and agrees(m.group(11), exp["fa3"].length * 1e9), f"{m.group(0)!r}")
    fa2, fa3 = interval("fa2", work), interval("fa3", work)
    ck.expect(agrees(m.group(12), fa2 * 1e6) and agrees(m.group(13), fa3 * 1e6), f"{m.group(0)!r}: {fa2}, {fa3}")
    word, ratio = _times_word(fa2, fa3)
    said = "same" if m.group("same") else m.group("word") or m.group("pword")
    ck.expect(said == word and (not m.group("ratio") or agrees(m.group("ratio"), ratio)),
              f"{m.group(0)!r}: FA3 against FA2 is {word} by {ratio:.4g}")
    # the exp unit: one exponential per 4d matmul flops
    wgmma, cublas, e = rates[sl.WGMMA], rates[sl.FP16_MATMUL], rates[sl.EXP]
    m = ck.find(rf"At d = (\d+) the exponentials take \*\*({NUM})\*\* of the matmul time at wgmma's rate and "
                rf"\*\*({NUM})\*\* at cuBLAS's\. At d = (\d+) the share is ({NUM})–({NUM}) \(cuBLAS, wgmma\)")
    d2 = int(m.group(4))
    ck.expect(int(m.group(1)) == s.d and d2 == ({64, 128} - {s.d}).pop(), f"{m.group(0)!r}")
    for g, d, rate in ((2, s.d, wgmma), (3, s.d, cublas), (5, d2, cublas), (6, d2, wgmma)):
        ck.expect(agrees(m.group(g), rate / (4 * d * e)), f"{m.group(0)!r}: {rate / (4 * d * e):.4f} at d = {d}")
    ck.expect(agrees(ck.metric(f"exp ÷ matmul time, d = {s.d}").split("–")[0], cublas / (4 * s.d * e)), "metric")
    # the timeline's own share, at the rates chosen for it (the verifying read: 0.51 in the tile text beside 0.42)
    w = sl.schedule_work(s, rates, occupancy)
    m = ck.find(rf"The timeline above shows ({NUM}): it takes the tensor-core rate chosen there \((.+?)\) and adds")
    ck.expect(agrees(m.group(1), w.exp / w.matmul) and m.group(2) == p["sc_rates"], f"{m.group(0)!r}: "
              f"{w.exp / w.matmul:.4f} at {p['sc_rates']}")
    # cuBLAS's fp16 rate: three runs, three figures, each named with its run and lesson, this lesson's its metric
    import pandas as pd
    from flashviz.hardware.measured import DATA as data
    truth = {"lesson 10": pd.read_csv(data / "ceilings.csv").query("ceiling == 'dense matmul' and dtype == 'float16'"),
             "lesson 11": pd.read_csv(data / "whole_gpu_ceilings.csv").query(
                 "ceiling.str.startswith('dense matmul float16')"),
             "lesson 13": pd.read_csv(data / "schedule_rates.csv").query(
                 "rate == 'dense matmul' and dtype == 'float16'")}
    runs = ck.find_all(rf"({NUM}) TFLOP/s \((bench/gpu/\w+\.py), (lesson 1[0-3])\)")
    ck.expect(sorted(r.group(3) for r in runs) == sorted(truth), f"the cuBLAS runs named: {[r.group(0) for r in runs]}")
    for r in runs:
        ck.expect(agrees(r.group(1), float(truth[r.group(3)]["value"].iloc[0])), f"{r.group(0)!r}: the CSV says "
                  f"{float(truth[r.group(3)]['value'].iloc[0]):.2f}")
    ck.expect(agrees(ck.metric("cuBLAS fp16 matmul").split()[0], rates[sl.FP16_MATMUL] / 1e12)
              and abs(rates[sl.FP16_MATMUL] / 1e12 - float(truth["lesson 13"]["value"].iloc[0])) < 1e-6,
              "lesson 13's cuBLAS metric is its own run's (schedule_rates.csv)")
    # measured against the model, at this call: the three kernels of the authors' run
    row = {k2: t[(t["kernel"] == k2) & (t["dtype"] == s.dtype) & (t["causal"] == s.causal) & (t["n"] == s.n)
                 & (t["d"] == s.d) & (t["B·H"] == s.bh)].iloc[0] for k2 in ("FA3 (authors)", "cuDNN", "PyTorch flash")}
    own_ms, vendor_ms = row["FA3 (authors)"]["measured ms"], row["cuDNN"]["measured ms"]
    m = ck.find(rf"At this call the authors' kernel takes \*\*({NUM}) ms\*\* and cuDNN ({NUM}) ms \(cuDNN's time "
                rf"({NUM})× its\)\. The model puts FA3 \(authors\) at \*\*({NUM})×\*\* of its measured time, PyTorch "
                rf"flash at \*\*({NUM})×\*\* and cuDNN at \*\*({NUM})×\*\*\. FA3 \(authors\) over flash: measured "
                rf"\*\*({NUM})×\*\*, the model ({NUM})×, ({NUM})× the measured speed-up \((within|outside) 15%\)")
    ck.expect(agrees(m.group(1), own_ms) and agrees(m.group(2), vendor_ms) and agrees(m.group(3), vendor_ms / own_ms),
              f"{m.group(0)!r}: {own_ms}, {vendor_ms}")
    for g, k2 in ((4, "FA3 (authors)"), (5, "PyTorch flash"), (6, "cuDNN")):
        ck.expect(agrees(m.group(g), row[k2]["model ms"] / row[k2]["measured ms"]), f"{m.group(0)!r}: {k2}")
    measured = row["PyTorch flash"]["measured ms"] / own_ms
    model = row["PyTorch flash"]["model ms"] / row["FA3 (authors)"]["model ms"]
    ck.expect(agrees(m.group(7), measured) and agrees(m.group(8), model) and agrees(m.group(9), model / measured),
              f"{m.group(0)!r}: measured {measured:.4f}, model {model:.4f}")
    ck.expect((m.group(10) == "within") == (abs(measured / model - 1) <= 0.15), f"{m.group(0)!r}")
    m = ck.find(r"PyTorch flash is within at (\d+) of (\d+) and cuDNN at (\d+)\.")
    ok = {k2: int(t[t["kernel"] == k2]["time: model ÷ measured"].between(0.8, 1.25).sum())
          for k2 in ("PyTorch flash", "cuDNN")}
    ck.expect([int(x) for x in m.groups()] == [ok["PyTorch flash"], int((t["kernel"] == "cuDNN").sum()), ok["cuDNN"]],
              f"{m.group(0)!r}: {ok}")
    cudnn = t[t["kernel"] == "cuDNN"]
    fast = cudnn[cudnn["time: model ÷ measured"] < 0.8]
    m = ck.find(rf"The model has cuDNN too fast \(under 0\.8× of its measured time\) at (\d+) calls, down to "
                rf"({NUM})×: (\d+) of them causal, (\d+) with n ≤ 2,048\.", required=not fast.empty)
    if m:
        ck.expect([int(m.group(1)), int(m.group(3)), int(m.group(4))]
                  == [len(fast), int(fast["causal"].sum()), int((fast["n"] <= 2048).sum())]
                  and agrees(m.group(2), fast["time: model ÷ measured"].min()), f"{m.group(0)!r}")
    misses = cudnn[~cudnn["time: model ÷ measured"].between(0.8, 1.25)]
    m = all_fast = ck.find(r"so where the model misses cuDNN \((\d+) of (\d+) calls\) it has it too fast",
                           required=False)
    if m:
        ck.expect([int(m.group(1)), int(m.group(2))] == [len(misses), len(cudnn)]
                  and bool((misses["time: model ÷ measured"] < 0.8).all()), f"{m.group(0)!r}")
    m = some_fast = ck.find(r"the model misses cuDNN at (\d+) of (\d+) calls, (\d+) of them too fast", required=False)
    if m:
        ck.expect([int(x) for x in m.groups()]
                  == [len(misses), len(cudnn), int((misses["time: model ÷ measured"] < 0.8).sum())], f"{m.group(0)!r}")
    ck.expect(bool(all_fast or some_fast) != misses.empty, f"the page names cuDNN's misses ({len(misses)}) "
              "where there are some, and only there")
    # FP8: the same tile at cuBLAS's two rates
    f8 = sl.fp8(s.d, rates)
    m = ck.find(rf"matmuls take ({NUM}) µs against ({NUM}) µs in fp16; its exponentials still take ({NUM}) µs\. "
                rf"They are \*\*({NUM})\*\* of the matmul time, up from ({NUM})\. Under FA3's schedule a tile takes "
                rf"({NUM}) µs against ({NUM}) µs: (no faster|({NUM})× faster) for ({NUM})× the matmul rate\. The "
                rf"busiest unit is (the tensor cores|the exp unit|the FP32 lanes), ({NUM}) µs of each tile\.")
    fp8_share, fp16_share = f8.fp8.exp / f8.fp8.matmul, f8.fp16.exp / f8.fp16.matmul
    ck.expect(fp8_share > fp16_share, f"'up from' said, yet {fp8_share} <= {fp16_share}")
    for g, v in ((1, f8.fp8.matmul * 1e6), (2, f8.fp16.matmul * 1e6), (3, f8.fp8.exp * 1e6), (4, fp8_share),
                 (5, fp16_share), (6, f8.fp8_interval * 1e6), (7, f8.fp16_interval * 1e6), (10, f8.speedup)):
        ck.expect(agrees(m.group(g), v), f"{m.group(0)!r}: group {g} is {v:.5g}")
    gain = f8.fp16_interval / f8.fp8_interval
    ck.expect((m.group(8) == "no faster") == (gain < 1.005) and (not m.group(9) or agrees(m.group(9), gain)),
              f"{m.group(0)!r}: {gain:.4f}")
    parts = {"the tensor cores": f8.fp8.matmul, "the exp unit": f8.fp8.exp, "the FP32 lanes": f8.fp8.pre + f8.fp8.post}
    ck.expect(parts[m.group(11)] == max(parts.values()) and agrees(m.group(12), max(parts.values()) * 1e6),
              f"{m.group(0)!r}: {parts}")


def why_schedule(ck: Claims, p: dict) -> None:
    s = _schedule_setting(p)
    _, t, _ = _schedule_model()
    at = {k: t[(t["kernel"] == k) & (t["dtype"] == s.dtype) & (t["causal"] == s.causal) & (t["n"] == s.n)
               & (t["d"] == s.d) & (t["B·H"] == s.bh)].iloc[0] for k in ("PyTorch flash", "FA3 (authors)")}
    measured = at["PyTorch flash"]["measured ms"] / at["FA3 (authors)"]["measured ms"]
    model = at["PyTorch flash"]["model ms"] / at["FA3 (authors)"]["model ms"]
    ck.expect("FA3's for its authors' kernel" in ck.why and "cuDNN" not in ck.why,
              f"the answer is about FlashAttention-3's own kernel, not cuDNN's: {ck.why!r}")
    m = ck.find(rf"so it is ({NUM})× (faster|slower)\. The schedule model .+? says ({NUM})×, ({NUM})× the measured "
                rf"speed-up, (within 15% of it|too high|too low)", ck.why)
    ck.expect((m.group(2) == "faster") == (measured >= 1)
              and agrees(m.group(1), measured if measured >= 1 else 1 / measured), f"{m.group(0)!r}: {measured:.4f}")
    off = model / measured
    pick = "within 15% of it" if abs(measured / model - 1) <= 0.15 else "too high" if off > 1 else "too low"
    page = ck.find(r"the measured speed-up \((within|outside) 15%\)")
    ck.expect((page.group(1) == "within") == (m.group(5) == "within 15% of it"),
              f"the page says {page.group(0)!r}, the answer {m.group(0)!r}")
    ck.expect(agrees(m.group(3), model) and agrees(m.group(4), off) and m.group(5) == pick,
              f"{m.group(0)!r}: {off:.4f}")
    ck.expect(agrees(ck.shown.split("engine says:** ")[-1].split("×")[0], measured), f"the answer {ck.shown!r}")


TIME = rf"(?:(?P<ratio>{NUM})× (?P<word>less|more) time|(?P<pct>{NUM})% (?P<pword>less|more) time|the same time)"


def _time_phrase(ck: Claims, m, base: float, other: float, what: str) -> None:
    """A claims.compare(base, other, 'time', fewer='less') phrase against the two times."""
    word, ratio = compare_words(base, other)
    said = m.group("word") or m.group("pword")
    if m.group("ratio"):
        ck.expect({"less": "fewer", "more": "more"}[said] == word and agrees(m.group("ratio"), ratio),
                  f"{what}: {m.group(0)!r}, the engine {word} {ratio:.4g}×")
    elif m.group("pct"):
        pct = 100 * abs(other / base - 1)  # as claims.compare says a percent: of the base
        ck.expect({"less": "fewer", "more": "more"}[said] == word and agrees(m.group("pct"), pct),
                  f"{what}: {m.group(0)!r}, the engine {word} by {pct:.3g}%")
    else:
        ck.expect(abs(other / base - 1) < 0.01, f"{what}: 'the same time' for {base:.4g} and {other:.4g}")


def check_b200(ck: Claims, p: dict) -> None:
    """The B200 section: a model of a GPU not measured here, FA3's and FA4's designs against the engine."""
    from flashviz.hardware import blackwell as bw
    s = _schedule_setting(p)
    cmp = bw.compare_tile(s.d)
    h, b3 = cmp.h200, cmp.b200
    ck.expect("models a GPU this project did not measure" in ck.text, "the B200 section must say it is a model")
    ck.at.button(key="reveal_inline_sc_b200_exp").click().run()   # the question first; then the section
    text = "\n".join(md.value for md in ck.at.markdown)
    q = ck.find(rf"The matmuls are 4 · 128 · 128 · (\d+) flops, ({NUM}) ns at the B200's tensor rate; the 128 · 128 "
                rf"exponentials \(and one per row for the rescale\) take ({NUM}) ns at 16 a clock per SM: ({NUM})× the "
                rf"matmul time, against ({NUM})× on the H200", text)
    ck.expect(int(q.group(1)) == s.d and all(agrees(q.group(k), v) for k, v in zip(
        (2, 3, 4, 5), (b3.matmul * 1e9, b3.exp * 1e9, b3.exp / b3.matmul, h.exp / h.matmul))),
        f"{q.group(0)!r}: the engine {b3.matmul * 1e9:.4g}, {b3.exp * 1e9:.4g} ns")
    from flashviz.run import poly_exp
    e = {t: poly_exp.exp_error(t, count=1 << 16) for t in ("bfloat16", "float16")}
    pm = ck.find(rf"its largest error is ({NUM}) of the result, (below|above) half an ulp of bfloat16 \(({NUM})\) and "
                 rf"(below|above) half an ulp of float16 \(({NUM})\): rounded to bf16 it moves ({NUM})% of the results "
                 rf"by one ulp, to fp16 ({NUM})%", text)
    bf, fp = e["bfloat16"], e["float16"]
    ck.expect(agrees(pm.group(1), bf.max_rel) and (pm.group(2) == "below") == bf.below_rounding
              and agrees(pm.group(3), bf.half_ulp) and (pm.group(4) == "below") == fp.below_rounding
              and agrees(pm.group(5), fp.half_ulp) and agrees(pm.group(6), 100 * bf.differ_share)
              and agrees(pm.group(7), 100 * fp.differ_share) and max(bf.max_ulps, fp.max_ulps) <= 1,
              f"{pm.group(0)!r}: {e}")
    m = ck.find(rf"At d = (\d+) the B200's tensor cores do a tile's two matmuls in ({NUM}) ns against the H200's "
                rf"({NUM}) ns \((?P<mm>[^)]*)\); its exp unit takes the tile's exponentials in ({NUM}) ns against "
                rf"({NUM}) ns \((?P<exp>[^)]*)\)\. The exponentials take \*\*({NUM})\*\* of the matmul time on the "
                rf"B200, against ({NUM}) on the H200\.", text)
    values = [b3.matmul * 1e9, h.matmul * 1e9, b3.exp * 1e9, h.exp * 1e9, b3.exp / b3.matmul, h.exp / h.matmul]
    shown = [m.group(k) for k in (2, 3, 5, 6, 8, 9)]
    ck.expect(int(m.group(1)) == s.d and all(agrees(a, v) for a, v in zip(shown, values)),
              f"{m.group(0)!r}: the engine {[round(v, 3) for v in values]}")
    _time_phrase(ck, re.fullmatch(TIME, m.group("mm")), h.matmul, b3.matmul, "B200 matmuls against the H200's")
    _time_phrase(ck, re.fullmatch(TIME, m.group("exp")), h.exp, b3.exp, "B200 exponentials against the H200's")
    ck.expect(agrees(ck.metric(f"B200 exp ÷ matmul, d = {s.d}"), b3.exp / b3.matmul), "B200 exp ÷ matmul")
    g = bw.gpu_rates("B200")
    for label, value, unit in (("B200 tensor cores", g.rates.tensor / 1e15, " PFLOP/s"),
                               ("B200 exp unit", g.rates.exp / 1e12, " T/s"),
                               ("B200 shared memory", g.smem_bytes / 1e12, " TB/s")):
        shown = ck.metric(label)
        ck.expect(shown.endswith(unit) and agrees(shown.removesuffix(unit), value), f"{label}: {shown}, {value:.4g}")
    check_b200_schedules(ck, p, text)


UNIT = r"the tensor cores|shared memory|the exp unit|the FP32 lanes"
TIME_PLAIN = re.sub(r"\(\?P<\w+>", "(?:", TIME)   # TIME without its group names, to use more than once


def check_b200_schedules(ck: Claims, p: dict, text: str) -> None:
    """The two designs' timelines on the B200: the wall of each, the exp split, the rescales, what each idea buys,
    and the H200's side (flash-attn-4's Hopper path has neither idea), against blackwell.b200_schedules."""
    from flashviz.hardware import blackwell as bw
    s = _schedule_setting(p)
    tau, spread = float(p["sc_tau"]), float(p["sc_spread"])
    b = bw.b200_schedules(s.d, s.causal, s.n, tau, spread)
    per = b.per_tile()
    f3, f4 = b.fa3, b.fa4
    busy3, busy4 = f3.busy(), f4.busy()
    mm = f3.qk_flops + f3.pv_flops
    m = ck.find(rf"Per 128 × 128 tile the tensor cores' flops take ({NUM}) ns in both designs\. Under FA3's design the "
                rf"busiest unit is \*\*({UNIT})\*\*, ({NUM}) ns a tile \(({NUM})× the flops' time\), and the timeline "
                rf"takes \*\*({NUM}) ns\*\* a tile, ({NUM})× that unit's time\. .*? QKᵀ's operand reads take "
                rf"({NUM}) ns "
                rf"against its flops' ({NUM}) ns; FA4's 128-row MMA reads K once, ({NUM}) ns.*?Under FA4's design the "
                rf"busiest is \*\*(?P<wall4>[^*]+)\*\*, and a tile takes \*\*(?P<per4>{NUM}) ns\*\*, "
                rf"(?P<r4>{NUM})× that: "
                rf"(?P<cmp>{TIME}) than FA3's design", text)
    names = {v: k for k, v in bw.UNIT_NAMES.items()}
    top3 = max(busy3.values())
    ck.expect(busy3[names[m.group(2)]] == top3, f"FA3's wall: the page says {m.group(2)}, the engine {busy3}")
    values = [mm * 1e9, top3 * 1e9, top3 / mm, per["fa3"] * 1e9, per["fa3"] / top3, f3.qk_smem * 1e9,
              f3.qk_flops * 1e9, f4.qk_smem * 1e9]
    shown = [m.group(k) for k in (1, 3, 4, 5, 6, 7, 8, 9)]
    ck.expect(all(agrees(a, v) for a, v in zip(shown, values)), f"{m.group(0)[:200]!r}: the engine {values}")
    top4 = max(busy4.values())
    wall4 = m.group("wall4")
    together = re.fullmatch(rf"the exp unit and the FP32 lanes together, ({NUM}) ns a tile each", wall4)
    alone = re.fullmatch(rf"({UNIT}), ({NUM}) ns a tile", wall4)
    tied = abs(busy4["exp unit"] - busy4["FP32"]) <= 0.01 * max(busy4["exp unit"], busy4["FP32"])
    if together:
        ck.expect(tied and max(busy4["exp unit"], busy4["FP32"]) == top4 and agrees(together.group(1), top4 * 1e9),
                  f"FA4's wall {wall4!r}: the engine {busy4}")
    else:
        ck.expect(bool(alone) and busy4[names[alone.group(1)]] == top4 and agrees(alone.group(2), top4 * 1e9)
                  and not (tied and names[alone.group(1)] in ("exp unit", "FP32")),
                  f"FA4's wall {wall4!r}: the engine {busy4}")
    ck.expect(agrees(m.group("per4"), per["fa4"] * 1e9) and agrees(m.group("r4"), per["fa4"] / top4),
              f"FA4's time per tile: {m.group('per4')}, {m.group('r4')}; the engine {per['fa4'] * 1e9:.4g} ns")
    _time_phrase(ck, re.fullmatch(TIME, m.group("cmp")), per["fa3"], per["fa4"], "FA4's design against FA3's")
    x = ck.find(rf"The model gives the polynomial ({NUM})% of the exponentials, the share at which the exp unit and "
                rf"the FP32 lanes are equally busy: ({NUM}) ns and ({NUM}) ns a tile, where all on the exp unit it "
                rf"would be ({NUM}) ns\. The kernel's own tuning sends ({NUM})% at d = (\d+)", text)
    values = [100 * b.balanced, f4.exp * 1e9, busy4["FP32"] * 1e9, b.fa4_skip_only.exp * 1e9, 100 * b.kernel]
    ck.expect(all(agrees(x.group(k), v) for k, v in zip(range(1, 6), values)) and int(x.group(6)) == s.d
              and agrees(x.group(2), float(x.group(3))), f"{x.group(0)!r}: the engine {values}")
    r, r0 = b.rescales, b.rescales_tau0
    y = ck.find(rf"on ([\d,]+) random rows, (\d+) query blocks? of 128 \(the call's last among them\) at "
                rf"n = ([\d,]+).*?scores with std ({NUM}): at "
                rf"τ = ({NUM}) the lagging max rescales ([\d,]+) times and skips ([\d,]+) of the ([\d,]+) rescales "
                rf"τ = 0 does \(({NUM})%\)\..*?: ({NUM})% of the warp-tiles at τ = {NUM}(?:, ({NUM})% at τ = 0)?, "
                r"against every row", text)
    ints = [int(y.group(k).replace(",", "")) for k in (1, 2, 3, 6, 7, 8)]
    ck.expect(ints == [r.rows, r.rows // 128, s.n, r.done, r.skipped, r.every_new_max]
              and agrees(y.group(4), spread) and agrees(y.group(5), tau) and agrees(y.group(9), 100 * r.skip_share)
              and agrees(y.group(10), 100 * r.warp_rate)
              and (agrees(y.group(11), 100 * r0.warp_rate) if tau else y.group(11) is None)
              and r0.skipped == 0 and r.every_new_max == r0.done,
              f"{y.group(0)[:300]!r}: the engine {r}, at τ = 0 {r0}")
    z = ck.find(rf"FA4's pipeline with neither idea takes ({NUM}) ns a tile; the polynomial alone \(τ = 0\) "
                rf"({NUM}) ns, "
                rf"(?P<a>{TIME_PLAIN}); the lagging max alone ({NUM}) ns, (?P<b>{TIME_PLAIN}); both ({NUM}) ns, "
                rf"(?P<c>{TIME_PLAIN})\.",
                text)
    ck.expect(all(agrees(z.group(k), per[v] * 1e9) for k, v in ((1, "fa4_neither"), (2, "fa4_split_only"))),
              f"{z.group(0)!r}: the engine {per}")
    nums = re.findall(rf"({NUM}) ns", z.group(0))
    ck.expect(agrees(nums[2], per["fa4_skip_only"] * 1e9) and agrees(nums[3], per["fa4"] * 1e9),
              f"{z.group(0)!r}: the engine {per}")
    for grp, key in (("a", "fa4_split_only"), ("b", "fa4_skip_only"), ("c", "fa4")):
        _time_phrase(ck, re.fullmatch(TIME, z.group(grp)), per["fa4_neither"], per[key], f"FA4, {key}")
    ck.find(r"flash-attn-4's Hopper forward, the FA3 \(authors\) kernel timed above, has neither "
            r"\(\[flash-attn-4's "
            r"flash_fwd_sm90\.py", text)
