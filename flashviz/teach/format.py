"""How figures are printed: the seed's precision for each kind of column."""
from __future__ import annotations


def column_format(name: str) -> str:
    """A format spec for a column, chosen by its name."""
    if "diff" in name or name.startswith("error"):
        return ".2e"
    if "GFLOPs" in name or name in ("bytes/flop", "bytes per flop"):
        return ".3f"
    if name.endswith("KB") or "%" in name:
        return ".1f"
    if name.endswith("cut"):
        return ".1f"
    if name.startswith("sum") or name in ("softmax", "online", "no rescale", "with max", "without max"):
        return ".6f"
    return ".2f"


def _cell(value, spec: str) -> str:
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    return format(value, spec)


def format_table(df) -> str:
    """A DataFrame as right-aligned text, each float column at its precision."""
    cols = list(df.columns)
    cells = [[_cell(v.item() if hasattr(v, "item") else v, column_format(c)) for c, v in
              zip(cols, row)] for row in df.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[k]) for r in cells]) for k, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


_BINARY = ("B", "KB", "MB", "GB", "TB", "PB")


def bytes_text(n_bytes: float) -> str:
    """A byte count in binary units at three significant figures: 18.0 KB, 4.25 MB, 16.0 TB.
    Never longer than about eight characters, so a metric never ends in an ellipsis."""
    value, unit = float(n_bytes), 0
    while abs(value) >= 1000 and unit < len(_BINARY) - 1:
        value /= 1024
        unit += 1
    if unit == 0 or value >= 1000:
        return f"{value:,.0f} {_BINARY[unit]}"
    return f"{value:.3g} {_BINARY[unit]}"


_DECIMAL = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def count_text(x: float, unit: str = "") -> str:
    """A count with a decimal prefix at three significant figures: 268 M, 1.07 Gflop."""
    for size, prefix in _DECIMAL:
        if abs(x) >= size:
            return f"{x / size:.3g} {prefix}{unit}"
    return f"{x:.3g} {unit}".rstrip()


def figure_text(x: float) -> str:
    """A figure at three significant figures, or from 1,000 up the whole number, thousands separated: no exponent
    from 1 up, where a reader takes one for code, not a time (lesson 1 at a large n once said "2.51e+04 µs"). Below
    1e-4, as .3g writes it (no time on a page is that small)."""
    short = f"{x:.3g}"
    return f"{x:,.0f}" if "e" in short and abs(x) >= 1 else short  # 999.6 rounds to "1e+03" at .3g


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def value_text(x: float) -> str:
    """A value that may span many decades, as a table cell a back row reads: the whole number with thousands
    separated where it is one (65,504, not 65500) or from 1,000 up, four significant figures below (six where four
    would round a fraction to a whole number), and below 0.001 or from a million up three figures and a power of
    ten (3.40 × 10³⁸, not 3.4028234663852886e+38). None or NaN: "—" (the type cannot hold it)."""
    if x is None or x != x:
        return "—"
    if x != 0 and not 1e-3 <= abs(x) < 1e6:
        mantissa, power = f"{x:.2e}".split("e")
        return f"{mantissa} × 10{str(int(power)).translate(_SUPERSCRIPT)}"
    if float(x).is_integer() or abs(x) >= 1000:
        return f"{x:,.0f}"
    short = f"{x:.4g}"
    return short if float(short) != round(x) else f"{x:.6g}"  # 1.000061 as 1.00006, not "1", which reads as exact


def times_text(ratio: float) -> str:
    """A ratio to print as "N×": two significant figures below 10 (three just above 1, so that
    1.03 never prints as "1×"), whole numbers above."""
    if 1 < ratio < 1.1:
        return f"{ratio:.3g}×"
    return f"{ratio:.2g}×" if ratio < 10 else f"{ratio:,.0f}×"


def span_text(lo: float, hi: float, spec: str = ".1f") -> str:
    """A range of figures at `spec`: "1.1–2.0", or one figure where both ends read the same ("2.0", not "2.0–2.0")."""
    a, b = f"{lo:{spec}}", f"{hi:{spec}}"
    return a if a == b else f"{a}–{b}"
