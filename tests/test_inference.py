"""Lesson 12 and the reader's own GPU, as a user meets them through AppTest."""

import pytest

from explorer.lessons import controls
from explorer.params import CUSTOM_GPU
from flashviz.run import decode
from flashviz.model.config import HARDWARE
from tests.conftest import figures
from tests.test_app import open_page, revealed_answer, texts

PAGE = "lessons/12_inference.py"
# The B200 preset's figures, typed in as a custom GPU.
B200_LINK = {"hw": "custom", "gpu_bw": "7700", "gpu_tc": "2250.0", "gpu_fp32": "75.0", "gpu_smem": "227",
             "gpu_l2": "126", "gpu_sms": "148", "gpu_mem": "180"}


def keyed_widgets(at):
    return [w for kind in ("slider", "select_slider", "toggle", "radio", "selectbox", "number_input")
            for w in at.get(kind)]


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_lesson_renders_with_its_charts():
    at = open_page(PAGE)
    assert at.title[0].value == "Inference: one query, the whole cache"
    assert len(figures(at)) == 3, "roofline, cache against HBM, split-KV times"


def test_every_widget_has_a_key_with_the_custom_gpu_open():
    at = open_page(PAGE, hw="custom")
    widgets = keyed_widgets(at)
    assert all(w.key for w in widgets)
    assert {p.key for p in CUSTOM_GPU} <= {w.key for w in widgets}


@pytest.mark.parametrize("key", ["inf_ctx", "inf_batch", "inf_heads", "inf_kv", "inf_layers", "inf_split", "hw",
                                 "gpu_bw", "gpu_sms", "gpu_mem"])
def test_each_control_at_its_extremes(key):
    at = open_page(PAGE, hw="custom")
    w = next(w for w in keyed_widgets(at) if w.key == key)
    if w.type in ("slider", "number_input"):
        p = controls().get(key) or next(p for p in CUSTOM_GPU if p.key == key)
        extremes = [p.lo, p.hi]
    else:
        extremes = [w.options[0], w.options[-1]]
        if w.type == "select_slider":
            extremes = [type(w.value)(x) for x in extremes]
    for value in extremes:
        w.set_value(value).run()
        assert not at.exception, f"{key}={value}: {[e.value for e in at.exception]}"
        w = next(w for w in keyed_widgets(at) if w.key == key)


@pytest.mark.parametrize("changed", [{"inf_kv": "32"}, {"hw": "H200 SXM"}, {"inf_heads": "64"},
                                     {"hw": "custom", "gpu_tc": "100"}])
def test_the_question_answer_follows_the_settings(changed):
    before = revealed_answer(open_page(PAGE))
    after = revealed_answer(open_page(PAGE, **changed))
    assert before != after, f"the answer did not move with {changed}: {before}"


def test_the_answer_is_the_engines_ratio():
    answer = revealed_answer(open_page(PAGE))
    cfg = decode.DecodeConfig(n_kv=8192, d=64, heads=32, kv_heads=8, batch=1)
    ratio = decode.decode_cost(cfg).bytes_per_flop / HARDWARE["A100 40GB"].balance("bfloat16")
    assert f"{ratio:.3g}×" in answer, answer


def test_mqa_reads_heads_times_fewer_bytes_than_mha():
    at = open_page(PAGE, inf_kv="1", inf_heads="64")
    assert "MQA reads 64× fewer bytes" in texts(at)


def test_a_custom_gpu_link_reopens_with_the_same_figures():
    at = open_page(PAGE, **B200_LINK)
    shown = {w.key: w.value for w in at.number_input}
    assert shown == {"gpu_bw": 7700, "gpu_tc": 2250.0, "gpu_fp32": 75.0, "gpu_smem": 227, "gpu_l2": 126,
                     "gpu_sms": 148, "gpu_mem": 180}
    assert dict(at.query_params) == {k: [v] for k, v in B200_LINK.items()} or \
        {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()} == B200_LINK
    preset = open_page(PAGE, hw="B200")
    for label in ("GPU feeds, bytes/flop", "decode needs, bytes/flop", "K/V cache, whole model"):
        assert metric(at, label) == metric(preset, label), label
    assert "the custom GPU's **148** SMs" in texts(at)


def test_a_custom_gpu_reaches_the_first_lesson():
    at = open_page("lessons/01_where_time_goes.py", **B200_LINK)
    feed = HARDWARE["B200"].balance("bfloat16")
    shown = next(m.value for m in at.metric if "feeds" in m.label)  # lesson 1's wording is its own
    assert shown == f"{feed:.3g}"


def test_a_bad_custom_figure_gets_a_note_and_a_safe_value():
    at = open_page(PAGE, hw="custom", gpu_sms="-4", gpu_bw="<b>x</b>")
    notes = [w.value for w in at.warning]
    assert any("`gpu_sms=-4` is outside 1 to 4096; using 1" in n for n in notes), notes
    assert any("`gpu_bw=<b>x</b>` is not a number" in n for n in notes), notes
    assert at.number_input(key="gpu_sms").value == 1
    assert not at.exception


def test_split_kv_pays_at_batch_one_and_not_at_a_big_batch():
    small = texts(open_page(PAGE, inf_batch="1"))
    big = texts(open_page(PAGE, inf_batch="256"))
    assert "shorter, for" in small
    assert "the best is not to split" in big


def test_the_worked_merge_equals_the_unsplit_answer():
    at = open_page(PAGE, inf_split="3")
    line = next(m.value for m in at.markdown if "Unsplit attention gives" in m.value)
    err = float(line.split("the largest difference is **")[1].split("**")[0])
    assert err < 1e-12
    assert len(at.dataframe[-1].value) == 3 or any(len(df.value) == 3 for df in at.dataframe)


@pytest.mark.parametrize(("asked", "made"), [(5, 4), (7, 6), (4, 4)])
def test_the_worked_merge_says_how_many_chunks_it_cut_the_keys_into(asked, made):
    """16 keys in chunks of ⌈16/k⌉: 5 asked for make 4 (a laptop reader read "cut into 4 chunks" beside a slider at
    5): the sentence names both, and the table has one row a chunk."""
    at = open_page(PAGE, inf_split=str(asked))
    line = next(m.value for m in at.markdown if "One query row against 16 cached keys" in m.value)
    said = (f"cut into {made} chunks." if asked == made else
            f"asked for {asked} chunks: chunks of ⌈16/{asked}⌉ = {-(-16 // asked)} keys cut it into {made}.")
    assert said in line, line
    assert any(len(df.value) == made and "m_i" in df.value.columns for df in at.dataframe)


def test_the_roofline_draws_the_custom_gpu():
    at = open_page(PAGE, **B200_LINK)
    spec = figures(at)[0]
    assert "custom GPU" in [t.get("name") for t in spec["data"]]


def test_every_custom_figure_rejects_every_hostile_value_cleanly():
    from explorer.params import shown
    from tests.hostile import VALUES
    for p in CUSTOM_GPU:
        for value in VALUES:
            parsed, note = p.parse(value)
            assert p.lo <= parsed <= p.hi, (p.key, value, parsed)
            if note:
                assert "`" not in shown(value) and "\n" not in note


def test_the_custom_gpu_travels_to_the_next_lesson():
    at = open_page(PAGE, **B200_LINK)
    at.button(key="prev_lesson").click().run()
    assert not at.exception
    assert at.number_input(key="gpu_sms").value == 148
