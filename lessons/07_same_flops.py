"""Lesson 7: tiling keeps every flop (a causal mask skips whole tiles); the traffic is what moves."""
import streamlit as st

from explorer import cache, charts, predict, ui
from explorer.lessons import LESSONS
from flashviz.teach import questions
from flashviz.model import sweeps
from flashviz.teach.claims import change_percent, compare, crossover
from flashviz.model.config import HARDWARE
from flashviz.teach.format import bytes_text, count_text
from flashviz.model.sources import cite

st.title(LESSONS[6].title)
cfg = ui.config()


def over_n():
    """Flops and bytes over n around the sidebar's n, at its d and tiles."""
    ns = sweeps.ns_around(ui.config().n, 512, 4096, 2)
    return cache.over_n(ui.sweep_config(ns), ns)


def cut_figure():
    """The traffic cut by block size at the sidebar's n (512 at least), type and mask."""
    at = ui.config()
    cut = cache.cut_by_block(max(at.n, 512), (32, 64, 128), (16, 32, 64, 128, 256, 512), at.dtype, at.causal)
    return cache.figure(charts.cut_vs_block, cut, at.causal)


full = over_n()
table = full[["n", "std GFLOPs", "flash GFLOPs", "std HBM MB", "flash HBM MB", "traffic cut"]]
here = table[table["n"] == cfg.n].iloc[0]
std_flops, flash_flops = here["std GFLOPs"] * 1e9, here["flash GFLOPs"] * 1e9
if std_flops == flash_flops:
    st.markdown("#### Every multiply standard attention does, the tiled version does too.")
else:
    st.markdown("#### Tiling removes no multiply; here the causal mask lets the tiled version skip whole tiles.")
ui.slide("The numbers")
c = st.columns(3)
c[0].metric("standard work", count_text(std_flops, "flop"))
c[1].metric("flash work", count_text(flash_flops, "flop"))
c[2].metric("flash moves, bytes", compare(here["std HBM MB"], here["flash HBM MB"], noun=""),
            help=f"{bytes_text(here['std HBM MB'] * 2**20)} → {bytes_text(here['flash HBM MB'] * 2**20)}")
overflow = ui.overflow_text(cfg)  # while the tiles do not fit, part of flash's bytes is the seed's overflow
if std_flops == flash_flops:
    st.markdown(f"**The flop counts are equal**, to the last flop ({std_flops:,.0f}); flash moves "
                f"{compare(here['std HBM MB'], here['flash HBM MB'])} than standard attention. {overflow}")
else:
    st.warning(f"With the causal mask on, flash skips every fully masked tile and does "
               f"{change_percent(std_flops, flash_flops)} flops; standard attention, as written here, "
               "computes the whole matrix and then masks it. Turn causal off to compare like with like.",
               icon=ui.NO_ICON)
    if overflow:
        st.markdown(overflow)
if cfg.loop_order == "fa2":
    formula = ("each query block re-reads all of K and V, so flash moves about (2 + 2n/Br)·n·d elements "
               "against 4n² + 4nd" + (" (with the causal mask, about half of the K/V term)" if cfg.causal else ""))
else:
    formula = ("in the paper's order each key/value block re-reads Q and O and rewrites O, so flash moves "
               "about (3 + 3n/Bc)·n·d + 4n·n/Bc elements against 4n² + 4nd"
               + (" (with the causal mask, about half of the n/Bc terms)" if cfg.causal else ""))
tile_name, tile, edge_formula, edge = crossover(cfg)
crossing = (f"{tile_name} > {edge_formula}; here {tile_name} = {tile} is {'above' if tile > edge else 'not above'} "
            f"{edge_formula} = {edge:g}")
if cfg.causal:  # the mask skips about half the tiles, so half the re-reads, while standard still moves 4n²
    crossing += (f" (with the causal mask: it skips about half the tiles and so half flash's re-reads, while "
                 f"standard attention still moves all 4n²; without the mask the edge is "
                 f"{crossover(cfg.with_(causal=False))[2]})")
overflow_formula = ", plus the overflow while the tiles do not fit" if overflow else ""
ui.explain(f"""
Without a mask the flop columns agree exactly: tiling reorders the arithmetic, it does not remove any.
The bytes are another matter: {formula}{overflow_formula}. The cut grows with the tile size over the head dimension,
which is what the SRAM budget limits (lesson 4). For long rows the n² terms decide it: flash moves fewer bytes
only while {crossing}. The paper's own condition is the same in its terms: FlashAttention needs many times fewer
HBM accesses when d² is many times smaller than M ({cite("fa1", "§3.2, after Theorem 2")}).
""")
cut_n = max(cfg.n, 512)
cut = cache.cut_by_block(cut_n, (32, 64, 128), (16, 32, 64, 128, 256, 512), cfg.dtype, cfg.causal)
mask = "with the causal mask" if cfg.causal else "no mask"
ui.slide("Bytes against flops")
ui.side_by_side((lambda: cache.figure(charts.bytes_vs_flops, over_n()), "same_flops_chart", ui.SIZES),
                (cut_figure, "cut_vs_block", ("n",)))
ui.slide("The tables")
ui.table(table, "same_flops", f"d = {cfg.d}, Br = {ui.value('Br')}, Bc = {ui.value('Bc')} (each cut to the row's n "
         f"where n is smaller), {cfg.dtype}")
ui.table(cut, "cut_vs_block", f"Traffic cut at n = {cut_n}, {mask}, FlashAttention-2's order, spill not counted")

ui.slide("The paper's own example")
st.subheader("The paper's own example")
figure2, paper = questions.paper_figure2(HARDWARE["A100 40GB"])
if predict.inline(figure2, "paper_figure2"):
    engine = paper[paper["source"].str.startswith("this engine")].set_index("method")
    std_gf, fl_gf = engine.loc["standard", "GFLOPs"], engine.loc["FlashAttention", "GFLOPs"]
    per_head_fwd = 4 * 1024**2 * 64 * 16 * 64 / 1e9
    paper = paper.assign(ms=[f"{t:.1f}" if t == t else "no clock" for t in paper["ms"]])
    ui.slide("Figure 2, counted")
    ui.table(paper, "paper_figure2", "Figure 2 of the FlashAttention paper (2205.14135): GPT-2 medium attention, "
             "forward + backward on an A100. The engine runs the paper's Algorithm 1 with its own tile rule "
             "for 163 KB of shared memory; it has no clock, so no times.")
    said = paper[paper["source"].str.startswith("paper")].groupby("method", sort=False)["GFLOPs"].first()
    st.markdown(f"Both count more flops for FlashAttention over forward and backward: its backward recomputes S "
                f"(the forward's flops are equal). The engine's standard count is {std_gf / said['standard']:.0f}× "
                f"the paper's {said['standard']:g} GFLOPs, which is below even the forward's own matmuls at this "
                f"setting ({per_head_fwd:,.0f} GFLOPs): we could not reconcile the two, so both are shown.")
    ui.explain(f"""
- **Flops: the direction agrees, the size does not.** FlashAttention over standard: the engine
  {change_percent(std_gf, fl_gf)}, the paper {change_percent(said['standard'], said['FlashAttention'])}. The
  forward's own matmuls are 4N²d flops per head over 16 × 64 heads.
- **Standard attention's bytes: the paper measured more.** The engine counts S and P crossing HBM four
  times forward and the backward's reads of P ({engine.loc["standard", "HBM GB"]:.1f} GB), with no mask
  and no dropout. The paper's baseline is a GPT-2 model's own attention code, which also scales, masks and
  drops out the n × n matrix in passes of their own, each another round trip (its Figure 1, right; lesson 10
  measures what one such pass, a separate scale, costs on an H200).
- **FlashAttention's bytes come close**: {engine.loc["FlashAttention", "HBM GB"]:.1f} GB counted against
  4.4 GB measured, {compare(engine.loc["standard", "HBM GB"], engine.loc["FlashAttention", "HBM GB"])}
  than standard by the engine's count against
  {compare(40.3, 4.4)} (or {compare(35.3, 4.4)}) in the paper.
""")
