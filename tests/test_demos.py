"""With their defaults, the demos print the seed's deterministic figures digit for digit
(demos.py's docstring lists which figures are random and differ)."""
import numpy as np
import pytest

from flashviz.teach.demos import DEMOS, demo1, demo2, demo3, demo4, demo5, demo6, demo7, demo8, demo9
from flashviz.teach.format import column_format


def printed(df, column):
    """A column as the CLI prints it, at the seed's precision."""
    spec = column_format(column)
    return [format(float(v), spec) for v in df[column]]


def test_demo1_where_the_time_goes():
    df = demo1().tables["standard"]
    assert printed(df, "HBM MB") == ["0.38", "4.50", "66.00", "1032.00"]
    assert printed(df, "GFLOPs") == ["0.004", "0.067", "1.074", "17.180"]
    assert printed(df, "bytes/flop") == ["0.094", "0.070", "0.064", "0.063"]
    assert printed(df, "n^2 share %") == ["66.7", "88.9", "97.0", "99.2"]


def test_demo2_online_softmax_matches_the_seed_row():
    demo = demo2()
    summary = demo.tables["against ordinary softmax"].set_index("method")
    assert summary.loc["online softmax", "max abs diff"] == 0.0
    assert f"{summary.loc['online, NO rescale', 'max abs diff']:.2e}" == "6.53e-01"
    assert f"{summary.loc['online, NO rescale', 'sum of weights']:.6f}" == "0.190131"
    w = demo.tables["weights"]
    assert printed(w, "softmax")[:6] == ["0.003957", "0.016505", "0.003782", "0.000028",
                                         "0.021219", "0.005355"]
    assert printed(w, "no rescale")[:6] == ["0.000752", "0.003138", "0.000719", "0.000005",
                                            "0.004034", "0.001018"]


def test_demo3_tiling():
    df = demo3().tables["tiling"]
    assert printed(df, "std peak KB") == ["64.0", "256.0", "1024.0", "4096.0", "16384.0"]
    assert printed(df, "flash peak KB") == ["64.5"] * 5
    assert printed(df, "std HBM MB") == ["0.38", "1.25", "4.50", "17.00", "66.00"]
    assert printed(df, "flash HBM MB") == ["0.19", "0.62", "2.25", "8.50", "33.00"]
    assert (df["max abs diff"] < 1e-14).all()  # float noise, as in the seed


def test_demo4_block_size_against_sram():
    demo = demo4()
    df = demo.tables["block size"]
    assert printed(df, "HBM MB") == ["32.50", "16.50", "8.50", "4.50", "2.50", "1.50", "1.00"]
    assert printed(df, "tile working set KB") == ["13.1", "28.2", "64.5", "161.0", "450.0",
                                                  "1412.0", "4872.0"]
    assert df["fits SRAM"].tolist() == [True, True, True, False, False, False, False]
    assert "standard attention traffic: 17.00 MB" in demo.notes
    assert "best block that fits: 64" in demo.notes


def test_demo4_spilled_tiles_lose_the_saving():
    df = demo4().tables["block size"]
    spilled = df[~df["fits SRAM"]]
    assert (spilled["HBM MB with spill"] > 17.0).all()
    assert (df[df["fits SRAM"]]["spill MB"] == 0).all()


def test_demo5_backward_stored_memory():
    df = demo5().tables["memory and flops"]
    assert printed(df, "std stored MB") == ["1.38", "17.50", "262.00"]
    assert printed(df, "flash stored MB") == ["0.38", "1.52", "6.06"]
    assert printed(df, "seed's extra %") == ["20.0"] * 3
    assert printed(df, "extra flops %") == ["16.7"] * 3  # 14 n^2 d over 12 n^2 d, as counted


def test_demo6_exact_against_approximate():
    df = demo6().tables["against standard attention"].set_index("allclose")
    assert df.loc[True, "max abs diff"] < 1e-14
    assert df.loc[False, "max abs diff"] > 1e-2  # many orders above float noise


def test_demo7_identical_flops():
    df = demo7().tables["flops and traffic"]
    assert printed(df, "std GFLOPs") == printed(df, "flash GFLOPs") == [
        "0.067", "0.268", "1.074", "4.295"]
    assert printed(df, "std HBM MB") == ["4.50", "17.00", "66.00", "260.00"]
    assert printed(df, "flash HBM MB") == ["2.25", "8.50", "33.00", "130.00"]
    assert printed(df, "traffic cut") == ["2.0"] * 4


def test_demo8_keep_full_score_matrix():
    df = demo8().tables["keep_full_S"]
    assert printed(df, "peak extra KB") == ["64.5", "4096.0"]


def test_demo9_overflow_without_max():
    df = demo9().tables["weights"]
    assert np.isnan(df["without max"]).all() and len(df) == 4
    assert df["with max"].sum() == pytest.approx(1.0)


def test_demo9_shows_exp_overflowing_to_inf():
    df = demo9().tables["weights"]
    assert np.isposinf(df["exp(score)"]).all(), df["exp(score)"].tolist()


def test_demo6_allclose_verdicts_are_the_seed():
    df = demo6().tables["against standard attention"]
    assert df["allclose"].tolist() == [True, False]


def test_demos_take_parameters():
    df = demo1(ns=(1024,), d=128, dtype="float16").tables["standard"]
    assert df["HBM MB"].iloc[0] == (4 * 1024 * 128 + 4 * 1024**2) * 2 / 2**20


def test_nine_demos_numbered_as_the_seed():
    assert sorted(DEMOS) == list(range(1, 10))
    assert [DEMOS[k].__name__ for k in DEMOS] == [f"demo{k}" for k in range(1, 10)]
