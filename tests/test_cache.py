"""explorer/cache.py: a figure is built once per distinct input, and again when any input changes."""
import pandas as pd

from explorer import cache

BUILT: list = []


def _count(frame, label="t"):
    BUILT.append(label)
    return len(BUILT)


def test_equal_frames_share_a_figure_and_any_change_rebuilds_it():
    frame = pd.DataFrame({"n": [1024, 2048], "HBM MB": [0.5, 1.0], "kernel": ["flash", "plain"]})
    first = cache.figure(_count, frame)
    assert cache.figure(_count, frame.copy()) == first, "an equal frame rebuilt the figure"
    changed = [frame.assign(**{"HBM MB": [0.5, 1.0000001]}), frame.rename(columns={"HBM MB": "HBM GB"}),
               frame.astype({"n": float}), frame.iloc[::-1], frame.assign(kernel=["flash", "mem"])]
    keys = {cache.figure(_count, f) for f in changed}
    assert len(keys) == len(changed) and first not in keys, "a changed frame reused a figure"
    assert cache.figure(_count, frame, label="u") not in keys | {first}, "another argument reused a figure"


def _chart(frame, title="t"):
    import plotly.graph_objects as go
    return go.Figure(go.Scatter(x=frame["n"], y=frame["HBM MB"]), layout={"title": title})


def test_a_shared_figures_json_is_written_once_and_is_the_figures_own():
    import plotly.graph_objects as go
    import plotly.io

    from explorer.plot import spec
    fig = cache.figure(_chart, pd.DataFrame({"n": [1024, 2048], "HBM MB": [0.5, 1.0]}))
    first = spec(fig)
    assert first == plotly.io.to_json(fig, validate=False)
    assert spec(fig) is first, "a shared figure's JSON was written again"
    own = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))  # not shared: a page may change it, so it is encoded each time
    assert spec(own) == plotly.io.to_json(own, validate=False)
    own.update_layout(title="changed")
    assert "changed" in spec(own)


def test_a_tables_grid_sends_the_bytes_st_dataframe_sends_for_its_frame():
    from streamlit import dataframe_util

    from explorer.display import PROJECTOR_ROWS, _prepared, yes_no
    frames = [pd.DataFrame({"n": [1024, 2048], "HBM MB": [0.5, 1e-5], "kernel": ["flash", "plain"]}),
              pd.DataFrame({"x": range(30), "y": [k / 7 for k in range(30)]}).set_index("x"),
              pd.DataFrame({"a": [1.5, None], "ok": [True, False]})]
    for frame in frames:
        for rows in (None, PROJECTOR_ROWS):
            shown = frame if rows is None else frame.head(rows)
            # a yes/no column goes as words (the grid's pale checkboxes could not be read from the back row)
            shown = shown.assign(**{c: shown[c].map(yes_no) for c, t in shown.dtypes.items() if t.kind == "b"})
            grid, _ = _prepared(frame.copy(), {}, {}, rows)
            assert (dataframe_util.convert_arrow_table_to_arrow_bytes(grid)
                    == dataframe_util.convert_pandas_df_to_arrow_bytes(shown))
    # the tiny value keeps three significant figures, and a changed frame gets a grid of its own
    _, config = _prepared(frames[0], {}, {}, None)
    assert config["HBM MB"]["type_config"]["format"] == "%.3g"
    changed, _ = _prepared(frames[0].assign(n=[1024, 4096]), {}, {}, None)
    assert changed.column("n").to_pylist() == [1024, 4096]
    assert _prepared(frames[2], {}, {}, None)[0].column("ok").to_pylist() == ["✓ yes", "✗ no"]
    # a projector's rows picked by a column's largest values, kept in the frame's order, ties to the first
    picked, _ = _prepared(pd.DataFrame({"at": range(6), "w": [0.1, 0.5, 0.2, 0.5, 0.9, 0.0]}), {}, {}, 3, largest="w")
    assert picked.column("at").to_pylist() == [1, 3, 4]


def same(a, b) -> None:
    """a equals b: frames and series by pandas' own check, tuples item by item."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b)
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            same(x, y)
    else:
        assert a == b


def test_the_measured_rows_lessons_11_and_13_share_stay_as_computed():
    """explorer/whole_gpu.py and schedule_view.py keep the H200's rows once a process (or a setting) and share them
    read-only: lessons 11 and 13, run at two settings each, leave every kept answer equal to one computed afresh."""
    from explorer import schedule_view as sv
    from explorer import whole_gpu as wg
    from tests.test_app import PAGES, open_page

    page11 = next(p for p in PAGES if p.endswith("11_whole_gpu.py"))
    page13 = next(p for p in PAGES if p.endswith("13_schedule.py"))
    for params in ({}, {"wg_d": "128", "wg_bh": "64", "wg_kernel": "Triton 64×64"}):
        assert not open_page(page11, **params).exception
    for params in ({}, {"sc_dtype": "bfloat16", "sc_causal": "true"}):
        assert not open_page(page13, **params).exception
    kept = [(wg.measured_at, ("flash", 64, 16)), (wg.measured_at, ("triton_64x64", 128, 64)),
            (wg.measured_bh, ("flash", 64)), (wg.plain_over_flash, ()), (wg.triton_128_slower, ()), (wg.time_bias, ()),
            (sv.every_call, ())]
    for s in (sv.setting(lambda p: p.default), sv.sl.Setting(8192, 128, 64, "bfloat16", True)):
        kept += [(sv.speedup_at, (s,)), (sv.calls_in, (s.dtype, s.causal))]
    for func, args in kept:
        assert func.cache_info().currsize, f"{func.__name__}: the lessons' runs kept it"
        same(func(*args), func.__wrapped__(*args))
