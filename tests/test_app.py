"""Every page as a user meets it, through Streamlit's AppTest (no browser)."""
import json
import os
import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.lessons import LESSONS
from explorer.notes import ASSUMPTIONS_MARKDOWN
from explorer.params import SHARED
from flashviz.teach.questions import LADDER
from tests.conftest import ROOT, figures

APP = str(ROOT / "app.py")
PAGES = [lesson.file for lesson in LESSONS]
BREAK_IT = "lessons/09_break_it.py"


def open_page(page: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page != PAGES[0]:
        # A deep link to a lesson: its own parameters are in the URL when that lesson first runs.
        at.query_params.update(params)
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def link_value(at, key: str) -> str:
    """A URL parameter as the app left it (AppTest before Streamlit 1.65 gives each as a list)."""
    value = at.query_params[key]
    return value[-1] if isinstance(value, list) else value


def texts(at) -> str:
    """Everything a reader sees as text: markdown, metrics, alerts, tables."""
    parts = [str(e.value) for e in at.markdown] + [str(e.value) for e in at.caption]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [str(e.value) for kind in ("warning", "info", "success", "error") for e in at.get(kind)]
    parts += [df.value.to_string() for df in at.dataframe]
    return "\n".join(parts)


def widgets(at):
    return [w for kind in ("slider", "select_slider", "toggle", "radio", "selectbox")
            for w in at.get(kind)]


# Streamlit's own Plotly template colours a figure with stand-ins (#000001...) that only st.plotly_chart's frontend
# replaces; explorer/plot.py draws the figures itself, so none may carry one (the app's figures carry Plotly's
# template, whose colours are real ones).
STAND_IN = re.compile(r"#0000(?:0[1-9]|[1-9][0-9])\b", re.IGNORECASE)


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_at_defaults(page):
    at = open_page(page)
    assert at.title and at.title[0].value, "every lesson has a title"
    assert figures(at) or page.endswith("09_break_it.py")
    assert not STAND_IN.findall(json.dumps(figures(at))), "a colour left to Streamlit's template"


# FLASHVIZ_SHARED_EVERY=k tries the sidebar's controls (explorer/params.py's SHARED, the same on every page) on
# every k-th page only, in turn: control i on the pages p where i + p is a multiple of k. .ci/ends sets 4 at both
# ends of requirements.txt's ranges, so that each sidebar control takes its extremes on three or four lessons and
# every lesson's own controls take theirs on it, on that end's Streamlit; the lock tries every one on every page.
SHARED_EVERY = int(os.environ.get("FLASHVIZ_SHARED_EVERY", "1"))


def tried_here(key: str, page: str) -> bool:
    if key not in SHARED:
        return True
    return (list(SHARED).index(key) + PAGES.index(page)) % SHARED_EVERY == 0


@pytest.mark.parametrize("page", PAGES)
def test_every_widget_at_its_extremes(page):
    at = open_page(page)
    keys = [w.key for w in widgets(at)]
    assert set(SHARED) <= set(keys), f"every sidebar control is drawn on every page: {set(SHARED) - set(keys)}"
    for key in [k for k in keys if tried_here(k, page)]:
        w = next(w for w in widgets(at) if w.key == key)
        if w.type == "toggle":
            extremes = [True, False]
        elif w.type == "slider":
            extremes = [w.min, w.max, w.value]
        elif w.key.startswith("guess_") and w.type == "select_slider":  # options shown as "0.001×"
            extremes = [LADDER[0], LADDER[-1], w.value]
        else:
            extremes = [w.options[0], w.options[-1], w.value]
            if w.type == "select_slider":  # options come back as strings
                extremes = [type(w.value)(x) for x in extremes]
        for value in extremes:
            w.set_value(value).run()
            assert not at.exception, f"{key}={value}: {[e.value for e in at.exception]}"
            w = next(w for w in widgets(at) if w.key == key)


def test_every_widget_has_a_key():
    for page in PAGES:
        at = open_page(page)
        assert all(w.key for w in widgets(at)), page


@pytest.mark.parametrize("bug, figure", [
    ("no_rescale", "0.190131"),
    ("tiles_too_big", "1412.0"),
    ("tiles_too_small", "32.50"),
    ("keep_full_S", "4096.0"),
])
def test_bug_toggle_shows_its_documented_figure(bug, figure):
    at = open_page(BREAK_IT)
    assert not at.dataframe, "no lab runs before a bug is chosen"
    at.toggle(key=f"bug_{bug}").set_value(True).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert figure in table["with the bug"].tolist(), table


def test_exp_without_max_shows_nan_weights():
    at = open_page(BREAK_IT, bug_no_max="true")
    table = at.dataframe[0].value.set_index("figure")
    assert table.loc["nan weights on scores near 800", "with the bug"] == "4"
    assert table.loc["nan weights on scores near 800", "correct"] == "0"


def test_tiles_too_small_sits_above_standard_attention():
    at = open_page(BREAK_IT, bug_tiles_too_small="true")
    assert "standard 17.00 MB" in json.dumps(figures(at)[0])


def player_data(iframe) -> dict:
    """The run a player's page carries in its data block."""
    html = iframe.proto.srcdoc
    start = html.index('<script id="data" type="application/json">')
    return json.loads(html[html.index(">", start) + 1:html.index("</script>", start)].replace("<\\/", "</"))


def test_break_it_presentation_shows_every_bug_and_the_belief_with_a_player_each_and_no_toggle():
    from flashviz.teach.bugs import BELIEFS, BUGS
    at = open_page(BREAK_IT, present="true")
    at.button(key="reveal_answer").click().run()  # the question first, then the lesson
    assert not at.exception
    headed = [m.value.split(".**")[0] for m in at.markdown if m.value.startswith("**") and ".**" in m.value
              and any(m.value.startswith(f"**{b.label}.**") for b in BUGS.values())]
    assert headed == [f"**{b.label}" for b in BUGS.values()], headed
    beliefs = [h.value for h in at.subheader if h.value != "What this model assumes"]  # the foot's list
    assert beliefs == [b.label for b in BELIEFS.values()]
    assert not [t.key for t in at.toggle if t.key.startswith(("bug_", "belief_", "watch_"))], "nothing to click"
    runs = [player_data(f) for f in at.get("iframe")]
    assert [r["bug"] for r in runs] == list(BUGS), "one player per bug, in the table's order"
    steps = {r["bug"]: r["start"] for r in runs}
    lines = [m.value for m in at.markdown if "The player opens at step" in m.value]
    for run, line in zip(runs, lines, strict=True):
        assert f"opens at step {run['start'] + 1} of {len(run['frames'])}:" in line, line
        assert f"n = {run['n']}, d = {run['d']} (the lab: n = 1024, d = 64)" in line, line
    assert steps["no_max"] == runs[-1]["first_bad"], steps
    assert any("fewer flops" in m.value.lower() or "flops are equal" in m.value for m in at.markdown)


def test_break_it_reading_mode_still_watches_a_bug_from_step_one_on_request():
    at = open_page(BREAK_IT, bug_no_max="true")
    assert not at.get("iframe"), "no player until asked"
    at.toggle(key="watch_no_max").set_value(True).run()
    (run,) = [player_data(f) for f in at.get("iframe")]
    assert run["bug"] == "no_max" and "start" not in run
    assert any("(the lab: n = 1024, d = 64)" in c.value for c in at.caption)


def test_deep_link_sets_the_widgets():
    at = open_page("lessons/03_tiling.py", n="256", d="32", Br="32", causal="true", dtype="float16")
    assert at.select_slider(key="n").value == 256
    assert at.select_slider(key="d").value == 32
    assert at.select_slider(key="Br").value == 32
    assert at.toggle(key="causal").value is True
    assert at.selectbox(key="dtype").value == "float16"
    # the lesson computed at that n and dtype: S is 256 x 256 float16 = 128.0 KB
    assert next(m.value for m in at.metric if m.label == "standard peak") == "128 KB"


def test_deep_link_reaches_page_controls():
    at = open_page("lessons/02_online_softmax.py", os_block="4", os_offset="100")
    assert at.slider(key="os_block").value == 4
    assert at.slider(key="os_offset").value == 100


@pytest.mark.parametrize("params, note", [
    ({"n": "abc"}, "is not a number"),
    ({"n": "99999999"}, "is not offered; using the nearest, 1048576"),
    ({"sram": "-5"}, "is outside 8 to 512; using 8"),
    ({"sram": "inf"}, "is not a finite number"),
    ({"dtype": "int8"}, "is not one of"),
    ({"causal": "maybe"}, "is not true or false"),
])
def test_malformed_link_shows_a_note_and_goes_on(params, note):
    at = open_page(PAGES[0], **params)
    assert any(note in w.value for w in at.warning), [w.value for w in at.warning]
    assert figures(at), "the page still renders"


def test_a_links_keys_that_no_setting_here_takes_are_named_at_the_top_then_left_out():
    at = open_page(PAGES[0], nn="512", os_len="64", deck="1,x")
    (note,) = [w.value for w in at.warning if "`nn`" in w.value]
    assert note.startswith("From the link: `nn` is not a setting of flashviz; `os_len` is lesson 2's setting, not this "
                           "lesson's: left out."), note
    assert "deck: `x` is not a lesson number" in note, "the deck's note, whose control is folded at the foot, too"
    assert "nn" not in at.query_params and "os_len" not in at.query_params, "the address bar left them out"
    at.run()
    assert any("`nn`" in w.value for w in at.warning), "the note stays while the reader stays on the lesson"
    at.switch_page(PAGES[1]).run()
    assert not any("`nn`" in w.value for w in at.warning), "and goes once the reader goes on"


def test_a_key_a_link_repeats_with_two_values_takes_the_last_with_a_note():
    at = open_page(PAGES[0], n=["512", "1024"])
    assert at.select_slider(key="n").value == 1024
    assert any("`n` is in the link 2 times (`512`, `1024`); the last is used." in w.value for w in at.warning), \
        [w.value for w in at.warning]
    twice = open_page(PAGES[0], n=["512", "512"])
    assert not any("`n`" in w.value for w in twice.warning), "the same value twice: no note"


def test_a_links_many_stray_keys_are_named_five_at_most_and_a_trackers_not_at_all():
    at = open_page(PAGES[0], **{f"x{k}": "1" for k in range(8)}, utm_source="news", fbclid="abc")
    (note,) = [w.value for w in at.warning if "`x0`" in w.value]
    stray = "; ".join(f"`x{k}` is not a setting of flashviz" for k in range(5))
    assert note == f"From the link: {stray}; and 3 more keys: left out.", note


def test_script_in_a_link_never_reaches_html():
    payload = "<script>alert(1)</script>"
    at = open_page(PAGES[2], dtype=payload, hw="<img src=x onerror=alert(1)>")
    for element in at.markdown:  # but the list of assumptions: fixed text, built once from the engine's
        assert not element.proto.allow_html or element.value == ASSUMPTIONS_MARKDOWN, \
            "no markdown of the app is rendered as HTML"
    assert sum(element.proto.allow_html for element in at.markdown) == 1
    for element in at.warning:  # the notes quote the link; an alert has no HTML switch at all
        assert "allow_html" not in element.proto.DESCRIPTOR.fields_by_name
    notes = "\n".join(w.value for w in at.warning)
    assert "`dtype=<script>alert(1)</script" in notes  # shown inside a code span, as text


def test_tile_larger_than_n_is_cut_with_a_note():
    at = open_page("lessons/03_tiling.py", n="32", Br="512")
    assert any("above n: lessons use 32" in c.value for c in at.sidebar.caption)


def test_huge_n_falls_back_to_closed_forms():
    at = open_page("lessons/03_tiling.py", n="1048576")
    assert any("exact at" in i.value for i in at.info)
    assert next(m.value for m in at.metric if m.label == "standard peak") == "4 TB"


def test_the_h200_table_says_not_measured_where_nsight_compute_did_not_run():
    at = open_page("lessons/10_real_hardware.py")
    table = next(t.value for t in at.dataframe if "DRAM / model" in t.value.columns)
    dram = table[["measured DRAM MB", "DRAM / model"]]
    assert not dram.isna().any().any(), "an empty cell shows as None"
    assert (dram == "—").any().any() and (dram != "—").any().any(), dram
    assert any("— where Nsight Compute did not run" in c.value for c in at.caption)


def test_presentation_mode_hides_long_explanations():
    long_text = "What this model leaves out"
    assert long_text in texts(open_page(PAGES[0]))
    at = open_page(PAGES[0], present="true")
    at.button(key="reveal_answer").click().run()  # the question first, then the lesson
    assert at.title and at.title[0].value == "Where the time goes"
    assert long_text not in texts(at)


def revealed_answer(at) -> str:
    """The engine's answer as the question block prints it after the reveal."""
    at.button(key="reveal_answer").click().run()
    return next(m.value for m in at.markdown if "the engine says" in m.value.lower())


def moves(lessons=LESSONS) -> list[tuple[str, dict]]:
    """Each lesson's settings that must move its answer (its registry entry's `moves`)."""
    return [(lesson.file, dict(changed)) for lesson in lessons for changed in lesson.moves]


MOVES = moves()


@pytest.mark.parametrize("page, changed", MOVES, ids=[f"{p.split('/')[1][:2]}-{'&'.join(c)}" for p, c in MOVES])
def test_every_lesson_asks_a_question_whose_answer_follows_the_settings(page, changed):
    before = revealed_answer(open_page(page))
    after = revealed_answer(open_page(page, **changed))
    assert before != after, f"{page}: the answer did not move with {changed}: {before}"


def test_presentation_mode_shows_the_question_alone_under_its_title_until_the_reveal():
    at = open_page(PAGES[2], present="true")
    assert [t.value for t in at.title] == [LESSONS[2].title], "the lesson's name over its question, nothing else"
    assert not figures(at), "no lesson under the question yet"
    assert [b.key for b in at.button if b.label.startswith("Reveal")] == ["reveal_answer"], "one reveal button"
    at.button(key="reveal_answer").click().run()  # what the clicker's first PageDown presses
    assert at.title[0].value.startswith("Tiling") and figures(at)
    assert at.button(key="next_lesson").label.startswith("Tile size")


def slides(at) -> list[str]:
    return re.findall(r'class="fv-slide" data-title="([^"]*)"', " ".join(h.proto.body for h in at.get("html")))


@pytest.mark.parametrize("page", PAGES)
def test_every_lesson_is_cut_into_sections_for_the_clicker(page):
    at = open_page(page, present="true", sec="1")
    titles = slides(at)
    assert len(titles) >= 2 and len(set(titles)) == len(titles), titles


@pytest.mark.parametrize("page, own", [(PAGES[2], {"an_d": "4"}), (PAGES[13], {"mk_pmask": "documents",
                                                                          "mk_window": "512", "mk_psink": "true"})])
def test_a_presenter_link_keeps_the_lessons_own_settings_behind_its_question(page, own):
    # the question stands alone on a projector: the lesson's controls are not drawn, and the address bar used to
    # lose their settings at the run's end, so the lesson opened at its defaults after the reveal
    at = open_page(page, present="true", **own)
    assert not figures(at), "the question alone"
    assert {key: link_value(at, key) for key in own} == own, "kept in the address bar behind the question"
    at.button(key="reveal_answer").click().run()
    drawn = {key: next(w for w in widgets(at) if w.key == key).value for key in own}
    assert {key: str(v).lower() if isinstance(v, bool) else str(v) for key, v in drawn.items()} == own
    assert {key: link_value(at, key) for key in own} == own


def test_a_presenter_links_bad_lesson_setting_gets_its_note_after_the_reveal():
    at = open_page(PAGES[2], present="true", an_d="999")
    at.button(key="reveal_answer").click().run()
    assert at.select_slider(key="an_d").value == 32
    assert any("`an_d=999` is not offered" in w.value for w in at.warning)


def test_a_presenter_link_into_a_section_opens_past_the_question():
    at = open_page(PAGES[3], present="true", sec="2")
    assert figures(at), "the lesson's sections are drawn: the link points inside them"
    assert any("engine says" in m.value for m in at.markdown), "its question shows as answered"
    assert link_value(at, "sec") == "2", "the section stays in the address bar"


def test_a_deck_walks_its_own_lessons_in_order_and_keeps_itself():
    at = open_page(PAGES[2], deck="1,3,5,9")
    assert at.button(key="prev_lesson").label == f"← {LESSONS[0].title}"
    assert at.button(key="next_lesson").label == f"{LESSONS[4].title} →"
    at.button(key="next_lesson").click().run()
    assert at.title[0].value == LESSONS[4].title
    assert link_value(at, "deck") == "1,3,5,9"
    assert at.button(key="next_lesson").label.startswith("Break it")


def test_a_bad_deck_keeps_the_good_lessons_and_says_what_it_left_out():
    at = open_page(PAGES[0], deck="3,banana,1,3,99")
    assert at.multiselect(key="deck_pick").value == [2, 0]
    assert any("`banana`" in w.value and "`99`" in w.value for w in at.warning)
    assert link_value(at, "deck") == "3,1"


def test_the_reader_link_leaves_presentation_mode_out_and_the_presenter_link_keeps_it():
    from explorer.ui import share_params
    reader, presenter = share_params({"n": "2048", "present": "true", "deck": "4,2"}, "3")
    assert reader == {"n": "2048"}
    assert presenter == {"n": "2048", "present": "true", "deck": "4,2", "sec": "3"}
    assert share_params({"d": "128"}, None) == ({"d": "128"}, {"d": "128", "present": "true"})


def test_an_untouched_guess_slider_is_no_guess():
    at = open_page(PAGES[2])
    at.button(key="reveal_answer").click().run()
    box = " ".join(m.value for m in at.markdown)
    assert "No guess was made" in box and "You said" not in box


def test_a_moved_guess_slider_is_the_readers_guess():
    at = open_page(PAGES[2])
    at.select_slider(key="guess_tiled-attention").set_value(LADDER[-1]).run()
    at.button(key="reveal_answer").click().run()
    assert any("You said" in m.value for m in at.markdown)


def test_the_first_screen_says_what_flashviz_is():
    for params in ({}, {"present": "true"}):
        at = open_page(PAGES[0], **params)
        first = next(m.value for m in at.markdown if m.value not in {lesson.chapter for lesson in LESSONS})
        assert "FlashAttention" in first and "flashviz" in first, "the first text under the navigation"


NAV = ("prev_lesson", "next_lesson")


def presented(page: str) -> AppTest:
    """A lesson on a projector, its question revealed: what the class sees after the first click."""
    at = open_page(page, present="true")
    if any(b.key == "reveal_answer" for b in at.button):
        at.button(key="reveal_answer").click().run()
    assert at.title, f"{page}: the lesson is drawn after the reveal"
    return at


def in_order(node) -> list:
    """The page's elements top to bottom (a column's before the next column's)."""
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [leaf for k in sorted(children) for leaf in in_order(children[k])]


def lesson_body(at) -> list:
    """The lesson's own elements: from its title to the buttons that move to another lesson."""
    flat = in_order(at.main)
    start = next(k for k, e in enumerate(flat) if e.type == "title")
    end = next(k for k, e in enumerate(flat) if getattr(e, "key", None) in NAV)
    return flat[start:end]


@pytest.mark.parametrize("page", PAGES)
def test_on_a_projector_every_heading_has_something_under_it(page):
    body = lesson_body(presented(page))
    alone = [e.value for e, after in zip(body, [*body[1:], None])
             if e.type == "subheader" and (after is None or after.type == "subheader")]
    assert not alone, f"{page}: headings with nothing under them on a projector: {alone}"


@pytest.mark.parametrize("page", PAGES)
def test_on_a_projector_no_sentence_is_cut_in_half(page):
    """explain() hides text on a projector: what stays must not end mid-sentence ("… sizes here,")."""
    body = lesson_body(presented(page))
    lines = [line.strip() for e in body if e.type in ("markdown", "caption", "success", "warning", "info")
             for line in str(e.value).splitlines() if line.strip()]
    cut = [line for line in lines if re.search(r"[,;—–]\**$", line)]
    assert not cut, f"{page}: sentences cut off on a projector: {cut}"


def test_lesson_ten_on_a_projector_states_each_finding_whole():
    findings = next(m.value for m in presented(PAGES[9]).markdown if m.value.startswith("- **"))
    heads = findings.splitlines()
    assert all(h.rstrip("*").endswith(".") for h in heads), heads


def test_lesson_eleven_on_a_projector_says_why_fa2_splits_the_sequence():
    body = lesson_body(presented(PAGES[10]))
    k = next(k for k, e in enumerate(body) if e.type == "subheader" and "splits the sequence" in e.value)
    assert body[k + 1].type == "markdown" and "SMs** busy" in body[k + 1].value, body[k + 1]


def test_every_lesson_button_names_its_lesson_short_enough_to_show_whole():
    at = presented(PAGES[10])
    assert at.button(key="next_lesson").label == "Inference →"
    assert at.button(key="prev_lesson").label == "← On real hardware"


def test_a_skipped_question_leaves_the_lesson():
    at = open_page(PAGES[2])
    at.button(key="skip_question").click().run()
    assert not any("Predict first" in m.value for m in at.markdown)
    assert at.title[0].value.startswith("Tiling")


def test_first_lesson_shows_the_seed_table():
    df = open_page(PAGES[0]).dataframe[0].value
    seed_rows = df[df["n"].isin([128, 512, 2048, 8192])]
    assert seed_rows["HBM MB"].round(2).tolist() == [0.38, 4.5, 66.0, 1032.0]


def test_charts_keep_png_export_and_axis_units():
    at = open_page(PAGES[3])
    for spec, config in figures(at, config=True):
        y = spec["layout"]["yaxis"]["title"]["text"]
        assert "(" in y, f"axis title without a unit: {y}"
        assert config["toImageButtonOptions"]["format"] == "png"


def test_no_pages_folder_and_no_url_path_equal_to_a_legacy_page_name():
    # A pages/ folder turns on Streamlit's legacy discovery before app.py first runs,
    # which broke a fresh server's first deep link; legacy names are the stem without
    # its number ("tiling" for 03_tiling.py) and must not be reused as url paths.
    import re
    assert not (ROOT / "pages").exists()
    for lesson in LESSONS:
        stem = re.sub(r"^\d+_", "", lesson.file.rsplit("/", 1)[1][:-3])
        assert lesson.url_path != stem, lesson


def test_switching_lessons_keeps_the_shared_sidebar():
    at = open_page("lessons/05_backward.py", n="2048")
    assert at.select_slider(key="n").value == 2048
    assert [b.key for b in at.button if b.key in ("prev_lesson", "next_lesson")] == ["prev_lesson", "next_lesson"]


def test_next_lesson_button_moves_on():
    at = open_page(PAGES[0])
    at.button(key="next_lesson").click().run()
    assert at.title[0].value == "Online softmax"


def test_the_papers_figure_2_is_asked_before_it_is_shown():
    at = open_page("lessons/07_same_flops.py")
    assert not any(df.value["source"].astype(str).str.contains("paper").any() for df in at.dataframe
                   if "source" in df.value.columns), "no answer before the guess"
    at.button(key="reveal_inline_paper_figure2").click().run()
    table = next(df.value for df in at.dataframe if "source" in df.value.columns)
    assert set(table["method"]) == {"standard", "FlashAttention"}
    assert (table["HBM GB"] > 0).all()


def test_a_custom_gpu_gets_its_own_roof_on_the_first_lesson():
    from tests.test_inference import B200_LINK
    at = open_page(PAGES[0], **B200_LINK)
    roofline = next(c for c in figures(at)
                    if "Roofline" in json.dumps(c["layout"].get("title", {})))
    names = " ".join(str(trace.get("name", "")) for trace in roofline["data"])
    assert "custom" in names.lower(), names
    hardware = next(df.value for df in at.dataframe if "GPU" in df.value.columns)
    assert hardware["GPU"].str.lower().str.contains("custom").any()


def test_exact_in_real_precisions_asks_before_it_shows_the_h200_beside_the_emulation():
    at = open_page("lessons/06_exact.py")
    titles = [c["layout"]["title"]["text"] for c in figures(at)]
    assert not any("float64" in t for t in titles), "no error chart before the guess"
    at.radio(key="guess_precision_fp16").set_value("more error than standard attention").run()
    at.button(key="reveal_inline_precision_fp16").click().run()
    assert not at.exception
    assert any("**You said:** more error than standard attention" in m.value and "Not quite" in m.value
               for m in at.markdown)
    bars = next(c for c in figures(at)
                if "float64" in c["layout"]["title"]["text"])
    names = [t.get("name") for t in bars["data"]]
    assert names == ["emulated", "H200 plain", "H200 flash", "H200 cuDNN", "H200 mem-efficient"], names
    table = next(df.value for df in at.dataframe if "paper RMSE" in df.value.columns)
    assert list(table["paper RMSE"])[:6] == ["3.2e-4", "1.9e-4", "2.4e-2", "9.1e-3", "9.3e-3", "2.4e-2"]
    assert any("came out NaN" in m.value for m in at.markdown)


def test_lesson_thirteen_steps_through_the_tiles_of_both_schedules():
    def steps_drawn(at) -> dict:
        spec = next(c for c in figures(at) if "on one SM" in
                    c["layout"]["title"]["text"])
        drawn = {"x": 0, "x2": 0}
        for trace in spec["data"]:
            drawn[trace.get("xaxis", "x")] += len(trace["x"])
        return drawn

    first = open_page(PAGES[12], sc_tile="1")
    last = open_page(PAGES[12], sc_tile="4")
    a, b = steps_drawn(first), steps_drawn(last)
    assert 0 < a["x"] < b["x"] and 0 < a["x2"] < b["x2"], (a, b)  # FA2's panel and FA3's each gain the later tiles
    assert any(m.value.startswith("**Tile 4.**") for m in last.markdown)
    last.slider(key="sc_tile").set_value(2).run()
    assert not last.exception and any(m.value.startswith("**Tile 2.**") for m in last.markdown)


def test_lesson_thirteen_shows_the_h200s_measured_times_beside_the_model():
    import pandas as pd
    raw = pd.read_csv(ROOT / "flashviz" / "data" / "h200" / "fa3_time.csv")  # the authors' run: three kernels
    at = open_page(PAGES[12], sc_call="n 16,384, d 64, B·H 8", sc_dtype="bfloat16", sc_causal="true")
    bars = next(c for c in figures(at)
                if c["layout"]["title"]["text"].startswith("Time per call"))
    measured = dict(zip(bars["data"][0]["x"], bars["data"][0]["y"]))
    pick = raw[(raw["pass"] == "fwd") & (raw["n"] == 16384) & (raw["d"] == 64) & (raw["batch_heads"] == 8)
               & (raw["dtype"] == "bfloat16") & (raw["causal"] == 1)].set_index("impl")["ms"]
    assert measured == {"FA3 (authors)": pick["fa4"], "cuDNN": pick["cudnn"], "PyTorch flash": pick["flash"]}
    assert bars["data"][1]["name"] == "schedule model" and all(v > 0 for v in bars["data"][1]["y"])


def test_lesson_thirteen_refuses_a_call_that_was_not_measured_next_to_its_menu():
    at = open_page(PAGES[12], sc_call="n 3, d 5, B·H 7")
    assert at.selectbox(key="sc_call").value == "n 8,192, d 128, B·H 64"
    assert any("is not one of" in w.value for w in at.warning)


def test_lesson_thirteen_offers_only_the_h200_and_says_so():
    at = open_page(PAGES[12])
    assert any("Only the H200 was measured" in c.value for c in at.caption)
    assert at.radio(key="sc_rates").options == ["each kernel's own", "full SM"]


def _b200_timeline(at) -> dict:
    return next(c for c in figures(at)
                if "B200 SM" in c["layout"]["title"]["text"])


def test_lesson_thirteen_draws_fa3s_and_fa4s_b200_timelines_after_its_question():
    """The B200 section: its question first, then both designs as timelines on the same four units; the
    threshold moves FA4's rescales (none drawn at τ = 20 on these rows, some at τ = 0), FA3's panel not at all."""
    at = open_page(PAGES[12])
    assert at.slider(key="sc_tau").value == 8.0 and at.slider(key="sc_spread").value == 3.0
    assert not any("B200 SM" in c["layout"]["title"]["text"] for c in figures(at))
    at.button(key="reveal_inline_sc_b200_exp").click().run()
    spec = _b200_timeline(at)
    names = {t["name"] for t in spec["data"]}
    assert {"QKᵀ", "PV", "exp", "poly exp (FP32)", "operands (smem)"} <= names, names
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["<b>FA3</b>", "<b>FA4</b>"]

    def rescales(at) -> int:   # FA4's rescale steps: FA3's design rescales inside its "sum" steps
        return sum(len(t["x"]) for t in _b200_timeline(at)["data"] if t["name"] == "rescale O (FP32)")

    def fa3_panel(at) -> list:
        return [(t["name"], t["x"], t["base"]) for t in _b200_timeline(at)["data"] if t.get("xaxis", "x") == "x"]

    at.slider(key="sc_tau").set_value(0.0).run()
    every, fa3_at_0 = rescales(at), fa3_panel(at)
    assert not at.exception and every > 0 and any("at τ = 0 the lagging max rescales" in m.value for m in at.markdown)
    at.slider(key="sc_tau").set_value(20.0).run()
    assert not at.exception and rescales(at) < every and fa3_panel(at) == fa3_at_0
    assert any("FA3 (authors) kernel timed above, has neither" in m.value for m in at.markdown)


@pytest.mark.parametrize("key, value, note", [
    ("sc_call", "<script>alert(1)</script>", "is not one of"),
    ("sc_tau", "1e309", "is not a finite number"),
    ("sc_tau", "-3", "is outside 0"),
    ("sc_spread", "99", "is outside 0.5 to 8"),
    ("sc_tile", "1e309", "is not a finite number"),
    ("sc_tile", "99", "is outside 1 to 4; using 4"),
    ("sc_rates", "**bold**", "is not one of"),
    ("sc_causal", "maybe", "is not true or false"),
])
def test_lesson_thirteen_answers_a_hostile_link_with_a_note_beside_its_control(key, value, note):
    at = open_page(PAGES[12], **{key: value})
    assert any(note in w.value for w in at.warning), [w.value for w in at.warning]
    assert not any(value in str(m.value) for m in at.markdown if len(value) > 3), "the link's text is never drawn"
    assert not any(getattr(h.proto, "body", "").count("<script>") for h in at.get("html"))


def test_on_a_projector_a_long_table_is_cut_to_fit_and_says_so():
    """A table scrolling inside its own box hides rows a class never sees (issue 37's walk: lesson 2's 32 weights
    behind a scroll): on a projector it shows the rows that fit, all of them drawn, and says how many it leaves
    to the CSV."""
    from explorer.display import PROJECTOR_ROWS
    read, shown = open_page(PAGES[1]), presented(PAGES[1])
    full = next(df.value for df in read.dataframe if "softmax" in df.value.columns)
    cut = next(df for df in shown.dataframe if "softmax" in df.value.columns)
    assert len(full) > PROJECTOR_ROWS and len(cut.value) == PROJECTOR_ROWS
    # the weights a class looks at: the largest, where the first rows of a row are near zero (a teacher's walk)
    picked = sorted(full["softmax"].nlargest(PROJECTOR_ROWS).index)
    assert list(cut.value["position"]) == picked and cut.value.reset_index(drop=True).equals(
        full.loc[picked].reset_index(drop=True))
    assert full["softmax"].idxmax() in picked
    assert full["softmax"].head(PROJECTOR_ROWS).max() < cut.value["softmax"].max()
    assert any(f"The {PROJECTOR_ROWS} of its {len(full)} rows with the largest softmax, in their order, on a projector"
               in c.value for c in shown.caption)
    # a table with no such column keeps its first rows
    blocks = next(df.value for df in shown.dataframe if "l (rescaled)" in df.value.columns)
    assert list(blocks["block"]) == list(range(1, len(blocks) + 1))
