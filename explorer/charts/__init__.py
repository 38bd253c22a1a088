"""Pure figure builders: engine results in, plotly Figure out. The app layer's pictures:
no Streamlit here, and the engine (flashviz/) never imports this package or plotly.

One module per chapter of lessons, over one style (`style.py`: the palette, the sizes a projector
needs, `_style`); a lesson calls `charts.<builder>` and need not know which module holds it:

- `idea.py`: lessons 1 and 2 (bytes against flops, the roofline, softmax's weights and running stats).
- `algorithm.py`: lessons 3 to 6 (memory and traffic over n, the tile sweeps, the backward pass, precisions).
- `tested.py`: lessons 7 to 9 (the traffic cut, the loop orders, a bug against the correct run).
- `hardware.py`: lessons 10 to 14 (the H200's measurements, inference, the whole GPU, the schedule, masks).
- `labels.py`: where the roofline's arrow labels go, on a projector's chart and on a phone's.
"""
from __future__ import annotations

from .algorithm import (backward_bars, block_sweep, diff_heatmap, flops_bars, io_theorem, memory_over_n,
                        precision_bars, precision_row, precision_score_errors, traffic_over_n, working_set_sweep)
from .hardware import (MeasuredReads, ModelReads, block_bytes, block_times, cache_over_n, mask_growth,
                       mask_tiles, masks_measured, measured_bytes, measured_roofline, measured_times, reads_figure,
                       schedule_measured, schedule_timeline, split_times)
from . import labels
from .idea import bytes_vs_flops, roofline, running_stats, weights_bars
from .tested import comparison_bars, cut_vs_block, loop_order_bars, loop_orders_over_n

__all__ = ["MeasuredReads", "ModelReads", "backward_bars", "block_bytes", "block_sweep", "block_times",
           "bytes_vs_flops", "cache_over_n", "comparison_bars", "cut_vs_block", "diff_heatmap", "flops_bars",
           "io_theorem", "labels", "loop_order_bars", "loop_orders_over_n", "mask_growth", "mask_tiles",
           "masks_measured", "measured_bytes", "measured_roofline",
           "measured_times", "memory_over_n", "precision_bars", "precision_row", "precision_score_errors",
           "reads_figure", "roofline", "running_stats", "schedule_measured", "schedule_timeline", "split_times",
           "traffic_over_n", "weights_bars", "working_set_sweep"]
