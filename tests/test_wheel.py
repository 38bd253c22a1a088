"""The wheel ships the whole engine: every layer folder, every module, the measured data it reads at
run time. Built from a copy of what the build reads (pyproject.toml, README.md, flashviz/), with the
setuptools already installed (--no-build-isolation: no network), installed into a folder of its own
and imported from there by a fresh interpreter whose working directory is away from the checkout."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_layers import engine_modules

MODULES = sorted(engine_modules())
DATA = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "flashviz" / "data").rglob("*.csv"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the folder it was installed into)."""
    try:
        import setuptools  # noqa: F401  (the build backend pyproject.toml names)
    except ImportError:
        pytest.fail("building the wheel needs setuptools in this environment: pip install 'setuptools>=68'")
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "flashviz", src / "flashviz", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(work / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((work / "dist").glob("flashviz-*.whl"))
    site = work / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                           "--target", str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return wheel, site


def run_installed(site: Path, code: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter that finds flashviz only in `site` (-P: not the working directory,
    which is site's parent, not the checkout). The rest of the environment is the tests': the checkout's
    `python -m flashviz`, which the installed one is compared with, runs in it, and a variable such as
    OPENBLAS_CORETYPE (set on this project's machines) picks the BLAS kernel and so the last bits of every
    float error the demos print."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-P", "-c", code], cwd=site.parent, env=env, capture_output=True,
                          text=True, timeout=300)


def json_from_installed(site: Path, code: str):
    """What `code` printed as JSON, run against the installed wheel; its stderr if it failed."""
    out = run_installed(site, code)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_wheel_holds_every_module_and_the_measured_data(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    files = {p.relative_to(ROOT).as_posix() for p in (ROOT / "flashviz").rglob("*.py")}
    assert not files - names, f"left out of the wheel: {sorted(files - names)}"
    assert DATA and not set(DATA) - names, f"measured data left out: {sorted(set(DATA) - names)}"


def test_every_subpackage_imports_from_the_installed_wheel(installed):
    _, site = installed
    code = ("import importlib, json, sys\n"
            f"mods = {MODULES!r}\n"
            "where = {m: importlib.import_module(m).__file__ for m in mods}\n"
            "print(json.dumps({'where': where, 'app': sorted({m.split('.')[0] for m in sys.modules}\n"
            "                  & {'streamlit', 'plotly', 'explorer'})}))")
    got = json_from_installed(site, code)
    outside = {m: f for m, f in got["where"].items() if not f.startswith(str(site))}
    assert not outside, f"imported from elsewhere than the wheel: {outside}"
    assert got["app"] == [], got["app"]


def test_the_installed_engine_reads_its_measured_data(installed):
    """Every reader of flashviz/data/ finds it in the installed package, not in the checkout."""
    _, site = installed
    code = ("import json\n"
            "from flashviz.hardware import gpu_targets, measured, schedule_targets\n"
            "from flashviz.run import precision\n"
            "data = measured.load()\n"
            "df, rates = gpu_targets.load()\n"
            "sched, unit = schedule_targets.load()\n"
            "print(json.dumps({'paths': [str(measured.DATA), str(gpu_targets.DATA), str(schedule_targets.DATA),\n"
            "                            str(precision.MEASURED)],\n"
            "                  'rows': [len(data['attention']), len(df), len(sched),\n"
            "                           len(precision.load_measured())]}))")
    got = json_from_installed(site, code)
    assert all(p.startswith(str(site / "flashviz" / "data")) for p in got["paths"]), got["paths"]
    assert all(rows > 0 for rows in got["rows"]), got["rows"]


def test_the_installed_cli_prints_what_the_checkout_prints(installed):
    """`python -m flashviz` from the wheel: the seed's nine demos, the same text as from the checkout."""
    _, site = installed
    here = subprocess.run([sys.executable, "-m", "flashviz"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    there = run_installed(site, "import sys; from flashviz.__main__ import main; sys.exit(main([]))")
    assert there.returncode == 0, there.stderr
    assert there.stdout == here.stdout and "== demo 9:" in there.stdout
