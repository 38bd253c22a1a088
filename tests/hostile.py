"""Malformed and hostile deep-link values, shared by the tests and the benchmark."""
from explorer.lessons import controls
from explorer.params import SHARED

VALUES = [
    "-1", "0", "-0", "1e309", "-1e309", "99999999999999999999999", "3.5", "0.0001", "NaN", "nan", "inf",
    "-inf", "Infinity", "abc", "", " ", "  12  ", "１０２４", "٣", "💥", "🔥" * 40, "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>", "javascript:alert(1)", "[click](javascript:alert(1))", "**bold**",
    "`code`", "``` fence", "$$x^2$$", ":red[alarm]", "<b>bold</b>", "a" * 5000, "%00", "\x00", "\x1b[31m",
    "null", "None", "true", "TRUE", "[]", "{}", "0x10", "1_000", "--1", "+5", "1e3", "1,024", "1024.0000001",
    "../../etc/passwd", "'; DROP TABLE x; --", "${7*7}", "{{7*7}}", "\u202eevil", "line\nbreak", "tab\tvalue",
]


def link_keys() -> list[str]:
    """The sidebar's keys, every lesson's own (the registry's), and keys no control has."""
    return [*SHARED, *controls(), "unknown_key", "<script>", "deck", "sec"]


KEYS = link_keys()


def links() -> list[dict]:
    """Over 200 query-parameter dicts: every value on a rotating key, plus repeated keys
    and several bad parameters at once."""
    out = []
    for k, value in enumerate(VALUES):
        for j in range(4):
            out.append({KEYS[(k * 4 + j) % len(KEYS)]: value})
    for k in range(0, len(VALUES) - 3, 3):
        out.append({"n": [VALUES[k], VALUES[k + 1]], "Br": VALUES[k + 2], "dtype": VALUES[k + 3]})
    return out
