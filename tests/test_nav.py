"""The lessons' chapters (explorer.lessons.chapters) and the navigation drawn from them
(explorer/nav.py), through AppTest; tests/test_nav_browser.py checks it in a real Chromium."""
import json

import pytest
from streamlit.testing.v1 import AppTest

from explorer.lessons import LESSONS, chapters
from explorer.nav import lesson_clicked
from tests.conftest import ROOT
from tests.test_app import PAGES, open_page


def test_the_lessons_fall_into_four_chapters_in_teaching_order():
    assert [(c.name, [k + 1 for k in c.lessons]) for c in chapters(LESSONS)] == [
        ("The idea", [1, 2]), ("The algorithm", [3, 4, 5, 6]), ("Put to the test", [7, 8, 9]),
        ("Real hardware", [10, 11, 12, 13, 14])]


def test_a_chapter_split_by_another_is_refused():
    moved = [*LESSONS[:2], LESSONS[2]._replace(chapter=LESSONS[0].chapter), *LESSONS[3:]]
    assert len(chapters(moved)) == 4  # lesson 3 joins the first chapter: still one run each
    split = [*LESSONS[:3], LESSONS[3]._replace(chapter=LESSONS[0].chapter), *LESSONS[4:]]
    with pytest.raises(ValueError, match="lesson 4"):
        chapters(split)


def test_every_lesson_names_a_chapter():
    assert all(lesson.chapter.strip() for lesson in LESSONS)


def strip(at: AppTest) -> list[dict]:
    """The strip's chapters as nav.js is given them: each a name and its links."""
    drawn = [json.loads(el.proto.json) for el in at.get("bidi_component")
             if el.proto.component_name.endswith("flashviz.nav")]
    assert len(drawn) == 1, "one strip a page"
    return drawn[0]["chapters"]


def links(at: AppTest) -> list[dict]:
    return [link for chapter in strip(at) for link in chapter["links"]]


@pytest.mark.parametrize("k", [0, 6, len(LESSONS) - 1])
def test_every_page_links_every_lesson_the_one_on_screen_spelled_out(k):
    at = open_page(PAGES[k], n="2048")
    shown = links(at)
    assert [link["label"] for link in shown] == [f"{j + 1}. {lesson.short}" if j == k else str(j + 1)
                                                 for j, lesson in enumerate(LESSONS)]
    assert [link["title"] for link in shown] == [f"{j + 1}. {lesson.title}" for j, lesson in enumerate(LESSONS)]
    assert [link["current"] for link in shown] == [j == k for j in range(len(LESSONS))]
    addresses = [f"{lesson.url_path if j else '.'}?n=2048" for j, lesson in enumerate(LESSONS)]
    assert [link["href"] for link in shown] == addresses, "each lesson's address, with the settings"
    assert [c["name"] for c in strip(at)] == [c.name for c in chapters(LESSONS)]
    assert [c["here"] for c in strip(at)] == [k in c.lessons for c in chapters(LESSONS)]


@pytest.mark.parametrize("go, lesson", [(0, 0), (13, 13), (14, None), (-1, None), ("3", None), (True, None),
                                        (None, None), (2.0, None)])
def test_a_click_opens_only_a_lesson_the_strip_has(go, lesson):
    """The trigger nav.js sends with a click, read back (a click itself needs a browser: tests/test_nav_browser.py)."""
    assert lesson_clicked(go, 14) == lesson


def test_the_stand_in_app_draws_twenty_lessons_without_an_exception():
    at = AppTest.from_file(str(ROOT / "tests" / "nav_app.py"), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [link["label"] for link in links(at)][:2] == ["1. Bytes", "2"] and len(links(at)) == 20
