"""The backward player in a real Chromium against `streamlit run app.py`: the forward player's
controls and keys, its numbers against the engine, nothing clipped at 1280 or 1920 wide, and
the clicker's PageDown after a click inside it.

Screenshots go to artifacts/screenshots/backward_player_*.png for a person to look at.
"""
import pytest

from explorer.lessons import LESSONS
from flashviz.players.animation import rounded, teaching_config
from flashviz.players.backward_animation import traced_backward
from flashviz.model.config import Config
from tests import players
from tests.players import (CLIPPED, VIEWS, at_step, expect, go_to_step, number, pagedown_turns_to, resized,
                           screenshot)

pytestmark = players.pytestmark

BACKWARD = "/" + LESSONS[4].url_path


def open_player(pg, url):
    """The backward lesson's player (the page's last), once step 0 is drawn."""
    return players.open_player(pg, url, last=True)


def cells(fr, selector: str) -> list[str]:
    return fr.locator(selector).all_inner_texts()


def steps(fr) -> int:
    return fr.locator("#data").evaluate("el => JSON.parse(el.textContent).frames.length")


def test_keys_on_the_page_step_jump_and_play(server, page):
    _, fr = open_player(page, server + BACKWARD)
    n = steps(fr)
    page.locator("h1").first.click()  # focus on the page, no slider
    page.keyboard.press("ArrowRight")
    at_step(fr, 1)
    page.keyboard.press("End")
    at_step(fr, n - 1)
    page.keyboard.press("ArrowLeft")
    at_step(fr, n - 2)
    page.keyboard.press("Home")
    at_step(fr, 0)
    page.keyboard.press(" ")
    expect(fr.locator("#play")).to_have_text("❙❙ pause")
    expect(fr.locator("#label")).not_to_have_attribute("data-step", "0")
    page.keyboard.press(" ")
    expect(fr.locator("#play")).to_have_text("▶ play")


def test_play_draws_every_step_in_order(server, page):
    _, fr = open_player(page, server + BACKWARD)
    n = steps(fr)
    fr.locator("#speed").select_option("60")
    fr.locator("#step").evaluate("el => { window.fvStats.steps = []; }")
    fr.locator("#play").click()
    at_step(fr, n - 1)
    expect(fr.locator("#play")).to_have_text("▶ play")  # stops at the end
    drawn = fr.locator("#step").evaluate("() => window.fvStats.steps")
    assert drawn == list(range(1, n)), f"drawn {drawn}"


def test_step_back_returns_the_previous_values(server, page):
    _, fr = open_player(page, server + BACKWARD)
    for k in (1, 2, 3):
        fr.locator("#next").click()
        at_step(fr, k)
    before = cells(fr, "#qrows td, #krows td") + [fr.locator("#calc").inner_text(), fr.locator("#hbmtext").inner_text()]
    fr.locator("#next").click()
    at_step(fr, 4)
    assert cells(fr, "#qrows td, #krows td") != before[:-2]
    fr.locator("#prev").click()
    at_step(fr, 3)
    after = cells(fr, "#qrows td, #krows td") + [fr.locator("#calc").inner_text(), fr.locator("#hbmtext").inner_text()]
    assert after == before


def test_the_last_steps_show_the_engines_gradients(server, page):
    _, fr = open_player(page, server + BACKWARD)
    D = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
    cfg, _ = teaching_config(Config(Br=D["Br"], Bc=D["Bc"], dtype=D["dtype"],
                                           causal=any(0 in row for row in D["kinds"])), D["n"], D["d"])
    _, (dQ, dK, dV), _ = traced_backward(cfg)
    page.locator("h1").first.click()
    page.keyboard.press("End")
    at_step(fr, len(D["frames"]) - 1)
    keys = [int(k) for k in fr.locator("#krows tr[data-key]").evaluate_all("trs => trs.map(t => t.dataset.key)")]
    assert keys, "the last step shows the last key block"
    assert [number(t) for t in cells(fr, "#krows td.dv1")] == [rounded(dV[k, 0]) for k in keys]
    assert [number(t) for t in cells(fr, "#krows td.dk1")] == [rounded(dK[k, 0]) for k in keys]
    rows = [int(r) for r in fr.locator("#qrows tr[data-row]").evaluate_all("trs => trs.map(t => t.dataset.row)")]
    assert [number(t) for t in cells(fr, "#qrows td.dq1")] == [rounded(dQ[r, 0]) for r in rows]
    assert "float noise" in fr.locator("#note").inner_text()


def test_pagedown_after_a_click_in_the_player_goes_to_the_next_lesson(server, page):
    _, fr = open_player(page, server + BACKWARD)
    pagedown_turns_to(page, fr, LESSONS[5])


SMALL = """() => [...document.querySelectorAll('#fv *')]
  .filter(el => el.childNodes.length && [...el.childNodes].some(c => c.nodeType === 3 && c.textContent.trim()))
  .filter(el => !['OPTION', 'SCRIPT'].includes(el.tagName) && el.getClientRects().length)
  .filter(el => parseFloat(getComputedStyle(el).fontSize) < 16)
  .map(el => el.tagName + ':' + el.textContent.slice(0, 20))"""


@pytest.mark.parametrize("causal", [False, True])
def test_nothing_is_clipped_and_every_number_is_16_px_or_more(server, tabs, causal):
    """At 1280 wide, then the same page widened to 1920."""
    pg = tabs.get(viewport=VIEWS["1280"])
    iframe, fr = open_player(pg, server + BACKWARD + ("?causal=true" if causal else ""))
    n = steps(fr)
    for k in (1, 2, 3):  # D, then tiles of the first key block
        fr.locator("#next").click()
        at_step(fr, k)
    for view in ("1280", "1920"):
        if view != "1280":
            resized(pg, iframe, fr, view)
        for k in (3, n - 1):
            go_to_step(fr, k)
            assert fr.locator("#fv").evaluate(CLIPPED) == [], f"step {k} at {view}"
            assert fr.locator("#fv").evaluate(SMALL) == [], f"step {k} at {view}"
            inner = fr.locator("#fv").evaluate("el => Math.ceil(el.getBoundingClientRect().bottom)")
            assert iframe.bounding_box()["height"] >= inner, f"the iframe shows the whole player at {view}"
        if not causal:
            go_to_step(fr, 3)
            screenshot(pg, iframe, f"backward_player_{view}")
