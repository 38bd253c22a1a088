"""The seed's five bugs as edits to a Config: the one piece the tile player (animation.bug_frames)
and the "Break it" table (bugs.BUGS, with each bug's text) share, kept here, below both, so neither
imports the other."""
from __future__ import annotations

from collections.abc import Callable

from .config import Config

BREAKS: dict[str, Callable[[Config], Config]] = {
    "no_rescale": lambda cfg: cfg.with_(rescale=False),          # l and O keep an outdated max
    "tiles_too_big": lambda cfg: cfg.with_tiles(512, 512),       # the working set outgrows the SRAM budget
    "tiles_too_small": lambda cfg: cfg.with_tiles(16, 16),       # K and V re-read once per 16 query rows
    "keep_full_S": lambda cfg: cfg.with_(keep_full_S=True),      # every score tile copied to an n x n buffer
    "no_max": lambda cfg: cfg.with_(subtract_max=False),         # exp(S) without the running max
}
