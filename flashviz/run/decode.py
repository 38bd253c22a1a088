"""Inference attention: n_q new query rows against a cache of n_kv keys, counted.

Decoding one token is n_q = 1 per sequence: a single row of scores against the whole
key/value cache, so each cached byte is used for about one multiply-add. Prefill is
n_q = n_kv. Query heads share key/value heads in groups of `group`: group 1 is
multi-head attention (MHA), 1 < group < heads grouped-query attention (GQA), one K/V
head for all queries multi-query attention (MQA).

The kernel modelled is FlashAttention's, run once per (sequence, K/V head): the
`group * n_q` query rows that share a K/V head are stacked as the rows of one problem,
cut into blocks of Br rows, and each K/V block of Bc keys streams past them. Split-KV
(Flash-Decoding) cuts the cache into `splits` chunks; each chunk is its own thread block
that reads the query block again and writes a partial (m, l, O) to HBM, and a merge
reads every partial back and writes O. Counted in elements, by where they go:

  q        query rows read            (once per chunk)
  kv       cache read                 (K and V, once per query block)
  out      output written             (once)
  partial  split-KV's extra traffic   (partial O, m, l written, then read by the merge)

Every query sees every cached key (no causal mask): in decoding the new token comes
after the whole cache, and prefill is counted the same way for comparison.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import ceil

import numpy as np

from ..model import memory as mem
from ..model.config import DTYPE_BYTES, Hardware
from ..model.costs import per_block


@dataclass(frozen=True)
class DecodeConfig:
    n_kv: int = 4096       # keys (and values) in the cache, per sequence and K/V head
    n_q: int = 1           # new query rows per sequence: 1 decodes a token, n_kv is prefill
    d: int = 128           # head dimension
    heads: int = 32        # query heads
    kv_heads: int = 8      # key/value heads: heads for MHA, 1 for MQA, a divisor between for GQA
    batch: int = 1         # sequences decoded together
    Br: int = 64           # query rows per block (cut to group * n_q)
    Bc: int = 64           # cache keys per block (cut to the chunk)
    splits: int = 1        # split-KV: chunks of the cache, each its own thread block
    dtype: str = "bfloat16"

    def __post_init__(self):
        for name in ("n_kv", "n_q", "d", "heads", "kv_heads", "batch", "Br", "Bc", "splits"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
        if self.heads % self.kv_heads:
            raise ValueError(f"kv_heads={self.kv_heads} must divide heads={self.heads}: "
                             "each K/V head serves a whole group of query heads")
        if self.splits > self.n_kv:
            raise ValueError(f"splits={self.splits} is more than the {self.n_kv} cached keys")
        if self.dtype not in DTYPE_BYTES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPE_BYTES)}, got {self.dtype!r}")

    @property
    def element_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def group(self) -> int:
        """Query heads per K/V head."""
        return self.heads // self.kv_heads

    @property
    def rows(self) -> int:
        """Query rows that share one K/V head: the group's heads times the new tokens."""
        return self.group * self.n_q

    @property
    def Tr(self) -> int:
        return ceil(self.rows / self.Br)

    @property
    def chunk(self) -> int:
        """Keys per split-KV chunk (the last may be shorter)."""
        return ceil(self.n_kv / self.splits)

    @property
    def chunks(self) -> int:
        """Chunks really made: ceil(n_kv / chunk), which can be fewer than `splits`."""
        return ceil(self.n_kv / self.chunk)

    @property
    def thread_blocks(self) -> int:
        """Independent pieces of work the GPU can spread over its SMs."""
        return self.batch * self.kv_heads * self.Tr * self.chunks

    def with_(self, **changes) -> "DecodeConfig":
        return replace(self, **changes)


@dataclass(frozen=True)
class DecodeCost:
    """Elements moved by kind, matmul flops and the largest tile working set."""

    q: int
    kv: int
    out: int
    partial: int
    flops: int
    working_set: int
    element_bytes: int

    @property
    def moved(self) -> int:
        return self.q + self.kv + self.out + self.partial

    @property
    def hbm_bytes(self) -> int:
        return self.moved * self.element_bytes

    @property
    def bytes_per_flop(self) -> float:
        return self.hbm_bytes / self.flops


@dataclass
class Tally:
    """What decode_attention counts as it runs (the same fields as DecodeCost)."""

    element_bytes: int = 2
    q: int = 0
    kv: int = 0
    out: int = 0
    partial: int = 0
    flops: int = 0
    working_set: int = 0

    def snapshot(self) -> DecodeCost:
        return DecodeCost(self.q, self.kv, self.out, self.partial, self.flops, self.working_set,
                          self.element_bytes)


def decode_cost(cfg: DecodeConfig) -> DecodeCost:
    """The closed form of decode_attention's counters: memory.py's rules summed over the
    query blocks (Br rows of the group's stacked rows), the chunks and their K/V blocks."""
    per_head = cfg.batch * cfg.kv_heads
    rows, d, s = cfg.rows, cfg.d, cfg.chunks

    def per_query_block(rule) -> int:
        return per_block(rows, cfg.Br, lambda r: rule(r, d))

    # each chunk of the cache streams past a query block in K/V blocks of Bc keys
    cache = per_block(cfg.n_kv, cfg.chunk,
                      lambda keys: per_block(keys, cfg.Bc, lambda c: mem.load_Kj_Vj(c, d)))
    # each chunk's block writes its partial (O, m, l) and the merge reads it back
    partial = s * 2 * per_query_block(mem.write_Oi_mi_li) if s > 1 else 0
    return DecodeCost(
        q=per_head * s * per_query_block(mem.load_Qi),
        kv=per_head * cfg.Tr * cache,
        out=per_head * per_query_block(mem.write_Oi),
        partial=per_head * partial,
        flops=per_head * 4 * rows * cfg.n_kv * d,
        working_set=mem.working_set(*mem.clamp_tiles(rows, cfg.Br, cfg.Bc, keys=cfg.chunk), d),
        element_bytes=cfg.element_bytes,
    )


def random_cache(cfg: DecodeConfig, seed: int = 0):
    """Q (batch, heads, n_q, d) and K, V (batch, kv_heads, n_kv, d); scores of unit variance."""
    rng = np.random.default_rng(seed)
    scale = cfg.d ** 0.25  # the 1/sqrt(d) of attention, folded into Q and K
    Q = rng.standard_normal((cfg.batch, cfg.heads, cfg.n_q, cfg.d)) / scale
    K = rng.standard_normal((cfg.batch, cfg.kv_heads, cfg.n_kv, cfg.d)) / scale
    V = rng.standard_normal((cfg.batch, cfg.kv_heads, cfg.n_kv, cfg.d))
    return Q, K, V


def reference_attention(Q, K, V):
    """softmax(Q K^T) V with each K/V head repeated for its group: the plain reference."""
    group = Q.shape[1] // K.shape[1]
    K, V = np.repeat(K, group, axis=1), np.repeat(V, group, axis=1)
    S = Q @ np.swapaxes(K, -1, -2)                         # (batch, heads, n_q, n_kv)
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    return (P / P.sum(axis=-1, keepdims=True)) @ V


def chunk_partial(Qi, Kc, Vc, Bc: int, tally: Tally):
    """One split's thread block: the online softmax over its chunk of the cache.
    Returns (m, l, O) with O unnormalised, each row on its own baseline m."""
    r, d = Qi.shape
    m, l, O = np.full((r, 1), -np.inf), np.zeros((r, 1)), np.zeros((r, d))
    for k0 in range(0, Kc.shape[0], Bc):
        Kj, Vj = Kc[k0:k0 + Bc], Vc[k0:k0 + Bc]
        c = Kj.shape[0]
        tally.kv += mem.load_Kj_Vj(c, d)                     # load Kj, Vj to SRAM
        tally.working_set = max(tally.working_set, mem.working_set(r, c, d))
        S = Qi @ Kj.T                                        # (r, c), in SRAM only
        m_new = np.maximum(m, S.max(axis=1, keepdims=True))
        P = np.exp(S - m_new)
        corr = np.exp(m - m_new)                             # e^(m_old - m_new)
        l = corr * l + P.sum(axis=1, keepdims=True)
        O = corr * O + P @ Vj
        tally.flops += 4 * r * c * d                         # Qi Kj^T and P Vj
        m = m_new
    return m, l, O


def merge(parts):
    """The online-softmax merge of partials (m_i, l_i, O_i), O_i unnormalised:
    m = max m_i, l = sum e^(m_i - m) l_i, O = sum e^(m_i - m) O_i / l. Exact, in any order."""
    m = np.maximum.reduce([p[0] for p in parts])
    scales = [np.exp(p[0] - m) for p in parts]
    l = sum(s * p[1] for s, p in zip(scales, parts))
    O = sum(s * p[2] for s, p in zip(scales, parts))
    return m, l, O / l


def merge_lse(parts):
    """The merge in the form Flash-Decoding writes its partials: each chunk's normalised output
    O_i / l_i and one log-sum-exp per row, lse_i = m_i + log l_i. Then lse = log sum e^(lse_i) and
    O = sum e^(lse_i - lse) O_i / l_i: the same answer as `merge`, since e^(lse_i) = l_i e^(m_i)."""
    top = np.maximum.reduce([p[0] for p in parts])
    lse = top + np.log(sum(np.exp(p[0] - top) for p in parts))
    return lse, sum(np.exp(p[0] - lse) * p[1] for p in parts)


def to_lse_form(part):
    """(m_i, l_i, unnormalised O_i) -> (lse_i, O_i / l_i), what Flash-Decoding's chunks write."""
    m, l, O = part
    return m + np.log(l), O / l


def decode_attention(Q, K, V, cfg: DecodeConfig, tally: Tally | None = None):
    """Attention of Q (batch, heads, n_q, d) against the cache K, V (batch, kv_heads, n_kv, d),
    with every HBM crossing counted in `tally`. Returns O (batch, heads, n_q, d)."""
    tally = tally if tally is not None else Tally(cfg.element_bytes)
    g, d = cfg.group, cfg.d
    cache = (cfg.batch, cfg.kv_heads, cfg.n_kv, d)
    if Q.shape != (cfg.batch, cfg.heads, cfg.n_q, d) or K.shape != cache or V.shape != cache:
        raise ValueError("Q, K, V do not have the config's shapes")
    O = np.empty(Q.shape)
    for b in range(cfg.batch):
        for h in range(cfg.kv_heads):
            rows = Q[b, h * g:(h + 1) * g].reshape(cfg.rows, d)   # the group's queries, stacked
            out = np.empty((cfg.rows, d))
            for r0 in range(0, cfg.rows, cfg.Br):
                Qi = rows[r0:r0 + cfg.Br]
                r = Qi.shape[0]
                parts = []
                for k0 in range(0, cfg.n_kv, cfg.chunk):
                    tally.q += mem.load_Qi(r, d)               # each chunk's block loads Qi
                    parts.append(chunk_partial(Qi, K[b, h, k0:k0 + cfg.chunk], V[b, h, k0:k0 + cfg.chunk],
                                               cfg.Bc, tally))
                if len(parts) > 1:
                    # each chunk writes its O_i, m_i, l_i; the merge reads them back
                    tally.partial += len(parts) * 2 * mem.write_Oi_mi_li(r, d)
                    out[r0:r0 + cfg.Br] = merge(parts)[2]
                else:
                    m, l, acc = parts[0]
                    out[r0:r0 + cfg.Br] = acc / l
                tally.out += mem.write_Oi(r, d)                # write Oi to HBM
            O[b, h * g:(h + 1) * g] = out.reshape(g, cfg.n_q, d)
    return O


# --- What the numbers mean on a GPU ---------------------------------------------------

def step_reads(cfg: DecodeConfig, layers: int) -> tuple[int, int]:
    """HBM bytes of one decoding step over all layers: (one sequence's new token, the whole batch's
    step). Each sequence's token reads its own cache, so the batch's step is batch times one's."""
    return decode_cost(replace(cfg, batch=1)).hbm_bytes * layers, decode_cost(cfg).hbm_bytes * layers


def cache_bytes(n_kv: int, batch: int, kv_heads: int, d: int, layers: int, element_bytes: int) -> int:
    """The K/V cache of a whole model: K and V, every layer, every sequence."""
    return 2 * layers * batch * kv_heads * n_kv * d * element_bytes


def longest_context(hw: Hardware, batch: int, kv_heads: int, d: int, layers: int, element_bytes: int) -> int:
    """The most cached tokens per sequence that fit in the GPU's HBM (vendor GB = 1e9 bytes),
    counting the cache alone: the model's weights need room too."""
    return int(hw.hbm_gb * 1e9 // cache_bytes(1, batch, kv_heads, d, layers, element_bytes))


def roofline_points(decode: DecodeConfig, hw: Hardware):
    """Decode (n_q = 1) and prefill (n_q = n_kv) of the same cache on one GPU's roofline."""
    import pandas as pd
    peak = hw.peak_flops(decode.dtype)
    rows = []
    for name, cfg in (("decode", decode.with_(n_q=1, splits=1)),
                      ("prefill", decode.with_(n_q=decode.n_kv, splits=1))):
        cost = decode_cost(cfg)
        ai = cost.flops / cost.hbm_bytes
        rate = min(peak, hw.hbm_bytes_per_s * ai)
        rows.append({"method": name, "flops per byte": ai, "bytes per flop": 1 / ai,
                     "attainable TFLOP/s": rate / 1e12, "bound": "memory" if rate < peak else "compute",
                     "time us (roofline)": cost.flops / rate * 1e6})
    return pd.DataFrame(rows)


def modelled_time(cfg: DecodeConfig, hw: Hardware) -> float:
    """Seconds for one step on the roofline, with the SMs the work can fill.

    The model's assumption: a kernel whose thread blocks fill k of the GPU's S SMs gets
    k/S of its HBM bandwidth and of its matmul rate. The merge (when split) is a second
    kernel with one block per query block, timed the same way."""
    cost = decode_cost(cfg)
    eb = cfg.element_bytes
    merge_elems = cost.partial // 2 + cost.out if cfg.chunks > 1 else 0
    main_bytes = cost.hbm_bytes - merge_elems * eb
    fill = min(1.0, cfg.thread_blocks / hw.sms)
    main = max(main_bytes / hw.hbm_bytes_per_s, cost.flops / hw.peak_flops(cfg.dtype)) / fill
    if not merge_elems:
        return main
    merge_fill = min(1.0, cfg.batch * cfg.kv_heads * cfg.Tr / hw.sms)
    return main + merge_elems * eb / hw.hbm_bytes_per_s / merge_fill


def split_sweep(cfg: DecodeConfig, hw: Hardware, most: int = 256):
    """Split-KV at 1, 2, 4, ... chunks: thread blocks, SMs filled, extra bytes, modelled time."""
    import pandas as pd
    base = decode_cost(cfg.with_(splits=1))
    rows, s = [], 1
    while s <= min(most, cfg.n_kv):
        split = cfg.with_(splits=s)
        cost = decode_cost(split)
        rows.append({"splits": s, "chunk keys": split.chunk, "thread blocks": split.thread_blocks,
                     "SMs busy %": 100 * min(1.0, split.thread_blocks / hw.sms),
                     "extra KB": (cost.hbm_bytes - base.hbm_bytes) / 1024,
                     "extra %": 100 * (cost.hbm_bytes / base.hbm_bytes - 1),
                     "time us (model)": modelled_time(split, hw) * 1e6})
        s *= 2
    return pd.DataFrame(rows)


def best_splits(table) -> int:
    """The split count with the least modelled time (the fewest splits on a tie)."""
    best = table["time us (model)"].min()
    return int(table[table["time us (model)"] <= best * (1 + 1e-9)]["splits"].min())


def merge_walkthrough(n_kv: int = 16, d: int = 4, splits: int = 4, seed: int = 0):
    """One query row against a small cache, split and merged, every intermediate kept.

    Returns (steps, merged, unsplit): steps has one dict per chunk (keys, m_i, l_i, the
    unnormalised O_i, the scale e^(m_i - m) and that chunk's share of the weight), then
    the merged (m, l, O) and the unsplit answer."""
    cfg = DecodeConfig(n_kv=n_kv, n_q=1, d=d, heads=1, kv_heads=1, Br=1, Bc=n_kv, splits=splits,
                       dtype="float64")
    Q, K, V = random_cache(cfg, seed)
    q, Kh, Vh = Q[0, 0], K[0, 0], V[0, 0]
    tally = Tally(cfg.element_bytes)
    parts = [chunk_partial(q, Kh[k0:k0 + cfg.chunk], Vh[k0:k0 + cfg.chunk], cfg.chunk, tally)
             for k0 in range(0, n_kv, cfg.chunk)]
    m, l, O = merge(parts)
    steps = []
    for k, (mi, li, Oi) in enumerate(parts):
        scale = float(np.exp(mi - m)[0, 0])
        steps.append({"chunk": k + 1, "keys": f"{k * cfg.chunk}–{min(n_kv, (k + 1) * cfg.chunk) - 1}",
                      "m_i": float(mi[0, 0]), "l_i": float(li[0, 0]), "O_i": Oi[0].copy(),
                      "lse_i": float((mi + np.log(li))[0, 0]),
                      "e^(m_i − m)": scale, "weight share": scale * float(li[0, 0]) / float(l[0, 0])})
    unsplit = reference_attention(Q, K, V)[0, 0, 0]
    return steps, (float(m[0, 0]), float(l[0, 0]), O[0]), unsplit


def sharing_name(heads: int, kv_heads: int) -> str:
    """MHA, GQA or MQA, as the literature names the ways query heads share K/V heads."""
    if kv_heads == heads:
        return "MHA"
    return "MQA" if kv_heads == 1 else f"GQA-{heads // kv_heads}"


def cache_over_n(ns, cfg: DecodeConfig, layers: int):
    """The model's cache in GB (1e9 bytes) at each n: MHA, the config's sharing, and MQA."""
    import pandas as pd
    kinds = dict.fromkeys((cfg.heads, cfg.kv_heads, 1))  # in order, without repeats
    out = {"n": list(ns)}
    for kv in kinds:
        label = f"{sharing_name(cfg.heads, kv)} ({kv} K/V head{'s' if kv > 1 else ''})"
        out[label] = [cache_bytes(n, cfg.batch, kv, cfg.d, layers, cfg.element_bytes) / 1e9 for n in ns]
    return pd.DataFrame(out)


def sharing_table(cfg: DecodeConfig, hw: Hardware, layers: int):
    """One decoding step of the whole model (every layer) for each way of sharing K/V heads."""
    import pandas as pd
    rows = []
    kv = cfg.heads
    while kv >= 1:
        cost = decode_cost(cfg.with_(kv_heads=kv, n_q=1, splits=1))
        rows.append({"sharing": sharing_name(cfg.heads, kv), "K/V heads": kv,
                     "cache GB": cache_bytes(cfg.n_kv, cfg.batch, kv, cfg.d, layers, cfg.element_bytes) / 1e9,
                     "read per step MB": layers * cost.hbm_bytes / 2**20,
                     "bytes per flop": cost.bytes_per_flop,
                     "step us (roofline)": layers * max(cost.hbm_bytes / hw.hbm_bytes_per_s,
                                                        cost.flops / hw.peak_flops(cfg.dtype)) * 1e6,
                     "longest n that fits": longest_context(hw, cfg.batch, kv, cfg.d, layers, cfg.element_bytes)})
        kv //= 2
    return pd.DataFrame(rows)
