"""One lesson registry (explorer/lessons.py): every lesson's entry is complete, every list the app and
the tests keep is read from it, and a lesson added with a part left out fails here, saying what to add."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from explorer import asks, lessons
from explorer.lessons import LESSONS, Lesson, chapters, controls
from explorer.params import SHARED, Param
from flashviz.model.config import HARDWARE
from flashviz.teach.questions import Question
from tests.conftest import ROOT, figures
from tests.registry import problems


class Defaults:
    """A lesson's settings at their defaults, without Streamlit (explorer.asks.Settings)."""

    def __init__(self, lesson: Lesson):
        self.lesson = lesson

    def own(self, key):
        return self.lesson.control(key).default

    def value(self, key):
        return SHARED[key].default

    def config(self):
        from flashviz.model.config import Config
        return Config()

    def hardware(self):
        return HARDWARE[SHARED["hw"].default]

    def simulable(self, cfg):
        return cfg.at_n(min(cfg.n, 2048))

    def gpu(self, name):
        return HARDWARE[name]


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.file for lesson in LESSONS])
def test_every_registered_lesson_is_complete(lesson):
    missing = problems(lesson, LESSONS)
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.file for lesson in LESSONS])
def test_every_question_is_asked_at_the_defaults_without_streamlit(lesson):
    assert lesson.question is not None
    question = lesson.question(Defaults(lesson))
    assert isinstance(question, Question) and question.prompt, lesson.file


def test_a_lesson_control_names_its_lesson_when_missing():
    with pytest.raises(KeyError, match="add Param"):
        LESSONS[0].control("no_such_key")


# A stand-in for the next lesson, as a contributor following README's "Add a lesson" writes it: a script and one
# registry entry, nothing else.
STAND_IN_SCRIPT = '''
import streamlit as st

from explorer import cache, charts, ui
from explorer.lessons import control
from flashviz.model import sweeps

st.title("Stand-in")
n = ui.bound(control("zz_n"))
ui.slide("The numbers")
st.metric("n", f"{n:,}")
ui.slide("Bytes against flops")
cfg = ui.config()
ui.chart(cache.figure(charts.bytes_vs_flops, sweeps.over_n(cfg, (256, 1024, n)), cfg.dtype), "zz_chart")
'''


def stand_in_question(s: asks.Settings) -> Question:
    from flashviz.teach import questions
    return questions.tiling_ratio(s.config().at_n(s.own("zz_n")))


def stand_in(root: Path) -> Lesson:
    script = root / "lessons" / f"{len(LESSONS) + 1:02d}_stand_in.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(textwrap.dedent(STAND_IN_SCRIPT))
    return Lesson(str(script), "Stand-in", "stand-in-next", ":material/science:", "Stand-in", LESSONS[-1].chapter,
                  question=stand_in_question, controls=(Param("zz_n", "stand-in n", 2048, (2048, 8192)),),
                  moves=({"zz_n": "8192"},))


@pytest.fixture
def registered(tmp_path):
    """The stand-in appended to the registry itself (every importer holds the same list), then removed."""
    lesson = stand_in(tmp_path)
    LESSONS.append(lesson)
    try:
        yield lesson
    finally:
        LESSONS.remove(lesson)


def test_a_stand_in_lesson_is_complete_with_a_script_and_one_entry(registered):
    assert problems(registered, LESSONS, root=Path("/")) == []


def test_a_stand_in_lesson_flows_into_every_list(registered):
    from tests import claims_settings, hostile, test_app
    assert lessons.control("zz_n") is registered.controls[0] and "zz_n" in controls()
    assert "zz_n" in hostile.link_keys(), "the hostile links try its key"
    assert (registered.file, {"zz_n": "8192"}) in test_app.moves(), "its answer must follow its settings"
    assert [p["zz_n"] for p in claims_settings.explicit(registered.file)][-2:] == [2048, 8192], \
        "the claims tests render it at its control's ends"
    assert registered.file in [LESSONS[k].file for c in chapters(LESSONS) for k in c.lessons]


def test_a_stand_in_lesson_renders_in_the_app_with_its_question_and_chart(registered):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(registered.file).run()
    assert not at.exception, [e.value for e in at.exception]
    number = LESSONS.index(registered) + 1
    assert any(f"Lesson {number} · Predict first" in m.value for m in at.markdown), "its question opens it"
    assert figures(at) and at.select_slider(key="zz_n").value == 2048


@pytest.mark.parametrize("left_out, script_edit, says", [
    ({"question": None}, None, "no question: add question=asks.<name>"),
    ({"moves": ()}, None, "no moves: add moves="),
    ({}, ("ui.slide(\"The numbers\")", ""), "fewer than two sections: start each chart"),
    ({}, ("ui.chart(cache.figure(charts.bytes_vs_flops", "(("), "draws no chart"),
    ({}, ("charts.bytes_vs_flops", "charts.a_new_chart"), None),
    ({"controls": ()}, None, "draws control('zz_n'), which its Lesson does not declare"),
    ({"controls": (Param("zz_n", "n", 2048, (2048,)), Param("zz_m", "m", 1, (1, 2)))}, None,
     "control 'zz_m' is declared but the script never draws it"),
    ({"controls": (Param("n", "n", 2048, (2048,)),)}, ("zz_n", "n"), "control key 'n' is already the sidebar's"),
    ({"url_path": LESSONS[0].url_path}, None, "is another lesson's too"),
], ids=["question", "moves", "sections", "chart", "chart-case", "undeclared", "undrawn", "taken", "url"])
def test_a_lesson_left_incomplete_fails_saying_what_to_add(tmp_path, monkeypatch, left_out, script_edit, says):
    lesson = stand_in(tmp_path)._replace(**left_out)
    if script_edit:
        script = Path(lesson.file)
        script.write_text(script.read_text().replace(*script_edit))
    if says is None:  # a builder of charts/ with no case: added to charts for this test only
        from explorer import charts
        monkeypatch.setattr(charts, "a_new_chart", charts.bytes_vs_flops, raising=False)
        says = "charts.a_new_chart has no chart case: add one to tests/chart_cases.py"
    found = problems(lesson, [*LESSONS, lesson], root=Path("/"))
    assert any(says in p for p in found), found
