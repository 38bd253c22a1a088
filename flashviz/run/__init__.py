"""Counted NumPy runs: attention forward and backward, decoding, the per-tile trace, the listing the
tile player runs, real precisions.

Imports flashviz.model only.
"""
