"""The tiled forward pass as a listing to read: source text that is exec'd, so what the
player shows is what runs.

Three listings in the paper's notation (N, d, Br, Bc, Tr, Tc, Qi, Kj, Vj, Sij, m, l, O):
FA2, the FlashAttention-2 order (a Q block stays, K/V blocks stream past it, O is divided by
l once), and FA1, Algorithm 1 of the first paper (a K/V block stays, Q blocks stream past it,
O, m, l go back to HBM at every step, O kept normalised); and FA2_MASK, FA2 with the masks real
models run (a sliding window, packed documents) and a sink that starts the running sum, which
walks only the key blocks its queries see (`listing_of` picks it). Every line that moves data between
HBM and SRAM counts it on an `hbm` meter (HBM_SOURCE, NumPy only; its working-set, fits and
spill rules are memory.py's, taken as source text), so a run's counts can be held against
costs.flash_cost. Each Break-it bug is an edit of a listing (`edit`, `diff`).

`record` runs a listing under a line tracer (sys.settrace, on the listing's code only) and
returns, per tile step, the lines that ran and the values the player shows beside them:
this tile's row maxima m_tile, the rescale alpha and the running sum l.
"""
from __future__ import annotations

import ast
import difflib
import inspect
import sys

import numpy as np

from ..model import masks
from ..model import memory as mem
from ..model.config import Config

def _rules() -> str:
    """memory.py's working-set, fits and spill rules as source text: the listing's meter counts
    with the engine's own rules, and the standalone script carries them word for word."""
    rules = [inspect.getsource(mem.working_set), inspect.getsource(mem.fits),
             f"SPILL_TRIPS = {mem.SPILL_TRIPS}  # see spill_elements\n", inspect.getsource(mem.spill_elements)]
    return "\n\n".join(rules)


HBM_SOURCE = _rules() + '''

class HBM:
    """Counts what crosses HBM <-> SRAM (elements), matmul flops and the SRAM working set."""

    def __init__(self, sram_elements):
        self.budget = sram_elements
        self.moved = self.spilled = self.flops = self.working_set = self.peak = 0

    def move(self, elements):        # one read or write between HBM and SRAM
        self.moved += int(elements)

    def matmul(self, rows, inner, cols):  # (rows, inner) @ (inner, cols): 2 rows inner cols flops
        self.flops += 2 * rows * inner * cols

    def scratch(self, elements):     # a buffer that is live: keep the peak
        self.peak = max(self.peak, int(elements))

    def sram(self, r, c, d):         # one tile step: its working set, and the spill over budget
        ws = working_set(r, c, d)
        self.working_set = max(self.working_set, ws)
        self.scratch(ws)
        self.spilled += spill_elements(ws, self.budget)
'''

FA2 = '''\
def flash_forward(Q, K, V, Br, Bc, causal, hbm):
    N, d = Q.shape
    Tr, Tc = -(-N // Br), -(-N // Bc)
    idx = np.arange(N)                  # positions, for the mask
    O = np.empty_like(Q)                # the output, in HBM
    for i in range(Tr):
        rows = slice(i * Br, min(i * Br + Br, N))
        Qi = Q[rows]
        hbm.move(Qi.size)               # load Qi to SRAM
        m = np.full(len(Qi), -np.inf, Q.dtype)
        l = np.zeros(len(Qi), Q.dtype)
        Oi = np.zeros_like(Qi)          # unnormalised
        last = rows.stop if causal else N   # keys they see
        for j in range(-(-last // Bc)):
            cols = slice(j * Bc, min(j * Bc + Bc, N))
            Kj, Vj = K[cols], V[cols]
            hbm.move(Kj.size + Vj.size)     # load Kj, Vj
            hbm.sram(len(Qi), len(Kj), d)
            Sij = Qi @ Kj.T                 # in SRAM only
            hbm.matmul(len(Qi), d, len(Kj))
            if causal:                      # key after query
                Sij[idx[rows, None] < idx[cols]] = -np.inf
            m_tile = Sij.max(axis=1)        # row maxima
            m_new = np.maximum(m, m_tile)
            P = np.exp(Sij - m_new[:, None])
            alpha = np.exp(m - m_new)       # the rescale
            l = alpha * l + P.sum(axis=1)
            Oi = alpha[:, None] * Oi + P @ Vj
            hbm.matmul(len(Qi), len(Kj), d)
            m = m_new
        O[rows] = Oi / l[:, None]           # divide once
        hbm.move(Oi.size)                   # write Oi to HBM
    return O
'''

FA1 = '''\
def flash_forward(Q, K, V, Br, Bc, causal, hbm):
    N, d = Q.shape
    Tr, Tc = -(-N // Br), -(-N // Bc)
    idx = np.arange(N)                  # positions, for the mask
    O = np.zeros_like(Q)                # O, m, l live in HBM
    m = np.full(N, -np.inf, Q.dtype)
    l = np.zeros(N, Q.dtype)
    hbm.move(O.size + m.size + l.size)  # initialise them
    for j in range(Tc):
        cols = slice(j * Bc, min(j * Bc + Bc, N))
        Kj, Vj = K[cols], V[cols]
        hbm.move(Kj.size + Vj.size)     # load Kj, Vj to SRAM
        for i in range(Tr):
            rows = slice(i * Br, min(i * Br + Br, N))
            if causal and cols.start >= rows.stop:
                continue                # every key after every query
            Qi, Oi, mi, li = Q[rows], O[rows], m[rows], l[rows]
            hbm.move(Qi.size + Oi.size + 2 * len(Qi))  # read
            hbm.sram(len(Qi), len(Kj), d)
            Sij = Qi @ Kj.T                 # in SRAM only
            hbm.matmul(len(Qi), d, len(Kj))
            if causal:                      # key after query
                Sij[idx[rows, None] < idx[cols]] = -np.inf
            m_tile = Sij.max(axis=1)        # row maxima
            top = np.where(m_tile > -np.inf, m_tile, 0)  # all masked
            P = np.exp(Sij - top[:, None])
            m_new = np.maximum(mi, m_tile)
            alpha = np.exp(mi - m_new)      # the rescale
            beta = np.exp(m_tile - m_new)   # this tile's
            l_new = alpha * li + beta * P.sum(axis=1)
            PV = P @ Vj
            hbm.matmul(len(Qi), len(Kj), d)
            O[rows] = ((alpha * li)[:, None] * Oi
                       + beta[:, None] * PV) / l_new[:, None]
            m[rows], l[rows] = m_new, l_new
            hbm.move(Oi.size + 2 * len(Qi))  # write Oi, mi, li
    return O
'''

FA2_MASK = '''\
def flash_forward(Q, K, V, Br, Bc, left, right, doc, sink, hbm):
    N, d = Q.shape
    Tr, Tc = -(-N // Br), -(-N // Bc)
    idx = np.arange(N)                  # positions, for the mask
    left = N if left is None else left  # None: no bound on that side
    right = N if right is None else right
    O = np.empty_like(Q)                # the output, in HBM
    for i in range(Tr):
        rows = slice(i * Br, min(i * Br + Br, N))
        Qi = Q[rows]
        hbm.move(Qi.size)               # load Qi to SRAM
        q = idx[rows, None]             # which keys each query sees:
        sees = (idx >= q - left) & (idx <= q + right) & (doc == doc[q])
        m = np.full(len(Qi), -np.inf, Q.dtype)
        l = np.zeros(len(Qi), Q.dtype)
        if sink is not None:            # the sink's term starts the sum
            hbm.move(1)                 # load the head's sink logit
            m, l = np.full_like(m, sink), np.ones_like(l)  # e^(sink - m)
        Oi = np.zeros_like(Qi)          # unnormalised
        seen = np.flatnonzero(sees.any(axis=0))  # keys they see: one run
        for j in range(seen[0] // Bc, seen[-1] // Bc + 1):
            cols = slice(j * Bc, min(j * Bc + Bc, N))
            Kj, Vj = K[cols], V[cols]
            hbm.move(Kj.size + Vj.size)     # load Kj, Vj
            hbm.sram(len(Qi), len(Kj), d)
            Sij = Qi @ Kj.T                 # in SRAM only
            hbm.matmul(len(Qi), d, len(Kj))
            Sij[~sees[:, cols]] = -np.inf   # keys out of sight
            m_tile = Sij.max(axis=1)        # row maxima
            m_new = np.maximum(m, m_tile)
            top = np.where(m_new > -np.inf, m_new, 0)  # no key yet
            P = np.exp(Sij - top[:, None])
            alpha = np.exp(m - top)         # the rescale
            l = alpha * l + P.sum(axis=1)
            Oi = alpha[:, None] * Oi + P @ Vj
            hbm.matmul(len(Qi), len(Kj), d)
            m = m_new
        O[rows] = Oi / l[:, None]           # divide once
        hbm.move(Oi.size)                   # write Oi to HBM
    return O
'''

LISTINGS = {"fa2": FA2, "fa1": FA1, "fa2_mask": FA2_MASK}
SUM_NAME = {"fa2": "l", "fa1": "l_new", "fa2_mask": "l"}  # the running sum after this tile's update


COMMENT_COLUMN = 44  # where an edit's "# BUG" comment starts, as the listing's comments do


def _line(indent: str, text: str) -> str:
    """An edited line: its code at `indent`, its comment (if any) at COMMENT_COLUMN."""
    code, _, comment = text.partition("#")
    code = indent + code.rstrip()
    return (f"{code:<{COMMENT_COLUMN - 1}} #{comment}" if comment else code) + "\n"


def _replace(src: str, start: str, new: str) -> str:
    """src with its last line whose code starts with `start` replaced by `new` (same indent)."""
    lines = src.splitlines(keepends=True)
    k = max(n for n, line in enumerate(lines) if line.lstrip().startswith(start))
    lines[k] = _line(lines[k][:len(lines[k]) - len(lines[k].lstrip())], new)
    return "".join(lines)


def _after(src: str, start: str, new: list[str]) -> str:
    """src with `new` lines inserted after its first line starting with `start` (same indent)."""
    lines = src.splitlines(keepends=True)
    k = next(n for n, line in enumerate(lines) if line.lstrip().startswith(start))
    indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
    return "".join(lines[:k + 1] + [_line(indent, s) for s in new] + lines[k + 1:])


def _no_rescale(src, order):
    src = _replace(src, "alpha =", "alpha = np.ones_like(m_new)  # BUG: no rescale")
    if order == "fa1":
        src = _replace(src, "beta =", "beta = np.ones_like(m_new)  # BUG: no rescale")
    return src


def _no_max(src, order):
    src = _replace(src, "P = np.exp", "P = np.exp(Sij)  # BUG: no max")
    return _no_rescale(src, order).replace("# BUG: no rescale", "# BUG: nothing to rescale")


def _tiles(size, why):
    return lambda src, order: _after(src, "N, d = Q.shape",
                                     [f"Br, Bc = min({size}, N), min({size}, N)  # BUG: {why}"])


def _keep_full_S(src, order):
    """Every score tile also copied to an N x N buffer, after the mask (as the engine does)."""
    lines = src.splitlines(keepends=True)
    k = next(n for n, line in enumerate(lines) if line.lstrip().startswith("m_tile ="))
    indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
    new = [_line(indent, 'S_full[rows, cols] = Sij  # BUG: "for debugging"'),
           _line(indent, "hbm.move(Sij.size)  # BUG: write Sij to HBM")]
    src = "".join(lines[:k] + new + lines[k:])
    return _after(src, "idx = np.arange", ["S_full = np.empty((N, N))  # BUG: N x N, in HBM",
                                           "hbm.scratch(S_full.size)"])


EDITS = {
    "no_rescale": _no_rescale,
    "tiles_too_big": _tiles(512, "too big for SRAM"),
    "tiles_too_small": _tiles(16, "too small"),
    "keep_full_S": _keep_full_S,
    "no_max": _no_max,
}


def source(order: str = "fa2", bug: str | None = None) -> str:
    """The listing for a loop order, edited by a Break-it bug if one is given."""
    src = LISTINGS[order]
    if bug is None:
        return src
    if bug not in EDITS:
        raise ValueError(f"unknown bug {bug!r}; choose one of {', '.join(EDITS)}")
    return EDITS[bug](src, order)


def diff(bug: str, order: str = "fa2") -> str:
    """The bug's edit as a unified diff of the listing."""
    return "".join(difflib.unified_diff(source(order).splitlines(keepends=True),
                                        source(order, bug).splitlines(keepends=True),
                                        "listing.py", f"listing.py ({bug})", n=2))


def changed_lines(bug: str, order: str = "fa2") -> list[int]:
    """1-based lines of the edited listing that the bug added or changed."""
    old, new = source(order).splitlines(), source(order, bug).splitlines()
    out: list[int] = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag in ("replace", "insert"):
            out += range(j1 + 1, j2 + 1)
    return out


def bug_of(cfg: Config) -> str | None:
    """The edit a config's bug flags stand for (tile sizes are plain settings)."""
    if not cfg.subtract_max:
        return "no_max"
    if not cfg.rescale:
        return "no_rescale"
    return "keep_full_S" if cfg.keep_full_S else None


def load(src: str):
    """Exec HBM_SOURCE and a listing; returns (flash_forward, HBM)."""
    names = {"np": np}
    exec(compile(HBM_SOURCE, "<hbm>", "exec"), names)
    exec(compile(src, "<listing>", "exec"), names)
    return names["flash_forward"], names["HBM"]


def listing_of(cfg: Config) -> str:
    """The listing that runs cfg: its loop order's, or FA2_MASK for a window, documents or a sink (in
    FlashAttention-2's order only; a block mask acts on whole tiles and has no listing)."""
    if cfg.mask in (masks.Mask(cfg.n), masks.causal(cfg.n)) and cfg.sink is None:
        return cfg.loop_order
    if cfg.loop_order != "fa2" or cfg.blocks is not None:
        raise ValueError("the listing with a window, documents or a sink runs in FlashAttention-2's order, "
                         "with no block mask")
    return "fa2_mask"


def _arguments(cfg: Config, dt: np.dtype) -> tuple:
    """What the listing takes after Q, K, V, Br, Bc, before the meter: the mask, as its source names it."""
    if listing_of(cfg) != "fa2_mask":
        return (cfg.mask == masks.causal(cfg.n),)  # causal, however it was asked for (a window (None, 0) is)
    mask = cfg.mask
    doc = np.repeat(np.arange(max(1, len(mask.docs))), mask.docs or (cfg.n,))  # each token's document
    return mask.left, mask.right, doc, None if cfg.sink is None else dt.type(cfg.sink)


def run(cfg: Config, Q, K, V, bug: str | None = None, src: str | None = None):
    """Run a listing on Q, K, V at cfg's tiles and mask; returns (O, hbm)."""
    flash_forward, HBM = load(src if src is not None else source(listing_of(cfg), bug))
    hbm = HBM(cfg.sram_elements)
    dt = np.dtype(cfg.compute)
    with np.errstate(all="ignore"):
        O = flash_forward(Q.astype(dt), K.astype(dt), V.astype(dt), cfg.Br, cfg.Bc, *_arguments(cfg, dt), hbm)
    return O, hbm


def marks(src: str, order: str) -> dict:
    """1-based line numbers of the lines the player writes values beside."""
    lines = src.splitlines()

    def last(start):
        return max(n for n, line in enumerate(lines, 1) if line.lstrip().startswith(start))
    return {"m_tile": last("m_tile ="), "alpha": last("alpha ="), "l": last(f"{SUM_NAME[order]} =")}


def _step_end(src: str) -> int:
    """Last line of the inner loop's body: a tile step ends when it has run."""
    outer = next(node for node in ast.walk(ast.parse(src)) if isinstance(node, ast.For))
    inner = next(node for node in ast.walk(outer) if isinstance(node, ast.For) and node is not outer)
    end = inner.body[-1].end_lineno
    assert end is not None, "ast.parse fills in line numbers"
    return end


def record(cfg: Config, Q, K, V, bug: str | None = None):
    """Run the listing line by line. Returns (O, hbm, steps): one dict per tile step with
    the lines that ran since the previous step ("ran", in order), the tile (i, j) and the
    values, over all the block's rows, of m_tile, alpha and l after their lines ran."""
    order = listing_of(cfg)
    src = source(order, bug)
    flash_forward, HBM = load(src)
    code, end = flash_forward.__code__, _step_end(src)
    watch = {line: name for name, line in marks(src, order).items()}
    names = {"m_tile": "m_tile", "alpha": "alpha", "l": SUM_NAME[order]}
    steps: list[dict] = []
    ran: list[int] = []
    values: dict = {}
    prev = None

    def local(frame, event, arg):
        nonlocal prev, ran, values
        if prev in watch:
            values[watch[prev]] = np.array(frame.f_locals[names[watch[prev]]], copy=True)
        if prev == end:
            f = frame.f_locals
            steps.append({"i": f["i"], "j": f["j"], "ran": ran, **values})
            ran, values = [], {}
        prev = frame.f_lineno if event == "line" else None
        if event == "line":
            ran.append(frame.f_lineno)
        return local

    def start(frame, event, arg):
        return local if frame.f_code is code else None

    hbm, dt = HBM(cfg.sram_elements), np.dtype(cfg.compute)
    old = sys.gettrace()
    sys.settrace(start)
    try:
        with np.errstate(all="ignore"):
            O = flash_forward(Q.astype(dt), K.astype(dt), V.astype(dt), cfg.Br, cfg.Bc, *_arguments(cfg, dt),
                              hbm)
    finally:
        sys.settrace(old)
    return O, hbm, steps


SCRIPT_DEMOS = '''

def standard_attention(Q, K, V, hbm):
    """softmax(Q K^T) V with S and P written to HBM and read back: 4Nd + 4N^2 moved."""
    N, d = Q.shape
    hbm.move(Q.size + K.size)           # read Q, K
    S = Q @ K.T
    hbm.matmul(N, d, N)
    hbm.scratch(S.size)                 # the N x N matrix, in HBM
    hbm.move(2 * S.size)                # write S, read it back
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    hbm.move(P.size)                    # write P
    hbm.move(P.size + V.size)           # read P, V
    O = P @ V
    hbm.matmul(N, N, d)
    hbm.move(O.size)                    # write O
    return O


def random_qkv(N, d, seed=0):
    """Scores Q K^T of unit variance: the 1/sqrt(d) scale is folded into Q and K."""
    rng = np.random.default_rng(seed)
    Q = rng.standard_normal((N, d)) / d**0.25
    K = rng.standard_normal((N, d)) / d**0.25
    return Q, K, rng.standard_normal((N, d))


ELEMENT_BYTES, KB, MB = 4, 1024, 2**20   # float32 storage, as the post counts it
SRAM = 96 * KB // ELEMENT_BYTES         # the budget M, in elements


def traffic(hbm):
    return hbm.moved * ELEMENT_BYTES / MB


if __name__ == "__main__":
    print("Tiling: same answer, flat memory (d = 64, Br = Bc = 64)")
    print(f"{'n':>6} {'max abs diff':>13} {'std peak KB':>12} {'flash peak KB':>14} "
          f"{'std HBM MB':>11} {'flash HBM MB':>13}")
    for N in (128, 256, 512, 1024, 2048):
        Q, K, V = random_qkv(N, 64)
        std, flash = HBM(SRAM), HBM(SRAM)
        diff = np.abs(flash_forward(Q, K, V, 64, 64, False, flash) - standard_attention(Q, K, V, std)).max()
        print(f"{N:>6} {diff:>13.2e} {std.peak * ELEMENT_BYTES / KB:>12.1f} "
              f"{flash.peak * ELEMENT_BYTES / KB:>14.1f} {traffic(std):>11.2f} {traffic(flash):>13.2f}")

    print()
    print("How big should a tile be? (n = 1024, d = 64, SRAM budget 96 KB)")
    Q, K, V = random_qkv(1024, 64)
    std = HBM(SRAM)
    standard_attention(Q, K, V, std)
    print(f"standard attention traffic: {traffic(std):.2f} MB")
    print(f"{'block':>6} {'HBM MB':>8} {'tile working set KB':>20}  fits SRAM?")
    for block in (16, 32, 64, 128, 256, 512, 1024):
        flash = HBM(SRAM)
        flash_forward(Q, K, V, block, block, False, flash)
        fit = "yes" if fits(flash.working_set, SRAM) else "NO -- spills"
        print(f"{block:>6} {traffic(flash):>8.2f} {flash.working_set * ELEMENT_BYTES / KB:>20.1f}  {fit}")
'''


def script(order: str = "fa2") -> str:
    """A standalone script (NumPy only): the counter, the listing, and the post's tiling and
    tile-size tables (demos 3 and 4) printed from counted runs."""
    name = {"fa2": "FlashAttention-2's loop order", "fa1": "Algorithm 1 (FlashAttention-1)"}[order]
    head = (f'"""The tiled attention forward pass, {name}, with every HBM <-> SRAM\n'
            'crossing counted. Needs only NumPy: python flash_listing.py"""\n'
            "import numpy as np\n\n\n")
    return head + HBM_SOURCE + "\n\n" + LISTINGS[order] + SCRIPT_DEMOS
