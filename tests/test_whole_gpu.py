"""Lesson 11 as a user meets it (AppTest): it renders, every widget has a key, the question's
answer follows the settings, and the player's frames follow the engine."""
import json
import os

from streamlit.testing.v1 import AppTest

from flashviz.model.config import HARDWARE
from flashviz.players.gpu_animation import wave_frames
from flashviz.hardware.gpu_model import sdpa_flash, whole_gpu
from flashviz.hardware.gpu_targets import load, targets
from tests.conftest import ROOT, figures

LESSON = "lessons/11_whole_gpu.py"


def open_lesson(**query) -> AppTest:
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.query_params.update(query)  # a deep link: the lesson's own settings are in the URL when it first runs
    at.switch_page(LESSON).run()
    assert not at.exception, at.exception
    return at


def question_text(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "Predict first" in m.value)


def test_the_lesson_renders_with_its_player_and_chart():
    at = open_lesson()
    assert len(at.get("iframe")) == 1 and len(figures(at)) == 1


def test_plain_attention_is_on_the_chart_and_in_a_table():
    at = open_lesson()
    fig = figures(at)[0]
    names = [t.get("name", "") for t in fig["data"]]
    assert "plain attention, H200" in names and "plain attention, model (4n²+4nd)" in names, names
    shown = " ".join(m.value for m in at.markdown)
    assert "Plain attention" in " ".join(h.value for h in at.subheader) and "fourth kernel" in shown
    ok = int(targets(*load())["time in 0.7–1.4"].sum())
    assert f"Time: {ok} of 100 within" in shown.replace("**", ""), shown[:200]


def test_every_widget_has_a_key():
    at = open_lesson()
    widgets = [*at.slider, *at.select_slider, *at.selectbox, *at.radio, *at.toggle, *at.button]
    missing = [w.label for w in widgets if not w.key]
    assert not missing, missing


def test_the_questions_answer_follows_the_settings():
    at = open_lesson()
    before = question_text(at)
    at.select_slider(key="wg_n").set_value(524288).run()
    at.slider(key="wg_bh").set_value(4).run()
    after = question_text(at)
    assert before != after and "524,288" in after and "batch × heads = 4" in after
    w = whole_gpu(524288, 128, 4, sdpa_flash(128), HARDWARE["H200 SXM"])
    reveal = next(b for b in at.button if "eveal" in b.label)
    reveal.click().run()
    shown = " ".join(m.value for m in at.markdown)
    assert f"{w.over_floor:.3g}×" in shown, (w.over_floor, shown[:300])


def test_moving_batch_heads_moves_the_waves():
    at = open_lesson()
    before = at.metric[2].value
    at.slider(key="wg_bh").set_value(32).run()
    assert not at.exception and at.metric[2].value != before


def test_the_players_last_frame_reads_what_the_model_says():
    data = wave_frames(131072, 128, 4, sdpa_flash(128), HARDWARE["H200 SXM"])
    w = whole_gpu(131072, 128, 4, sdpa_flash(128), HARDWARE["H200 SXM"])
    assert data["frames"][-1]["reads"] == w.reads and json.dumps(data)


def test_every_gpu_renders():
    for gpu in [*HARDWARE, "custom"]:
        at = open_lesson(wg_gpu=gpu)
        assert not at.exception, gpu


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_the_mi300x_keeps_one_block_per_cu_at_d_128_not_zero():
    # 64 KB of tiles in 64 KB of LDS (no reservation on CDNA 3): 1 per CU, 304 at once, 4 waves
    at = open_lesson(wg_gpu="MI300X", wg_d="128")
    shown = " ".join(m.value for m in at.markdown)
    assert _metric(at, "resident at once") == "304 × 1" and _metric(at, "waves") == "4", shown[:400]
    assert "keeps 1 of them on each of its 304 CUs" in shown and "Infinity Cache" in shown, shown[:600]


def test_a_kernel_whose_tiles_do_not_fit_says_so_and_names_one_that_does():
    at = open_lesson(wg_gpu="MI300X", wg_d="128", wg_kernel="Triton 128×64")
    errors = " ".join(e.value for e in at.error)
    assert "cannot launch on the MI300X" in errors and "96 KB of LDS" in errors and "PyTorch flash" in errors, errors
    assert not [m for m in at.metric if m.label == "resident at once"], "no residency for a kernel that cannot run"
    assert len(figures(at)) == 1, "the chart falls back to the H200's models"


def test_a_custom_gpu_too_small_for_the_tiles_gets_a_clear_message():
    at = open_lesson(wg_gpu="custom", gpu_smem="16")
    errors = " ".join(e.value for e in at.error)
    assert "cannot launch on the custom GPU" in errors and "16 KB" in errors, errors
    assert "modelled as NVIDIA's" in " ".join(c.value for c in at.caption)


def test_a_custom_gpus_figures_can_be_typed_in_the_lesson():
    at = open_lesson(wg_gpu="custom")
    assert at.number_input(key="gpu_sms").value == 108
    at.number_input(key="gpu_sms").set_value(50).run()
    assert not at.exception and _metric(at, "resident at once").startswith("50 × "), _metric(at, "resident at once")
