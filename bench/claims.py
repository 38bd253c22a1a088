"""Every claim-bearing sentence of every lesson against the engine, in every named regime and at
many random settings.

The checks are tests/test_claims.py's; this runs them, per lesson, first at each named regime
(tests/claims_settings.py: overflowing tiles, wide heads in each data type, the mask, the paper's
loop order, every GPU preset, the budget's, the tiles' and n's extremes, then the lesson's own
controls at their extremes), then at 50 random settings (or the number given), and reports the
settings and sentences checked and every failure with the URL that shows it, instead of stopping
at the first.

    python bench/claims.py            # the named regimes, then 50 random settings per lesson
    python bench/claims.py 10 lessons/05_backward.py
"""
from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as hs  # noqa: E402

from tests.claims_settings import explicit  # noqa: E402
from tests.test_claims import PAGES, check_page, lesson_params  # noqa: E402


def check(page: str, params: dict, tally: dict) -> None:
    tally["settings"] += 1
    try:
        tally["sentences"] += check_page(page, params)
    except AssertionError as failure:  # keep going: report every failing setting
        tally["failures"].append(str(failure).strip())


def run(page: str, examples: int) -> dict:
    tally = {"settings": 0, "sentences": 0, "failures": []}
    for params in explicit(page):
        check(page, params, tally)
    tally["named"] = tally["settings"]

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(data=hs.data())
    def one(data):
        check(page, data.draw(lesson_params(page)), tally)

    one()
    return tally


def main() -> None:
    for name in ["streamlit", *logging.root.manager.loggerDict]:  # AppTest's bare-mode warnings
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    pages = sys.argv[2:] or PAGES
    print(f"{'lesson':34} {'named':>5} {'settings':>8} {'sentences':>9} {'failures':>8} {'seconds':>7}")
    reports = []
    for page in pages:
        start = time.perf_counter()
        tally = run(page, examples)
        print(f"{page:34} {tally['named']:5d} {tally['settings']:8d} {tally['sentences']:9d} "
              f"{len(tally['failures']):8d} {time.perf_counter() - start:7.0f}", flush=True)
        reports += tally["failures"]
    for failure in reports:  # the claim and the link that shows it (the page dump left out)
        lines = failure.splitlines()
        print(f"\nFAIL {lines[0][:400]}\n  {lines[-1].strip()}")


if __name__ == "__main__":
    main()
