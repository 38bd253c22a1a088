"""The model at the ground: the config (every knob), the memory model (every counting rule), the closed
forms, the sweeps over them, and the sources and assumptions they rest on.

Imports nothing else from flashviz.
"""
