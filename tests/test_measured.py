"""The committed H200 measurements, their schema, and the model set beside them."""

import pandas as pd
import pytest

from flashviz.model import costs
from flashviz.hardware import measured
from flashviz.model.config import Config
from tests.conftest import dry_run


@pytest.fixture(scope="module")
def data():
    return measured.load()


@pytest.mark.parametrize("name, columns", [("attention", measured.ATTENTION_COLUMNS),
                                           ("dram", measured.DRAM_COLUMNS),
                                           ("ceilings", measured.CEILING_COLUMNS),
                                           ("blocks", measured.BLOCK_COLUMNS)])
def test_csv_schema_and_provenance(data, name, columns):
    df = data[name]
    assert list(df.columns) == columns
    for col in (measured.PROVENANCE if name == "blocks" else measured.RUN_PROVENANCE):
        assert df[col].notna().all() and (df[col].astype(str) != "").all(), col
    assert (df["gpu"] == "NVIDIA H200").all()


def test_the_sweep_covers_what_the_issue_asks(data):
    a = data["attention"]
    ok = a[a["status"] == "ok"]
    assert {512, 16384, 32768} <= set(ok["n"]) and set(ok["d"]) == {64, 128}
    assert set(ok["impl"]) == {"plain", "naive_script", "flash", "mem_efficient"}
    assert set(ok["pass"]) == {"fwd", "fwd+bwd"}
    assert (ok["time_ms"] > 0).all()
    # flash has no fp32 kernel in PyTorch: recorded as unsupported, not dropped
    assert (a[(a["impl"] == "flash") & (a["dtype"] == "float32")]["status"].str.startswith("unsupported")).all()


def test_model_bytes_are_the_closed_forms(data):
    table = measured.compare(data)
    row = table[(table["impl"] == "flash") & (table["n"] == 1024) & (table["d"] == 64)
                & (table["dtype"] == "float16") & (table["pass"] == "fwd")].iloc[0]
    cfg = Config(n=1024, d=64, Br=128, Bc=128, dtype="float16", sram_bytes=measured.SMEM_BYTES)
    assert row["model MB"] == costs.flash_cost(cfg).hbm_bytes * row["batch heads"] / 2**20
    plain = table[(table["impl"] == "plain") & (table["n"] == 1024) & (table["d"] == 64)
                  & (table["dtype"] == "float16") & (table["pass"] == "fwd+bwd")].iloc[0]
    cfg = cfg.with_(Br=64, Bc=64)
    expected = (costs.standard_cost(cfg).hbm_bytes + costs.standard_backward_cost(cfg).hbm_bytes)
    assert plain["model MB"] == expected * plain["batch heads"] / 2**20


def test_roofline_time_uses_the_measured_ceilings(data):
    table = measured.compare(data)
    row = table[(table["impl"] == "plain") & (table["dtype"] == "float16")].iloc[0]
    bw = measured.ceiling(data, "copy bandwidth (read + write)") * 1e12
    assert row["roofline ms"] >= row["model MB"] * 2**20 / bw * 1e3 * (1 - 1e-12)


def test_the_models_ranking_holds_on_the_h200(data):
    speed = measured.speedups(measured.compare(data))
    flash = speed[speed["impl"] == "flash"]
    assert (flash["measured speed-up"] > 1).all() and (flash["predicted speed-up"] > 1).all()


def test_plain_attention_is_three_kernels_and_the_naive_script_four(data):
    d = data["dram"]
    kernels = d.groupby("impl")["kernels"].agg(set)
    assert kernels["plain"] == {3} and kernels["naive_script"] == {4}, kernels
    scale = d[d["impl"] == "naive_script"]["kernel_names"].str.contains("elementwise")
    assert scale.all(), "the naive script's fourth kernel is the elementwise scale"


def test_plain_attention_moves_the_models_bytes_and_the_naive_script_half_again(data):
    table = measured.compare(data)
    plain = table[(table["impl"] == "plain")]["DRAM / model"].dropna()
    assert len(plain) == 6 and plain.between(0.98, 1.02).all(), plain
    naive = measured.naive_vs_plain(data)["DRAM: naive ÷ plain"].dropna()
    assert len(naive) == 6 and naive.between(1.4, 1.55).all(), naive  # (6n² + 4nd) / (4n² + 4nd)


def test_dry_run_executes_on_the_cpu(tmp_path):
    dry_run("measure.py", tmp_path)
    a = pd.read_csv(tmp_path / "attention.csv")
    assert list(a.columns) == measured.ATTENTION_COLUMNS
    assert (a[a["impl"].isin(["plain", "naive_script"])]["status"] == "ok").all()
    assert list(pd.read_csv(tmp_path / "ceilings.csv").columns) == measured.CEILING_COLUMNS


def test_block_sweep_model_bytes_are_the_closed_forms(data):
    table = measured.blocks(data)
    row = table[(table["n"] == 1024) & (table["Br"] == 64) & (table["Bc"] == 64)].iloc[0]
    cfg = Config(n=1024, d=64, Br=64, Bc=64, dtype="float16", sram_bytes=measured.SMEM_BYTES)
    assert row["model MB"] == costs.flash_cost(cfg).moved * 1024 * 2 / 2**20
    assert (table["max abs diff"] < 1e-3).all(), "the Triton kernel agrees with PyTorch's attention"


def test_the_shared_view_keeps_its_answers_and_the_lesson_changes_none(data):
    """explorer/cache.py shares one View a setting between reruns and readers, and the View keeps what its methods
    return: lesson 10, run at every head dim, data type and pass, leaves each equal to a View built afresh."""
    from explorer import cache
    from tests.test_app import PAGES, open_page, texts
    from tests.test_cache import same

    page = next(p for p in PAGES if p.endswith("10_real_hardware.py"))
    asked = [("kernel", "flash"), ("kernel", "mem_efficient"), ("wins", "flash"), ("wins", "mem_efficient"),
             ("dram_over_model", "plain"), ("dram_over_model", "flash"), ("flash_bound",), ("best_flash_rate",),
             ("least_flash_ratio_n",), ("flash_share_at_largest_n",)]
    for d in (64, 128):
        for dtype in ("float16", "bfloat16", "float32"):
            for pass_ in ("fwd", "fwd+bwd"):
                at = open_page(page, hw_d=str(d), hw_dtype=dtype, hw_pass=pass_)
                assert not at.exception
                assert f"d = {d}, {dtype}, {pass_}, B·H" in texts(at)  # the lesson ran at this setting
                shared, fresh = cache.measured_view(d, dtype, pass_), measured.view(data, d, dtype, pass_)
                assert shared._memo, "the lesson's run asked the shared view, which kept the answers"
                for name, *args in asked:
                    mine, theirs = getattr(shared, name)(*args), getattr(fresh, name)(*args)
                    assert getattr(shared, name)(*args) is mine  # kept, not computed again
                    if isinstance(mine, (pd.DataFrame, pd.Series)):
                        same(mine, theirs)
                    else:
                        assert mine == theirs, (name, d, dtype, pass_)
                for frame in ("table", "speedups", "dram", "points", "naive", "naive_dram", "flash_points"):
                    same(getattr(shared, frame), getattr(fresh, frame))

