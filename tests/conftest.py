import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:  # Playwright's expect() waits 5 s by default: too short for a busy CI machine. Every browser
    # assertion still waits for its state and returns as soon as it holds; only the deadline moves.
    from playwright.sync_api import expect
except ImportError:
    pass
else:
    expect.set_options(timeout=30_000)


def dry_run(script: str, out, *extra: str) -> None:
    """Run bench/gpu/<script> --dry-run [extra] on the CPU into `out`; PyTorch missing: a skip that says why,
    or a failure where FLASHVIZ_REQUIRE_TORCH says it must run (.ci/run installs its CPU build)."""
    import importlib.util
    import os
    import subprocess

    import pytest
    if importlib.util.find_spec("torch") is None:
        if os.environ.get("FLASHVIZ_REQUIRE_TORCH"):
            pytest.fail(f"PyTorch is required here for bench/gpu/{script}'s dry run (.ci/run installs its CPU build)")
        pytest.skip(f"PyTorch is not installed, so bench/gpu/{script}'s CPU dry run cannot run "
                    "(`pip install torch --index-url https://download.pytorch.org/whl/cpu` adds it)")
    done = subprocess.run([sys.executable, f"bench/gpu/{script}", "--dry-run", "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
