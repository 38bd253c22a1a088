"""Every sentence that states a direction, a ratio or a regime agrees with the engine.

Each lesson is rendered through AppTest (as tests/test_app.py opens it) at random
settings drawn by hypothesis; each claim-bearing sentence is parsed back out of the
page and checked against figures this file computes itself from flashviz.model.costs,
flashviz.model.config and flashviz.hardware.measured for the same settings. A sentence the page is
expected to show but does not is a failure too, so a reworded sentence cannot pass
silently. bench/claims.py runs the same checks with 50 settings per lesson.

The checks live beside this file, one module per chapter of lessons (tests/claims_idea.py, claims_algorithm.py,
claims_tested.py, claims_hardware.py, claims_schedule.py) over tests/claims_core.py's machinery; this file
names each lesson's checks (CHECKS, WHY) and runs them. bench/claims.py imports PAGES, check_page and
lesson_params from here.

FLASHVIZ_CLAIMS_EXAMPLES sets the number of random settings per lesson (default 6).
"""
from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as hs

from tests.claims_settings import OVERFLOW, explicit, lesson_params  # lesson_params: bench/claims.py's
from tests.test_app import PAGES
from tests.claims_core import check_generic, Claims, render
from tests.claims_idea import check_online_softmax, check_where_time_goes, why_online_softmax, why_where_time_goes
from tests.claims_algorithm import (check_backward, check_exact, check_tile_size, check_tiling, why_backward,
                                    why_exact, why_tile_size, why_tiling)
from tests.claims_tested import (check_break_it, check_fa2_fa1, check_same_flops, why_break_it, why_fa2_fa1,
                                 why_same_flops)
from tests.claims_hardware import (check_fa3_order, check_inference, check_masks, check_real_hardware, check_whole_gpu,
                                   why_masks)
from tests.claims_schedule import check_schedule, why_schedule

EXAMPLES = int(os.environ.get("FLASHVIZ_CLAIMS_EXAMPLES", "6"))


WHY = {
    "lessons/01_where_time_goes.py": why_where_time_goes,
    "lessons/02_online_softmax.py": why_online_softmax,
    "lessons/03_tiling.py": why_tiling,
    "lessons/04_tile_size.py": why_tile_size,
    "lessons/05_backward.py": why_backward,
    "lessons/06_exact.py": why_exact,
    "lessons/07_same_flops.py": why_same_flops,
    "lessons/08_fa2_fa1.py": why_fa2_fa1,
    "lessons/09_break_it.py": why_break_it,
    "lessons/13_schedule.py": why_schedule,
    "lessons/14_masks.py": why_masks,
}


CHECKS = {
    "lessons/01_where_time_goes.py": check_where_time_goes,
    "lessons/02_online_softmax.py": check_online_softmax,
    "lessons/03_tiling.py": check_tiling,
    "lessons/04_tile_size.py": check_tile_size,
    "lessons/05_backward.py": check_backward,
    "lessons/06_exact.py": check_exact,
    "lessons/07_same_flops.py": check_same_flops,
    "lessons/08_fa2_fa1.py": check_fa2_fa1,
    "lessons/09_break_it.py": check_break_it,
    "lessons/10_real_hardware.py": check_real_hardware,
    "lessons/11_whole_gpu.py": check_whole_gpu,
    "lessons/12_inference.py": check_inference,
    "lessons/13_schedule.py": check_schedule,
    "lessons/14_masks.py": check_masks,
}


def check_page(page: str, params: dict) -> int:
    """Render one lesson at these settings and check every claim on it; the sentences checked."""
    ck = Claims(page, params, render(page, params))
    ck.expect(ck.why or not ck.at.asked, "the lesson's question, revealed, has no why line")
    CHECKS.get(page, lambda ck, params: None)(ck, params)  # a newer lesson: the generic checks only
    # FA2 §2.1: "on-chip SRAM (aka shared memory)"; registers are not the papers' SRAM (issue 37, on every page)
    ck.expect(not re.search(r"\"SRAM\" is both|part\s+of what the papers call SRAM|SRAM\" covers|SRAM\" is the "
                            r"on-chip memory as a whole", ck.text),
              "a page counts registers in the papers' SRAM")
    WHY.get(page, lambda ck, params: None)(ck, params)
    check_generic(ck)
    return ck.count


# A teacher's settings (issue 37's expert read): long rows, wide heads, 16-bit, causal, on the GPUs it named.
TEACHER = {"n": 8192, "d": 128, "dtype": "float16", "causal": True}


@pytest.mark.parametrize("hw", ("H200 SXM", "B200", "MI300X"))
@pytest.mark.parametrize("page", PAGES)
def test_claims_hold_at_a_teachers_settings(page, hw):
    params = {**explicit(page)[0], **TEACHER, "hw": hw}
    assert check_page(page, params) > 0


def test_every_lesson_of_the_classroom_hour_has_its_own_claim_checks():
    assert set(PAGES[:10]) <= set(CHECKS)


@pytest.mark.parametrize("page", PAGES)
def test_claims_hold_where_the_tiles_overflow(page):
    """The issue's setting, 64 × 64 tiles at d = 128 in float32 against 96 KB: every lesson names the overflow."""
    params = explicit(page)[0]
    assert {k: params[k] for k in OVERFLOW} == OVERFLOW
    assert check_page(page, params) > 0


@pytest.mark.parametrize("page", PAGES)
# No shrinking: every example is a full render (about a second), and a failure already
# names its settings as a URL.
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=hs.data())
def test_claims_agree_with_the_engine(page, data):
    params = data.draw(lesson_params(page), label="settings")
    checked = check_page(page, params)
    assert checked > 0 or page not in CHECKS, f"{page}: no sentence checked"


def test_the_roofline_assumption_gives_the_range_of_cublas_runs():
    from flashviz.hardware.measured import cublas_fp16_runs
    from flashviz.model.sources import ASSUMPTIONS
    rates = [rate for *_, rate in cublas_fp16_runs()]
    m = re.search(r"fp16 matmul reached (\d+) to (\d+) of the 989 TFLOP/s in (\w+) runs", ASSUMPTIONS["roofline"].real)
    assert m and (int(m.group(1)), int(m.group(2))) == (round(min(rates)), round(max(rates))) \
        and m.group(3) == "three" == ["one", "two", "three"][len(rates) - 1], (m and m.group(0), rates)


@pytest.mark.parametrize("key", ["schedule", "softmax_added"])
def test_assumptions_give_fa3s_overlap_in_algorithm_2s_order(key):
    """The assumptions the schedule pages link to state FA3's intra-warpgroup order as the timeline runs it."""
    from flashviz.model.sources import ASSUMPTIONS
    a = ASSUMPTIONS[key]
    ck = Claims.__new__(Claims)
    ck.page, ck.params, ck.count = f"assumption {key}", {}, 0
    ck.where = lambda: f"flashviz/model/sources.py ASSUMPTIONS[{key!r}]"  # type: ignore[method-assign]
    check_fa3_order(ck, f"{a.model} {a.real}", f"the {key!r} assumption")
