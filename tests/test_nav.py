"""The lessons' chapters (explorer.lessons.chapters) and the navigation drawn from them
(explorer/nav.py), through AppTest; tests/test_nav_browser.py checks it in a real Chromium."""
import pytest
from streamlit.testing.v1 import AppTest

from explorer.lessons import LESSONS, chapters
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


def links(at: AppTest) -> list:
    return [e.proto for e in at.get("page_link")]


@pytest.mark.parametrize("k", [0, 6, len(LESSONS) - 1])
def test_every_page_links_every_lesson_the_one_on_screen_spelled_out(k):
    at = open_page(PAGES[k], n="2048")
    shown = links(at)
    assert [p.label for p in shown] == [f"{j + 1}. {lesson.short}" if j == k else str(j + 1)
                                        for j, lesson in enumerate(LESSONS)]
    assert [p.help for p in shown] == [f"{j + 1}. {lesson.title}" for j, lesson in enumerate(LESSONS)]
    assert {p.query_string for p in shown} == {"n=2048"}, "every link carries the shared settings"
    names = [m.value for m in at.markdown if m.value in {c.name for c in chapters(LESSONS)}]
    assert names == [c.name for c in chapters(LESSONS)]


def test_the_stand_in_app_draws_twenty_lessons_without_an_exception():
    at = AppTest.from_file(str(ROOT / "tests" / "nav_app.py"), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [p.label for p in links(at)][:2] == ["1. Bytes", "2"] and len(links(at)) == 20
