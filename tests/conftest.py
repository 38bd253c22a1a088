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
