"""`python -m flashviz` as a learner at a terminal uses it."""
import json
import subprocess
import sys

import pytest

from flashviz.__main__ import main
from tests.conftest import ROOT


def cli(*args):
    return subprocess.run([sys.executable, "-m", "flashviz", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_all_nine_demos_print_with_the_seed_figures():
    out = cli()
    assert out.returncode == 0
    for k in range(1, 10):
        assert f"== demo {k}:" in out.stdout
    for figure in ("1032.00", "0.190131", "1412.0", "262.00", "4096.0", "[nan nan nan nan]"):
        assert figure in out.stdout


def test_one_demo_as_json(capsys):
    assert main(["demo", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["number"] == 4
    assert [row["block"] for row in data["tables"]["block size"]] == [16, 32, 64, 128, 256, 512, 1024]


def test_nan_survives_json(capsys):
    assert main(["--json", "demo", "9"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {row["without max"] for row in data["tables"]["weights"]} == {"nan"}


def test_cost_json_gives_standard_and_flash(capsys):
    assert main(["cost", "--n", "1024", "--d", "64", "--br", "64", "--bc", "64",
                 "--dtype", "float32", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["standard"]["hbm_bytes"] == 17 * 2**20
    assert data["flash"]["hbm_bytes"] == int(8.5 * 2**20)
    assert data["flash"]["peak_sram_bytes"] == 66048 and data["flash"]["fits_sram"] is True
    assert data["standard"]["flops"] == data["flash"]["flops"]


def test_cost_causal_fa1_and_budget(capsys):
    assert main(["cost", "--n", "4096", "--br", "512", "--bc", "512", "--causal",
                 "--loop-order", "fa1", "--sram-kb", "96", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["flash"]["fits_sram"] is False and data["flash"]["spill_bytes"] > 0


@pytest.mark.parametrize("args", [
    ["cost", "--n", "100", "--br", "200"],
    ["cost", "--n", "abc"],
    ["cost", "--n", "-5"],
    ["cost", "--n", "64", "--dtype", "int4"],
    ["cost", "--n", "64", "--sram-kb", "nan"],
    ["demo", "12"],
    ["frobnicate"],
])
def test_bad_arguments_one_line_exit_2(args):
    out = cli(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
