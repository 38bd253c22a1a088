"""flashviz: why FlashAttention is fast. `streamlit run app.py`"""
from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from explorer import collector, nav, predict, threads, ui, warm
from explorer.lessons import LESSONS

collector.freeze_new_modules()  # what the last run imported: skipped by every full collection from now on
threads.hand_over_sooner()  # many readers' runs and the one loop that sends them take turns at the GIL sooner



def main() -> None:
    """The app: the lesson the address names, with the settings the link carries."""
    # A local icon: an emoji or :material/ icon makes the browser fetch the favicon from a CDN.
    st.set_page_config(page_title="flashviz: why FlashAttention is fast",
                       page_icon=str(Path(__file__).parent / "explorer" / "favicon.png"), layout="wide")
    # Lesson 1 is the default, served at "/"; a hidden page at its own path ("/where-time-goes", as the
    # others are named) sends the reader there with the link's settings, instead of "Page not found".
    pages = [st.Page(lesson.file, title=f"{k}. {lesson.short}", url_path="start" if k == 1 else lesson.url_path,
                     default=(k == 1))
             for k, lesson in enumerate(LESSONS, start=1)]
    to_first = st.Page(lambda: st.switch_page(pages[0], query_params=ui.shared_link()), title=LESSONS[0].title,
                       url_path=LESSONS[0].url_path, visibility="hidden")
    # Streamlit's navigation gives each lesson its address; nav.draw shows the lessons by chapter (nav.py says
    # why not Streamlit's own); the sidebar holds the settings.
    page = st.navigation([*pages, to_first], position="hidden")
    # The readers' runs take turns from here on, a run of the page the reader already has (a slider let go) before
    # first visits and switches to another lesson (explorer/threads.py says why): only the page's choice runs first.
    with threads.one_run_at_a_time(soon=threads.on_its_page(page.url_path)):
        draw_lesson(page, pages, to_first)
        threads.page_drawn(page.url_path)
        warm.start()  # once a process: what later readers' first visits share, computed after this run (warm.py)


def draw_lesson(page: StreamlitPage, pages: list[StreamlitPage], to_first: StreamlitPage) -> None:
    """The lesson `page` is (or, for `to_first`, the switch to lesson 1), under the shared settings."""
    ui.style()
    ui.shared_controls()
    ui.deck()  # the presenter's lessons, from the link: the navigation below follows them
    at = 0 if page is to_first else next(k for k, p in enumerate(pages) if p.url_path == page.url_path)
    if page is to_first:
        ui.link_leftovers(at)  # the link's keys that lesson 1 does not take, read before the switch drops them
        page.run()  # switches page: nothing below runs
    current = LESSONS[at].file
    nav.draw(pages, LESSONS, at, ui.shared_link())  # every lesson one click away, by chapter, the one on screen named
    ui.overflow_banner(current)  # tiles that do not fit are never silent: at the top of every lesson that uses them
    ui.link_leftovers(at)  # and a link's keys that no setting here takes are named
    if current == LESSONS[0].file:
        ui.about()  # the first screen says what this is
    ui.keep_from_link(LESSONS[at].controls)  # a presenter's link: the lesson's own settings, kept behind its question
    question = predict.question_for(current)
    if question is not None and ui.resumes_inside(current):
        predict.reveal(current, question.key())  # a presenter link into a lesson's sections: past its question
    if predict.ask(current, question):  # on a projector, the question alone until its answer is out
        page.run()
    ui.lesson_nav(current)
    ui.assumptions()
    ui.share_link()
    ui.sync_url()
    ui.live_flush(current)  # the live charts' figures along their sliders, after everything is drawn


main()
