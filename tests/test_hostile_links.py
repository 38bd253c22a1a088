"""Over 200 malformed or hostile deep links: a note and safe defaults, never a traceback,
and no value from the link ever rendered as HTML.

FLASHVIZ_HOSTILE_EVERY=k opens every k-th link only. .ci/ends sets 4 at both ends of requirements.txt's
ranges: every value once (tests/hostile.py gives each value four links in a row) and every lesson (links
go round the 13 lessons, and 4 and 13 share no factor), on that end's Streamlit; the lock opens them all."""

import os
import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.lessons import LESSONS, controls
from explorer.notes import ASSUMPTIONS_MARKDOWN
from explorer.params import SHARED, shown
from tests.conftest import ROOT
from tests.hostile import VALUES, links

LINKS = links()
EVERY = int(os.environ.get("FLASHVIZ_HOSTILE_EVERY", "1"))
NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def elements(node):
    """Every element of an AppTest tree, depth first."""
    for child in getattr(node, "children", {}).values():
        yield child
        yield from elements(child)


def open_with(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(params)
    at.run()
    if page != LESSONS[0].file:
        at.query_params.update(params)  # page controls read the link on their own page
        at.switch_page(page).run()
    return at


@pytest.mark.parametrize("k", range(0, len(LINKS), EVERY))
def test_hostile_link(k):
    params = LINKS[k]
    page = LESSONS[k % len(LESSONS)].file
    at = open_with(page, params)
    assert not at.exception, (params, [e.value for e in at.exception])
    assert at.title and at.title[0].value, "the lesson still renders"
    for el in elements(at._tree):
        proto = getattr(el, "proto", None)
        if proto is not None and hasattr(proto, "allow_html"):  # but the assumptions' fixed text (notes.py)
            assert not proto.allow_html or getattr(el, "value", None) == ASSUMPTIONS_MARKDOWN, \
                f"{params}: HTML allowed in {el.type}"
    raw = [v for value in params.values() for v in (value if isinstance(value, list) else [value])]
    for value in raw:
        if len(value) < 3 or value in {"nan", "inf", "abc", "NaN", "true", "TRUE", "None", "null", "Infinity"}:
            continue  # too common to trace through the page's own words (the MI300X's "Infinity Cache")
        if NUMBER.fullmatch(value):
            continue  # a bare number ("3.5") the page's own figures may print; it carries no markup
        for el in elements(at._tree):
            if el.type in ("dataframe", "bidi_component", "iframe"):
                continue  # engine numbers only
            body = getattr(el, "value", "")
            body = body if isinstance(body, str) else ""
            if value in body:
                # only a note may quote it, inside a code span, cleaned by shown()
                assert el.type == "alert" or el.type in ("warning",), (params, el.type)
                assert f"{shown(value)}`" in body


@pytest.mark.parametrize("p", [*SHARED.values(), *controls().values()], ids=lambda p: p.key)
def test_every_parameter_rejects_every_hostile_value_cleanly(p):
    """The sidebar's controls and every lesson's own (the registry's)."""
    for value in VALUES:
        parsed, note = p.parse(value)
        if p.kind == "bool":
            assert parsed in (True, False)
        elif p.kind in ("int", "float"):
            assert p.lo <= parsed <= p.hi
        else:
            assert parsed in p.options
        if note:
            assert "`" not in shown(value) and "\n" not in note
