"""`streamlit run app.py` on a free loopback port, for the browser and deploy tests."""
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(python: str = sys.executable, env: dict | None = None, script: str = "app.py",
          cwd: Path = ROOT, log: Path | None = None) -> tuple[subprocess.Popen, str]:
    """The app (or another script, relative to the project; `cwd`: another checkout's) starting on a free
    loopback port: its process and base URL, before it answers (healthy() waits for that). `log`: a file for
    what it prints (else nowhere)."""
    port = free_port()
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the child holds it; closed below)
    try:
        proc = subprocess.Popen(
            [python, "-m", "streamlit", "run", script, "--server.headless=true", f"--server.port={port}",
             "--server.address=127.0.0.1", "--browser.gatherUsageStats=false"],
            cwd=cwd, stdout=out, stderr=out, env={**os.environ, **(env or {})})
    finally:
        if log:
            out.close()  # type: ignore[union-attr]
    return proc, f"http://127.0.0.1:{port}"


def log_tail(log: Path, lines: int = 40) -> str:
    """The last `lines` lines of a server's log that the app or Streamlit wrote as a warning or worse."""
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError as err:
        return f"(not read: {err!r:.200})"
    kept = [line for line in text if "WARNING" in line or "ERROR" in line or "flashviz" in line
            or line.startswith(("Traceback", "  "))]
    return "\n".join(kept[-lines:]) or "(nothing above INFO)"


def healthy(url: str, proc: subprocess.Popen | None = None, timeout: float = 90) -> None:
    """Wait until the server at `url` says ok at /_stcore/health (its process, where given, still running)."""
    deadline = time.time() + timeout
    while True:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            if time.time() > deadline or (proc is not None and proc.poll() is not None):
                raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s") from None
            time.sleep(0.3)


def stop(proc: subprocess.Popen) -> None:
    """Stop the server: asked to (SIGTERM), then made to, past 20 s. Beside a CPU hog in CI, a server whose warming
    thread (explorer/warm.py) was still at work once took longer to exit, and the test that used it failed in its
    teardown, not in anything it asserts."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def serve(python: str = sys.executable, env: dict | None = None, timeout: float = 90, script: str = "app.py"):
    """The app (or another script, relative to the project) served until the block ends; yields its
    base URL once /_stcore/health says ok."""
    proc, url = start(python, env, script)
    try:
        healthy(url, proc, timeout)
        yield url
    finally:
        stop(proc)
