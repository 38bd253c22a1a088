"""The lesson registry: everything about a lesson in one record, in teaching order, each in its
chapter. app.py builds the navigation from it (explorer/nav.py draws it), explorer.predict asks
each lesson's question from it, the lessons draw their own controls from it, and the tests read
their cases from it (tests/registry.py says what a complete entry needs).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from flashviz.hardware import measured
from flashviz.players.animation import MASK_SHAPES, TEACHING_D, TEACHING_N
from flashviz.teach.bugs import BELIEFS, BUGS
from flashviz.model.config import CUSTOM
from flashviz.model.mask_sweeps import DOC_MIXES
from flashviz.model.config import HARDWARE as GPUS
from flashviz.teach.questions import Question

from flashviz.players.schedule_lesson import TILES_SHOWN

from . import asks, schedule_view
from .asks import Settings
from .params import Param


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
    # The opening question: a builder in explorer/asks.py (the engine answers it from the settings).
    question: Callable[[Settings], Question | None] | None = None
    # The lesson's own controls, drawn with ui.bound(control(key)): each key is a URL parameter,
    # distinct from every other lesson's and the sidebar's.
    controls: tuple[Param, ...] = ()
    # Test cases: settings (URL parameters) each of which must move the question's answer away
    # from its answer at the defaults (tests/test_app.py).
    moves: tuple[Mapping[str, str], ...] = ()

    def control(self, key: str) -> Param:
        found = [p for p in self.controls if p.key == key]
        if not found:
            raise KeyError(f"{self.file} has no control {key!r}: add Param({key!r}, ...) to its controls "
                           "in explorer/lessons.py")
        return found[0]


# The chapters, as a teacher names them.
IDEA = "The idea"             # what attention is short of, and the trick that fixes it
ALGORITHM = "The algorithm"   # the tiled forward and backward passes, and that they are exact
TESTED = "Put to the test"    # against standard attention, against FlashAttention-1, and broken
HARDWARE = "Real hardware"    # measured on an H200, the whole GPU, inference


# Each lesson's own controls (URL key, label, default, offered values or range).
ONLINE_SOFTMAX = (
    Param("os_len", "row length", 32, lo=4, hi=128, step=4, kind="int"),
    Param("os_block", "block size", 8, lo=1, hi=64, step=1, kind="int"),
    Param("os_spread", "score spread (std)", 3.0, lo=0.5, hi=8.0, step=0.5, kind="float"),
    Param("os_seed", "random row", 1, lo=0, hi=99, step=1, kind="int"),
    Param("os_offset", "scores near", 800, lo=0, hi=1000, step=10, kind="int"),
    # FlashAttention-4's rescale threshold, log2 units (8 in its kernel for 16-bit; past 16, fp16 overflows)
    Param("os_tau", "rescale threshold τ (log2 units)", 8.0, lo=0.0, hi=20.0, step=0.5, kind="float"),
    Param("os_sink", "sink logit (lesson 14)", 2.0, lo=-4.0, hi=12.0, step=0.5, kind="float"),
)
TILING = (Param("an_n", "animation n", 256, TEACHING_N), Param("an_d", "animation d", 16, TEACHING_D),
          Param("an_std", "show standard", False, kind="bool"),
          # FlashAttention-4's threshold the player marks its rows at (log2 units; 8 is its kernel's for 16-bit)
          Param("an_tau", "FA4 threshold τ", 8.0, lo=0.0, hi=20.0, step=0.5, kind="float"))
BACKWARD = (Param("bw_n", "animation n", 256, TEACHING_N), Param("bw_d", "animation d", 16, TEACHING_D))
EXACT = (Param("ex_window", "local window width (keys)", 128, lo=8, hi=1024, step=8, kind="int"),)
BREAK_IT = (*(Param(f"bug_{key}", bug.label, False, kind="bool") for key, bug in BUGS.items()),
            *(Param(f"belief_{key}", belief.label, False, kind="bool") for key, belief in BELIEFS.items()),
            *(Param(f"watch_{key}", "watch it happen, tile by tile", False, kind="bool") for key in BUGS))
REAL_HARDWARE = (
    Param("hw_d", "head dim d", 64, (64, 128)),
    Param("hw_dtype", "data type", "float16", ("float16", "bfloat16", "float32")),
    Param("hw_pass", "pass", "fwd", ("fwd", "fwd+bwd")),
    # the sequence lengths bench/gpu/measure.py swept the Triton tiles at (flashviz/data/h200/blocks.csv)
    Param("hw_block_n", "sequence length for the tile sweep", 1024,
          tuple(int(n) for n in measured.block_sizes(measured.load()))),
)
KERNELS = ("PyTorch flash", "Triton 128×64", "Triton 64×64", "Triton 128×128")  # asks.kernel_named reads them
WHOLE_GPU = (
    Param("wg_n", "sequence length n", 131072, tuple(2**k for k in range(10, 21))),
    Param("wg_d", "head dim d", 128, (64, 128)),
    Param("wg_bh", "batch × heads", 1, lo=1, hi=64, step=1, kind="int"),
    Param("wg_gpu", "GPU", "H200 SXM", (*GPUS, CUSTOM)),  # "custom": the lesson draws CUSTOM_GPU
    Param("wg_kernel", "kernel", "PyTorch flash", KERNELS),
)
INFERENCE = (  # the model and the batch being decoded
    Param("inf_ctx", "cached tokens n", 8192, tuple(2**k for k in range(8, 21))),
    Param("inf_batch", "batch (sequences)", 1, (1, 2, 4, 8, 16, 32, 64, 128, 256)),
    Param("inf_heads", "query heads", 32, (8, 16, 32, 64, 128)),
    Param("inf_kv", "key/value heads: MHA → GQA → MQA", 8, (128, 64, 32, 16, 8, 4, 2, 1)),
    Param("inf_layers", "layers", 32, lo=1, hi=128, step=1, kind="int"),
    Param("inf_split", "chunks in the worked merge", 4, lo=2, hi=8, step=1, kind="int"),
)
SCHEDULE = (*schedule_view.PARAMS.values(),  # the measured call, its data type and mask, the unit rates
            # the key tile the timeline player has reached (the clicker steps it)
            Param("sc_tile", "key tile", 2, lo=1, hi=TILES_SHOWN, step=1, kind="int"),
            # FlashAttention-4 on the B200: its lagging max's threshold (the kernel's 8 for 16-bit inputs) and
            # the spread of the random scores the rescales are counted on (lesson 2's default)
            Param("sc_tau", "FA4 rescale threshold τ (B200)", 8.0, lo=0.0, hi=20.0, step=1.0, kind="float"),
            Param("sc_spread", "score spread (std) for the rescale count", 3.0, lo=0.5, hi=8.0, step=0.5,
                  kind="float"))

MASKS = (
    Param("mk_n", "sequence length n", 16384, tuple(2**k for k in range(10, 21))),
    Param("mk_window", "window (keys)", 128, (64, 128, 256, 512, 1024, 2048, 4096, 8192)),
    Param("mk_docs", "packed documents", "4 documents", DOC_MIXES),
    Param("mk_sink", "sink logit", 1.0, lo=-4.0, hi=8.0, step=0.5, kind="float"),
    # the masks player: which of the lesson's masks it streams, and whether the sink starts each row's sum
    Param("mk_pmask", "the player's mask", "window", MASK_SHAPES),
    Param("mk_psink", "with the sink", False, kind="bool"),
)

LESSONS = [
    Lesson("lessons/01_where_time_goes.py", "Where the time goes", "where-time-goes", ":material/speed:", "Bytes",
           IDEA, tiles="tensor", question=asks.where_time_goes,
           moves=({"dtype": "float32", "hw": "H200 SXM", "n": "16", "d": "256"},)),
    Lesson("lessons/02_online_softmax.py", "Online softmax", "online-softmax", ":material/functions:",
           "Softmax", IDEA, question=asks.online_softmax, controls=ONLINE_SOFTMAX, moves=({"os_seed": "7"},)),
    Lesson("lessons/03_tiling.py", "Tiling", "tiled-attention", ":material/grid_on:", "Tiling", ALGORITHM,
           question=asks.tiling, controls=TILING, moves=({"Br": "256", "Bc": "256"},)),
    Lesson("lessons/04_tile_size.py", "Tile size and SRAM", "tile-size", ":material/memory:", "Tiles", ALGORITHM,
           question=asks.tile_size, moves=({"d": "256"},)),
    Lesson("lessons/05_backward.py", "The backward pass", "backward-pass", ":material/undo:", "Backward", ALGORITHM,
           question=asks.backward, controls=BACKWARD, moves=({"n": "8192"},)),
    Lesson("lessons/06_exact.py", "Exact means exact", "exact-vs-approximate", ":material/check_circle:", "Exact",
           ALGORITHM, tiles="own", question=asks.exact, controls=EXACT, moves=({"ex_window": "1024", "n": "512"},)),
    Lesson("lessons/07_same_flops.py", "Flops against bytes", "same-flops", ":material/balance:", "Flops", TESTED,
           question=asks.same_flops, moves=({"causal": "true"},)),
    Lesson("lessons/08_fa2_fa1.py", "FlashAttention-2 and -1", "fa2-fa1", ":material/swap_horiz:", "FA2", TESTED,
           question=asks.loop_order, moves=({"Bc": "512"},)),
    Lesson("lessons/09_break_it.py", "Break it", "break-it", ":material/bug_report:", "Break it", TESTED,
           question=asks.break_it, controls=BREAK_IT, moves=({"d": "16"},)),
    Lesson("lessons/10_real_hardware.py", "On real hardware", "on-real-hardware", ":material/developer_board:",
           "H200", HARDWARE, tiles="own", question=asks.real_hardware, controls=REAL_HARDWARE,
           moves=({"hw_d": "128"},)),
    Lesson("lessons/11_whole_gpu.py", "The whole GPU", "whole-gpu", ":material/view_module:", "GPU", HARDWARE,
           tiles="own", question=asks.whole_gpu, controls=WHOLE_GPU, moves=({"wg_n": "1048576"}, {"wg_bh": "64"})),
    Lesson("lessons/12_inference.py", "Inference: one query, the whole cache", "decoding", ":material/bolt:",
           "Inference", HARDWARE, tiles="own", question=asks.inference, controls=INFERENCE,
           moves=({"inf_kv": "1"}, {"hw": "H200 SXM"})),
    Lesson("lessons/13_schedule.py", "After the bytes, the schedule", "after-the-bytes", ":material/view_timeline:",
           "Schedule", HARDWARE, tiles="own", question=asks.schedule, controls=SCHEDULE,
           moves=({"sc_call": "n 1,024, d 64, B·H 192", "sc_causal": "true"},)),
    Lesson("lessons/14_masks.py", "Windows, documents and sinks", "masks-and-sinks", ":material/filter_alt:",
           "Masks", HARDWARE, question=asks.masks, controls=MASKS, moves=({"mk_window": "8192"}, {"mk_n": "1024"})),
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


def lesson_of(file: str, lessons: Sequence[Lesson] | None = None) -> Lesson:
    """The registry's entry for a lesson script."""
    for lesson in LESSONS if lessons is None else lessons:
        if lesson.file == file:
            return lesson
    raise KeyError(f"{file} is not in explorer/lessons.py's LESSONS: add a Lesson(...) for it")


def controls(lessons: Sequence[Lesson] | None = None) -> dict[str, Param]:
    """Every lesson's own controls by URL key (a key is one lesson's: tests/test_registry.py checks)."""
    return {p.key: p for lesson in (LESSONS if lessons is None else lessons) for p in lesson.controls}


def control(key: str) -> Param:
    """A lesson's own control by its URL key, as the lesson draws it: ui.bound(control("os_len"))."""
    found = controls().get(key)
    if found is None:
        raise KeyError(f"no lesson declares a control {key!r}: add Param({key!r}, ...) to its Lesson's controls")
    return found
