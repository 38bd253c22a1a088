"""bench/load.py in miniature: two sessions speaking Streamlit's websocket protocol,
moving the n slider on two lessons for a few seconds, with no errors."""
import re
import subprocess
import sys

from tests.conftest import ROOT


def test_two_sessions_move_sliders_without_errors():
    # 12 s: a session's first move first asks for n's live figures, as the page does when the pointer comes over
    # the slider (explorer/live.py): seconds beside CI's CPU hog in .ci/ends, where 4 s left one session unmoved
    out = subprocess.run([sys.executable, "bench/load.py", "--sessions", "2", "--seconds", "12"], cwd=ROOT,
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "(2 found the n slider and moved it)" in out.stdout, out.stdout
    reruns = int(re.search(r"reruns (\d+)", out.stdout).group(1))
    assert reruns >= 4 and "errors 0" in out.stdout, out.stdout
