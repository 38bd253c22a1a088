"""The players' data, key by key: what each player's page receives from the engine.

Three players, three payloads, each a run holding its frames:
  FlashRun, BugRun, StandardRun   flashviz.players.animation          -> explorer/player.html
  BackwardRun                     flashviz.players.backward_animation -> explorer/backward_player.html
  WaveRun                         flashviz.players.gpu_animation      -> explorer/gpu_player.html

The frame builders are annotated with these types (mypy checks them), and
tests/test_player_schema.py checks both ends at run time: every record the engine builds
has exactly these keys, of these types and lengths, and the player's script reads every
key here and no other (a key marked NamesRun excepted: the player must not read it).

Units: bytes are bytes; "so far" means summed from the run's first step through this one.
Shapes: Len(k) on a list is its length, a number or the name of the sibling list it matches.
"""
# No `from __future__ import annotations` here: under it Python 3.11 cannot tell a NotRequired
# key from a required one (TypedDict.__required_keys__), and the tests read those sets.
from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired, TypedDict


@dataclass(frozen=True)
class Len:
    """A list's length: a fixed number, or the name of the sibling list it is as long as."""
    of: int | str


@dataclass(frozen=True)
class NamesRun:
    """A key the player does not draw: it names the run the frames came from, so whoever
    reads the page's data (a browser test, bugs.watch) can build the same run again."""


NAMES_RUN = NamesRun()

# A value at animation.DIGITS significant digits; inf and nan as the strings JavaScript's Number() reads.
Num = float | Literal["NaN", "Infinity", "-Infinity"]
Span = Annotated[list[int], Len(2)]  # [start, stop): a half-open range of row or key indices


# ---- the tile player: flashviz.players.animation -> explorer/player.html ------------------------------------

class CodePanel(TypedDict):
    """What the code panel shows at one step, as the listing itself computed it."""
    at: int                                     # the line (1-based) this step is about
    ran: list[int]                              # lines (1-based, ascending) run since the previous step
    rows: list[int]                             # query rows (absolute) whose values stand beside the lines
    m_tile: Annotated[list[Num], Len("rows")]   # this tile's row max, one per row in `rows`
    alpha: Annotated[list[Num], Len("rows")]    # the rescale e^(m_old - m_new), one per row
    l: Annotated[list[Num], Len("rows")]        # the running sum after the step (l_new in fa1), one per row


class Listing(TypedDict):
    """The code panel's listing, once per run."""
    src: str                # the listing's Python source, with the bug's edit if any
    marks: dict[str, int]   # the line (1-based) beside which each of m_tile, alpha, l is shown
    bug: str | None         # the bug whose edit the listing carries (a flashviz.teach.bugs key), or None
    edited: list[int]       # lines (1-based) the bug's edit changed; [] without a bug


class FlashFrame(TypedDict):
    """One computed tile of the flash forward. Per-row lists run over the shown rows, `show`."""
    i: int                                      # query block, 0 .. Tr - 1
    j: int                                      # key block, 0 .. Tc - 1
    rows: Span                                  # query rows of block i
    cols: Span                                  # keys of block j
    show: list[int]                             # offsets in the block of the rows shown, ascending
    m0: Annotated[list[Num], Len("show")]       # running max before the step ("-Infinity" before the first tile)
    m1: Annotated[list[Num], Len("show")]       # running max after it
    scale: Annotated[list[Num], Len("show")]    # the factor l and O were multiplied by, e^(m0 - m1) (1 under a bug)
    l0: Annotated[list[Num], Len("show")]       # running sum l before the step
    l: Annotated[list[Num], Len("show")]        # running sum l after it
    add: Annotated[list[Num], Len("show")]      # this tile's row sums, sum of e^(S - m1) over its keys
    o0: Annotated[list[Num], Len("show")]       # O[row, 0] unnormalised (times l) before the step
    o1: Annotated[list[Num], Len("show")]       # O[row, 0] unnormalised after it
    first: bool                                 # the block's first tile: every row's max starts here
    rose: int                                   # rows of the whole block whose max rose from a finite one
    rescaled: int                               # of those, rows whose factor shows below 1
    smin: Num                                   # the smallest of those factors (1 if none)
    hbm: int                                    # HBM bytes moved so far
    ws: int                                     # SRAM working set of this step, bytes
    bad: bool                                   # inf or nan in l or O after the step
    code: CodePanel                              # the code panel at this step
    # without the rescale (the no_rescale and no_max bugs):
    should: NotRequired[Annotated[list[Num], Len("show")]]  # the factor a correct run applies, per row
    should_min: NotRequired[Num]                # its smallest value over the rows whose max rose (1 if none)
    mmax: NotRequired[Num]                      # the largest score (running max) in the block so far
    l_true: NotRequired[Annotated[list[Num], Len("show")]]  # a correct run's l, per row (no_rescale only)
    kept: NotRequired[int]                      # bytes of score tiles copied to HBM so far (keep_full_S only)
    # FlashAttention-4's lagging max at the run's tau (a correct run with tau given only): what its rule
    # does at this tile, per shown row: "rescaled" (the max in use moved), "skipped" (the true max rose,
    # the max in use stayed) or "" (no new max)
    lag: NotRequired[Annotated[list[Literal["rescaled", "skipped", ""]], Len("show")]]


class FlashRun(TypedDict):
    """The flash forward, tile by tile (animation.flash_frames)."""
    kind: Literal["flash"]
    n: int                                      # sequence length
    d: Annotated[int, NAMES_RUN]                # head dimension
    causal: Annotated[bool, NAMES_RUN]          # the causal mask (skipped tiles have no frame)
    Br: int                                     # query rows per tile
    Bc: int                                     # keys per tile
    Tr: int                                     # query blocks, ceil(n / Br)
    kinds: list[list[int]]                      # tile (i, j): 0 empty (skipped), 1 partial, 2 full; Tr x Tc
    Tc: int                                     # key blocks, ceil(n / Bc)
    order: str                                  # loop order, "fa2" (Q stays in SRAM) or "fa1" (K and V stay)
    first_rows: int                             # rows of a block every frame shows (animation.FIRST_ROWS)
    budget: int                                 # SRAM budget, bytes
    standard_bytes: int                         # standard attention's HBM bytes at this config
    total_bytes: int                            # this run's HBM bytes over all its steps
    tiles: int                                  # tile steps in the run (frames stop at MAX_FRAMES)
    capped: bool                                # there are fewer frames than tiles
    keep_full_S: bool                           # score tiles are also copied to HBM (a bug)
    rescales: bool                              # l and O are rescaled when a max rises
    subtract_max: bool                          # exp is taken of s - m, not of s
    final_diff: Num                             # max |O - standard attention| at the end
    first_bad: int | None                       # the first frame with inf or nan, or None
    start: NotRequired[int]                     # the frame the player opens at (a bug's symptom); absent: 0
    # FlashAttention-4's lagging max over the whole run (a correct run with tau given only):
    tau: NotRequired[float]                     # the threshold, log2 units
    lag_done: NotRequired[int]                  # rescales its rule does over every tile of the run
    lag_skipped: NotRequired[int]               # new maxima it does not rescale (+ lag_done: FA2's rescales)
    lag_peak: NotRequired[Num]                  # log2 of the largest unnormalised weight it reaches (at most tau)
    lag_limit: NotRequired[Num]                 # log2 of fp16's largest value, 65,504: P overflows past it
    # a window, documents or a sink (the FA2_MASK listing runs):
    mask: NotRequired[str]                      # the mask in words ("a causal window of 64 keys in 4 documents")
    skipped: NotRequired[int]                   # tiles the mask leaves empty: never loaded, no frame
    sink: NotRequired[Num]                      # the sink logit: each block's m starts here, its l at 1
    frames: list[FlashFrame]                    # one per computed tile, in order
    code: Listing                               # the listing beside the tiles


class BugRun(FlashRun):
    """A broken flash forward (animation.bug_frames): FlashRun plus what the bug is."""
    bug: str                                    # the bug, a flashviz.teach.bugs key
    headline: str                               # the player's first line: what was broken, in the run's numbers
    score_scale: Annotated[float, NAMES_RUN]    # Q was multiplied by this (the overflow bug's large scores)
    note: str | None                            # why n differs from the lesson's, or None
    correct_bytes: int                          # HBM bytes of the correct run, all steps


StandardPhase = Literal["read Q, K", "write S", "read S, write P", "read P, V; write O"]


class StandardFrame(TypedDict):
    """One pass of standard attention over a row block of the n x n matrices."""
    phase: StandardPhase                        # what moves between HBM and the chip in this pass
    block: int                                  # row block, -1 for reading Q and K
    hbm: int                                    # HBM bytes moved so far
    peak: int                                   # bytes of the n x n matrix (S, then P) held in HBM


class StandardRun(TypedDict):
    """Standard attention's passes (animation.standard_frames)."""
    kind: Literal["standard"]
    n: int                                      # sequence length
    Br: int                                     # rows per block
    Tr: int                                     # row blocks
    standard_bytes: int                         # HBM bytes over all passes, 4nd + 4n^2 elements
    frames: list[StandardFrame]                 # Q and K read, then three passes over every row block


# ---- the backward player: flashviz.players.backward_animation -> explorer/backward_player.html ---------------

class Worked(TypedDict):
    """One entry of a tile worked through: the shown rows' largest |dS|."""
    row: int                                    # query row (absolute)
    key: int                                    # key (absolute)
    S: Num                                      # the score, rebuilt
    m: Num                                      # the row's max, as the forward stored it
    l: Num                                      # the row's sum, as the forward stored it
    P: Num                                      # e^(S - m) / l
    dP: Num                                     # (dO V^T)[row, key]
    D: Num                                      # rowsum(dO * O) of the row
    dS: Num                                     # P (dP - D)


class BackwardDFrame(TypedDict):
    """D = rowsum(dO * O), formed once for all rows before the tiles."""
    kind: Literal["D"]
    rows: Span                                  # the first query block's rows, whose values are shown
    D: Annotated[list[Num], Len("m")]           # D of the shown rows (the first animation.SHOW)
    m: list[Num]                                # the forward's stored max of those rows
    l: Annotated[list[Num], Len("m")]           # the forward's stored sum of those rows
    hbm: int                                    # HBM bytes moved so far
    flops: Literal[0]                           # matmul flops so far (none yet)
    stored_flops: Literal[0]                    # the same for the backward that stored P


class BackwardTileFrame(TypedDict):
    """One computed tile: S and P rebuilt, dV and dK added in SRAM, dQ read and written back.
    Per-row lists cover the block's first SHOW rows; per-key lists its first SHOW keys."""
    kind: Literal["tile"]
    i: int                                      # query block
    j: int                                      # key block
    rows: Span                                  # query rows of block i
    cols: Span                                  # keys of block j
    m: list[Num]                                # the forward's stored max, per shown row
    l: Annotated[list[Num], Len("m")]           # the forward's stored sum, per shown row
    D: Annotated[list[Num], Len("m")]           # rowsum(dO * O), per shown row
    ps0: Annotated[list[Num], Len("m")]         # the row's P summed over the keys seen before this tile
    ps1: Annotated[list[Num], Len("m")]         # the same after it (1 once every key is seen)
    dq0: Annotated[list[Num], Len("m")]         # dQ[row, 0] before the tile
    dq1: Annotated[list[Num], Len("m")]         # dQ[row, 0] after it
    dv0: list[Num]                              # dV[key, 0] before the tile, per shown key
    dv1: Annotated[list[Num], Len("dv0")]       # dV[key, 0] after it
    dk0: Annotated[list[Num], Len("dv0")]       # dK[key, 0] before the tile
    dk1: Annotated[list[Num], Len("dv0")]       # dK[key, 0] after it
    w: Worked                                   # one entry worked through
    hbm: int                                    # HBM bytes moved so far
    flops: int                                  # matmul flops so far (recomputing S and P)
    stored_flops: int                           # matmul flops so far had P been stored


class BackwardWriteFrame(TypedDict):
    """Key block j is done: its dK and dV are written to HBM, once."""
    kind: Literal["write"]
    j: int                                      # key block
    cols: Span                                  # its keys
    dv1: list[Num]                              # final dV[key, 0] of the shown keys
    dk1: Annotated[list[Num], Len("dv1")]       # final dK[key, 0] of the shown keys
    hbm: int                                    # HBM bytes moved so far
    flops: int                                  # matmul flops so far
    stored_flops: int                           # matmul flops so far had P been stored


class BackwardRun(TypedDict):
    """The recomputing backward, step by step (backward_animation.backward_frames)."""
    n: int                                      # sequence length
    d: Annotated[int, NAMES_RUN]                # head dimension
    Br: Annotated[int, NAMES_RUN]               # query rows per tile
    Bc: int                                     # keys per tile
    Tr: int                                     # query blocks
    Tc: int                                     # key blocks
    kinds: list[list[int]]                      # tile (i, j): 0 empty (skipped), 1 partial, 2 full; Tr x Tc
    dtype: str                                  # storage type, named in the key
    show: int                                   # rows and keys shown per block (backward_animation.SHOW)
    total_bytes: int                            # HBM bytes over the whole backward
    total_flops: int                            # matmul flops over the whole backward
    standard_bytes: int                         # HBM bytes of the backward that stored P
    stored_total_flops: int                     # matmul flops of the backward that stored P
    tiles: int                                  # tile steps in the run (frames stop at MAX_FRAMES)
    capped: bool                                # there are fewer frames than steps
    final_diff: Num                             # max |dQ, dK, dV - the backward that stored P|
    # D first, then the tiles, each key block ending in the write of its dK and dV
    frames: list[BackwardDFrame | BackwardTileFrame | BackwardWriteFrame]


# ---- the whole-GPU player: flashviz.players.gpu_animation -> explorer/gpu_player.html ------------------------

class HeadSpan(TypedDict):
    """The query blocks of one head that run in a wave."""
    h: int                                      # head (batch x head index)
    lo: int                                     # first query block of the head in the wave
    hi: int                                     # one past its last
    kv_from: Literal["DRAM", "L2", "DRAM and L2"]  # where the wave finds the head's K and V (part in L2)


class WaveFrame(TypedDict):
    """One wave of resident blocks."""
    wave: int                                   # wave index, 0 .. waves - 1 (frames may skip some)
    b0: int                                     # first block of the wave (blocks run head by head)
    b1: int                                     # one past its last
    heads: list[HeadSpan]                       # the heads the wave touches, in order
    reads: int                                  # DRAM bytes read so far
    l2_fill: float                              # bytes of K + V in flight that fit the wave's L2 share
    overflow: float                             # bytes in flight past the share (then K + V are read again)


class WaveRun(TypedDict):
    """One forward pass on the whole GPU, wave by wave (gpu_animation.wave_frames)."""
    bh: int                                     # batch x heads
    Tr: int                                     # query blocks per head
    Br: int                                     # query rows per block
    G: int                                      # blocks in the grid, bh x Tr
    sms: int                                    # compute units: NVIDIA's SMs, AMD's CUs
    unit: str                                   # what the GPU's maker calls one: "SM" or "CU"
    per_sm: int                                 # blocks resident on one unit
    waves: int                                  # waves in the run
    kernel: str                                 # the kernel's name
    cache: str                                  # the cache DRAM reads go through: "L2", "Infinity Cache"
    l2_share: float                             # bytes of that cache one wave gets
    l2_total: int                               # bytes of that cache on the GPU
    compulsory: int                             # DRAM bytes of Q, K and V read once each
    two_level: int                              # DRAM bytes the tile (two-level) model reads
    reads: int                                  # DRAM bytes this model reads in all
    rereads: bool                               # K + V in flight outgrow the share: heads are read again
    frames: list[WaveFrame]                     # one per wave (every k-th past gpu_animation.MAX_FRAMES)


# What a player page's data block holds (a BugRun is a FlashRun).
Payload = FlashRun | StandardRun | BackwardRun | WaveRun
