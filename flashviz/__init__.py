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

The package in five layers, each importing only the ones before it (tests/test_layers.py):
  model/     config (every knob), memory (every counting rule), costs (closed forms), sweeps,
             breaks (the seed's bugs as Config edits), sources (citations and assumptions)
  run/       counted NumPy runs: attention, backward, decode, trace, listing, precision
  hardware/  gpu_arch, gpu_model (whole-GPU reads), schedule, their targets, measured (data/)
  players/   frames for the tile, backward and whole-GPU players, their schema, symptoms
  teach/     questions, claims, format, bugs, demos: what the pages and the CLI say

The public face, what a learner at a terminal needs. `import flashviz` loads only the package (not
even NumPy); each name below loads its module the first time it is used:

    >>> from flashviz import Config, Counters, flash_attention, flash_cost, random_qkv
    >>> cfg = Config(n=256, d=64)
    >>> Q, K, V = random_qkv(cfg.n, cfg.d)
    >>> counted = Counters(cfg.element_bytes)
    >>> O = flash_attention(Q, K, V, cfg, counted)
    >>> counted.hbm_bytes == flash_cost(cfg).hbm_bytes   # the run's count is the closed form's
    True
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# name -> the module that defines it
PUBLIC = {
    "Config": "model.config", "HARDWARE": "model.config", "SEED": "model.config",
    "Cost": "model.memory", "Counters": "model.memory", "paper_block_sizes": "model.memory",
    "flash_cost": "model.costs", "standard_cost": "model.costs",
    "flash_backward_cost": "model.costs", "standard_backward_cost": "model.costs",
    "flash_attention": "run.attention", "standard_attention": "run.attention",
    "online_softmax": "run.attention", "random_qkv": "run.attention",
    "flash_backward": "run.backward", "standard_backward": "run.backward",
    "DecodeConfig": "run.decode", "decode_attention": "run.decode", "decode_cost": "run.decode",
}
__all__ = ["Config", "Cost", "Counters", "DecodeConfig", "HARDWARE", "SEED", "decode_attention", "decode_cost",
           "flash_attention", "flash_backward", "flash_backward_cost", "flash_cost", "online_softmax",
           "paper_block_sizes", "random_qkv", "standard_attention", "standard_backward", "standard_backward_cost",
           "standard_cost"]  # PUBLIC's names (tests/test_packaging.py keeps the two equal)

if TYPE_CHECKING:  # what mypy and editors see; at run time __getattr__ loads each on first use
    from .model.config import HARDWARE, SEED, Config
    from .model.costs import flash_backward_cost, flash_cost, standard_backward_cost, standard_cost
    from .model.memory import Cost, Counters, paper_block_sizes
    from .run.attention import flash_attention, online_softmax, random_qkv, standard_attention
    from .run.backward import flash_backward, standard_backward
    from .run.decode import DecodeConfig, decode_attention, decode_cost


def __getattr__(name: str):
    if name not in PUBLIC:
        raise AttributeError(f"module 'flashviz' has no attribute {name!r}")
    value = getattr(import_module(f".{PUBLIC[name]}", __name__), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))
