"""The repository deploys as it is: production settings, a container recipe, and a fresh
virtual environment built from requirements.txt alone that serves the first lesson."""
import os
import subprocess
import tomllib
import venv

import pytest

from tests.conftest import ROOT
from tests.serving import serve

CHROMIUM = "/usr/bin/chromium"


def test_streamlit_config_is_production_safe():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["enableXsrfProtection"] is True
    assert cfg["server"]["runOnSave"] is False
    assert cfg["server"]["fileWatcherType"] == "none"
    assert cfg["client"]["showErrorDetails"] == "none"


def test_dockerfile_runs_the_app_with_a_health_check():
    text = (ROOT / "Dockerfile").read_text()
    assert "pip install --no-cache-dir -r requirements.lock" in text, "the image installs the served set"
    assert "/_stcore/health" in text and "HEALTHCHECK" in text
    assert '"streamlit", "run", "app.py"' in text
    for folder in ("flashviz", "explorer", "lessons", ".streamlit"):  # the measured data is in flashviz/data
        assert f"COPY {folder} " in text, folder


def test_requirements_name_only_what_the_app_imports():
    names = {line.split(">")[0].split("=")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")}
    assert names == {"ml_dtypes", "numpy", "pandas", "plotly", "streamlit"}


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    where = tmp_path_factory.mktemp("venv")
    venv.create(where, with_pip=True)
    py = where / "bin" / "python"
    out = subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", str(ROOT / "requirements.txt")],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return py


@pytest.mark.timeout(1200)  # a fresh venv's pip install: minutes on a busy machine
def test_fresh_venv_serves_the_first_lesson(fresh_venv):
    if not os.path.exists(CHROMIUM):
        if os.environ.get("FLASHVIZ_REQUIRE_BROWSER"):
            pytest.fail("chromium is required here")
        pytest.skip("no chromium")
    from playwright.sync_api import sync_playwright
    with serve(python=str(fresh_venv), env={"PYTHONPATH": ""}) as url, sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                              "--disable-background-networking"])
        pg = b.new_page(viewport={"width": 1280, "height": 720})
        pg.goto(url)
        pg.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=60_000)
        pg.wait_for_selector("h1", timeout=30_000)
        assert pg.locator("h1").first.inner_text().strip() == "Where the time goes"
        assert pg.locator("[data-testid='stException']").count() == 0
        b.close()
