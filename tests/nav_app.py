"""Twenty stand-in lessons behind the app's own navigation (explorer/nav.py) and CSS, for
tests/test_nav_browser.py: `streamlit run tests/nav_app.py`. Each stand-in page shows its title; the
sidebar holds one setting, so it is open at its usual width as in the app."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # streamlit runs this file with tests/ on the path, not the project
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from explorer import nav, ui  # noqa: E402
from explorer.lessons import LESSONS, Lesson  # noqa: E402

# After today's fourteen, six more in a new chapter, with labels as long as the longest today.
MORE = [(short, "Beyond the paper") for short in ("Long context", "Sparsity", "Paged cache", "FA3", "Ring",
                                                   "Break it 2")]


def stand_ins() -> list[Lesson]:
    """Twenty lessons: today's fourteen and six more, each a stand-in page at its own address."""
    more = [Lesson(f"stand_in_{k}", f"Stand-in lesson {k}: {short}", f"stand-in-{k}", "", short, chapter)
            for k, (short, chapter) in enumerate(MORE, start=len(LESSONS) + 1)]
    return [*LESSONS, *more]


def stand_in(k: int, lesson: Lesson):
    def draw() -> None:
        st.title(f"{k + 1}. {lesson.title}")
        st.write("A stand-in page for the navigation's test.")
    draw.__name__ = f"stand_in_{k + 1}"  # Streamlit names a callable page by its function
    return draw


LESSONS_20 = stand_ins()


def main() -> None:
    st.set_page_config(page_title="flashviz navigation test", layout="wide")
    ui.style()
    pages = [st.Page(stand_in(k, lesson), title=f"{k + 1}. {lesson.short}", url_path=lesson.url_path, default=(k == 0))
             for k, lesson in enumerate(LESSONS_20)]
    page = st.navigation(pages, position="hidden")
    st.sidebar.slider("a setting", 0, 10, key="setting")
    at = next(k for k, p in enumerate(pages) if p.url_path == page.url_path)
    nav.draw(pages, LESSONS_20, at, {})
    page.run()


if __name__ == "__main__":  # streamlit runs it so; tests/test_nav_browser.py imports LESSONS_20 alone
    main()
