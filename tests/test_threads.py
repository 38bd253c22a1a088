"""explorer/threads.py and the config beside it: what keeps many readers' runs from queueing behind the GIL and
behind a full garbage collection after every run (bench/load.py measures the effect)."""
import sys
import tomllib

from explorer import threads
from tests.conftest import ROOT
from tests.test_app import PAGES, open_page


def test_a_run_of_the_app_sets_the_gil_switch_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    try:
        at = open_page(PAGES[0])
        assert not at.exception
        assert sys.getswitchinterval() == threads.SWITCH_INTERVAL_S < 0.005
    finally:
        sys.setswitchinterval(before)


def test_no_full_collection_after_every_run():
    options = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert options["runner"]["postScriptGC"] is False
