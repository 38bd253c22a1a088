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
    the app's layers (the figures live in explorer/charts/)."""
    import subprocess
    import sys
    modules = sorted(".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                     for f in (ROOT / "flashviz").rglob("*.py"))
    assert "flashviz.model.memory" in modules and "flashviz.teach" in modules, modules
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'plotly'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def lock_pins() -> dict[str, list[str]]:
    """requirements.lock's pins: name -> its versions (one per Python or platform marker)."""
    pins: dict[str, list[str]] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        pin = line.split("#")[0].split(";")[0].strip()
        if pin:
            assert re.fullmatch(r"[A-Za-z0-9._-]+==[A-Za-z0-9.+!-]+", pin), f"not an exact pin: {line!r}"
            name, version = pin.split("==")
            pins.setdefault(package(name), []).append(version)
    return pins


def test_the_lock_pins_every_runtime_requirement_inside_its_bounds():
    from packaging.requirements import Requirement  # a dependency of Streamlit's
    pins = lock_pins()
    for spec in requirement_lines("requirements.txt"):
        req = Requirement(spec)
        assert package(req.name) in pins, f"requirements.lock leaves out {req.name}"
        for version in pins[package(req.name)]:
            assert req.specifier.contains(version), f"the lock's {req.name} {version} is outside {spec}"


def test_the_lock_says_the_one_command_that_refreshes_it():
    head = (ROOT / "requirements.lock").read_text().splitlines()[:2]
    assert head[1].strip("# ").startswith("uv pip compile requirements.txt --universal --python-version 3.11 "
                                          "--exclude-newer "), head
    ci = (ROOT / "docs" / "ci.md").read_text()
    assert "uv pip compile requirements.txt --universal --python-version 3.11 --exclude-newer" in ci


def test_every_served_setup_installs_the_lock():
    assert "-c requirements.lock" in (ROOT / "requirements-dev.txt").read_text(), "the tests run on the served set"
    assert "-r requirements.lock" in (ROOT / "Dockerfile").read_text()
    assert "requirements.lock" in (ROOT / "deploy" / "serve_replicas.py").read_text()
    deploy = (ROOT / "README.md").read_text().split("## Deploy")[1].split("\n## ")[0]
    assert deploy.count("requirements.lock") >= 3, "README's Deploy names the lock for each host"


def test_serve_replicas_names_what_is_not_the_lock(tmp_path):
    import sys
    sys.path.insert(0, str(ROOT))
    from deploy.serve_replicas import unlocked
    from importlib import metadata
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"numpy=={metadata.version('numpy')}\n    # via a comment\n"
                    "pandas==0.0.1\nnot-a-package-here==1.0\nwatchdog==9.9 ; sys_platform == 'no-such-os'\n")
    assert unlocked(lock) == [f"pandas {metadata.version('pandas')} (the lock: 0.0.1)",
                              "not-a-package-here missing (the lock: 1.0)"]


def test_the_public_face_names_what_it_exports_and_its_example_runs():
    """flashviz/__init__.py: every name in __all__ is there, and the docstring's terminal session runs
    as printed (the run's byte count equal to the closed form's)."""
    import doctest

    import flashviz
    assert sorted(flashviz.__all__) == sorted(flashviz.PUBLIC), "__all__ lists PUBLIC's names"
    assert all(getattr(flashviz, name).__module__ == f"flashviz.{where}"
               for name, where in flashviz.PUBLIC.items() if callable(getattr(flashviz, name))), flashviz.PUBLIC
    assert {"Config", "flash_attention", "standard_attention", "flash_cost", "random_qkv"} <= set(flashviz.__all__)
    result = doctest.testmod(flashviz)
    assert result.attempted >= 5 and result.failed == 0, result


def test_importing_the_public_face_loads_no_module_before_its_first_use():
    """`import flashviz` stays as light as a bare interpreter start plus a few ms (bench/bench_engine.py):
    not NumPy, not a layer; `from flashviz import flash_attention` loads flashviz.run.attention."""
    import subprocess
    import sys
    code = ("import sys, flashviz\n"
            "before = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'pandas', 'streamlit', 'plotly'})\n"
            "layers = sorted(m for m in sys.modules if m.startswith('flashviz.'))\n"
            "from flashviz import flash_attention\n"
            "print(before, layers, 'flashviz.run.attention' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] [] True", out.stdout + out.stderr
