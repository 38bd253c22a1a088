"""Lesson 4: the biggest tile that fits in SRAM wins."""
import streamlit as st

from explorer import cache, charts, ui
from flashviz.model import costs, sweeps
from flashviz.model.config import TILE_SIZES
from flashviz.teach.claims import compare, rule_br_text
from flashviz.model.memory import paper_block_sizes
from flashviz.model.sources import cite
from flashviz.teach.format import bytes_text

st.title("Tile size and SRAM")
st.markdown("#### Bigger tiles mean fewer passes over HBM — until the tile no longer fits.")
cfg = ui.config()


def square_tiles(n: int) -> tuple[int, ...]:
    return tuple(b for b in TILE_SIZES if 8 <= b <= n)  # every square tile the sidebar offers from 8 up


def over_blocks():
    """Every square tile from 8 up to n, at the sidebar's settings."""
    at = ui.config()
    return cache.over_blocks(at, square_tiles(at.n))


def sweep_figure():
    at, table = ui.config(), over_blocks()
    return cache.figure(charts.block_sweep, table, costs.standard_cost(at).hbm_bytes / 2**20,
                        sweeps.best_fitting_block(table))


def io_figure():
    at = ui.config()
    return cache.figure(charts.io_theorem, cache.io_curves(at, sweeps.ns_around(at.n, 256, 65536, 2)))


blocks = square_tiles(cfg.n)
table = over_blocks()
best = sweeps.best_fitting_block(table)
std_bytes = costs.standard_cost(cfg).hbm_bytes
rule = sweeps.paper_rule(cfg)

ui.slide("The numbers")
c = st.columns(4)
c[0].metric("SRAM budget, KB", f"{cfg.sram_bytes // 1024}", help=f"{cfg.sram_elements:,} elements of {cfg.dtype}")
c[1].metric("best tile that fits", "none" if best is None else f"{best} × {best}",
            help=f"of the square tiles the sidebar offers, {blocks[0]} to {blocks[-1]}")
c[2].metric("standard moves", bytes_text(std_bytes))
c[3].metric("paper's Br × Bc", f"{rule['Br']} × {rule['Bc']}", help=f"{rule['HBM MB']:.2f} MB, "
            f"working set {rule['working set KB']:.1f} KB")
# With the mask, the share of the unmasked loop's streamed elements that a query block (fa2: K and V, c a tile) or
# a key block (fa1: Q, O, m and l, r a tile) still moves: the tiles at or below the diagonal, from the engine's census
streamed = (lambda r, c: c) if cfg.loop_order == "fa2" else (lambda r, c: r)
share = (costs.census(cfg.n, cfg.Br, cfg.Bc, True).total(streamed)
         / costs.census(cfg.n, cfg.Br, cfg.Bc, False).total(streamed))
masked = (f"With the causal mask it stops at the diagonal: {share:.2f} of that here, towards half as n grows. "
          if cfg.causal else "")
if cfg.loop_order == "fa2":
    streams = ("Each of the Tr = n / Br query blocks streams all of K and V, so the K/V traffic is "
               f"2nd·n/Br: halve Br, double the traffic. {masked}"
               + ("(Bc sets how much of the diagonal each query block reads.)" if cfg.causal
                  else "(Bc does not enter it.)"))
else:
    streams = ("In the paper's loop order (fa1) each of the Tc = n / Bc key/value blocks streams all of Q, O, "
               "m and l past it, reading Qᵢ, Oᵢ, mᵢ, lᵢ and writing Oᵢ, mᵢ, lᵢ back: about (3nd + 4n)·n/Bc "
               f"elements. Halve Bc, double the traffic. {masked}".rstrip())
ui.explain(f"""
{streams} But the tile's working set grows as Br·Bc, and past the budget the tile does not fit: a real
kernel whose tiles overflow its shared memory does not launch ({cite('fa2', '§3.3')}), so it uses tiles that fit
its GPU (M is the seed's budget; lesson 1's table lists each GPU's limit per block). The seed's model
charges the overflow to HBM instead {ui.assumes('spill')}: the elements over budget make the four trips the
score matrix makes in standard attention (write S, read S, write P, read P) at every tile step, the table's
spill column. The paper picks
**Bc = ⌈M / 4d⌉, Br = min(⌈M / 4d⌉, d)** with M in *elements* ({cfg.sram_elements:,} here), which gives
{rule['Br']} × {rule['Bc']}; that tile {'fits' if rule['fits SRAM'] else 'does not fit'} this model's
working set ({rule['working set KB']:.1f} KB against {cfg.sram_bytes // 1024} KB).
""")
ui.slide("The block-size sweep")
ui.side_by_side((sweep_figure, "block_sweep", ("n", "d")),
                (lambda: cache.figure(charts.working_set_sweep, over_blocks(), ui.config().sram_bytes / 1024),
                 "working_set", ("n", "d")))
ui.slide("Every tile size")
ui.table(table, "tile_size", f"Square tiles, n = {cfg.n}, d = {cfg.d}, {cfg.dtype}, {cfg.loop_order} order, "
         f"budget {cfg.sram_bytes // 1024} KB; spill MB: the seed's charge for a tile over the budget "
         f"{ui.assumes('spill')}, where a real kernel would use tiles that fit")

ui.slide("The IO theorem")
st.subheader("The IO theorem, beside the counts")
io = cache.io_curves(cfg, sweeps.ns_around(cfg.n, 256, 65536, 2))
top = int(io["n"].iloc[-1])
wider = cache.io_curves(cfg.with_(sram_bytes=2 * cfg.sram_bytes), (top,)).iloc[0]
here_io = io.iloc[-1]
rule_tiles, wide_rule = (paper_block_sizes(m, cfg.d) for m in (cfg.sram_elements, 2 * cfg.sram_elements))
kbs = (cfg.sram_bytes // 1024, 2 * cfg.sram_bytes // 1024)
rule_text = rule_br_text(cfg.d, (cfg.sram_elements, 2 * cfg.sram_elements), kbs)
if wide_rule[0] == rule_tiles[0]:
    capped = (f"Here {rule_text}, so Br stays {rule_tiles[0]} when M doubles: the cap (the Br × Bc scores must fit "
              "in SRAM beside a wide Bc), not the order, is why FlashAttention-2's count does not halve.")
else:
    capped = (f"Here {rule_text}, so Br grows with M ({rule_tiles[0]} → {wide_rule[0]}) and FlashAttention-2's "
              "count falls too.")
moved_by = ""
if wide_rule[0] == rule_tiles[0] and here_io["flash fa2"] != wider["flash fa2"]:
    moved_by = (" What moves it at all is the wider Bc: " + ("it cuts the diagonal differently under the causal mask"
                if cfg.causal else "its tiles' overflow differs") + ".")
ui.explain(f"""
Theorem 2 of {cite("fa1", "§3.2")}: standard attention needs Θ(Nd + N²) HBM accesses, FlashAttention
Θ(N²d²/M), and (Proposition 3) no exact algorithm does asymptotically better for every M between d and Nd.
The dotted curves are those orders with constant 1; the others are this engine's counts at the tiles the
paper's rule picks for M = {cfg.sram_elements:,} elements ({rule_tiles[0]} × {rule_tiles[1]}, cut to n where n
is smaller), spill included ({ui.assumes("spill")}), in both loop orders.

**Double the budget** to {2 * cfg.sram_elements:,} elements and the rule picks {wide_rule[0]} × {wide_rule[1]}.
At N = {top:,}, N²d²/M halves; the paper's order (fa1) makes
{compare(here_io["flash fa1"], wider["flash fa1"], "accesses")}, and FlashAttention-2's order makes
{compare(here_io["flash fa2"], wider["flash fa2"], "accesses")}. The proof of Theorem 2 follows Algorithm 1's
order: a block of Bc = Θ(M/d) rows of K and V stays on chip while all of Q, O, m and l stream past it, so the
traffic falls as M grows. In FlashAttention-2's order the block that stays is Q's: each of the N/Br query
blocks reads all of K and V, about 2N²d/Br elements, so that order meets the bound only with Br = Θ(M/d)
query rows. {capped}{moved_by}
""")
ui.chart(io_figure, "io_theorem", ("n", "d"))
ui.slide("Theorem 2's counts")
ui.table(io, "io_theorem", f"HBM accesses in elements, M = {cfg.sram_elements:,} elements of {cfg.dtype}, "
         f"the paper's rule's tiles in each loop order",
         headers={"flash fa1": "flash, fa1 order", "flash fa2": "flash, FA2 order"})
