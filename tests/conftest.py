import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"  # Debian's (.ci/run installs it), driven through Playwright
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The deadline of every wait in the browser tests, in ms. Playwright's expect() waits 5 s by default: too short
# for a busy CI machine. Every wait still returns as soon as its state holds; only the deadline moves. 30 s was
# once too short: CI at d4a0299, on a slower 2-core host beside a CPU hog, three test workers, mypy and both
# version ends, found a reloaded lesson still running after 30 s (tests/test_links_browser.py).
WAIT = 60_000
try:
    from playwright.sync_api import expect
except ImportError:
    pass
else:
    expect.set_options(timeout=WAIT)

try:  # Every AppTest run scans all installed distributions' metadata for Streamlit components (v2), about
    # 0.13 s a run, over a thousand runs here. What is installed does not change while the tests run: scan once.
    from streamlit.components.v2 import manifest_scanner as _scanner
except ImportError:  # a Streamlit before them (1.66, requirements.txt's lowest, has them)
    pass
else:
    import functools

    _scan_once = functools.cache(_scanner.scan_component_manifests)
    _scanner.scan_component_manifests = lambda max_workers=None: list(_scan_once())

# explorer/warm.py readies some lessons' tables in a thread of the app's process, once it has been idle after its
# first run. In a test's own process (AppTest) that thread would run beside the tests and call what a test patches:
# never started there (tests/test_warm.py starts its own; the browser tests' server warms as a deployment does).
from explorer import warm as _warm  # noqa: E402

_warm._started.set()


# The browser tests' server, Chromium and pages. One server for every browser test of a run: its first visit
# to each setting of each lesson costs seconds of CPU (the engine's work, which Streamlit's cache then keeps),
# and CI shares its machine. Under pytest-xdist the controller starts it and hands its address to every
# worker (pytest_configure_node), so the workers share its cache; in one process, the first browser test
# starts it. One Chromium per process, started by the first browser test and kept, with its tabs (Tabs),
# from one browser test file to the next: a tab's renderer, kept, makes a lesson's load cost about 0.4 of the
# CPU of one in a new tab (bench/page_loads.py). Playwright's sync API holds an event loop while it runs, in
# which no other file could run its own (asyncio.run, another sync_playwright): the first test of a file that
# drives no browser through these fixtures closes it (pytest_runtest_setup), and the next browser test starts
# another.
SHARED = "flashviz_server"
SHARED_LOG = "flashviz_server_log"  # where the shared server's warnings go (a failed browser test prints them)


def figures(at, config: bool = False) -> list:
    """Every chart an AppTest run drew (explorer/plot.py draws each in place), as its figure's JSON, in page
    order; with `config`, each as (figure, Plotly's config)."""
    import json

    out = []
    for el in at.get("bidi_component"):
        if el.proto.component_name.endswith("flashviz.plot"):
            data = json.loads(el.proto.json)
            spec = json.loads(data["spec"])
            out.append((spec, json.loads(data["config"])) if config else spec)
    return out


@pytest.fixture(scope="session")
def server(request):
    from tests.serving import healthy, serve
    shared = getattr(request.config, "workerinput", {}).get(SHARED)
    if shared:
        _server_log.append(Path(request.config.workerinput[SHARED_LOG]))
        healthy(shared)
        yield shared
        return
    with serve() as url:
        yield url


def _browser_tests_can_run() -> bool:
    import importlib.util
    import os
    return importlib.util.find_spec("playwright") is not None and os.path.exists(CHROMIUM)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist's controller, before each worker starts: the shared server's address."""
    served = getattr(node.config, "_flashviz_served", None)
    if served:
        node.workerinput[SHARED] = served[1]
        node.workerinput[SHARED_LOG] = str(served[2])


# A projector's screen and a phone's (a touch screen, two device pixels to a CSS pixel).
SCREENS: dict[str, dict] = {"1280x720": {"viewport": {"width": 1280, "height": 720}},
                             "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True,
                                       "has_touch": True, "device_scale_factor": 2}}


class Tabs:
    """The browser tabs of a process's Chromium, each kept for test after test and file after file. Every test
    still opens the app afresh (its own `goto`: a new document and a new Streamlit session), with no cookie,
    local or session storage left by the one before. What a tab keeps is Chromium's renderer process for the
    app: a lesson loaded in it costs about 0.4 of the CPU of one loaded in a new tab (bench/page_loads.py), on
    a machine CI shares."""

    def __init__(self, browser):
        self.browser = browser
        self.open: dict[tuple[str, str], object] = {}

    def get(self, screen: str = "1280x720", viewport: dict | None = None, name: str = "test"):
        """The tab `name` for `screen` (a key of SCREENS), cleaned and sized to `viewport` (default: the
        screen's). Tabs of different names are different tabs: a fixture that keeps a page open across tests
        takes a name of its own."""
        pg = self.open.get((screen, name))
        if pg is None or pg.is_closed():
            pg = self.browser.new_context(**SCREENS[screen]).new_page()
            pg.add_init_script(_HISTORY)
            self.open[(screen, name)] = pg
        size = viewport or SCREENS[screen]["viewport"]
        if pg.viewport_size != size:
            pg.set_viewport_size(size)
        pg.context.clear_cookies()
        if pg.url.startswith("http"):  # the last test's page: its origin's storage, which the next page shares
            try:
                pg.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            except Exception:  # a page the last test left broken: a new tab in a new context instead
                pg.context.close()
                del self.open[(screen, name)]
                return self.get(screen, viewport, name)
        return pg

    def kept(self, screen: str = "1280x720", name: str = "test"):
        """The tab `name` for `screen` as the last test left it, or None: for a fixture that goes on from the
        page it showed before (a lesson's link in the strip, clicked) instead of loading another."""
        pg = self.open.get((screen, name))
        return None if pg is None or pg.is_closed() else pg

    def close(self) -> None:
        for pg in self.open.values():
            pg.context.close()


_LIVE: dict = {}  # this process's Playwright, Chromium and Tabs, while a browser test file runs
_DRIVES = ("browser", "tabs", "page")  # the fixtures through which a test drives the kept Chromium
_BROWSER_FILES: set[str] = set()  # the test modules with a test that uses one of them (found at collection)


def _live() -> dict:
    if not _LIVE:
        from playwright.sync_api import sync_playwright

        from tests.test_browser import ARGS
        pw = sync_playwright().start()
        try:
            b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except BaseException:
            pw.stop()
            raise
        _LIVE.update(pw=pw, browser=b, tabs=Tabs(b))
    return _LIVE


def _release() -> None:
    """Close the kept Chromium and end Playwright's event loop, if they run."""
    if _LIVE:
        live = dict(_LIVE)
        _LIVE.clear()
        try:
            live["tabs"].close()
            live["browser"].close()
        finally:
            live["pw"].stop()


@pytest.fixture(scope="module")
def browser():
    return _live()["browser"]


@pytest.fixture(scope="module")
def tabs():
    return _live()["tabs"]


def pytest_runtest_setup(item):
    """A file's first test, where no test of that file drives the kept Chromium: close it (see above)."""
    module = getattr(item, "module", None)
    if _LIVE and module is not None and module.__name__ not in _BROWSER_FILES:
        _release()


# Each page's history, for the report of a failure (below): the run's state as Streamlit marks it and the live
# figures' (explorer/live.js), each change with its time since the page was opened, the last 60. A wait for the
# run to be over that times out then says whether the run never ended or ended and began again at once.
_HISTORY = """(() => {
  const t0 = performance.now(), seen = (window.__fvHistory = []);
  let run = null, live = null;
  const note = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const now = [app && app.dataset.testScriptState, document.documentElement.dataset.fvLive];
    if (now[0] === run && now[1] === live) return;
    [run, live] = now;
    seen.push(`${Math.round(performance.now() - t0)} ms: ${run} ${live || ''}`);
    if (seen.length > 60) seen.shift();
  };
  new MutationObserver(note).observe(document, { attributes: true, subtree: true,
                                                 attributeFilter: ['data-test-script-state', 'data-fv-live'] });
})()"""

# What the page showed when a browser test failed, in the failure's report (CI keeps only its log): the address,
# the run's state, the lesson drawn, the lesson buttons and their shortcuts, the focus, skeletons, exceptions and the
# history.
_STATE = """() => {
  const app = document.querySelector('[data-testid="stApp"]'), deck = document.querySelector('.fv-deck');
  const keys = typeof hotkeys === 'function' ? { bound: hotkeys.getAllKeyCodes().map(h => h.shortcut),
                                                 pressed: hotkeys.getPressedKeyCodes() } : null;
  const all = s => [...document.querySelectorAll(s)];
  // the focused element, and for a widget its key and the value it shows (a key pressed on a slider, lost or not)
  const focused = (el) => {
    if (!el) return null;
    const box = el.closest && el.closest('[class*="st-key-"]');
    const key = box && [...box.classList].find(c => c.startsWith('st-key-'));
    return [el.tagName, key, el.getAttribute('aria-valuetext') || el.value].filter(Boolean).join(' ');
  };
  return { url: location.href, run: app && app.dataset.testScriptState, lesson: deck && deck.dataset.lesson,
           buttons: all('.st-key-prev_lesson button, .st-key-next_lesson button').map(b => b.innerText),
           hotkeys: keys, focus: focused(document.activeElement),
           skeletons: all('[data-testid^="stSkeleton"]').length,
           exceptions: all('[data-testid="stException"]').map(e => e.innerText.slice(0, 300)),
           history: window.__fvHistory || null };
}"""


_server_log: list[Path] = []  # the shared server's log, under xdist


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    pg = getattr(item, "funcargs", {}).get("page")
    if report.when == "call" and report.failed and pg is not None:
        try:
            report.sections.append(("the page when it failed", str(pg.evaluate(_STATE))))
        except Exception as err:  # a closed or broken page says so
            report.sections.append(("the page when it failed", f"(not read: {err!r:.200})"))
        if _server_log:
            from tests.serving import log_tail
            report.sections.append(("the shared server's warnings", log_tail(_server_log[0])))


@pytest.fixture
def page(tabs):
    """A tab at a projector's 1280x720, for one test."""
    return tabs.get()


def dry_run(script: str, out, *extra: str) -> None:
    """Run bench/gpu/<script> --dry-run [extra] on the CPU into `out`; PyTorch missing: a skip that says why,
    or a failure where FLASHVIZ_REQUIRE_TORCH says it must run (.ci/run installs its CPU build)."""
    import importlib.util
    import os
    import subprocess

    import pytest
    if importlib.util.find_spec("torch") is None:
        if os.environ.get("FLASHVIZ_REQUIRE_TORCH"):
            pytest.fail(f"PyTorch is required here for bench/gpu/{script}'s dry run (.ci/run installs its CPU build)")
        pytest.skip(f"PyTorch is not installed, so bench/gpu/{script}'s CPU dry run cannot run "
                    "(`pip install torch --index-url https://download.pytorch.org/whl/cpu` adds it)")
    done = subprocess.run([sys.executable, f"bench/gpu/{script}", "--dry-run", "--out", str(out), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


# Under pytest-xdist with --dist loadfile (CI: .ci/run), each file goes whole to one worker, in collection
# order, as workers free up (pytest_configure below keeps that order). The longest files go first, so no
# worker starts a long one near the end: those measured longest (serial CPU-seconds, longest first), then
# the rest of those that drive a browser or serve the app, then the rest in name order.
_LONGEST = ("test_deck_browser.py", "test_links_browser.py", "test_player_browser.py", "test_app.py",
            "test_claims.py", "test_browser.py", "test_player_layout_browser.py", "test_nav_browser.py")
_SERVE = ("_browser.py", "test_deploy.py", "test_replicas.py", "test_load_smoke.py")


def _rank(path: str) -> tuple[int, int]:
    name = path.rsplit("/", 1)[-1]
    if name in _LONGEST:
        return 0, _LONGEST.index(name)
    return (1 if name.endswith(_SERVE) else 2), 0


def pytest_collection_modifyitems(config, items):
    _BROWSER_FILES.update(item.module.__name__ for item in items
                          if getattr(item, "module", None) is not None and set(_DRIVES) & set(item.fixturenames))
    if getattr(config.option, "dist", "no") != "no":
        items.sort(key=lambda item: _rank(item.nodeid.split("::")[0]))  # stable: in-file order is kept


def pytest_configure(config):
    controller = getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput")
    if controller and _browser_tests_can_run():
        import os
        import tempfile

        from tests.serving import start
        held, name = tempfile.mkstemp(prefix="flashviz-server-", suffix=".log")
        os.close(held)  # the server opens it by name
        log = Path(name)
        # xdist's controller: the workers' shared server, starting meanwhile
        config._flashviz_served = (*start(log=log), log)
    # xdist (3.7 on) hands out files by their number of tests, most first, unless told not to; the files here
    # with the most tests are short (tests/test_charts.py: a thousand in seconds), so it would start the long
    # ones last.
    if getattr(config.option, "dist", "no") == "loadfile" and hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_unconfigure(config):
    _release()
    served = getattr(config, "_flashviz_served", None)
    if served:
        from tests.serving import stop
        stop(served[0])
        served[2].unlink(missing_ok=True)
