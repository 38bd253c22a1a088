"""The lessons, in teaching order. app.py builds the navigation from this list."""
from __future__ import annotations

from typing import NamedTuple


class Lesson(NamedTuple):
    file: str
    title: str
    url_path: str
    icon: str
    short: str  # the top navigation's label: ten of them share 1280 px
    # Whose tiles the lesson's figures use, which decides the overflow banner: "sidebar" (the sidebar's
    # tiles and data type), "tensor" (the sidebar's tiles in the 16-bit type attention runs in on tensor
    # cores: lesson 1's roofline), or "own" (the lesson runs tiles or settings of its own: no banner).
    tiles: str = "sidebar"


LESSONS = [
    Lesson("lessons/01_where_time_goes.py", "Where the time goes", "where-time-goes", ":material/speed:", "Bytes",
           tiles="tensor"),
    Lesson("lessons/02_online_softmax.py", "Online softmax", "online-softmax", ":material/functions:",
           "Softmax"),
    Lesson("lessons/03_tiling.py", "Tiling", "tiled-attention", ":material/grid_on:", "Tiling"),
    Lesson("lessons/04_tile_size.py", "Tile size and SRAM", "tile-size", ":material/memory:", "Tiles"),
    Lesson("lessons/05_backward.py", "The backward pass", "backward-pass", ":material/undo:", "Backward"),
    Lesson("lessons/06_exact.py", "Exact means exact", "exact-vs-approximate", ":material/check_circle:", "Exact",
           tiles="own"),
    Lesson("lessons/07_same_flops.py", "Flops against bytes", "same-flops", ":material/balance:", "Flops"),
    Lesson("lessons/08_fa2_fa1.py", "FlashAttention-2 and -1", "fa2-fa1", ":material/swap_horiz:", "FA2"),
    Lesson("lessons/09_break_it.py", "Break it", "break-it", ":material/bug_report:", "Break it"),
    Lesson("lessons/10_real_hardware.py", "On real hardware", "on-real-hardware", ":material/developer_board:",
           "H200", tiles="own"),
    Lesson("lessons/11_whole_gpu.py", "The whole GPU", "whole-gpu", ":material/view_module:", "GPU", tiles="own"),
    Lesson("lessons/12_inference.py", "Inference: one query, the whole cache", "decoding", ":material/bolt:",
           "Inference", tiles="own"),
]

# The scripts live in lessons/, not pages/: Streamlit still runs its legacy pages/
# discovery before app.py's first run on a fresh server, so a reader's first deep link
# either showed "Page not found" or opened the page without app.py's sidebar.
# A url_path must also differ from its file's stem without the number ("tiling" for
# 03_tiling.py), which is how that legacy discovery names pages.
