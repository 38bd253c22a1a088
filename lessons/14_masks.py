"""Lesson 14: the masks real models run with (a sliding window, packed documents, a sink), as tiles."""
import pandas as pd
import streamlit as st

from explorer import cache, charts, ui
from explorer.lessons import control
from explorer.player import player
from flashviz.hardware.masks_measured import Measured
from flashviz.model import costs
from flashviz.model.config import Config
from flashviz.model.mask_sweeps import OverMasks, docs_name, documents, window_name
from flashviz.players import animation
from flashviz.model.sources import cite
from flashviz.teach.claims import compare
from flashviz.teach.format import bytes_text, times_text

st.title("Windows, documents and sinks")
st.markdown("#### A mask is a set of tiles: FlashAttention computes those it leaves any key in, and never "
            "loads the others.")
c1, c2, c3, c4 = st.columns(4)
n = ui.bound(control("mk_n"), c1)
window = ui.bound(control("mk_window"), c2)
mix = ui.bound(control("mk_docs"), c3)
sink = ui.bound(control("mk_sink"), c4)
at = ui.config(n=n)  # the sidebar's tiles as the reader set them, cut to this n
ui.own_setting(f"n = {n:,} is this lesson's own; d = {at.d}, {at.dtype} and the {at.Br} × {at.Bc} tiles come from "
               "the sidebar. Every mask here is causal.")
table = cache.masks_at(at, window, mix)
row = {name: r for name, r in zip(table[OverMasks.MASK], table.to_dict("records"))}
full, causal, win, docs = row["no mask"], row["causal"], row[window_name(window)], row[docs_name(mix)]
total = at.Tr * at.Tc

packed = compare(causal[OverMasks.GFLOPS], docs[OverMasks.GFLOPS], "flops")
ui.slide("The numbers")
cols = st.columns(4)
cols[0].metric("tiles computed, window", f"{win[OverMasks.TILES]:,} of {total:,}")
cols[1].metric("share of tiles, window", f"{win[OverMasks.SHARE]:.1%}")
cols[2].metric("window against causal, flops", compare(causal[OverMasks.GFLOPS], win[OverMasks.GFLOPS], "flops"))
cols[3].metric("window against causal, HBM", compare(causal[OverMasks.HBM_MB], win[OverMasks.HBM_MB]))
st.markdown(
    f"At n = {n:,} a causal window of {window:,} keys (flash-attn's `window_size=({window - 1}, 0)`) does "
    f"**{compare(causal[OverMasks.GFLOPS], win[OverMasks.GFLOPS], 'flops')}** than causal attention and moves "
    f"**{compare(causal[OverMasks.HBM_MB], win[OverMasks.HBM_MB])}** "
    f"({bytes_text(win[OverMasks.HBM_MB] * 2**20)} against {bytes_text(causal[OverMasks.HBM_MB] * 2**20)}); "
    f"packed as {mix}, each causal, the n tokens take {packed} {'as' if packed.startswith('the same') else 'than'} "
    "one causal sequence.")
ui.explain(f"""
A query sees key j when i − left ≤ j ≤ i + right, inside its own document: flash-attn's `window_size=(left, right)`,
with −1 for no bound, so causal is (−1, 0) and gpt-oss's 128-token window, on every other layer, is (127, 0)
({cite("fa_window", "mask.py")}; {cite("gpt_oss", "sdpa")}). Because every query sees itself, the keys a block of
queries sees form one run, and FlashAttention walks only the key blocks of that run
({cite("fa_window", "block_info.py, get_n_block_min_max")}). Masked tiles are not approximated away: they hold
no key the query may see, so skipping them changes no output ({ui.assumes("mask_tiles")};
{ui.assumes("two_level")}).
""")
ui.table(table, "masks_at", f"n = {n:,}, {at.Br} × {at.Bc} tiles, d = {at.d}, {at.dtype}: the closed forms",
         formats={OverMasks.SHARE: ".1%", OverMasks.GFLOPS: ".4g", OverMasks.HBM_MB: ".4g"})

# --- the tiles ------------------------------------------------------------------------------------------
ui.slide("The tiles, full, partial and empty")


def tile_inputs():
    """What each mask's tiles are drawn from: the lesson's n (32 tiles a side at most) with the sidebar's tiles, its
    window and its documents."""
    own = ui.config(n=ui.peek(control("mk_n")))
    return own.at_n(min(own.n, 32 * min(own.Br, own.Bc))), ui.peek(control("mk_window")), ui.peek(control("mk_docs"))


MASK = ("mk_n", "mk_window")  # what the tile maps follow live (along the tiles: a map per size, too heavy)
small = tile_inputs()[0]
ui.chart(lambda: cache.mask_tiles_figure(*tile_inputs()), "mask_tiles", MASK)
counts = cache.mask_tile_counts(*tile_inputs())
st.markdown(f"At n = {small.n:,} ({small.Tr} × {small.Tc} tiles): "
            + "; ".join(f"{name}: {full:,} full, {partial:,} partial, {empty:,} empty"
                        for name, (full, partial, empty) in counts.items())
            + ". A partial tile is computed whole and its masked scores set to −∞ before the softmax; an empty "
            "one is never read from HBM.")

# --- as n grows ----------------------------------------------------------------------------------------
ui.slide("As n grows: a window is linear")
ns = tuple(2**k for k in range(10, 21))


def sweep_inputs() -> tuple[Config, tuple[int, ...], int, str]:
    """What the masks' sweep over n is computed from: the sidebar's d and tiles, the lesson's window and documents."""
    return ui.sweep_config(ns), ns, ui.peek(control("mk_window")), ui.peek(control("mk_docs"))


def mask_sweep():
    """Each mask's flops and bytes over n (mask_sweeps.over_masks)."""
    return cache.over_masks(*sweep_inputs())


sweep = mask_sweep()
GROWTH = ("mk_window", "d", "Br", "Bc")  # what the growth charts follow live: the census counts the tiles too


def growth_figure(column: str):
    """Each mask's flops or bytes over n, as mask_sweep() computes them."""
    return lambda: cache.mask_growth_figure(*sweep_inputs(), column)


ui.side_by_side((growth_figure(OverMasks.GFLOPS), "mask_flops", GROWTH),
                (growth_figure(OverMasks.HBM_MB), "mask_bytes", GROWTH))
last = sweep[sweep[OverMasks.N] == ns[-1]].set_index(OverMasks.MASK)
before = sweep[sweep[OverMasks.N] == ns[-2]].set_index(OverMasks.MASK)


def growth(name: str, column: str = OverMasks.GFLOPS) -> str:
    return times_text(last.loc[name, column] / before.loc[name, column])


st.markdown(
    f"From n = {ns[-2]:,} to {ns[-1]:,} the flops of the whole matrix grow {growth('no mask')}, causal's "
    f"{growth('causal')}, the window's {growth(window_name(window))} and its HBM bytes "
    f"{growth(window_name(window), OverMasks.HBM_MB)}: each query block computes the same few key blocks "
    f"whatever n, so a window's cost is proportional to n, as its figures show, where the full matrix's is "
    f"proportional to n². The documents here are a fixed share of n, so theirs grow {growth(docs_name(mix))}.")

# --- the seed's window, computed exactly -------------------------------------------------------------------
ui.slide("The seed's window, exact and fast")
st.subheader("The seed's window, exact and fast")
run = ui.simulable(at, max_tiles=256)  # four NumPy runs: kept to 16 x 16 tiles
exact = cache.masks_exact(run, min(window, run.n), documents(mix, run.n), float(sink))
approx, as_window = exact[0]["max |diff|"], exact[1]["max |diff|"]
keys = min(window, run.n)
st.markdown(
    "Lesson 6 set a local window beside FlashAttention as a different function: "
    + (f"as an approximation of causal attention, the window of {keys:,} keys is off by up to **{approx:.2e}** at "
       f"n = {run.n:,}. " if keys < run.n else
       f"at n = {run.n:,} a window of {keys:,} keys holds every key before each query, so it is causal attention "
       f"itself ({approx:.2e} apart). ")
    + f"Asked for that function, FlashAttention computes it to **{as_window:.2e}**, float noise "
    f"({ui.assumes('fp64')}), and computes {exact[1]['tiles computed']} tiles.")
ui.table(pd.DataFrame(exact), "masks_exact", f"n = {run.n:,}, d = {run.d}, {run.Br} × {run.Bc} tiles, float64, "
         "one random Q, K, V: each mask through flash against its own reference", formats={"max |diff|": ".2e"})

# --- sinks ----------------------------------------------------------------------------------------------
ui.slide("A sink: one more term in the sum")
st.subheader("A sink: one more term in the sum")
sunk = exact[3]
st.markdown(
    f"gpt-oss gives each head one learnable logit that joins every row's softmax and is dropped after it: "
    f"a key with no value ({cite('gpt_oss', 'sdpa')}). In the online softmax the running sum starts from it, "
    f"m = {sink:g} and l = e^(sink − m) = 1, and every rescale carries it like any other term. At the end a "
    f"row's weights add to 1 − e^(sink − m)/l. flash-attn-4 adds e^(sink − m) to l once, after the last tile "
    f"({cite('fa_sink', 'finalize')}): the same sum. Here, with a sink of {sink:g}, flash matches gpt-oss's "
    f"softmax to **{sunk['max |diff|']:.2e}**. StreamingLLM found that models park attention on the first tokens "
    f"when they need somewhere to put it ({cite('streamingllm')}); a sink logit is a learned place for it.")
tiles = costs.census(run.n, run.Br, run.Bc, True).tiles
st.caption(f"The sink costs one number per head read per query block: {run.Tr:,} elements at n = {run.n:,}, "
           f"beside the {tiles:,} tiles of K and V.")


@ui.section
def _player() -> None:
    """The tile player on the lesson's window, documents and sink: its own two controls rerun this part alone."""
    st.subheader("Watch a mask stream")
    c1, c2 = st.columns([2, 1])
    shape = ui.bound(control("mk_pmask"), c1)
    with_sink = ui.bound(control("mk_psink"), c2, help=f"The sink logit is the lesson's, {sink:g}.")
    pcfg = animation.mask_teaching_config(at, window, lambda k: documents(mix, k), shape,
                                          float(sink) if with_sink else None)
    page, data = cache.masked_player(pcfg)
    ui.slide("The tile player, masked")
    ui.own_setting(f"The player runs n = {pcfg.n:,} ({pcfg.Tr} × {pcfg.Tc} tiles of {pcfg.Br} × {pcfg.Bc}, "
                   f"the sidebar's), d = {pcfg.d}, in FlashAttention-2's order: small enough to watch.")
    ui.explain(f"Mask: {data['mask']}. The listing beside the tiles is FlashAttention-2's with the mask's rule: "
               f"it walks only the key blocks its queries see, {data['tiles']:,} of {data['tiles'] + data['skipped']:,}"
               " tiles, and sets the scores out of sight to −∞ in the tiles the mask cuts. "
               + (f"Each row block's m starts at the sink, {sink:g}, and l at its term, 1: a row whose scores rise "
                  "past the sink rescales that term like any other. " if with_sink else "")
               + f"At the end, max |O − masked standard attention| = {float(data['final_diff']):.2g}.")
    ui.keys(ui.PLAYER_KEYS, "masks_player")
    player(page)


_player()

PER_TILE = Measured.PER_TILE


def mask_misses_text(measured, fit) -> str:
    """Where the model's mask times miss 0.8-1.25: which way, and whether the misses are the masks of fewest tiles."""
    misses, tiles = measured[~fit], "tiles computed"
    if misses.empty:
        return ""
    fast = int((misses[Measured.RATIO] < 0.8).sum())
    way = (" Every miss has it too fast" if fast == len(misses)
           else f" {fast} of the {len(misses)} misses have it too fast")
    if fit.any() and misses[tiles].max() < measured.loc[fit, tiles].min():
        way += (f", and every miss is a mask of at most {int(misses[tiles].max()):,} tiles, every mask within at "
                f"least {int(measured.loc[fit, tiles].min()):,}: there each query block computes few tiles")
    return way + "."


def window_name_measured(w: int) -> str:
    return f"window ({w - 1:,}, 0)"


# --- measured: flash-attn-4 on the H200 ------------------------------------------------------------------
ui.slide("Measured: flash-attn-4 on the H200")
st.subheader("Measured: flash-attn-4 on the H200")
measured, run_of = cache.masks_measured("fwd")
M = measured.set_index("mask")
bwd = cache.masks_measured("bwd")[0].set_index("mask")
first = measured.iloc[0]
shown_window = window if window_name_measured(window) in M.index else 128
wrow = M.loc[window_name_measured(shown_window)]
full_ms, sink_ms = M.loc["no mask", "measured ms"], M.loc["no mask + sink", "measured ms"]
big = M.loc["window (4,095, 0)"]
st.markdown(
    f"The authors' kernel, flash-attn-4 {run_of['flash_attn_4']} (FlashAttention-3's design on Hopper: "
    f"{cite('fa_code', 'flash_attn/cute/flash_fwd_sm90.py')}), timed "
    f"forward on the {run_of['gpu']} at n = {first['n']:,}, d = {first['d']}, {first['heads']} heads, "
    f"{first['dtype']}, beside the engine's count at the kernel's {first['Br']} × {first['Bc']} tiles "
    f"({cite('h200_measured', 'fa4_masks.csv, ' + run_of['date'])}). The causal window of {shown_window:,} keys"
    + (f" (the lesson's {window} was not measured)" if shown_window != window else "")
    + f" keeps **{wrow['share of tiles']:.2%}** of the tiles and takes **{wrow['share of full time']:.2%}** of the "
    f"full matrix's time, {wrow['measured ms']:.3g} ms against {full_ms:.3g} ms: each of its tiles takes "
    f"{times_text(wrow[PER_TILE])} the time of a tile of the full matrix. The window (4,095, 0) keeps "
    f"{big['share of tiles']:.1%} of the tiles and takes {big['share of full time']:.1%} of the time. A sink "
    f"takes {compare(full_ms, sink_ms, 'time', fewer='less')} than no sink over the full matrix. The backward pass "
    f"of the same window takes {bwd.loc[window_name_measured(shown_window), 'share of full time']:.2%} of the full "
    f"backward's time ({bwd.loc[window_name_measured(shown_window), 'measured ms']:.3g} ms against "
    f"{bwd.loc['no mask', 'measured ms']:.3g} ms).")
RATIO = Measured.RATIO
fit = measured[RATIO].between(0.8, 1.25)
st.markdown(
    f"The schedule model's time for each mask, nothing fitted: flash-attn-4's {first['Br']} × {first['Bc']} tile "
    "under FlashAttention-3's schedule at the clock of its own call, each query block given the key tiles the mask "
    "leaves it, dealt to the SMs, plus the kernel's host dispatch (lesson 13). It puts the window of "
    f"{shown_window:,} keys at {wrow['model ms']:.3g} ms, **{wrow[RATIO]:.2f}×** of the measured time, and the full "
    f"matrix at {M.loc['no mask', RATIO]:.2f}×; over the {len(measured)} masks it is "
    f"{measured[RATIO].min():.2f}–{measured[RATIO].max():.2f}× of the measured time, within 0.8–1.25× at "
    f"{int(fit.sum())}.{mask_misses_text(measured, fit)} It counts no block's start-up beyond its pipeline's fill, "
    f"nor a sink's term, and takes every overlap as perfect {ui.assumes('schedule')}.")
ui.chart(cache.figure(charts.masks_measured, measured), "masks_measured")
# the share of the full matrix's time and a tile's time against the full matrix's (PER_TILE) are in the CSV, not
# on screen: at 1280 px beside the sidebar the table has room for six columns (each is ms ÷ the full matrix's ms)
ui.table(measured[["mask", "tiles computed", "share of tiles", "measured ms", "share of full time", PER_TILE,
                   "model ms", RATIO]],
         "masks_measured_table", f"{run_of['gpu']}, flash-attn-4 {run_of['flash_attn_4']}, forward, "
         f"{run_of['date']}; tiles by the engine at {first['Br']} × {first['Bc']}",
         formats={"share of tiles": ".2%", "share of full time": ".2%", "measured ms": ".3f", PER_TILE: ".2f",
                  "model ms": ".3f", RATIO: ".2f"},
         show=["mask", "tiles computed", "share of tiles", "measured ms", "model ms", RATIO],
         headers={"tiles computed": "tiles", "share of tiles": "of tiles", "measured ms": "ms",
                  "share of full time": "of time", "model ms": "model ms", RATIO: "model ÷ ms"})
