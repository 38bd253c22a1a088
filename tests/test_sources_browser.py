"""A "model" mark in a real Chromium at 1280x720: a click scrolls to its entry in "What this model
assumes", clear of the top navigation. Screenshots go to artifacts/screenshots/."""
from flashviz.model.sources import ASSUMPTIONS
from tests.test_browser import SHOTS, capture, opened, pytestmark  # noqa: F401

KEY = "sram_registers"  # the mark under lesson 1's GPU table
# The entry starts below the fixed top navigation, in the screen's top half.
_BELOW_THE_NAVIGATION = """sel => {
    const r = document.querySelector(sel).getBoundingClientRect();  // the entry, whose id is the anchor
    const nav = document.querySelector("[data-testid=stHeader]").getBoundingClientRect();
    return r.top >= nav.bottom && r.top < innerHeight / 2; }"""


def test_a_model_mark_scrolls_to_its_entry(server, page):
    page.goto(server + "/")
    opened(page, 0)
    entry = page.locator(f"#model-{KEY}")
    mark = page.locator(f"a[href='#model-{KEY}']").first
    mark.scroll_into_view_if_needed()
    assert not _on_screen(page, entry), "the entry is already in view before the click"
    mark.click()
    page.wait_for_url(f"**#model-{KEY}")
    page.wait_for_function(_BELOW_THE_NAVIGATION, arg=f"#model-{KEY}")
    assert ASSUMPTIONS[KEY].title.lower() in entry.inner_text().lower()
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(page, SHOTS / "assumptions_1280x720.png")


def _on_screen(pg, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and 0 <= box["y"] < pg.viewport_size["height"]
