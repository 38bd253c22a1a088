"""The shared sidebar in a real Chromium at 1280x720: every control of the schema (explorer.params.SHARED,
derived from flashviz.model.config.Config's knobs) is drawn, and all of them are on screen without scrolling the
sidebar, with the preset GPU and with "custom" (whose figures stay behind one button).
tests/test_schema.py checks the same keys through AppTest; this checks that they fit.
"""
import pytest

from explorer.params import CUSTOM_GPU, SHARED
from tests.test_browser import IDLE, SHOTS, WAIT, capture, opened, pytestmark  # noqa: F401

expect = pytest.importorskip("playwright.sync_api").expect
SCREEN = 720


def sidebar_fits(pg) -> bool:
    """Every sidebar setting is on screen without scrolling the sidebar."""
    return pg.evaluate("""() => {
        const s = document.querySelector("[data-testid='stSidebarContent']");
        return s.scrollHeight <= s.clientHeight + 1; }""")


def below_the_screen(pg, keys) -> list[str]:
    """The controls whose box ends below a 720 px screen, or that are not drawn at all."""
    out = []
    for key in keys:
        box = pg.locator(f"[data-testid='stSidebar'] .st-key-{key}").first.bounding_box()
        if box is None or box["y"] + box["height"] > SCREEN:
            out.append(f"{key}: {box}")
    return out


@pytest.mark.parametrize("query, shot", [("", "sidebar_1280x720.png"),
                                          ("?hw=custom", "sidebar_custom_gpu_1280x720.png")])
def test_every_sidebar_control_is_drawn_and_on_screen_at_1280x720(server, page, query, shot):
    page.goto(server + "/" + query)
    opened(page, 0)
    expect(page.locator("[data-testid='stSidebar']")).to_be_visible(timeout=WAIT)
    assert below_the_screen(page, SHARED) == [], ("a sidebar control is missing or below a 720 px screen: "
                                                  "draw it beside others (st.columns in ui.shared_controls)")
    assert sidebar_fits(page), "the sidebar scrolls at 1280x720"
    if query:  # the custom GPU's figures are drawn behind their button, not in the sidebar's height
        expect(page.locator("[data-testid='stSidebar'] [data-testid='stPopoverButton']").first).to_be_visible()
        assert {p.key for p in CUSTOM_GPU}.isdisjoint(SHARED)
    SHOTS.mkdir(parents=True, exist_ok=True)
    capture(page, SHOTS / shot)
