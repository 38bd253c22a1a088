"""Frames for the players (tile, backward, whole-GPU) and their written schema, and where each bug's
symptom shows in its player.

Imports flashviz.model, run and hardware.
"""
