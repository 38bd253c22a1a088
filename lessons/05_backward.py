"""Lesson 5: the backward pass trades flops for bytes."""
import streamlit as st

from explorer import cache, charts, ui
from explorer.backward_player import backward_player, backward_player_html
from explorer.lessons import control
from flashviz.players import animation
from flashviz.model import costs
from flashviz.teach.claims import change_percent, compare
from flashviz.teach.format import bytes_text
from flashviz.model.sources import cite

st.title("The backward pass")
st.markdown("#### Standard attention stores P for the backward. FlashAttention keeps a few numbers per row "
            "and recomputes.")
cfg = ui.config()


def seed_demo():
    """The seed's demo 5 at 512, 2048, 8192 and the sidebar's n, its d, Br (square tiles), type and mask."""
    at = ui.config()
    return cache.demo(5, ns=tuple(sorted({512, 2048, 8192, at.n})), d=at.d, block=min(at.Br, 512), dtype=at.dtype,
                      causal=at.causal)


demo = seed_demo()
mem, traffic = demo.tables["memory and flops"], demo.tables["traffic"]
here = mem[mem["n"] == cfg.n].iloc[0]

tiles = cfg.with_(Bc=cfg.Br)  # demo 5's square tiles
fwd, bwd = costs.flash_cost(tiles).flops, costs.flash_backward_cost(tiles).flops
stored_bwd = costs.storing_backward_flops(tiles)
std_total = costs.standard_cost(tiles).flops + costs.standard_backward_cost(tiles).flops
ui.own_setting(f"Square {tiles.Br} × {tiles.Br} tiles (the sidebar's Br); Bc, the budget and the loop order "
               "do not enter these counts.")

ui.slide("The numbers")
c = st.columns(4)
c[0].metric("standard keeps", bytes_text(here["std stored MB"] * 2**20), help=f"Q, K, V and P at n = {cfg.n}")
c[1].metric("flash keeps", bytes_text(here["flash stored + O MB"] * 2**20),
            help="Q, K, V, O, m and l, what the first paper's backward reads (the seed leaves O out: "
                 f"{bytes_text(here['flash stored MB'] * 2**20)})")
c[2].metric("recomputing S, fwd + bwd", change_percent(fwd + stored_bwd, fwd + bwd),
            help="flops of forward + backward, recomputing S against keeping P, on the same tiles")
c[3].metric("flash vs standard, flops", change_percent(std_total, fwd + bwd),
            help="all flops of forward + backward, as counted")
if cfg.causal:
    skipped = costs.census(tiles.n, tiles.Br, tiles.Bc, False).tiles - costs.census(tiles.n, tiles.Br, tiles.Bc,
                                                                                      True).tiles
    if fwd + bwd < std_total:
        balance = "the skipped tiles save more than the recompute costs"
    elif skipped:
        balance = "the skipped tiles save less than the recompute costs"
    else:
        balance = "with a single tile per query block nothing is skipped"
    verdict = ("With the causal mask on, flash skips the tiles above the diagonal while standard attention, "
               f"as written here, computes the whole n × n matrix and masks it afterwards; {balance}, so flash "
               f"does {change_percent(std_total, fwd + bwd)} flops in all.")
else:
    verdict = (f"Without a mask both cover every tile, so the recompute is the whole difference: "
               f"{change_percent(std_total, fwd + bwd)}.")
if here["flash stored + O MB"] < here["std stored MB"]:
    kept = (f"It is the trade `gradient_checkpointing=True` makes, for one operator: pay "
            f"{change_percent(fwd + stored_bwd, fwd + bwd)} flops for the recompute, keep "
            f"{compare(here['std stored MB'], here['flash stored + O MB'])}.")
else:  # n at most d + 2: O, m and l (n·d + 2n) weigh as much as P (n²) or more, and recomputing saves nothing
    kept = (f"Here it is no trade: at n = {cfg.n} and d = {cfg.d}, O, m and l (n·d + 2n elements) weigh as much as "
            f"P (n²) or more, so flash pays {change_percent(fwd + stored_bwd, fwd + bwd)} flops for the recompute "
            f"and keeps {compare(here['std stored MB'], here['flash stored + O MB'])}.")
ui.explain(f"""
Forward and backward together: standard attention does two matmuls forward and four backward
(dV = PᵀdO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q). The recomputing backward first redoes S = QKᵀ per
tile: five matmuls instead of four, {change_percent(stored_bwd, bwd)} on the backward alone and
**{change_percent(fwd + stored_bwd, fwd + bwd)}** over forward and backward. {verdict}
The seed quotes 10 against 12 n²d (+20%): both its counts leave out one backward matmul (2n²d each),
where counting all of them gives 12 against 14 n²d.

**What each keeps for the backward.** Standard attention's backward reads Q, K, V and P
({cite("fa1", "Appendix B, Algorithm 3")}). FlashAttention's reads Q, K, V, the output O and the running max
and sum m and l of every row ({cite("fa1", "Appendix B, Algorithm 4")}): O because the gradient of the softmax
needs D = rowsum(dO ∘ O). The seed counts flash without O (the "flash stored" column); the figures here count
it (the "flash + O" column). FlashAttention-2 keeps one number per row instead of m and l, the log-sum-exp
L = m + log l, and rebuilds P = exp(S − L) from it ({cite("fa2", "§3.1")}). Its kernels keep L in float32
whatever the inputs ({cite("fa_code", "softmax_lse")}): {bytes_text(4 * cfg.n)} at n = {cfg.n} against this count's
{bytes_text(2 * cfg.n * cfg.element_bytes)} for m and l in {cfg.dtype},
{compare(2 * cfg.n * cfg.element_bytes, 4 * cfg.n)}.
{kept}
""")
ui.slide("Stored and moved")
ui.side_by_side(
    (lambda: cache.figure(charts.backward_bars, seed_demo().tables["memory and flops"]), "backward_memory",
     ("n", "d", "Br")),
    (lambda: cache.figure(charts.flops_bars, seed_demo().tables["memory and flops"]), "backward_flops",
     ("n", "d", "Br")))
ui.slide("The tables")
ui.table(mem, "backward_memory", f"d = {cfg.d}, {cfg.dtype}; stored in MB; extra flops %: flash's recompute over "
         "standard, forward and backward, as counted here; seed's %: the seed's own figure, whose counts leave out "
         "one backward matmul",
         headers={"std stored MB": "std stored", "flash stored MB": "flash stored",
                  "flash stored + O MB": "flash + O", "seed's extra %": "seed's %"})
ui.table(traffic, "backward_traffic", "HBM traffic of forward + backward")
st.caption(f"Stored: the seed's rule, {cfg.dtype}. GFLOPs: forward + backward as counted"
           + (", causal." if cfg.causal else "."))

ui.slide("Measured on the H200")
st.subheader("Forward and backward, measured on the H200")
bt, wide = cache.backward_measured(cfg.causal)
span = {k: (g["backward ÷ forward"].min(), g["backward ÷ forward"].max()) for k, g in bt.groupby("kernel")}
longest = bt[bt["n"] == bt["n"].max()].set_index("kernel")
ui.own_setting("These calls were measured at d = 128 in fp16 (bench/gpu/fa3_authors.py): of the sidebar's "
               "settings only the mask applies here.")
st.markdown(
    f"Over the {len(bt) // len(span)} calls measured{' with the causal mask' if cfg.causal else ''}, the backward "
    f"takes {span['FA3 (authors)'][0]:.2f}–{span['FA3 (authors)'][1]:.2f}× the forward's time for "
    f"FlashAttention-3's design as its authors ship it (the Hopper path of `flash-attn-4`, "
    f"{cite('fa_code', 'flash_attn/cute')}), "
    f"{span['cuDNN'][0]:.2f}–{span['cuDNN'][1]:.2f}× for cuDNN, NVIDIA's own Hopper kernel "
    f"(its code closed), and {span['PyTorch flash'][0]:.2f}–{span['PyTorch flash'][1]:.2f}× for PyTorch flash "
    f"(FlashAttention-2's code), against 2.5 times the forward's matmul flops (five matmuls against two). At the "
    f"longest call (n = {int(bt['n'].max()):,}) the authors' kernel's backward runs at "
    f"**{longest.loc['FA3 (authors)', 'backward TFLOP/s']:.0f} TFLOP/s** and FlashAttention-2's at "
    f"**{longest.loc['PyTorch flash', 'backward TFLOP/s']:.0f}** ({cite('h200_measured', 'fa3_time.csv')}).")
kernels = sorted(span)
ui.table(wide, "backward_h200", "The H200, d = 128, fp16: each kernel's backward rate in "
         "TFLOP/s (counted as 2.5 forwards' flops); the CSV adds each backward's time over its forward's.",
         show=["n", "B·H", *(f"{k} backward TFLOP/s" for k in kernels)],
         headers={f"{k} backward TFLOP/s": k for k in kernels})


@ui.section
def _player() -> None:
    """The backward player and its own n and d: they rerun this part alone. On a projector the
    heading and the player lead its section (with its controls they are more than one screen) and its
    controls follow them, below the screen: a heading left under the player stood cut at the screen's
    bottom edge (a teacher's walk)."""
    if ui.presenting():
        ui.slide("The backward player")
        player_slot = st.container()
        with player_slot:
            st.subheader("Watch the backward")
    else:
        st.subheader("Watch the backward")
    c1, c2 = st.columns(2)
    bw_n = ui.bound(control("bw_n"), c1, help=ui.PLAYER_ON_RELEASE)
    bw_d = ui.bound(control("bw_d"), c2, help=ui.PLAYER_ON_RELEASE)
    bcfg, note = animation.teaching_config(cfg, bw_n, bw_d)
    ui.own_setting(note or f"The player runs its own n = {bcfg.n} and d = {bcfg.d}, small enough to watch; "
                           "tiles, data type and mask come from the sidebar.")
    ui.explain("Outer loop over key blocks, inner over query blocks. Each tile rebuilds S and P from Q, K and "
               "the m and l the forward kept (FlashAttention-2: the log-sum-exp L); dK and dV of the key block add "
               "up in SRAM, dQ of the query rows "
               "goes back to HBM.")
    ui.keys(ui.PLAYER_KEYS, "backward_player")
    if ui.presenting():
        with player_slot:
            backward_player(backward_player_html(bcfg))
    else:
        backward_player(backward_player_html(bcfg))


_player()
