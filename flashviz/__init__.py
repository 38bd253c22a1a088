"""flashviz: a NumPy attention lab that counts every byte.

FlashAttention does the same arithmetic as standard attention and moves far
fewer bytes between HBM and SRAM. This package runs both in NumPy and counts,
by hand, every element that crosses, every matmul flop and the SRAM working
set; closed forms give the same totals without running anything.

Notation (the paper's, Algorithm 1):
  N, n    sequence length          d       head dimension
  M       SRAM budget (bytes in Config.sram_bytes; elements in the paper's rule)
  Br, Bc  rows per Q tile, per K/V tile     Tr, Tc  number of Q, K/V tiles
  Qi      a (Br, d) block of Q      Kj, Vj  (Bc, d) blocks of K and V
  Sij     the (Br, Bc) score tile   m, l    running row max and row sum
  O       output; kept unnormalised in FlashAttention-2 until divided by l

Modules: config (every knob), memory (the memory model: every counting rule),
attention and backward (the computation, counted by memory's rules), costs (closed
forms over the same rules), trace (per-tile records), bugs (the seed's "Break it"
table), demos (the seed's nine demos as tables).
"""
from .model.config import HARDWARE, SEED, Config
from .model.costs import flash_cost, standard_cost
from .model.memory import Cost, Counters, paper_block_sizes

__all__ = ["Config", "Cost", "Counters", "HARDWARE", "SEED", "flash_cost", "paper_block_sizes",
           "standard_cost"]
