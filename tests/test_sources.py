"""Sources and assumptions: every preset figure has a source, every key a page cites exists,
every assumption says what real GPUs do, and lesson 1 shows each GPU's sheet."""
import re
from dataclasses import fields

import pytest

from flashviz.model import sweeps
from flashviz.model.config import HARDWARE, Hardware, custom_hardware
from flashviz.model.sources import ASSUMPTIONS, PRESET_SOURCES, READING, SOURCES, cite, figure_source, preset_sources
from tests.conftest import ROOT

FIGURES = [f.name for f in fields(Hardware) if f.name != "name"]
# Where pages, the Streamlit layer and the engine cite: cite("key", ...), assumes("key"),
# figure_source("preset", "field"), with either quote.
CODE = [p for d in ("lessons", "explorer", "flashviz") for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
CALL = re.compile(r"""\b(cite|assumes|figure_source)\(\s*(['"])([^'"]+)\2(?:\s*,\s*(['"])([^'"]+)\4)?""")


def calls(name: str) -> list[tuple[str, str, str]]:
    """(file, first argument, second argument or "") of every literal call to `name`."""
    return [(p.relative_to(ROOT).as_posix(), m[3], m[5] or "") for p in CODE
            for m in CALL.finditer(p.read_text(encoding="utf-8")) if m[1] == name]


@pytest.mark.parametrize("preset", HARDWARE)
def test_every_preset_figure_has_a_source(preset):
    cited = PRESET_SOURCES.get(preset, {})
    assert sorted(cited) == sorted(FIGURES), f"{preset}: missing {sorted(set(FIGURES) - set(cited))}"
    for field, (key, where) in cited.items():
        assert key in SOURCES, f"{preset}.{field} cites unknown source {key!r}"
        assert where.strip(), f"{preset}.{field}: say where in {key} the figure is"


def test_no_source_names_a_preset_that_is_not_there():
    assert set(PRESET_SOURCES) <= set(HARDWARE), sorted(set(PRESET_SOURCES) - set(HARDWARE))


def test_the_code_cites_the_calls_it_makes():
    """Finds calls at all, so an empty grep does not pass for a clean one."""
    assert calls("cite") and calls("assumes"), "the grep found no cite(...) or assumes(...) call"


@pytest.mark.parametrize("call", calls("cite"), ids=lambda c: f"{c[0]}:{c[1]}")
def test_every_cited_source_exists(call):
    assert call[1] in SOURCES, f"{call[0]} cites {call[1]!r}, not in sources.SOURCES"


@pytest.mark.parametrize("call", calls("assumes"), ids=lambda c: f"{c[0]}:{c[1]}")
def test_every_model_mark_has_its_entry(call):
    assert call[1] in ASSUMPTIONS, f"{call[0]} marks {call[1]!r}, not in sources.ASSUMPTIONS"


@pytest.mark.parametrize("call", calls("figure_source"), ids=lambda c: f"{c[0]}:{c[1]}")
def test_every_cited_figure_has_a_source(call):
    assert call[2] in PRESET_SOURCES.get(call[1], {}), f"{call[0]} cites {call[1]}.{call[2]}, which has no source"


@pytest.mark.parametrize("key", ASSUMPTIONS)
def test_every_assumption_says_what_it_does_and_what_real_gpus_do(key):
    a = ASSUMPTIONS[key]
    for part in ("title", "model", "real"):
        assert len(getattr(a, part).strip()) >= (3 if part == "title" else 40), f"{key}.{part} is empty or a stub"
    assert a.model != a.real


def test_the_keys_other_pages_use_are_there():
    assert {"spill", "l2", "softmax_added", "bandwidth_share", "split_merge", "fp64", "sram_registers",
            "roofline"} <= set(ASSUMPTIONS)


def test_the_reading_list_has_the_inference_and_memory_papers():
    titles = {SOURCES[k].title for k in READING}
    for words in ("Flash-Decoding", "one write-head", "GQA", "PagedAttention", "does not need O(n²) memory"):
        assert any(words in t for t in titles), f"reading list lacks {words!r}: {sorted(titles)}"


@pytest.mark.parametrize("key", READING)
def test_every_reading_has_a_link(key):
    assert SOURCES[key].url.startswith("https://"), key


@pytest.mark.parametrize("key", SOURCES)
def test_every_source_is_a_web_address_or_this_projects_own(key):
    s = SOURCES[key]
    assert s.url.startswith("https://") or (not s.url and "this project" in s.who), key


def test_a_citation_links_the_source_and_says_where():
    assert cite("fa2", "§3.3") == "[FlashAttention-2, §3.3](https://arxiv.org/abs/2307.08691)"
    assert cite("h200_measured") == "measured on this project's H200", "no link where there is no address"


def test_b200_is_the_hgx_part_not_the_gb200():
    b = HARDWARE["B200"]
    figures = (b.hbm_bytes_per_s, b.fp32_flops, b.fp16_tensor_flops, b.hbm_gb)
    assert figures == (7.7e12, 75e12, 2250e12, 180), \
        f"HGX B200 (180 GB): 7.7 TB/s, 75 TFLOP/s FP32, 2.25 PFLOP/s dense FP16; got {figures} (8 TB/s, 80: GB200)"
    assert "HGX B200" in PRESET_SOURCES["B200"]["hbm_bytes_per_s"][1]


def test_a_figure_cites_its_sheet():
    assert figure_source("H200 SXM", "sms").startswith("measured on this project's H200")
    assert "nvidia.com/en-us/data-center/h200" in figure_source("H200 SXM", "hbm_bytes_per_s")


def test_the_caption_names_every_presets_sheets_and_skips_a_typed_in_gpu():
    line = preset_sources([*HARDWARE, "custom GPU"])
    for key in ("a100", "ampere", "h100", "hopper", "h200", "blackwell", "mi300x", "rocm", "cuda"):
        assert SOURCES[key].url in line, key
    assert "custom" not in line


def test_the_hardware_table_names_each_rows_sheet():
    own = custom_hardware(1000, 100, 10, 100, 10, 10, 10)
    table = sweeps.hardware_table({**HARDWARE, own.name: own}).set_index("GPU")["source"]
    assert table["B200"] == SOURCES["blackwell"].short
    assert table["MI300X"] == SOURCES["mi300x"].short
    assert table[own.name] == "typed in"


def test_lesson_one_shows_the_sources_and_the_list_every_mark_links_to():
    from tests.test_app import open_page, texts
    at = open_page("lessons/01_where_time_goes.py")
    shown = texts(at)
    assert "[*model: one SRAM budget*](#model-sram_registers)" in shown
    assert SOURCES["blackwell"].url in shown, "the caption under the GPU table links each sheet"
    assert any(h.value == "What this model assumes" for h in at.subheader)
    anchors = " ".join(m.value for m in at.markdown)
    for key in ASSUMPTIONS:
        assert f'id="model-{key}"' in anchors, f"no entry for the mark #model-{key}"


def test_the_assumptions_hold_no_html_but_their_entries_blocks():
    """notes.ASSUMPTIONS_MARKDOWN is drawn with HTML allowed (each entry a block its mark links to): its text may hold
    no markup of its own, no character HTML would read."""
    import re
    from explorer.notes import ASSUMPTIONS_MARKDOWN
    blocks = re.findall(r'<div id="model-(\w+)" class="fv-model">|</div>', ASSUMPTIONS_MARKDOWN)
    assert [key for key in blocks if key] == list(ASSUMPTIONS) and blocks.count("") == len(ASSUMPTIONS)
    text = re.sub(r'<div id="model-\w+" class="fv-model">|</div>', "", ASSUMPTIONS_MARKDOWN)
    assert not set("<>&") & set(text), sorted(set("<>&") & set(text))


def test_on_a_projector_a_mark_is_its_words_without_a_link_to_the_list_it_hides():
    from tests.test_app import open_page, texts
    at = open_page("lessons/01_where_time_goes.py", present="true")
    at.button(key="reveal_answer").click().run()
    shown = texts(at)
    assert "*model: roofline time*" in shown and "](#model-" not in shown, shown[:2000]
    assert not any(h.value == "What this model assumes" for h in at.subheader)


def test_a_figures_citation_carries_only_its_own_note():
    """The H200's HBM capacity is not cited with the 16-bit rate's "sparse figure halved" (issue 37's expert read)."""
    from flashviz.model.sources import _DENSE, PRESET_SOURCES, figure_source
    for preset, cited in PRESET_SOURCES.items():
        for field in cited:
            assert (_DENSE in figure_source(preset, field)) == (field == "fp16_tensor_flops"
                                                                and _DENSE in cited[field][1]), (preset, field)
