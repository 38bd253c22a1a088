"""The hardware models beside the counts: the GPU's architecture, the whole-GPU read model and the
schedule model, their targets against the measurements, and the measured data's readers.

Imports flashviz.model and flashviz.run.
"""
