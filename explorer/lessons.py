"""The lessons, in teaching order, each in its chapter. app.py builds the navigation from this list
(explorer/nav.py draws it)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Lesson(NamedTuple):
    file: str
    title: str
    url_path: str
    icon: str
    short: str  # the navigation's label for the lesson on screen ("12. Inference"); the others show their number
    # The chapter the navigation groups it under: a name a teacher would say. Lessons of one chapter
    # stand together in LESSONS (chapters() refuses a chapter split in two).
    chapter: str
    # Whose tiles the lesson's figures use, which decides the overflow banner: "sidebar" (the sidebar's
    # tiles and data type), "tensor" (the sidebar's tiles in the 16-bit type attention runs in on tensor
    # cores: lesson 1's roofline), or "own" (the lesson runs tiles or settings of its own: no banner).
    tiles: str = "sidebar"


# The chapters, as a teacher names them.
IDEA = "The idea"             # what attention is short of, and the trick that fixes it
ALGORITHM = "The algorithm"   # the tiled forward and backward passes, and that they are exact
TESTED = "Put to the test"    # against standard attention, against FlashAttention-1, and broken
HARDWARE = "Real hardware"    # measured on an H200, the whole GPU, inference

LESSONS = [
    Lesson("lessons/01_where_time_goes.py", "Where the time goes", "where-time-goes", ":material/speed:", "Bytes",
           IDEA, tiles="tensor"),
    Lesson("lessons/02_online_softmax.py", "Online softmax", "online-softmax", ":material/functions:",
           "Softmax", IDEA),
    Lesson("lessons/03_tiling.py", "Tiling", "tiled-attention", ":material/grid_on:", "Tiling", ALGORITHM),
    Lesson("lessons/04_tile_size.py", "Tile size and SRAM", "tile-size", ":material/memory:", "Tiles", ALGORITHM),
    Lesson("lessons/05_backward.py", "The backward pass", "backward-pass", ":material/undo:", "Backward", ALGORITHM),
    Lesson("lessons/06_exact.py", "Exact means exact", "exact-vs-approximate", ":material/check_circle:", "Exact",
           ALGORITHM, tiles="own"),
    Lesson("lessons/07_same_flops.py", "Flops against bytes", "same-flops", ":material/balance:", "Flops", TESTED),
    Lesson("lessons/08_fa2_fa1.py", "FlashAttention-2 and -1", "fa2-fa1", ":material/swap_horiz:", "FA2", TESTED),
    Lesson("lessons/09_break_it.py", "Break it", "break-it", ":material/bug_report:", "Break it", TESTED),
    Lesson("lessons/10_real_hardware.py", "On real hardware", "on-real-hardware", ":material/developer_board:",
           "H200", HARDWARE, tiles="own"),
    Lesson("lessons/11_whole_gpu.py", "The whole GPU", "whole-gpu", ":material/view_module:", "GPU", HARDWARE,
           tiles="own"),
    Lesson("lessons/12_inference.py", "Inference: one query, the whole cache", "decoding", ":material/bolt:",
           "Inference", HARDWARE, tiles="own"),
    Lesson("lessons/13_schedule.py", "After the bytes, the schedule", "after-the-bytes", ":material/view_timeline:",
           "Schedule", HARDWARE, tiles="own"),
]

# The scripts live in lessons/, not pages/: Streamlit still runs its legacy pages/
# discovery before app.py's first run on a fresh server, so a reader's first deep link
# either showed "Page not found" or opened the page without app.py's sidebar.
# A url_path must also differ from its file's stem without the number ("tiling" for
# 03_tiling.py), which is how that legacy discovery names pages.


class Chapter(NamedTuple):
    name: str
    lessons: tuple[int, ...]  # 0-based places in the lesson list, in order


def chapters(lessons: Sequence[Lesson]) -> list[Chapter]:
    """The lessons grouped by their chapter, in teaching order: each run of consecutive lessons with
    one chapter name is a chapter. A name that comes back after another chapter is refused: the
    navigation would show it twice, and the clicker's walk would leave a chapter and return."""
    out: list[Chapter] = []
    for k, lesson in enumerate(lessons):
        if out and out[-1].name == lesson.chapter:
            out[-1] = out[-1]._replace(lessons=(*out[-1].lessons, k))
            continue
        if any(c.name == lesson.chapter for c in out):
            raise ValueError(f"lesson {k + 1} ({lesson.title}) is in {lesson.chapter!r}, which lessons "
                             f"{out[-1].lessons[0] + 1}-{out[-1].lessons[-1] + 1} ({out[-1].name!r}) interrupt: "
                             "a chapter's lessons stand together")
        out.append(Chapter(lesson.chapter, (k,)))
    return out
