"""flashviz: why FlashAttention is fast. `streamlit run app.py`"""
import streamlit as st

from explorer import ui
from explorer.lessons import LESSONS

st.set_page_config(page_title="flashviz: attention is short of bytes", page_icon=":material/bolt:",
                   layout="wide")

pages = [st.Page(lesson.file, title=f"{k}. {lesson.title}", url_path=lesson.url_path,
                 icon=lesson.icon, default=(k == 1))
         for k, lesson in enumerate(LESSONS, start=1)]
page = st.navigation(pages, position="sidebar")
ui.shared_controls()
ui.link_notes()
page.run()
ui.lesson_nav(next(lesson.file for lesson, p in zip(LESSONS, pages) if p.url_path == page.url_path))
ui.share_link()
