"""Command line: `flashviz [demo N | cost ... | precision ... | rescale ...] [--json]` (installed by
`pip install -e .`), or `python -m flashviz ...` from a checkout."""
from __future__ import annotations

import argparse
import json
import math
import sys

from .model.config import DTYPE_BYTES, KB, LOOP_ORDERS, Config
from .model.masks import parse_docs, parse_window
from .teach.format import format_table


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit code 2, no usage dump
        sys.stderr.write(f"flashviz: error: {message}\n")
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="flashviz", description="FlashAttention's byte counts, in NumPy.")
    p.add_argument("--json", action="store_true", help="print data for machines")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    demo = sub.add_parser("demo", help="print one of the seed's nine demos")
    demo.add_argument("number", type=int, choices=range(1, 10), metavar="N")
    demo.add_argument("--json", action="store_true", dest="json_sub")
    cost = sub.add_parser("cost", help="closed-form traffic, flops and memory")
    cost.add_argument("--n", type=int, required=True)
    cost.add_argument("--d", type=int, default=64)
    cost.add_argument("--br", type=int, default=64)
    cost.add_argument("--bc", type=int, default=64)
    cost.add_argument("--dtype", choices=list(DTYPE_BYTES), default="float32")
    cost.add_argument("--causal", action="store_true")
    cost.add_argument("--window", metavar="LEFT,RIGHT", help="a sliding window as flash-attn's window_size: "
                      "query i sees keys i - LEFT to i + RIGHT; -1 (or nothing) for unbounded, so causal is "
                      "--window=-1,0 or --window ,0")
    cost.add_argument("--docs", metavar="LEN,LEN,...", help="packed documents' lengths, adding up to --n: "
                      "each query sees its own document only")
    cost.add_argument("--sink", type=float, help="a learnable sink logit (gpt-oss; flash-attn-4's learnable_sink)")
    cost.add_argument("--loop-order", choices=LOOP_ORDERS, default="fa2")
    cost.add_argument("--sram-kb", type=float, default=96.0)
    cost.add_argument("--json", action="store_true", dest="json_sub")
    from .run.precision import PAPER_D, PAPER_N
    prec = sub.add_parser("precision", help="the FlashAttention-3 paper's error table, reproduced in fp16, "
                                            "bf16 and FP8")
    prec.add_argument("--n", type=int, default=PAPER_N, help=f"sequence length (default {PAPER_N})")
    prec.add_argument("--d", type=int, default=PAPER_D, help=f"head dimension, a power of two (default {PAPER_D})")
    prec.add_argument("--seed", type=int, default=0, help="the inputs' random draw (default 0)")
    prec.add_argument("--json", action="store_true", dest="json_sub")
    from .run.rescale import KERNEL_TAU
    resc = sub.add_parser("rescale", help="FlashAttention-4's conditional rescale: rescales done and skipped at a "
                                          "threshold, the error against standard attention, the weights' headroom")
    resc.add_argument("--threshold", type=float, default=KERNEL_TAU,
                      help=f"tau, log2 units the running max may lag (default {KERNEL_TAU:g}, the kernel's for 16-bit; "
                           "0 rescales at every new max)")
    resc.add_argument("--n", type=int, default=1024, help="sequence length (default 1024)")
    resc.add_argument("--d", type=int, default=64, help="head dimension (default 64)")
    resc.add_argument("--br", type=int, default=64)
    resc.add_argument("--bc", type=int, default=64)
    resc.add_argument("--seed", type=int, default=0, help="the inputs' random draw (default 0)")
    resc.add_argument("--spread", type=float, default=1.0,
                      help="standard deviation of the scores (default 1: random_qkv's unit variance)")
    resc.add_argument("--causal", action="store_true")
    resc.add_argument("--json", action="store_true", dest="json_sub")
    return p


def _plain(value):
    """JSON-safe scalars: numpy to Python, non-finite floats to strings."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _demo_json(demo) -> dict:
    return {"number": demo.number, "title": demo.title, "notes": demo.notes,
            "tables": {name: [{k: _plain(v) for k, v in row.items()}
                              for row in df.to_dict(orient="records")]
                       for name, df in demo.tables.items()}}


def _demo_text(demo) -> str:
    out = [f"== demo {demo.number}: {demo.title} =="]
    out += demo.notes
    for name, df in demo.tables.items():
        out += ["", f"[{name}]", format_table(df)]
    return "\n".join(out) + "\n"


def cost_summary(cfg: Config) -> dict:
    """Closed-form figures of both methods. Each method's largest extra buffer is given
    with where it lives: standard attention's n x n score matrix sits in HBM; flash's
    peak is one tile step's working set in SRAM (unless keep_full_S adds an n x n
    buffer in HBM)."""
    from .model.costs import flash_cost, standard_cost
    from .model.memory import fits

    def keys(cost, where, what):
        return {"hbm_bytes": cost.hbm_bytes, "flops": cost.flops, "nonmatmul_ops": cost.nonmatmul,
                "peak_extra_bytes": cost.peak_bytes, "peak_extra_where": where,
                "peak_extra_what": what}

    from .model.costs import census
    flash = flash_cost(cfg)
    in_hbm = cfg.keep_full_S and flash.peak > flash.working_set
    flash_peak = (("HBM", "the n x n score buffer kept by keep_full_S") if in_hbm else
                  ("SRAM", "one tile step's working set: Qi + Kj + Vj + Sij + m + l"))
    return {"standard": keys(standard_cost(cfg), "HBM", "the n x n score matrix S, then P"),
            "flash": {**keys(flash, *flash_peak),
                      "spill_bytes": flash.spilled * flash.element_bytes,
                      "sram_working_set_bytes": flash.working_set_bytes,
                      "sram_budget_bytes": cfg.sram_bytes,
                      "fits_sram": fits(flash.working_set_bytes, cfg.sram_bytes)},
            "mask": _mask_summary(cfg, census(cfg.n, cfg.Br, cfg.Bc, cfg.mask).tiles)}


def _mask_summary(cfg: Config, computed: int) -> dict:
    """Which keys each query sees (flash-attn's window_size, -1 unbounded), and the tiles flash computes."""
    mask = cfg.mask
    return {"window_left": -1 if mask.left is None else mask.left,
            "window_right": -1 if mask.right is None else mask.right,
            "docs": list(mask.docs) or [cfg.n], "sink": cfg.sink,
            "tiles_computed": computed, "tiles": cfg.Tr * cfg.Tc, "fraction_computed": computed / (cfg.Tr * cfg.Tc)}


def _cost_text(summary: dict) -> str:
    lines = []
    for method, f in summary.items():
        if method == "mask":
            if f["tiles_computed"] < f["tiles"] or len(f["docs"]) > 1 or f["sink"] is not None:
                lines.append("mask: " + ", ".join(f"{k}={v}" for k, v in f.items()))
            continue
        figures = [f"{k}={v}" for k, v in f.items() if not k.startswith("peak_extra")]
        figures.insert(2, f"peak_extra_bytes={f['peak_extra_bytes']} in {f['peak_extra_where']} "
                          f"({f['peak_extra_what']})")
        lines.append(method + ": " + ", ".join(figures))
    return "\n".join(lines)


PRECISION_MAX_N = 8192  # the float64 reference holds n × n scores: 512 MB at 8192


def precision_summary(n: int, d: int, seed: int) -> dict:
    """The paper's Table 3 at (n, d, seed): each method's RMSE and largest error against float64, the
    paper's printed RMSE beside it, and the headline ratio (baseline FP8 over FlashAttention-3 FP8)."""
    from .run import precision
    if not 1 <= n <= PRECISION_MAX_N:
        raise ValueError(f"--n must be between 1 and {PRECISION_MAX_N} (the float64 reference is n × n)")
    if d < 1 or d & (d - 1) or d > 1024:
        raise ValueError("--d must be a power of two up to 1024 (incoherent processing uses a Hadamard matrix)")
    found = precision.errors(n, d, seed)
    return {"n": n, "d": d, "seed": seed,
            "inputs": "each entry N(0, 1) plus N(0, 100) with probability 0.001 (the FlashAttention-3 paper, §4.3)",
            "reference": "softmax(QK^T/sqrt(d))V in float64 on the same stored inputs",
            "rows": [{"method": m.label, "key": m.key, "storage": m.storage, "runs": m.kernel,
                      "rmse": found[m.key].rmse, "max_error": found[m.key].max,
                      "nonfinite": found[m.key].nonfinite, "paper_rmse": float(m.paper) if m.paper else None}
                     for m in precision.METHODS],
            "headline_ratio": precision.headline(found), "paper_headline_ratio": precision.PAPER_RATIO}


def _precision_text(summary: dict) -> str:
    import pandas as pd
    df = pd.DataFrame([{"method": r["method"], "storage": r["storage"], "RMSE": f"{r['rmse']:.2e}",
                        "max error": f"{r['max_error']:.2e}",
                        "paper RMSE": f"{r['paper_rmse']:.1e}" if r["paper_rmse"] else "-"} for r in summary["rows"]])
    return (f"FlashAttention-3's Table 3, emulated: n = {summary['n']}, d = {summary['d']}, seed {summary['seed']}\n"
            f"inputs: {summary['inputs']}; reference: {summary['reference']}\n\n"
            + df.to_string(index=False)
            + f"\n\nbaseline FP8 / FlashAttention-3 FP8 = {summary['headline_ratio']:.2f}x "
              f"(the paper: {summary['paper_headline_ratio']:g}x)")


RESCALE_MAX_N = 32768  # the check against float64 attention runs a block of rows at a time


def rescale_summary(tau: float, n: int, d: int, Br: int, Bc: int, seed: int, spread: float = 1.0,
                    causal: bool = False) -> dict:
    """The conditional-rescale forward at these settings: rescales done and skipped (in all and per row),
    its largest error against float64 standard attention, and each storage type's headroom."""
    import numpy as np
    from .run.attention import random_qkv
    from .run import rescale as rs
    if not 1 <= n <= RESCALE_MAX_N:
        raise ValueError(f"--n must be between 1 and {RESCALE_MAX_N}")
    if not (spread > 0 and math.isfinite(spread)):
        raise ValueError("--spread must be a positive number")
    rs.check_tau(tau)
    cfg = Config.clamped(n, Br, Bc, d=d, causal=causal)
    Q, K, V = random_qkv(n, d, seed)
    run = rs.rescale_attention(Q * spread, K, V, cfg, tau)

    def spread_of(counts):
        return {"min": int(counts.min()), "median": float(np.median(counts)), "max": int(counts.max())}

    return {"n": n, "d": d, "Br": cfg.Br, "Bc": cfg.Bc, "seed": seed, "spread": spread, "causal": causal,
            "threshold_log2": run.tau, "rescales_done": run.done, "rescales_skipped": run.skips,
            "rescales_at_threshold_0": run.every_new_max, "skipped_share": run.skip_share,
            "per_row_done": spread_of(run.rescaled), "per_row_skipped": spread_of(run.skipped),
            "max_abs_error": rs.reference_error(Q * spread, K, V, run.O, causal),
            "largest_weight_log2": run.peak_log2,
            "storage": {t: {"largest_log2": rs.overflow_tau(t), "headroom_log2": rs.overflow_tau(t) - run.tau,
                            "fits": run.tau < rs.overflow_tau(t)} for t in ("float16", "bfloat16", "float32")}}


def _rescale_text(r: dict) -> str:
    row = "min {min}, median {median:g}, max {max}"
    store = "; ".join(f"{t} 2^{v['largest_log2']:.4f} ({v['headroom_log2']:+.2f} to spare"
                      f"{'' if v['fits'] else ': OVERFLOWS'})" for t, v in r["storage"].items())
    return "\n".join([
        f"FlashAttention-4's conditional rescale: n = {r['n']}, d = {r['d']}, {r['Br']} x {r['Bc']} tiles, "
        f"seed {r['seed']}, score spread {r['spread']:g}{', causal' if r['causal'] else ''}",
        f"threshold tau = {r['threshold_log2']:g} log2 units (0: rescale at every new max)",
        f"rescales: {r['rescales_done']} done, {r['rescales_skipped']} skipped, of {r['rescales_at_threshold_0']} "
        f"new maxima (what tau = 0 rescales): {r['skipped_share']:.1%} skipped",
        f"per row, done: {row.format(**r['per_row_done'])}; skipped: {row.format(**r['per_row_skipped'])}",
        f"exactness: max abs error against float64 softmax(QK^T)V = {r['max_abs_error']:.2e}",
        f"headroom: unnormalised weights reached 2^{r['largest_weight_log2']:.2f} "
        f"(tau allows 2^{r['threshold_log2']:g}); "
        f"largest storable: {store}"])


def main(argv: list[str] | None = None) -> int:
    """The console script `flashviz` and `python -m flashviz`: returns the exit status."""
    args = _parser().parse_args(argv)
    as_json = args.json or getattr(args, "json_sub", False)
    try:
        if args.command == "cost":
            if not (args.sram_kb > 0 and math.isfinite(args.sram_kb)):
                raise ValueError("--sram-kb must be a positive number")
            left, right = parse_window(args.window) if args.window is not None else (None, None)
            if args.sink is not None and not math.isfinite(args.sink):
                raise ValueError("--sink must be a finite number")
            cfg = Config(n=args.n, d=args.d, Br=args.br, Bc=args.bc, dtype=args.dtype,
                         causal=args.causal, loop_order=args.loop_order,
                         sram_bytes=max(1, int(args.sram_kb * KB)), window_left=left, window_right=right,
                         docs=parse_docs(args.docs) if args.docs is not None else (), sink=args.sink)
            summary = cost_summary(cfg)
            if as_json:
                print(json.dumps(summary, indent=2))
            else:
                print(_cost_text(summary))
            return 0
        if args.command == "precision":
            summary = precision_summary(args.n, args.d, args.seed)
            print(json.dumps({k: _plain(v) if not isinstance(v, list) else [{a: _plain(b) for a, b in r.items()}
                                                                            for r in v]
                              for k, v in summary.items()}, indent=2) if as_json else _precision_text(summary))
            return 0
        if args.command == "rescale":
            summary = rescale_summary(args.threshold, args.n, args.d, args.br, args.bc, args.seed, args.spread,
                                      args.causal)
            print(json.dumps(summary, indent=2) if as_json else _rescale_text(summary))
            return 0
        from .teach.demos import DEMOS
        numbers = [args.number] if args.command == "demo" else list(DEMOS)
        demos = [DEMOS[k]() for k in numbers]
    except ValueError as err:
        sys.stderr.write(f"flashviz: error: {err}\n")
        return 2
    if as_json:
        data = [_demo_json(d) for d in demos]
        print(json.dumps(data[0] if args.command == "demo" else data, indent=2))
    else:
        print("\n".join(_demo_text(d) for d in demos))
    return 0


if __name__ == "__main__":
    sys.exit(main())
