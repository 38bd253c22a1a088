"""bench/replicas.py in miniature (tests/replicas.py holds the run): two replicas behind Debian's nginx,
two readers speaking Streamlit's protocol (round robin puts one on each replica) and a Chromium; the
browser's replica is killed while the readers rerun, and two more readers join.

One run serves every test below; each asserts one part of what it printed.
Set FLASHVIZ_REQUIRE_BROWSER=1 (CI does) to fail instead of skip without nginx or Chromium.
"""
import os

import pytest

from deploy.serve_replicas import nginx_binary

CHROMIUM = "/usr/bin/chromium"
PORT = 8715  # nginx; the replicas take the next two (bench/replicas.py's default is 8710)

try:
    nginx_binary()
    _missing = None if os.path.exists(CHROMIUM) else f"{CHROMIUM} not installed"
except RuntimeError as err:
    _missing = str(err)
if _missing and os.environ.get("FLASHVIZ_REQUIRE_BROWSER"):
    raise RuntimeError(f"the replica test is required here but {_missing}")
pytestmark = pytest.mark.skipif(bool(_missing), reason=_missing or "")


@pytest.fixture(scope="module")
def report():
    from tests.replicas import run
    return run(readers=2, reruns=3, after=2, think=0.2, port=PORT, timeout=60)


def test_every_session_keeps_one_replica_across_reruns_and_reloads(report):
    assert not report.failed("a"), report.text()


def test_both_replicas_serve_sessions(report):
    assert not report.failed("b"), report.text()


def test_a_killed_replica_costs_only_its_own_sessions_which_come_back_on_the_other(report):
    assert not report.failed("c"), report.text()
