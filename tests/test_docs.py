"""The front door stays true: every relative link in README.md, BENCHMARKS.md and docs/*.md reaches a file (and
a heading, where it names one); README's lessons are the registry's, in its order and number; README's pictures
are the ones docs/make_screenshots.py writes, each saying which lesson it shows; README's test command is the
one .ci/run runs; docs/model.md names every assumption the app lists."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from explorer.lessons import LESSONS
from flashviz.model.sources import ASSUMPTIONS
from tests.conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
README = (ROOT / "README.md").read_text()
NUMBERS = {10: "Ten", 11: "Eleven", 12: "Twelve", 13: "Thirteen", 14: "Fourteen", 15: "Fifteen", 16: "Sixteen",
           17: "Seventeen", 18: "Eighteen", 19: "Nineteen", 20: "Twenty"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")


def unfenced(text: str) -> str:
    """The text without its fenced code blocks (a `#` there is a comment, not a heading)."""
    return re.sub(r"(?ms)^\s*```.*?^\s*```", "", text)


def prose(text: str) -> str:
    """The text without code blocks and code spans, where a bracket is code, not a link."""
    return re.sub(r"`[^`\n]*`", "", unfenced(text))


def links(path: Path) -> list[str]:
    return [a or b for a, b in LINK.findall(prose(path.read_text()))]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"(?m)^#{1,6} (.+)$", unfenced(path.read_text()))}


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def screenshots():
    spec = importlib.util.spec_from_file_location("make_screenshots", ROOT / "docs" / "make_screenshots.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SHOTS


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file_and_its_heading(path):
    broken = []
    for target in links(path):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not this checkout's
            continue
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            broken.append(f"{target} (no file {where.relative_to(ROOT) if where.is_relative_to(ROOT) else where})")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target} (no heading #{anchor} in {where.relative_to(ROOT)})")
    assert not broken, f"{path.relative_to(ROOT)}: {broken}"


def test_the_link_checker_finds_links_and_anchors():
    assert slug("The H200: reads") == "the-h200-reads"
    assert slug("Lighter reruns, before and after (`python bench/rerun_cost.py`, issue 10 item 5)") == \
        "lighter-reruns-before-and-after-python-benchrerun_costpy-issue-10-item-5"
    assert "docs/screenshot.png" in links(ROOT / "README.md")
    assert "docs/screenshot-phone.png" in links(ROOT / "README.md")  # an <img> tag


def test_readme_lists_the_registrys_lessons_in_order():
    listed = re.findall(r"(?m)^(\d+)\. \*\*(.+?)\*\*", section(README, "The lessons"))
    assert [int(k) for k, _ in listed] == list(range(1, len(LESSONS) + 1)), listed
    assert [title for _, title in listed] == [lesson.title for lesson in LESSONS], \
        "README's lessons are not explorer/lessons.py's LESSONS"


def test_readme_counts_the_lessons_and_chapters_the_registry_has():
    text = section(README, "The lessons")
    chapters = list(dict.fromkeys(lesson.chapter for lesson in LESSONS))
    assert f"{NUMBERS[len(LESSONS)]} lessons" in text, f"README should say {NUMBERS[len(LESSONS)]} lessons"
    named = re.findall(r"\*([^*]+)\* \((\d+)-(\d+)\)", text)
    assert [name for name, _, _ in named] == chapters, named
    for name, first, last in named:
        numbers = [k + 1 for k, lesson in enumerate(LESSONS) if lesson.chapter == name]
        assert (int(first), int(last)) == (numbers[0], numbers[-1]), f"chapter {name}: lessons {numbers}"


def test_readme_shows_the_pictures_the_script_makes_and_names_their_lessons():
    shots = screenshots()
    shown = [t for t in links(ROOT / "README.md") if re.fullmatch(r"docs/screenshot[\w-]*\.png", t)]
    assert shown == list(shots), f"README shows {shown}; docs/make_screenshots.py writes {list(shots)}"
    alts = dict((src, alt) for alt, src in re.findall(r"!\[([^\]]*)\]\((docs/[^)]+)\)", README)) | \
        dict((src, alt) for src, alt in re.findall(r"<img src=\"(docs/[^\"]+)\" alt=\"([^\"]+)\"", README))
    for name, (k, _query, viewport, _section) in shots.items():
        assert (ROOT / name).exists(), f"{name}: run python docs/make_screenshots.py"
        alt = alts[name]
        assert f"Lesson {k + 1}, {LESSONS[k].title}" in alt, f"{name}'s text names another lesson: {alt!r}"
        assert f"{viewport['width']}x{viewport['height']}" in alt, f"{name}'s text gives another size: {alt!r}"


def test_readme_test_command_is_the_one_ci_runs():
    block = re.search(r"```bash\n(.*?)\n```", section(README, "Test it"), re.S)
    assert block, "README's Test it has no command"
    command = block.group(1).strip()
    install, _, run = command.partition(" && ")
    ci = (ROOT / ".ci" / "run").read_text()
    assert f"pip install -q {install.removeprefix('pip install ')}" in ci, install
    assert re.search(rf"(?m)^{re.escape(run)}$", ci), f".ci/run does not run README's {run!r}"


def test_model_doc_names_every_assumption_the_app_lists():
    text = (ROOT / "docs" / "model.md").read_text()
    missing = [a.title for a in ASSUMPTIONS.values() if f"### {a.title[0].upper() + a.title[1:]}" not in text]
    assert not missing, f"docs/model.md leaves out: {missing}"


def test_model_doc_lists_the_assumptions_word_for_word():
    """docs/model.md's list is the app's own, as `python docs/make_model_doc.py` writes it: a reworded
    assumption (issue 37 corrected several) cannot leave the page behind."""
    from flashviz.model.sources import assumptions_markdown
    text = (ROOT / "docs" / "model.md").read_text()
    head = "## The list, as the app shows it\n"
    assert head in text
    assert text.split(head, 1)[1] == assumptions_markdown(), "docs/model.md is stale: python docs/make_model_doc.py"
