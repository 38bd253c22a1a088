"""The long fuzz: thousands of random widget states over every lesson (tests/test_fuzz.py
with more examples). Prints the number of states run and the exceptions found.

    python bench/fuzz_app.py [examples]
"""
import logging
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["FLASHVIZ_FUZZ_EXAMPLES"] = sys.argv[1] if len(sys.argv) > 1 else "1000"

from tests import test_fuzz  # noqa: E402

if __name__ == "__main__":
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    t = time.perf_counter()
    failure = None
    try:
        test_fuzz.test_random_states_raise_nothing()
    except Exception as err:  # hypothesis re-raises the smallest failing example
        failure = err
    print(f"{os.environ['FLASHVIZ_FUZZ_EXAMPLES']} examples, {test_fuzz.STATES['runs']} widget states run "
          f"in {time.perf_counter() - t:.0f} s; exceptions: {'none' if failure is None else failure}")
