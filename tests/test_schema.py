"""One schema: the sidebar's controls are Config's knobs. Each knob's URL key, default and offered
values come from flashviz.model.config, so the app and the engine cannot drift apart, and a knob added
to Config (with its label) appears in the sidebar, in deep links and in ui.config()."""
from dataclasses import fields

import pytest

from explorer.params import ENGINE, FIELDS, LABELS, SHARED, UNITS
from flashviz.model.config import Config, knobs


def test_every_knob_of_the_engine_is_a_sidebar_control_and_nothing_else_is():
    declared = {f.name for f in fields(Config) if "knob" in f.metadata}
    assert declared == set(ENGINE) == set(LABELS) == set(FIELDS.values())
    for name in declared:
        assert SHARED[ENGINE[name].key] is ENGINE[name]


@pytest.mark.parametrize("name", sorted(knobs()))
def test_a_controls_default_is_the_engines_default_in_its_own_unit(name):
    knob, default = knobs()[name]
    param = ENGINE[name]
    assert getattr(Config(), name) == default
    if knob.unit == 1:
        assert param.default == default
    else:
        assert param.default * knob.unit == default and UNITS[param.key] == knob.unit
    if knob.options:
        assert param.options == knob.options and param.default in param.options


@pytest.mark.parametrize("name", sorted(knobs()))
def test_every_offered_value_makes_a_valid_config(name):
    """What the control offers, the engine accepts (tiles and n together: a tile up to n)."""
    knob, _ = knobs()[name]
    values = knob.options or ((knob.lo, knob.hi) if knob.lo is not None else (False, True))
    for value in values:
        extra = {"n": 1024, "Br": 1024, "Bc": 1024} if name in ("Br", "Bc") else {}
        if name == "n":
            extra = {"Br": min(64, value), "Bc": min(64, value)}
        field = value * knob.unit if knob.unit != 1 else value
        assert getattr(Config(**{**extra, name: field}), name) == field


def test_ui_config_turns_each_control_into_its_field():
    """sram=128 in the sidebar (or a link) is 128 KB of SRAM in the Config; tiles are cut to n."""
    import streamlit as st

    from explorer import ui
    st.session_state.update({"sram": 128, "order": "fa1", "causal": True, "n": 32, "dtype": "bfloat16"})
    try:
        cfg = ui.config()
    finally:
        for key in ("sram", "order", "causal", "n", "dtype"):
            del st.session_state[key]
    assert cfg == Config(n=32, d=64, Br=32, Bc=32, sram_bytes=128 * 1024, dtype="bfloat16", causal=True,
                         loop_order="fa1")
    assert ui.config() == Config()


def sidebar_keys(**params) -> set[str]:
    """The keys of the input widgets the app draws in its sidebar (AppTest), with these URL parameters."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    kinds = ("slider", "select_slider", "toggle", "radio", "selectbox", "number_input", "checkbox", "text_input")
    return {w.key for kind in kinds for w in at.sidebar.get(kind)}


def test_the_sidebar_draws_every_control_of_the_schema_and_nothing_else():
    """A knob declared in Config and labelled, but not drawn by ui.shared_controls(), fails here."""
    drawn = sidebar_keys()
    assert drawn == set(SHARED), (f"in the schema, not drawn: {sorted(set(SHARED) - drawn)} (add a "
                                  f"bound(SHARED[key], ...) in explorer/widgets.py's shared_controls()); drawn, not in "
                                  f"the schema: {sorted(drawn - set(SHARED))}")


def test_a_custom_gpu_adds_its_figures_to_the_sidebar():
    from explorer.params import CUSTOM_GPU
    assert sidebar_keys(hw="custom") == set(SHARED) | {p.key for p in CUSTOM_GPU}
