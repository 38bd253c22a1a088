"""The lessons, in teaching order. app.py builds the navigation from this list."""
from __future__ import annotations

from typing import NamedTuple


class Lesson(NamedTuple):
    file: str
    title: str
    url_path: str
    icon: str


LESSONS = [
    Lesson("pages/01_where_time_goes.py", "Where the time goes", "where-time-goes", ":material/speed:"),
    Lesson("pages/02_online_softmax.py", "Online softmax", "online-softmax", ":material/functions:"),
    Lesson("pages/03_tiling.py", "Tiling", "tiled-attention", ":material/grid_on:"),
    Lesson("pages/04_tile_size.py", "Tile size and SRAM", "tile-size", ":material/memory:"),
    Lesson("pages/05_backward.py", "The backward pass", "backward-pass", ":material/undo:"),
    Lesson("pages/06_exact.py", "Exact means exact", "exact-vs-approximate", ":material/check_circle:"),
    Lesson("pages/07_same_flops.py", "Same flops, less traffic", "same-flops", ":material/balance:"),
    Lesson("pages/08_fa2_fa1.py", "FlashAttention-2 and -1", "fa2-fa1", ":material/swap_horiz:"),
    Lesson("pages/09_break_it.py", "Break it", "break-it", ":material/bug_report:"),
]

# A url_path must differ from its file's stem without the number ("tiling" for
# 03_tiling.py): Streamlit's legacy pages/ discovery hashes that stem the same way
# st.Page hashes url_path, and the two would collide.
