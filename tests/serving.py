"""`streamlit run app.py` on a free loopback port, for the browser and deploy tests."""
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(python: str = sys.executable, env: dict | None = None, timeout: float = 90, script: str = "app.py"):
    """The app (or another script, relative to the project) served until the block ends; yields its
    base URL once /_stcore/health says ok."""
    port = free_port()
    proc = subprocess.Popen(
        [python, "-m", "streamlit", "run", script, "--server.headless=true", f"--server.port={port}",
         "--server.address=127.0.0.1", "--browser.gatherUsageStats=false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while True:
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
