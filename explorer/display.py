"""Tables and charts as a page draws them: units in the headers, the seed's precision, a CSV of
every column; a chart's toolbar and its PNG's name."""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit import dataframe_util

from flashviz.teach.format import column_format

from . import live as live_charts
from .cache import frame_key
from .plot import plot
from .widgets import presenting


def _column_config(df, headers: dict, formats: dict) -> dict:
    """Each column's header (short where `headers` says, the units then in the caption) and the
    seed's precision per column (or the page's, from `formats`), unless it would print a nonzero
    value as 0.00: then three significant figures, so a tiny figure never reads as nothing."""
    out = {}
    # each column's values read as NumPy's: pandas' own operations, four a column, cost a table several ms a rerun
    for col, dtype in df.dtypes.items():
        label = headers.get(col, col)
        if dtype.kind == "f":
            spec = formats.get(col) or column_format(col)  # by the full name: the precision follows the unit
            decimals = int(spec[1:-1]) if spec.endswith("f") else None
            if decimals is not None:
                values = np.abs(df[col].to_numpy(dtype=float, na_value=np.nan))
                if ((values > 0) & (values < 0.5 * 10 ** -decimals)).any():
                    spec = ".3g"
            # a share: the grid's own percent (its printf has no "%.1%", and drew such a column unformatted)
            out[col] = st.column_config.NumberColumn(label, format="percent" if spec.endswith("%") else "%" + spec)
        elif label != col:
            out[col] = st.column_config.Column(label)
    return out


# The tables' grids as Streamlit sends them, kept by their frames' contents: a rerun's frame is a new copy of the same
# values (Streamlit's data cache unpickles one each call), and converting it to Arrow and reading its columns' formats
# cost a table about 1.5 ms a rerun on a slow host, every rerun, for the same bytes. The Arrow table is made by
# Streamlit's own conversion, so what the page sends is what st.dataframe would send for the frame.
_GRIDS: OrderedDict[tuple, tuple] = OrderedDict()
_GRIDS_LOCK = threading.Lock()
MOST_GRIDS = 256


def _prepared(df, headers: dict, formats: dict, rows: int | None, texts: dict | None = None,
              largest: str | None = None) -> tuple:
    """(the grid's data, each column's config) for `table`: the first `rows` of the frame, or all; with `largest`,
    the `rows` rows with the largest values in that column, in the frame's order; the columns of `texts` as its
    functions write their values."""
    texts = texts or {}
    if not isinstance(df, pd.DataFrame):
        return (df if rows is None else df.head(rows)), _column_config(df, headers, formats)
    key = (frame_key(df), tuple(headers.items()), tuple(formats.items()), rows, largest,
           tuple((col, f"{f.__module__}.{f.__qualname__}") for col, f in texts.items()))
    with _GRIDS_LOCK:
        hit = _GRIDS.get(key)
        if hit is not None:
            _GRIDS.move_to_end(key)
            return hit
    if rows is None:
        shown = df
    elif largest is None:
        shown = df.head(rows)
    else:  # ties in the frame's order
        shown = df.iloc[np.sort(np.argsort(-df[largest].to_numpy(dtype=float), kind="stable")[:rows])]
    # a yes/no column as words: the grid draws a bool as a pale checkbox, ticked or not, that the back row cannot tell
    # apart (a teacher's walk: lesson 4's "fits SRAM", the message of its table)
    said = {col: yes_no for col, dtype in shown.dtypes.items() if dtype.kind == "b"} | texts
    if said:
        shown = shown.assign(**{col: [write(v) for v in shown[col]] for col, write in said.items()})
    made = (dataframe_util.convert_pandas_df_to_arrow_table(shown), _column_config(shown, headers, formats))
    with _GRIDS_LOCK:
        _GRIDS[key] = made
        while len(_GRIDS) > MOST_GRIDS:
            _GRIDS.popitem(last=False)
    return made


def yes_no(value) -> str:
    """A bool as a table shows it."""
    return "✓ yes" if value else "✗ no"


# The rows a table shows on a projector: with its header they fit under the top bar of a 1280x720 screen beside
# a caption and a line of text.
PROJECTOR_ROWS = 12


def table(df, key: str, caption: str | None = None, show=None, headers: dict | None = None,
          formats: dict | None = None, texts: dict[str, Callable] | None = None, largest: str | None = None) -> None:
    """A table with units in its headers (or, where `headers` shortens them, in its caption) and a CSV
    download of every column. `show`: the columns the page shows, key columns first (a phone sees
    those and scrolls to the rest), so that the table fits 1280 px beside the sidebar; the CSV keeps
    the others. (A pinned column would stay in sight on a phone, but the grid draws it faded.)
    `formats`: a format spec for a column whose default precision is noise (".0f" for thousands of MB). `texts`: a
    function that writes a column's values as text, for a column a format spec cannot print (values over many
    decades: format.value_text); the CSV keeps the numbers. `largest`: the column whose largest values pick the rows a
    projector shows, where the first rows would be the wrong ones (lesson 2's weights: its first 12 near zero, the
    largest past them)."""
    if caption:
        st.caption(caption)
    # on a projector every row drawn is seen, none behind a scroll inside the table: cut to fit
    rows = PROJECTOR_ROWS if presenting() else None
    grid, config = _prepared(df, headers or {}, formats or {}, rows, texts, largest)
    if rows is not None and rows < len(df):
        which = (f"first {rows} of its {len(df)} rows" if largest is None else
                 f"{rows} of its {len(df)} rows with the largest {largest}, in their order,")
        st.caption(f"The {which} on a projector; the CSV has them all.")
    st.dataframe(grid, hide_index=True, column_order=show, column_config=config, key=f"{key}_table",
                 height="content" if rows is not None else "auto")
    # The CSV is written when the button is clicked, not on every rerun of every table. The click
    # reruns nothing (on_click="ignore"): in Streamlit 1.67 a rerun that starts while the file is being
    # written clears the session's outgoing queue, the file's reply with it, and the button then waits
    # 180 s (AppSession._clear_queue keeps only lifecycle messages; README, "Test it").
    st.download_button("Download CSV" if show is None else "Download CSV (all columns)",
                       lambda: df.to_csv(index=False).encode(), file_name=f"{key}.csv",
                       mime="text/csv", key=f"{key}_csv", on_click="ignore")


def chart(fig: go.Figure | Callable[[], go.Figure], key: str, follows: Sequence[str] = (),
          player: str | None = None) -> None:
    """A chart: a figure, or `make`, a function that builds it from the settings (ui.config(),
    ui.hardware(), ui.peek()). With `follows` (URL keys of sliders), the chart follows those
    sliders while they are dragged (explorer/live.py builds it at each of their values); `player`,
    one of them, is stepped by the keys as a player is (→ ←, Home, End, space plays it)."""
    if callable(fig):
        make, fig = fig, fig()
        if follows:
            live_charts.follow(key, make, follows, player)
    config = {"displaylogo": False, "displayModeBar": "hover" if not presenting() else False,
              "toImageButtonOptions": {"format": "png", "filename": key, "scale": 2}}
    plot(fig, key, config)


def side_by_side(*charts_and_keys: tuple, widths=None) -> None:
    """Charts in columns: side_by_side((fig, "key"), (make, "key", ("n", "d"))), each as chart() takes it."""
    for col, args in zip(st.columns(widths or len(charts_and_keys)), charts_and_keys):
        with col:
            chart(*args)
