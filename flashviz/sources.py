"""Where every outside figure and statement comes from, and what the model assumes instead.

A page cites a paper or a vendor's table through `cite`, and marks a modelling choice of its
own through an `Assumption` key: a source is written once, here, and tests/test_sources.py
checks that every key a page uses exists, that every preset GPU's every figure has a source,
and that every assumption says what a real kernel does instead.

Links only: nothing here is fetched. A page shows the link; a reader's click opens it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    short: str  # how a page names it inline: "FlashAttention-2"
    title: str  # the full title, for the reading list
    who: str    # authors and year, or the vendor
    url: str


SOURCES: dict[str, Source] = {
    "fa1": Source("FlashAttention", "FlashAttention: fast and memory-efficient exact attention with IO-awareness",
                  "Dao, Fu, Ermon, Rudra and Ré, 2022", "https://arxiv.org/abs/2205.14135"),
    "fa2": Source("FlashAttention-2", "FlashAttention-2: faster attention with better parallelism and work "
                  "partitioning", "Dao, 2023", "https://arxiv.org/abs/2307.08691"),
    "fa3": Source("FlashAttention-3", "FlashAttention-3: fast and accurate attention with asynchrony and low "
                  "precision", "Shah, Bikshandi, Zhang, Thakkar, Ramani and Dao, 2024",
                  "https://arxiv.org/abs/2407.08608"),
    "online": Source("Online softmax", "Online normalizer calculation for softmax", "Milakov and Gimelshein, 2018",
                     "https://arxiv.org/abs/1805.02867"),
    "rabe": Source("Rabe and Staats", "Self-attention does not need O(n²) memory", "Rabe and Staats, 2021",
                   "https://arxiv.org/abs/2112.05682"),
}

# The reading list, in the order a reader meets the ideas.
READING = ("fa1", "online", "rabe", "fa2", "fa3")


def cite(key: str, where: str = "") -> str:
    """A Markdown link naming the source and, if given, where in it: "[FlashAttention-2, §3.3](…)"."""
    s = SOURCES[key]
    return f"[{s.short}{', ' + where if where else ''}]({s.url})"


@dataclass(frozen=True)
class Assumption:
    title: str    # short, for the mark beside a number: "spill charged to HBM"
    model: str    # what this model does
    real: str     # what a real kernel or GPU does instead, with its source (cite) where there is one


ASSUMPTIONS: dict[str, Assumption] = {
    "spill": Assumption(
        "spill charged to HBM",
        "When a tile step's working set is over the SRAM budget, the elements over it make the four trips "
        "the score matrix makes in standard attention (write S, read S, write P, read P), every tile step. "
        "This is the seed's rule, kept so its tables come out exactly.",
        "Shared memory does not spill: a kernel whose shared-memory tiles do not fit does not launch "
        f"({cite('fa2', '§3.3')}: \"the kernel cannot run at all\"). Registers do spill, to local memory, "
        "which is cached in L1 and L2 before it reaches HBM. A real kernel picks tiles that fit."),
    "roofline": Assumption(
        "a kernel's time is its roofline",
        "A kernel takes the larger of two times: its HBM bytes at the vendor's bandwidth, and its "
        "matmul flops at the vendor's peak rate (plus any other arithmetic at the FP32 rate). Kernels "
        "that run one after another add up.",
        "A real kernel reaches neither peak: launches, the first and last waves of blocks, and L2 all "
        "take their share. The roofline bounds the time from below; lessons 10 and 11 set it beside "
        "measured kernels."),
    "sram_registers": Assumption(
        "SRAM is one budget",
        "Shared memory and registers are one on-chip budget M, the \"SRAM\" of the papers.",
        f"In FlashAttention-2 and -3 kernels the scores S, the probabilities P and the output accumulator "
        f"O live in registers, and shared memory holds the tiles of Q, K and V ({cite('fa3', '§3.1')}: "
        "P·V is issued with its first operand in registers)."),
}
