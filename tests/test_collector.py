"""explorer/collector.py: Python's full collections skip what imports made."""
import gc
import sys
import types

import pytest

from explorer import collector


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(collector, "_modules_frozen", 0)
    yield
    monkeypatch.delitem(sys.modules, "_fv_new_module", raising=False)
    gc.unfreeze()


def test_a_run_that_imported_modules_freezes_what_exists(fresh):
    gc.unfreeze()
    collector.freeze_new_modules()
    assert gc.get_freeze_count() > 10_000, f"only {gc.get_freeze_count()} objects frozen"


def test_an_ordinary_rerun_freezes_nothing_more(fresh):
    collector.freeze_new_modules()
    frozen = gc.get_freeze_count()
    made = [[k] for k in range(1000)]  # a rerun's new objects: they must stay collectable
    collector.freeze_new_modules()
    # at most as many: a frozen object another thread lets go of (pytest-xdist's, a test's server) leaves the count
    assert gc.get_freeze_count() <= frozen, f"{gc.get_freeze_count() - frozen} objects frozen on a plain rerun"
    assert len(made) == 1000


def test_a_later_import_freezes_again(fresh, monkeypatch):
    collector.freeze_new_modules()
    frozen = gc.get_freeze_count()
    made = [[k] for k in range(1000)]
    monkeypatch.setitem(sys.modules, "_fv_new_module", types.ModuleType("_fv_new_module"))
    collector.freeze_new_modules()
    assert gc.get_freeze_count() >= frozen + len(made), "a page's first visit imported modules, nothing frozen"
