"""Predict, then reveal: the question that opens every lesson.

The engine (flashviz.teach.questions) asks and answers; this module shows the question, takes
the guess (kept in the session only, never in the URL), and reveals on a button, on the
"A" key, or, in presentation mode, on the clicker's PageDown before it moves on.
"""
from __future__ import annotations

import streamlit as st

from flashviz.teach import questions as q
from flashviz.model.config import Config, Hardware
from flashviz.run.decode import DecodeConfig
from flashviz.teach.questions import Question

from . import asks, threads, ui
from .asks import Settings
from .lessons import LESSONS, Lesson, lesson_of
from .whole_gpu import gpu_named

REVEALED = "_revealed"   # lesson file -> the key of the question revealed there
SKIPPED = "_skipped"     # lesson files whose question the reader skipped
TOUCHED = "_touched"     # guess widgets the reader has moved: an untouched slider is no guess


class _Reader:
    """A lesson's settings as the reader has them now, for its question (explorer.asks.Settings):
    its own controls before the lesson has drawn them, the sidebar's, the GPU."""

    def __init__(self, lesson: Lesson):
        self.lesson = lesson

    def own(self, key: str):
        return ui.peek(self.lesson.control(key))

    def value(self, key: str):
        return ui.value(key)

    def config(self) -> Config:
        return ui.config()

    def hardware(self) -> Hardware:
        return ui.hardware()

    def simulable(self, cfg: Config) -> Config:
        return ui.simulable(cfg, quiet=True)

    def gpu(self, name: str) -> Hardware:
        return gpu_named(name)


def settings(file: str) -> Settings:
    return _Reader(lesson_of(file))


def inference_config() -> DecodeConfig:
    """Lesson 12's model and batch at the reader's settings (explorer.asks.inference_config)."""
    return asks.inference_config(settings("lessons/12_inference.py"))


def question_for(file: str) -> Question | None:
    """The question of a lesson, at the reader's current settings (its registry entry's builder)."""
    lesson = lesson_of(file)
    return lesson.question(_Reader(lesson)) if lesson.question is not None else None


def revealed(file: str, question: Question | None) -> bool:
    return question is not None and st.session_state.get(REVEALED, {}).get(file) == question.key()


def reveal(file: str, key: str) -> None:
    st.session_state.setdefault(REVEALED, {})[file] = key


def keep_revealed(file: str):
    """A callback for a presenter's step that changes what the lesson's question asks (its
    settings): the question stays answered, now for the new settings, so the lesson stays on
    screen. A question not yet revealed stays so."""
    def keep() -> None:
        question = question_for(file)
        if question is not None and file in st.session_state.get(REVEALED, {}):
            reveal(file, question.key())
    return keep


def _hide_again(file: str, guess_key: str) -> None:
    st.session_state.get(REVEALED, {}).pop(file, None)
    st.session_state.get(TOUCHED, set()).discard(guess_key)


def _skip(file: str, skip: bool) -> None:
    skipped = st.session_state.setdefault(SKIPPED, set())
    (skipped.add if skip else skipped.discard)(file)


def _touch(key: str) -> None:
    st.session_state.setdefault(TOUCHED, set()).add(key)


def _guess_widget(question: Question, key: str, disabled: bool):
    """The reader's guess, or None while they have not made one: a slider starts somewhere, and a
    class that pressed PageDown without moving it has not guessed that value."""
    if question.kind == "choice":
        return st.radio("Your guess", list(question.options), index=None, key=key, disabled=disabled)
    if question.kind == "share":
        value = st.slider("Your guess", 0.0, 1.0, 0.5, step=0.01, key=key, disabled=disabled, on_change=_touch,
                          args=(key,))
    else:
        value = st.select_slider("Your guess (a ratio, on a log scale)", options=list(question.options), value=1.0,
                                 format_func=lambda v: f"{v:g}×", key=key, disabled=disabled, on_change=_touch,
                                 args=(key,))
    return value if key in st.session_state.get(TOUCHED, set()) else None


def ask(file: str, question: Question | None) -> bool:
    """Show the lesson's question; True when the lesson itself should be drawn too
    (always for a reader; on a projector, once the answer is out or the question skipped)."""
    if question is None:
        return True
    index = next(k for k, lesson in enumerate(LESSONS) if lesson.file == file)
    if file in st.session_state.get(SKIPPED, set()):
        st.button("Show this lesson's question", key="unskip_question", icon=":material/quiz:",
                  type="tertiary", on_click=_skip, args=(file, False))
        return True
    done = revealed(file, question)
    if ui.presenting() and not done:  # the question alone on the projector, under its lesson's name
        st.title(LESSONS[index].title)
    _question_box(file, index, question, done)
    return done or not ui.presenting()


@st.fragment
@threads.runs_alone
def _question_box(file: str, index: int, question: Question, done: bool) -> None:
    """The question, the guess and its buttons. A fragment: moving the guess reruns this box
    alone, not the lesson (a fifth of the CPU and bytes of a whole rerun). Its buttons change
    what the rest of the page shows (the lesson on a projector, the next-lesson button), so a
    click reruns the whole app, as before."""
    with st.container(border=True, key="question"):
        st.markdown(f"##### Lesson {index + 1} · Predict first\n\n**{question.prompt}**")
        guess_key = f"guess_{LESSONS[index].url_path}"
        guess = _guess_widget(question, guess_key, disabled=done)
        if not done:
            left, right = st.columns([3, 1])
            clicked = left.button(
                "Reveal the answer", key="reveal_answer", icon=":material/visibility:", shortcut="a",
                help="Key: A" + (" · on a projector PageDown reveals first" if ui.presenting() else ""),
                on_click=reveal, args=(file, question.key()), type="primary")
            clicked |= right.button("Skip", key="skip_question", type="tertiary", on_click=_skip, args=(file, True))
        else:
            _show_answer(question, guess)
            clicked = st.button("Ask again", key="ask_again", type="tertiary", on_click=_hide_again,
                                args=(file, guess_key))
    if clicked:
        st.rerun()  # scope "app": the whole page, not only this box


def _show_answer(question: Question, guess) -> None:
    shown = question.shown or str(question.answer)
    if guess is None:
        # a slider left where it starts is no guess (a class that pressed on): a reader is told how to guess that
        # value; on a projector the line stays short, so the answer stays whole on the screen
        why = ("" if question.kind == "choice" or ui.presenting() else ": the slider was not moved. A guess at the "
               "value it starts at counts once the slider has been moved away and back")
        st.markdown(f"**The engine says:** {shown}. (No guess was made{why}.)")
    else:
        mine = f"{guess:g}×" if question.kind == "ratio" else f"{guess:.2f}" if question.kind == "share" else guess
        st.markdown(f"**You said:** {mine} · **the engine says:** {shown} · **{q.verdict(question, guess)}**")
    st.markdown(question.why)


def inline(question: Question, slot: str) -> bool:
    """A question inside a lesson (not its opening one): its own guess and reveal button.
    Returns True once revealed, so the page can show what the answer explains."""
    done = revealed(slot, question)
    _inline_box(question, slot, done)
    return done


@st.fragment
@threads.runs_alone
def _inline_box(question: Question, slot: str, done: bool) -> None:
    """As _question_box: the guess reruns this box alone; the reveal reruns the page, which
    then shows what the answer explains."""
    with st.container(border=True, key=f"question_{slot}"):
        st.markdown(f"**Predict first.** {question.prompt}")
        guess = _guess_widget(question, f"guess_{slot}", disabled=done)
        if done:
            _show_answer(question, guess)
        elif st.button("Reveal the answer", key=f"reveal_inline_{slot}", icon=":material/visibility:",
                       help="On a projector: PageDown, once this question is on screen",
                       on_click=reveal, args=(slot, question.key())):
            st.rerun()
