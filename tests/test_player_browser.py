"""The tile player in a real Chromium against `streamlit run app.py`: its numbers, its text
(nothing clipped at 1280 or 1920 wide) and the clicker's PageDown after a click inside it.

Screenshots of the player go to artifacts/screenshots/player_*.png for a person to look at.
"""
import re

import pytest

from explorer.lessons import LESSONS
from flashviz.players.animation import rounded, teaching_inputs
from flashviz.run.attention import flash_attention
from flashviz.model.config import Config
from tests import players
from tests.test_browser import capture
from tests.players import (CLIPPED, SHOTS, VIEWS, at_step, expect, go_to_step, number, open_player,
                           pagedown_turns_to, resized, screenshot)

pytestmark = players.pytestmark

TILING = "/" + LESSONS[2].url_path
BREAK_IT = "/" + LESSONS[8].url_path
BUGS = ("no_rescale", "tiles_too_big", "tiles_too_small", "keep_full_S", "no_max")


def rows_shown(fr) -> list[dict]:
    """The table's rows as numbers: row index, m before/after, rescale, l. A table too wide for
    its room leaves out the values before the step (m0 is then None)."""
    return fr.locator("#rows tr[data-row]").evaluate_all("""trs => trs.map(tr => ({
        row: Number(tr.dataset.row), rose: tr.classList.contains('rose'),
        scaled: tr.querySelector('td.scale').classList.contains('scaled'),
        m0: tr.querySelector('td.m0') && tr.querySelector('td.m0').textContent,
        m1: tr.querySelector('td.m1').textContent,
        scale: tr.querySelector('td.scale').textContent, l: tr.querySelector('td.l').textContent }))""")


def rows_named(note: str) -> list[int]:
    """The rows a "Rows shown, of the block's r: a–b (...); c, d (...)." note names, in order."""
    body = re.sub(r"\([^)]*\)", "", note.split(":", 1)[1])
    rows: list[int] = []
    for part in re.findall(r"\d+(?:–\d+)?", body):
        a, _, b = part.partition("–")
        rows += range(int(a), int(b or a) + 1)
    return rows


def test_pagedown_after_a_click_in_the_player_goes_to_the_next_lesson(server, page):
    _, fr = open_player(page, server + TILING)
    pagedown_turns_to(page, fr, LESSONS[3])


def test_arrow_keys_after_a_click_in_the_player_step_once(server, page):
    _, fr = open_player(page, server + TILING)
    fr.locator("#next").click()
    page.keyboard.press("ArrowRight")
    at_step(fr, 2)  # not 3: the page's listener stays out


def test_the_table_shows_the_engines_m_rescale_and_l(server, page):
    _, fr = open_player(page, server + TILING)
    D = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
    cfg = Config(n=D["n"], d=D["d"], Br=D["Br"], Bc=D["Bc"], sram_bytes=D["budget"],
                 loop_order=D["order"], causal=D["causal"], compute="float64")
    trace = []
    flash_attention(*teaching_inputs(cfg), cfg, trace=trace)
    for k in (0, 1, 2, 5):
        go_to_step(fr, k)
        step, rows = trace[k], rows_shown(fr)
        assert len(rows) >= min(8, step.rows[1] - step.rows[0])
        for r in rows:
            q = r["row"] - step.rows[0]
            engine = [float(v) for v in rounded([step.m_before[q], step.m_after[q], step.rescale[q],
                                                  step.l[q]])]
            assert [number(r[c]) for c in ("m0", "m1", "scale", "l")] == engine, f"step {k}, row {r['row']}"
            m0, m1, scale, _ = engine
            assert r["rose"] == (m0 > float("-inf") and m1 > m0), "highlighted only where m rose"
            assert r["scaled"] == (r["rose"] and scale < 1), "green only where the factor is < 1"
        assert float(fr.locator("td.m1").first.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")) >= 16
        note = fr.locator("#rowsnote").text_content()  # folded with the listing beside an open sidebar
        assert step.rows[1] - step.rows[0] > len(rows) and rows_named(note) == [r["row"] for r in rows], note


CASES = {"tiling": TILING, **{bug: f"{BREAK_IT}?bug_{bug}=true&watch_{bug}=true" for bug in BUGS}}


@pytest.mark.parametrize("case", list(CASES))
def test_nothing_in_the_player_is_clipped(server, tabs, case):
    """At 1280 wide, then the same page widened to 1920."""
    pg = tabs.get(viewport=VIEWS["1280"])
    iframe, fr = open_player(pg, server + CASES[case])
    fr.locator("#next").click()
    fr.locator("#next").click()
    at_step(fr, 2)
    for view in ("1280", "1920"):
        if view != "1280":
            resized(pg, iframe, fr, view)
            at_step(fr, 2)  # widening the window keeps the step on screen
        assert fr.locator("#fv").evaluate(CLIPPED) == [], view
        inner = fr.locator("#fv").evaluate("el => Math.ceil(el.getBoundingClientRect().bottom)")
        assert iframe.bounding_box()["height"] >= inner, f"the iframe shows the whole player at {view}"
        if case != "tiling":  # each bug's own words lead its animation
            assert fr.locator("#bug").inner_text().startswith("Bug:")
        screenshot(pg, iframe, f"player_{case}_{view}")


def test_no_max_speaks_of_overflow_not_of_rescaling(server, page):
    _, fr = open_player(page, server + CASES["no_max"])
    page.keyboard.press("End")
    expect(fr.locator("#label")).not_to_have_attribute("data-step", "0")
    text = fr.locator("#bug").inner_text() + fr.locator("#what").inner_text()
    assert "without subtracting the max" in text and "rescaled" not in text


def test_no_rescale_says_which_rows_were_not_rescaled(server, page):
    _, fr = open_player(page, server + CASES["no_rescale"])
    # the first tile: the table's factor is the bug's 1 (the right one, 0, in brackets); the words say both
    assert {number(r["scale"].split("(")[0]) for r in rows_shown(fr)} == {1}
    assert "the bug's factor 1 and the right factor 0 both multiply 0" in fr.locator("#calc").inner_text()
    fr.locator("#next").click()
    at_step(fr, 1)
    rose = [r for r in rows_shown(fr) if r["rose"]]
    assert rose and all(number(r["scale"].split("(")[0]) == 1 for r in rose), "the bug applies no factor"
    assert "should be rescaled" in fr.locator("#what").inner_text()


def test_the_code_panel_highlights_the_running_line_legibly_mid_animation(server, page):
    iframe, fr = open_player(page, server + TILING)
    fr.locator("#speed").select_option("5")
    fr.locator("#play").click()
    fr.locator("#fv").evaluate("() => new Promise(r => { const t = () => window.fvStats.rendered && "
                               "Number(document.getElementById('label').dataset.step) >= 5 ? r() : "
                               "requestAnimationFrame(t); t(); })")
    fr.locator("#play").click()  # pause mid-animation
    expect(fr.locator("#play")).to_have_text("▶ play")
    step = int(fr.locator("#label").get_attribute("data-step"))
    D = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
    code = D["frames"][step]["code"]
    now = fr.locator("#now .ln.at")  # the line this step is about, always in sight
    expect(now).to_have_attribute("data-line", str(code["at"]))
    fr.locator("#listing > summary").click()  # the whole listing, folded until asked for
    at = fr.locator("#code .ln.at")
    expect(at).to_have_count(1)
    assert at.get_attribute("data-line") == str(code["at"])
    assert fr.locator("#code .ln.ran").count() == len(code["ran"])
    values = fr.locator("#code .val[data-name='l']").inner_text()
    assert [number(v) for v in values.split("=")[1].split()] == code["l"], values
    sizes = fr.locator("#code .ln").evaluate_all("els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert min(sizes) >= 16
    assert fr.locator("#fv").evaluate(CLIPPED) == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.add_style_tag(content="[data-testid='stHeader'] { visibility: hidden; }")
    # what the back row sees: the 1280 x 720 window, scrolled to the highlighted line
    at.evaluate("el => el.scrollIntoView({block: 'center'})")
    expect(at).to_be_in_viewport()
    capture(page, SHOTS / "code_panel_1280.png")


# A tile's colour on the grid, at a point inside it (fx, fy: fractions of the cell), as [r, g, b, a].
TILE_PIXEL = """(_, [i, j, fx, fy]) => {
  const cv = document.getElementById("grid"), r = window.devicePixelRatio || 1;
  const x = (X0 + (j + fx) * cell) * r, y = (Y0 + (i + fy) * cell) * r;
  return Array.from(cv.getContext("2d").getImageData(Math.floor(x), Math.floor(y), 1, 1).data);
}"""


def test_a_tile_past_the_last_frame_is_to_do_and_a_masked_one_is_crossed_out(server, page):
    # causal, n = 512 in 16 x 16 tiles: 528 tiles, more than the frames sent, so some tiles the
    # mask lets through have no frame; they used to be crossed out like the masked ones
    iframe, fr = open_player(page, server + TILING + "?an_n=512&Br=16&Bc=16&causal=true")
    D = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
    assert D["capped"] and len(D["frames"]) < D["tiles"] == sum(k > 0 for row in D["kinds"] for k in row)
    key = fr.locator("#gkey")
    expect(key).to_contain_text("empty: skipped")
    expect(key).to_contain_text("partial: masked")
    expect(fr.locator("#info")).to_contain_text(f"Showing the first {len(D['frames'])} of {D['tiles']} tiles")
    last = D["Tr"] - 1  # the last query block: every key block computed, none of them in a frame
    assert all(D["kinds"][last]) and all(f["i"] < last for f in D["frames"])
    pending = [0xE9, 0xEC, 0xEF, 255]
    assert fr.locator("#fv").evaluate(TILE_PIXEL, [last, 0, 0.5, 0.5]) == pending, "past the last frame: to do"
    assert fr.locator("#fv").evaluate(TILE_PIXEL, [2, D["Tc"] - 1, 0.5, 0.5])[3] == 0, "masked: left blank"
    assert fr.locator("#fv").evaluate(TILE_PIXEL, [0, 0, 0.5, 0.5]) != pending, "step 1's tile is drawn"
    screenshot(page, iframe, "player_causal_capped_1280")


def test_rows_carry_fa4s_mark_from_the_engine_and_the_info_line_its_counts(server, page):
    # tau = 0.5: at the teaching n some new maxima rise past it (rescaled) and some do not (skipped)
    from flashviz.run.rescale import rescale_attention
    _, fr = open_player(page, server + TILING + "?an_tau=0.5")
    D = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
    cfg = Config(n=D["n"], d=D["d"], Br=D["Br"], Bc=D["Bc"], sram_bytes=D["budget"],
                 loop_order=D["order"], causal=D["causal"], compute="float64")
    record: dict = {}
    run = rescale_attention(*teaching_inputs(cfg), cfg, 0.5, record=record)
    expect(fr.locator("#info")).to_contain_text(
        f"FA4, τ = 0.5: {run.done} of FA2's {run.done + run.skips} rescales done")
    seen = set()
    for k in range(min(12, len(D["frames"]))):
        go_to_step(fr, k)
        f = D["frames"][k]
        did, skip = record[(f["i"], f["j"])]
        marks = fr.locator("#rows tr[data-row]").evaluate_all(
            "trs => trs.map(tr => [Number(tr.dataset.row), tr.classList.contains('lagskip'), "
            "tr.classList.contains('lagdone')])")
        for row, skipped, done in marks:
            q = row - f["rows"][0]
            assert (skipped, done) == (bool(skip[q]), bool(did[q])), f"step {k}, row {row}"
            seen.update({"skipped"} if skipped else {"rescaled"} if done else set())
    assert seen, "no row marked in the first steps"
    expect(fr.locator("#key")).to_contain_text("FlashAttention-4 at τ = 0.5")


MASKS = "/" + LESSONS[13].url_path


def test_lesson_14s_player_streams_a_window_in_documents_from_the_sink(server, page):
    # the player is lesson 14's only iframe; with the sink on, every block's m starts at it and l at 1
    iframe, fr = open_player(page, server + MASKS + "?mk_pmask=window+in+documents&mk_psink=true&mk_sink=2")
    D = fr.locator("#data").evaluate("el => JSON.parse(el.textContent)")
    assert D["mask"] == "a causal window of 128 keys in 4 documents, a sink of 2" and D["sink"] == 2
    assert len(D["frames"]) == D["tiles"] and D["skipped"] == sum(k == 0 for row in D["kinds"] for k in row) > 0
    expect(fr.locator("#info")).to_contain_text(
        f"Mask: {D['mask']}. {D['tiles']} tiles computed; the {D['skipped']} crossed out")
    expect(fr.locator("#what")).to_contain_text("m started at the sink, 2, and l at its term, 1")
    first = rows_shown(fr)
    assert first and all(number(r["m0"]) == 2 for r in first), first
    assert [number(r["l"]) for r in first] == [float(v) for v in D["frames"][0]["l"]]
    empty = next((i, j) for i, row in enumerate(D["kinds"]) for j, k in enumerate(row) if k == 0)
    assert fr.locator("#fv").evaluate(TILE_PIXEL, [*empty, 0.75, 0.25])[3] == 0, "a skipped tile: blank, off its cross"
    # the second block's first tile names the sink too; a tile after it does not
    opens = next(k for k, f in enumerate(D["frames"]) if f["i"] == 1)
    go_to_step(fr, opens)
    expect(fr.locator("#what")).to_contain_text("m started at the sink")
    go_to_step(fr, opens + 1)
    expect(fr.locator("#what")).not_to_contain_text("m started at the sink")
    code = fr.locator("#code")
    expect(code).to_contain_text("sees = (idx >= q - left) & (idx <= q + right) & (doc == doc[q])")
    screenshot(page, iframe, "player_masks_sink_1280")
