"""What the app leans on in Streamlit beyond its documented API, each checked against the Streamlit
installed here, so that an upgrade that changes one fails here by name (CI runs this at the oldest
versions requirements.txt allows, at the newest, and at the lock; docs/ci.md's "The Streamlit internals guarded"
lists the same). Behaviour that only a browser shows is checked by the browser tests named in
INTERNALS; this file checks that the pieces are still there.
"""
import inspect
import re
import tomllib
from functools import cache
from pathlib import Path

import pytest
import streamlit as st

from tests.conftest import ROOT

STREAMLIT = Path(st.__file__).parent
APP_CODE = [*sorted((ROOT / "explorer").glob("*.js")), *sorted((ROOT / "explorer").glob("*.html")),
            *sorted((ROOT / "explorer").glob("*.css")), *sorted((ROOT / "explorer").glob("*.py")), ROOT / "app.py",
            *sorted((ROOT / "lessons").glob("*.py"))]

# name: (what we rely on, where, what checks it)
INTERNALS = {
    "iframe size message": ("a player's iframe sizes itself by posting {type: 'streamlit:iframe:setSize'} to "
                            "the parent, as st.iframe's own content does", "explorer/player_common.js (fvFitFrame)",
                            "test_the_frontend_sizes_an_iframe_from_its_message; tests/test_player_layout_browser.py"),
    "test ids": ("the clicker and the CSS find Streamlit's elements by their data-testid", "explorer/clicker.js, "
                 "explorer/css.py", "test_every_test_id_the_app_selects_is_in_the_frontend"),
    "key classes": ("an element with a key carries the class st-key-<key>: the clicker presses buttons by it",
                    "explorer/clicker.js", "test_keyed_elements_carry_their_key_as_a_class"),
    "script state": ("the app root's data-test-script-state says when a run has ended: the clicker places a "
                     "section then", "explorer/clicker.js", "test_the_app_root_says_when_a_run_ends"),
    "run context": ("a fragment's rerun is told apart from a full run by the run context's fragment_ids_this_run",
                    "explorer/deck.py (section)", "test_the_run_context_names_the_fragments_of_this_run"),
    "config options": ("every option in .streamlit/config.toml exists (an unknown one is ignored with a log line, "
                       "silently on a host)", ".streamlit/config.toml", "test_every_config_option_exists"),
    "health and stream routes": ("/_stcore/health answers ok, the websocket is /_stcore/stream",
                                 "Dockerfile, deploy/nginx.conf, deploy/serve_replicas.py, bench/",
                                 "test_the_served_routes_answer"),
    "navigation": ("a page's url_path is its address (the strip's links are its own), also with the navigation "
                   "hidden; switch_page carries query_params; a pages/ folder would run legacy discovery first "
                   "(docs/contributing.md, Layout)",
                   "app.py, explorer/deck.py, explorer/nav.py",
                   "test_the_calls_take_the_arguments_the_app_passes; tests/test_browser.py's deep-link tests"),
    "download replies": ("a download button's file is asked for after the click and sent back on the session's "
                         "queue, which a script run that starts clears of all but lifecycle messages "
                         "(AppSession._clear_queue): every download button takes on_click='ignore', so that its "
                         "click starts no run", "explorer/display.py (table), lessons/03_tiling.py",
                         "test_every_download_button_starts_no_run; tests/test_links_browser.py's CSV download"),
    "protocol": ("the load benchmarks and their smoke test speak Streamlit's websocket protobufs (BackMsg "
                 "rerun_script with widget_states, ForwardMsg ref_hash and script_finished)", "tests/st_client.py, "
                 "bench/load.py", "test_the_protocol_has_the_fields_the_benchmarks_use; tests/test_load_smoke.py"),
}


@cache
def bundle() -> str:
    """The frontend's JavaScript as installed."""
    files = sorted((STREAMLIT / "static").rglob("*.js"))
    assert files, f"no frontend JavaScript under {STREAMLIT / 'static'}: has the package's layout changed?"
    return "\n".join(f.read_text(errors="replace") for f in files)


def test_the_list_names_a_test_that_exists_for_each_internal():
    here = {name for name in globals() if name.startswith("test_")}
    for name, (_, _, checked_by) in INTERNALS.items():
        named = [t.strip() for t in checked_by.split(";") if t.strip().startswith("test_")]
        assert named and all(t in here for t in named), f"{name}: its check {checked_by!r} is not in this file"


def test_the_frontend_sizes_an_iframe_from_its_message():
    ours = (ROOT / "explorer" / "player_common.js").read_text()
    assert "streamlit:iframe:setSize" in ours
    assert "streamlit:iframe:setSize" in bundle(), (
        "Streamlit's frontend no longer handles the 'streamlit:iframe:setSize' message: the players' iframes "
        "would keep their first height (explorer/player_common.js, fvFitFrame)")


def test_every_test_id_the_app_selects_is_in_the_frontend():
    ids = set()
    for f in APP_CODE:
        ids |= set(re.findall(r"""data-testid[\^*$]?=\\?["']([A-Za-z]+)""", f.read_text()))
    assert {"stApp", "stMain", "stHeader", "stSidebar"} <= ids, "the scan finds the app's selectors"
    js = bundle()
    gone = sorted(i for i in ids if not re.search(rf"[`\"']{i}[`\"']", js))
    assert not gone, f"data-testid values the app selects but Streamlit's frontend no longer draws: {gone}"


def test_keyed_elements_carry_their_key_as_a_class():
    assert "st-key-" in bundle(), ("Streamlit no longer gives a keyed element the class st-key-<key>: the clicker "
                                   "cannot find its buttons (explorer/clicker.js)")


def test_the_app_root_says_when_a_run_ends():
    js = bundle()
    for piece in ("data-test-script-state", "notRunning", "running"):
        assert piece in js, f"the app root no longer carries {piece!r}: the clicker cannot tell a run's end"


def test_the_run_context_names_the_fragments_of_this_run():
    from streamlit.runtime.scriptrunner import get_script_run_ctx  # the one import from Streamlit's runtime
    assert callable(get_script_run_ctx)
    import dataclasses

    from streamlit.runtime.scriptrunner import ScriptRunContext
    fields = {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert "fragment_ids_this_run" in fields, "ScriptRunContext lost fragment_ids_this_run (explorer/deck.py, section)"


def test_every_config_option_exists():
    from streamlit import config
    options = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    names = [f"{section}.{key}" for section, keys in options.items() for key in keys]
    assert len(names) > 10
    unknown = []
    for name in names:
        try:
            config.get_option(name)
        except RuntimeError:
            unknown.append(name)
    assert not unknown, f"options in .streamlit/config.toml this Streamlit does not know (it ignores them): {unknown}"


def test_the_calls_take_the_arguments_the_app_passes():
    wanted = {st.html: ["unsafe_allow_javascript"], st.button: ["shortcut", "width"], st.navigation: ["position"],
              st.switch_page: ["query_params"], st.Page: ["url_path", "title"], st.iframe: ["height"],
              st.fragment: [],
              st.container: ["key", "horizontal", "width", "gap"]}
    for call, names in wanted.items():
        params = inspect.signature(call).parameters
        missing = [n for n in names if n not in params]
        assert not missing, f"st.{call.__name__} no longer takes {missing}"


def test_every_download_button_starts_no_run():
    """A click that reran the page lost the file in 4 of 40 clicks beside a CPU hog (bench/downloads.py)."""
    import ast
    click = inspect.signature(st.download_button).parameters.get("on_click")
    assert click is not None and "ignore" in str(click.annotation), "st.download_button lost on_click='ignore'"
    calls = []
    for f in APP_CODE:
        if f.suffix == ".py":
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "download_button":
                    click = next((k.value for k in node.keywords if k.arg == "on_click"), None)
                    calls.append((f"{f.relative_to(ROOT)}:{node.lineno}",
                                  isinstance(click, ast.Constant) and click.value == "ignore"))
    assert len(calls) >= 2, f"the scan finds the app's download buttons (a table's, lesson 3's listing): {calls}"
    rerun = [where for where, ignored in calls if not ignored]
    assert not rerun, f"download buttons whose click reruns the page (pass on_click='ignore'): {rerun}"


def test_the_protocol_has_the_fields_the_benchmarks_use():
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    back = BackMsg()
    assert {"query_string", "page_script_hash", "widget_states"} <= set(back.rerun_script.DESCRIPTOR.fields_by_name)
    fields = set(ForwardMsg.DESCRIPTOR.fields_by_name)
    assert {"ref_hash", "script_finished", "delta", "new_session"} <= fields
    assert ForwardMsg.FINISHED_EARLY_FOR_RERUN != ForwardMsg.FINISHED_SUCCESSFULLY


@pytest.mark.timeout(180)
def test_the_served_routes_answer():
    import asyncio
    import urllib.request

    import websockets

    from tests.serving import serve
    with serve() as url:
        assert urllib.request.urlopen(url + "/_stcore/health", timeout=10).read() == b"ok"
        assert urllib.request.urlopen(url + "/_stcore/host-config", timeout=10).status == 200

        async def opens() -> bool:
            async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream") as ws:
                return ws is not None
        assert asyncio.run(opens()), "the websocket /_stcore/stream did not open"
