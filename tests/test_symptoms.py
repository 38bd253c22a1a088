"""Each bug's player opens at the step where its symptom shows, and that step shows it."""
import pytest

from flashviz.teach import bugs
from flashviz.model import costs
from flashviz.players import symptoms
from flashviz.players.animation import bug_frames
from flashviz.teach.bugs import BUGS
from flashviz.model.config import KB, MB, Config

LAB = Config()  # the lesson's defaults: n = 1024, d = 64, 64 x 64 tiles, 96 KB of SRAM
LABS = {"defaults": LAB, "d = 16": LAB.with_(d=16), "16 x 16 tiles": LAB.with_tiles(16, 16),
        "fa1, 64 x 16": LAB.with_(loop_order="fa1").with_tiles(64, 16), "causal": LAB.with_(causal=True)}


def played(bug: str, lab: Config = LAB):
    cfg, _ = symptoms.player_config(lab, bug)
    return cfg, symptoms.at_symptom(bug_frames(cfg, bug), cfg)


def printed(nbytes: int) -> float:
    """MB as the player's HBM meter prints them, two decimals."""
    return round(nbytes / MB, 2)


def shown_bad(frame) -> list[int]:
    """Rows the table shows holding inf or nan (they travel as strings)."""
    return [frame["rows"][0] + o for q, o in enumerate(frame["show"])
            if isinstance(frame["l"][q], str) or isinstance(frame["o1"][q], str)]


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_the_player_opens_at_the_symptoms_step_only_when_asked(bug):
    cfg, _ = symptoms.player_config(LAB, bug)
    assert "start" not in bug_frames(cfg, bug), "reading mode opens at step 1, as before"
    _, data = played(bug)
    assert 0 <= data["start"] < len(data["frames"])


@pytest.mark.parametrize("lab", list(LABS))
def test_no_max_opens_at_the_first_inf_and_a_shown_row_holds_it(lab):
    _, data = played("no_max", LABS[lab])
    start = data["start"]
    assert start == data["first_bad"] is not None
    assert shown_bad(data["frames"][start]), f"step {start + 1}: no shown row holds inf or nan"
    assert not any(shown_bad(f) for f in data["frames"][:start])


@pytest.mark.parametrize("lab", list(LABS))
def test_no_rescale_opens_where_a_shown_l_first_leaves_the_correct_l(lab):
    _, data = played("no_rescale", LABS[lab])
    frames, start = data["frames"], data["start"]
    assert frames[start]["l"] != frames[start]["l_true"]
    assert all(f["l"] == f["l_true"] for f in frames[:start])


def test_tiles_too_big_opens_over_budget_with_the_labs_working_set():
    _, data = played("tiles_too_big")
    lab = bugs.break_it(LAB, "tiles_too_big")
    ws = data["frames"][data["start"]]["ws"]
    assert ws > data["budget"]
    assert ws / KB == lab["broken"]["working set KB"], "the player runs at the lab's d, so its tile is the lab's"


def test_tiles_too_small_ends_above_standard_attention_at_the_labs_d():
    """The teacher's case: at d = 16 the meter ended at 543 KB against standard's 1,088 KB.
    At the lab's d = 64 16-row tiles move more than standard attention, as the lab says."""
    _, data = played("tiles_too_small")
    frames, start, std = data["frames"], data["start"], data["standard_bytes"]
    assert (data["d"], frames[-1]["hbm"] > std) == (LAB.d, True), (frames[-1]["hbm"], std)
    assert printed(frames[start]["hbm"]) > printed(std) >= printed(frames[start - 1]["hbm"]), \
        "opens where the meter, as printed, first passes standard attention's traffic"


def test_tiles_too_small_at_a_small_d_opens_where_it_passes_the_correct_run():
    cfg, data = played("tiles_too_small", LAB.with_(d=16))
    frames, start = data["frames"], data["start"]
    assert frames[-1]["hbm"] <= data["standard_bytes"], "at d = 16 small tiles stay below standard"
    assert printed(frames[start]["hbm"]) > printed(data["correct_bytes"]) >= printed(frames[start - 1]["hbm"])
    text = symptoms.caption(data, cfg, LAB.with_(d=16))
    assert "below standard attention's" in text, text


def test_keep_full_S_opens_at_the_last_step_with_the_whole_matrix_kept():
    cfg, data = played("keep_full_S")
    frame = data["frames"][data["start"]]
    assert data["start"] == len(data["frames"]) - 1
    assert frame["kept"] == data["n"] ** 2 * cfg.element_bytes > max(f["ws"] for f in data["frames"])


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_the_caption_names_the_start_step_and_both_sizes_when_they_differ(bug):
    cfg, data = played(bug)
    text = symptoms.caption(data, cfg, LAB)
    assert f"step {data['start'] + 1} of {len(data['frames'])}:" in text, text
    assert f"n = {data['n']}, d = {data['d']} (the lab: n = {LAB.n}, d = {LAB.d})" in text, text


def test_the_caption_says_nothing_about_sizes_when_the_player_runs_the_labs():
    lab = Config(n=256, d=16)
    cfg, data = played("no_max", lab)
    assert (data["n"], data["d"]) == (256, 16)
    assert "the lab" not in symptoms.caption(data, cfg, lab)


def test_the_caption_names_the_rows_the_table_shows_holding_inf():
    cfg, data = played("no_max", LABS["fa1, 64 x 16"])
    rows = shown_bad(data["frames"][data["start"]])
    assert ", ".join(map(str, rows)) in symptoms.caption(data, cfg, LAB)


def test_only_the_tile_bugs_run_at_the_labs_d():
    assert {bug for bug in BUGS if symptoms.player_config(LAB, bug)[0].d == LAB.d} == set(symptoms.AT_THE_LABS_D)
    small, _ = symptoms.player_config(LAB, "tiles_too_small")
    assert costs.flash_cost(BUGS["tiles_too_small"].apply(small)).hbm_bytes > costs.standard_cost(small).hbm_bytes


def test_kb_rounds_a_half_up_as_the_players_meters_do():
    """player_common.js's kb uses toFixed, which rounds an exact half up; Python's format rounds it to even. Lesson
    9's line said "the 28 KB tile working set" over a player saying "29 KB in SRAM" (a teacher's walk)."""
    from flashviz.players.symptoms import _kb
    assert [_kb(x * 1024) for x in (28.5, 29.5, 28.4, 9.25, 9.75, 0.5, 100.0)] == [
        "29 KB", "30 KB", "28 KB", "9.3 KB", "9.8 KB", "0.5 KB", "100 KB"]
