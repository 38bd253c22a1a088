"""The package and the plain requirement files say the same thing: hosts that read only
requirements.txt (Community Cloud) get what `pip install .` gets, and the test install
stays light."""
import re
import tomllib

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirement_lines(name: str) -> list[str]:
    """The requirement specifiers of a requirements file, without comments and -r includes."""
    lines = (line.split("#")[0].strip() for line in (ROOT / name).read_text().splitlines())
    return sorted(line for line in lines if line and not line.startswith("-"))


def package(spec: str) -> str:
    """The normalised project name of a specifier ("Pytest-Timeout>=2.3" -> "pytest-timeout")."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", spec).group()).lower()


def test_requirements_txt_and_pyproject_list_the_same_runtime_packages():
    plain, packaged = requirement_lines("requirements.txt"), sorted(PYPROJECT["project"]["dependencies"])
    assert [package(s) for s in plain] == [package(s) for s in packaged], (plain, packaged)
    assert plain == packaged, "the same lower bounds in both"


def test_the_dev_extra_is_requirements_dev_txt():
    dev = sorted(PYPROJECT["project"]["optional-dependencies"]["dev"])
    assert requirement_lines("requirements-dev.txt") == dev


def test_the_test_install_has_no_pytorch():
    for name in ("requirements.txt", "requirements-dev.txt"):
        assert "torch" not in {package(s) for s in requirement_lines(name)}, f"{name} would pull PyTorch"


def test_the_console_script_is_the_cli():
    assert PYPROJECT["project"]["scripts"] == {"flashviz": "flashviz.__main__:main"}


def test_tool_settings_live_in_pyproject_alone():
    for old in ("pytest.ini", "ruff.toml", ".ruff.toml", "setup.cfg", ".coveragerc", "mypy.ini", "tox.ini"):
        assert not (ROOT / old).exists(), f"{old} would override or split pyproject.toml's settings"
    assert PYPROJECT["tool"]["pytest"]["ini_options"]["timeout"] == 300


def test_the_engine_imports_neither_streamlit_nor_plotly():
    """flashviz is the NumPy and pandas core: importing every one of its modules must not pull in
    the app's layers (the figures live in explorer/charts.py)."""
    import subprocess
    import sys
    modules = sorted("flashviz." + f.stem for f in (ROOT / "flashviz").glob("*.py") if f.stem != "__init__")
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'plotly'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
