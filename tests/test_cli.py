"""`python -m flashviz` as a learner at a terminal uses it."""
import json
import subprocess
import sys

import pytest

from flashviz.__main__ import cost_summary, main
from flashviz.model.config import SEED, Config
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


def test_overflow_prints_inf_in_json(capsys):
    assert main(["--json", "demo", "9"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {row["exp(score)"] for row in data["tables"]["weights"]} == {"inf"}


def test_overflow_prints_inf_and_nan_as_text(capsys):
    assert main(["demo", "9"]) == 0
    rows = capsys.readouterr().out.split("[weights]")[1].strip().splitlines()[1:]
    assert [row.split()[1::2] for row in rows] == [["inf", "nan"]] * 4, rows


def cost_json(capsys, *args):
    assert main(["cost", "--n", "1024", "--d", "64", "--br", "64", "--bc", "64",
                 "--dtype", "float32", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cost_json_gives_the_seed_traffic(capsys):
    data = cost_json(capsys)
    assert (data["standard"]["hbm_bytes"], data["flash"]["hbm_bytes"]) == (17 * 2**20, int(8.5 * 2**20))


def test_cost_json_gives_equal_flops(capsys):
    data = cost_json(capsys)
    assert data["standard"]["flops"] == data["flash"]["flops"] == 4 * 1024**2 * 64


def test_standard_peak_is_the_score_matrix_in_hbm(capsys):
    standard = cost_json(capsys)["standard"]
    assert (standard["peak_extra_bytes"], standard["peak_extra_where"]) == (1024**2 * 4, "HBM")


def test_flash_peak_is_the_working_set_in_sram(capsys):
    flash = cost_json(capsys)["flash"]
    assert (flash["peak_extra_bytes"], flash["peak_extra_where"]) == (66048, "SRAM")
    assert flash["sram_working_set_bytes"] == 66048 and flash["fits_sram"] is True


def test_no_field_calls_an_hbm_buffer_sram(capsys):
    data = cost_json(capsys)
    assert not any("sram" in key for key in data["standard"]), sorted(data["standard"])


def test_flash_peak_kept_in_full_moves_to_hbm():
    flash = cost_summary(SEED.with_(keep_full_S=True))["flash"]
    assert (flash["peak_extra_bytes"], flash["peak_extra_where"]) == (1024**2 * 4, "HBM")


def test_cost_text_says_where_each_peak_lives():
    out = cli("cost", "--n", "1024")
    assert out.returncode == 0
    standard, flash = out.stdout.splitlines()
    assert "peak_extra_bytes=4194304 in HBM" in standard
    assert "peak_extra_bytes=66048 in SRAM" in flash


def test_cost_causal_fa1_and_budget(capsys):
    assert main(["cost", "--n", "4096", "--br", "512", "--bc", "512", "--causal",
                 "--loop-order", "fa1", "--sram-kb", "96", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["flash"]["fits_sram"] is False and data["flash"]["spill_bytes"] > 0


def test_cost_window_and_docs_give_the_masked_closed_form(capsys):
    from flashviz.model import costs
    assert main(["cost", "--n", "4096", "--br", "128", "--bc", "64", "--window", "127,0",
                 "--docs", "1024,1024,2048", "--sink", "0.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    cfg = Config(n=4096, Br=128, Bc=64, window_left=127, window_right=0, docs=(1024, 1024, 2048), sink=0.5)
    assert data["flash"]["hbm_bytes"] == costs.flash_cost(cfg).hbm_bytes
    assert data["flash"]["flops"] == costs.flash_cost(cfg).flops
    mask = data["mask"]
    assert (mask["window_left"], mask["window_right"], mask["docs"]) == (127, 0, [1024, 1024, 2048])
    assert mask["tiles_computed"] == costs.census(4096, 128, 64, cfg.mask).tiles < mask["tiles"] == 32 * 64


def test_cost_window_minus_one_zero_is_causal(capsys):
    main(["cost", "--n", "1000", "--br", "48", "--bc", "80", "--window=-1,0", "--json"])
    assert json.loads(capsys.readouterr().out)["mask"]["tiles_computed"] < 21 * 13
    main(["cost", "--n", "1000", "--br", "48", "--bc", "80", "--window", ",0", "--json"])
    window = json.loads(capsys.readouterr().out)
    main(["cost", "--n", "1000", "--br", "48", "--bc", "80", "--causal", "--json"])
    assert json.loads(capsys.readouterr().out) == window


@pytest.mark.parametrize("args", [
    ["cost", "--n", "100", "--br", "200"],
    ["cost", "--n", "abc"],
    ["cost", "--n", "-5"],
    ["cost", "--n", "64", "--dtype", "int4"],
    ["cost", "--n", "64", "--sram-kb", "nan"],
    ["cost", "--n", "64", "--window", "5"],
    ["cost", "--n", "64", "--window", "-3,0"],
    ["cost", "--n", "64", "--docs", "32,16"],
    ["cost", "--n", "64", "--docs", "32,x"],
    ["cost", "--n", "64", "--sink", "inf"],
    ["demo", "12"],
    ["frobnicate"],
])
def test_bad_arguments_one_line_exit_2(args):
    out = cli(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr


def test_precision_prints_the_papers_table_with_its_figures():
    out = cli("precision", "--n", "256", "--d", "64", "--seed", "1")
    assert out.returncode == 0, out.stderr
    for text in ("n = 256, d = 64, seed 1", "Baseline FP16", "FlashAttention-3 FP8", "No incoherent processing",
                 "3.2e-04", "9.1e-03", "baseline FP8 / FlashAttention-3 FP8 =", "(the paper: 2.6x)"):
        assert text in out.stdout, text


def test_precision_json_gives_every_method_with_the_papers_rmse(capsys):
    from flashviz.run import precision
    assert main(["precision", "--n", "128", "--d", "32", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["n"], data["d"], data["seed"]) == (128, 32, 0)
    assert [r["key"] for r in data["rows"]] == [m.key for m in precision.METHODS]
    paper = {r["key"]: r["paper_rmse"] for r in data["rows"]}
    assert paper["fp8_fa3"] == 9.1e-3 and paper["standard_bf16"] is None
    found = precision.errors(128, 32, 0)
    assert all(r["rmse"] == found[r["key"]].rmse for r in data["rows"])
    assert data["headline_ratio"] == precision.headline(found) and data["paper_headline_ratio"] == 2.6


@pytest.mark.parametrize("args, message", [
    (["--d", "96"], "--d must be a power of two"),
    (["--n", "0"], "--n must be between 1 and 8192"),
    (["--n", "100000"], "--n must be between 1 and 8192"),
])
def test_precision_refuses_what_it_cannot_run(args, message):
    out = cli("precision", *args)
    assert out.returncode == 2 and message in out.stderr and not out.stdout


def test_rescale_prints_counts_exactness_and_headroom():
    out = cli("rescale", "--threshold", "8", "--n", "512", "--spread", "4")
    assert out.returncode == 0, out.stderr
    from flashviz.__main__ import rescale_summary
    r = rescale_summary(8.0, 512, 64, 64, 64, 0, 4.0)
    for text in ("tau = 8 log2 units", f"{r['rescales_done']} done, {r['rescales_skipped']} skipped, of "
                 f"{r['rescales_at_threshold_0']} new maxima", "per row, done: min", "max abs error",
                 "float16 2^15.9993 (+8.00 to spare)"):
        assert text in out.stdout, text


def test_rescale_json_counts_add_up_to_tau_zeros_and_it_stays_exact(capsys):
    assert main(["rescale", "--threshold", "8", "--n", "256", "--spread", "4", "--json"]) == 0
    lag = json.loads(capsys.readouterr().out)
    assert main(["rescale", "--threshold", "0", "--n", "256", "--spread", "4", "--json"]) == 0
    zero = json.loads(capsys.readouterr().out)
    assert lag["rescales_done"] + lag["rescales_skipped"] == zero["rescales_done"], (lag, zero)
    assert zero["rescales_skipped"] == 0 and lag["rescales_skipped"] > 0, (lag, zero)
    assert max(lag["max_abs_error"], zero["max_abs_error"]) < 1e-12, (lag["max_abs_error"], zero["max_abs_error"])


def test_rescale_json_flags_fp16_overflow_past_its_limit(capsys):
    assert main(["rescale", "--threshold", "16", "--n", "64", "--json"]) == 0
    storage = json.loads(capsys.readouterr().out)["storage"]
    assert not storage["float16"]["fits"] and storage["bfloat16"]["fits"], storage


@pytest.mark.parametrize("args, message", [
    (["--threshold", "-1"], "tau must be a finite number"),
    (["--threshold", "nan"], "tau must be a finite number"),
    (["--n", "0"], "--n must be between 1 and 32768"),
    (["--spread", "0"], "--spread must be a positive number"),
])
def test_rescale_refuses_what_it_cannot_run(args, message):
    out = cli("rescale", *args)
    assert out.returncode == 2 and message in out.stderr and not out.stdout, out.stderr
