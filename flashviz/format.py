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
