"""What a complete registry entry needs (explorer/lessons.py's Lesson), as a list of what to add.

tests/test_registry.py runs it on every lesson, and on stand-ins with a part left out, so that README's
"Add a lesson" cannot skip a step without a test naming it.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from explorer.lessons import Lesson
from explorer.params import CUSTOM_GPU, SHARED
from tests.chart_cases import builders, covered
from tests.conftest import ROOT

SLIDE = re.compile(r"\bui\.slide\(")
CHART = re.compile(r"\bcharts\.(\w+)\b")
CONTROL = re.compile(r"\bcontrol\((f?)\"([^\"]+)\"\)")


def problems(lesson: Lesson, lessons: Sequence[Lesson], root: Path = ROOT) -> list[str]:
    """Each missing part of a lesson, as what to add (empty: the entry is complete)."""
    where = f"{lesson.file} ({lesson.title})"
    script = root / lesson.file
    if not script.is_file():
        return [f"{where}: no script at {lesson.file}: write it (read settings with ui.config() and "
                "control(key), compute with flashviz, lay out)"]
    text = script.read_text()
    out = []
    stem = re.sub(r"^\d+_", "", script.stem)
    if lesson.url_path == stem:
        out.append(f"{where}: url_path {lesson.url_path!r} is the file's legacy page name: pick another")
    if [other.url_path for other in lessons].count(lesson.url_path) > 1:
        out.append(f"{where}: url_path {lesson.url_path!r} is another lesson's too")
    if lesson.question is None:
        out.append(f"{where}: no question: add question=asks.<name> to its Lesson, a builder in "
                   "explorer/asks.py that returns the engine's Question (flashviz/teach/questions.py) at the settings")
    elif not lesson.moves:
        out.append(f"{where}: no moves: add moves=({{\"key\": \"value\"}},) to its Lesson, settings (URL "
                   "parameters) that move its question's answer (tests/test_app.py checks each)")
    if len(SLIDE.findall(text)) < 2:
        out.append(f"{where}: fewer than two sections: start each chart, player or table group with "
                   "ui.slide(\"title\"), one 1280x720 screen each (tests/test_deck_browser.py)")
    drawn = set(CHART.findall(text)) & set(builders())
    if not drawn:
        out.append(f"{where}: draws no chart: ui.chart(cache.figure(charts.<builder>, ...), key), with the "
                   "builder in explorer/charts/")
    for name in sorted(drawn - covered()):
        out.append(f"{where}: charts.{name} has no chart case: add one to tests/chart_cases.py")
    out += _control_problems(lesson, lessons, text, where)
    return out


def _control_problems(lesson: Lesson, lessons: Sequence[Lesson], text: str, where: str) -> list[str]:
    out = []
    declared = {p.key for p in lesson.controls}
    used = CONTROL.findall(text)
    for fstring, key in used:
        prefix = key.split("{")[0]
        if not (any(k.startswith(prefix) for k in declared) if fstring else key in declared):
            out.append(f"{where}: the script draws control({key!r}), which its Lesson does not declare: add "
                       f"Param({key!r}, ...) to its controls")
    prefixes = {key.split("{")[0] for fstring, key in used if fstring}
    for key in sorted(declared):  # named in the script: control("key"), a loop over keys, control(f"bug_{key}")
        if f'"{key}"' not in text and not any(key.startswith(prefix) for prefix in prefixes):
            out.append(f"{where}: control {key!r} is declared but the script never draws it: "
                       f"ui.bound(control({key!r}))")
    others = {p.key for other in lessons if other.file != lesson.file for p in other.controls}
    taken = set(SHARED) | {p.key for p in CUSTOM_GPU}
    for key in sorted(declared & (others | taken)):
        out.append(f"{where}: control key {key!r} is already the sidebar's or another lesson's: pick another")
    return out
