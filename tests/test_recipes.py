"""The recipes in docs/contributing.md ("Add a lesson", "Add a knob", "Add a chart", "Change a player's data")
name every step that a test enforces: each step below is a test's demand, and the recipe must say it. A new
demand in a test (a new check in tests/registry.py, say) goes here and into the recipe together."""
import re

import pytest

from tests.conftest import ROOT

RECIPES = (ROOT / "docs" / "contributing.md").read_text()

# recipe -> the words of each step a test checks, and the test that checks it
STEPS = {
    "Add a lesson": {
        "lessons/NN_name.py": "tests/registry.py: no script",
        'ui.slide("title")': "tests/registry.py: fewer than two sections",
        'ui.bound(control("key"))': "tests/registry.py: control declared but not drawn, or drawn but not declared",
        "ui.chart(cache.figure(charts.": "tests/registry.py: draws no chart",
        "tests/chart_cases.py": "tests/registry.py: a builder with no chart case",
        "explorer/asks.py": "tests/registry.py: no question",
        "question=asks.": "tests/registry.py: no question",
        "controls=(Param(": "tests/registry.py: undeclared control",
        "moves=(": "tests/registry.py: no moves; tests/test_app.py: the answer follows them",
        "url_path": "tests/registry.py and tests/test_app.py: not the legacy page name",
        "chapter": "explorer.lessons.chapters: a chapter split by another",
        "tests/test_claims.py": "the claims tests (CHECKS)",
    },
    "Add a knob": {
        "knob(default": "tests/test_schema.py: every knob is a control",
        "params.LABELS": "tests/test_schema.py: knobs, labels and controls agree",
        'bound(SHARED["key"]': "tests/test_schema.py: the sidebar draws every control of the schema",
        "ui.shared_controls()": "tests/test_schema.py: the sidebar draws every control of the schema",
        "tests/test_sidebar_browser.py": "the sidebar fits 1280x720",
    },
    "Add a chart": {
        "explorer/charts/": "tests/test_charts.py: every builder has a case",
        "tests/chart_cases.py": "tests/test_charts.py: every builder has a case",
        "cache.figure(charts.": "mypy: the arguments against the builder",
    },
    "Change a player's data": {
        "flashviz/players/player_schema.py": "tests/test_player_schema.py: the engine's end",
        "header comment": "tests/test_player_schema.py: the player's end reads the names its header gives",
        "FORWARD": "tests/test_player_schema.py's names",
    },
}


def recipe(name: str) -> str:
    """A recipe's text: from its bold name to the next bold paragraph that starts a recipe or section."""
    m = re.search(rf"\*\*{re.escape(name)}\*\*(.*?)(?=\n\*\*[A-Z][^*]*\*\*|\n## )", RECIPES, re.S)
    assert m, f"docs/contributing.md has no **{name}** recipe"
    return m.group(1)


@pytest.mark.parametrize("name", STEPS)
def test_each_recipe_names_every_step_a_test_enforces(name):
    text = recipe(name)
    missing = [f"{words!r} ({why})" for words, why in STEPS[name].items() if words not in text]
    assert not missing, f"docs/contributing.md's {name!r} leaves out: {missing}"

