"""The projector deck in a real Chromium: a teacher with a clicker (PageDown / PageUp only) at
1280x720 runs every lesson section by section, from a presenter link with a teacher's settings
(n = 8192, d = 128, float16, causal, B200).

Each press waits for the state it should bring (the question answered, the next section at the
top, the next lesson open), never for a fixed time. A figure (chart, player, table) counts as
shown when it lies whole between the top bar and the bottom of the screen.
"""
import re

import pytest

from explorer.lessons import LESSONS
from explorer.params import SHARED
from tests.test_browser import IDLE, SHOTS, SKELETON, WAIT, capture, drawn, expect, lesson_url, pytestmark, query  # noqa: F401

SETTINGS = "n=8192&d=128&dtype=float16&causal=true&hw=B200&present=true"

# Every figure on the page, named by the key of the element that holds it, with whether it lies
# whole on screen under the top bar; the section the clicker says is on screen; how many there are.
LOOK = """() => {
  const head = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const name = e => {
    for (let a = e; a; a = a.parentElement) {
      const k = [...a.classList].find(c => c.startsWith("st-key-"));
      if (k) return k;
    }
    return "?";
  };
  const figures = [...document.querySelectorAll('[data-testid="stMain"] .fv-plot,' +
    '[data-testid="stMain"] iframe, [data-testid="stMain"] [data-testid="stDataFrame"]')];
  const marks = [...document.querySelectorAll('[data-testid="stMain"] .fv-slide')];
  let k = 0;
  marks.forEach((m, i) => { if (m.getBoundingClientRect().top <= head + 4) k = i + 1; });
  const shown = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;  // not folded away
  const mark = k > 0 ? marks[k - 1] : null, end = marks[k] || null;
  // an inline question still to reveal in the section on screen (the clicker answers it first)
  const inSection = b => (!mark || !!(mark.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)) &&
                         (!end || !!(end.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_PRECEDING));
  const inline = [...document.querySelectorAll('[class*="st-key-reveal_inline_"] button')];
  const at = window.__fvSection;
  // a figure of the section on screen whose bottom is under the screen's and whose top is under the bar:
  // the clicker's next PageDown scrolls to it before the next section
  const onward = figures.some(f => { const r = f.getBoundingClientRect();
    return inSection(f) && shown(f) && r.height > 0 && r.bottom > innerHeight + 8 && r.top > head + 1; });
  // ... and whether its box is below the screen: the clicker's next PageDown brings it on screen, unrevealed
  const box = inline.filter(inSection).map(b => b.closest('[class*="st-key-question_"]') || b)[0];
  const low = !!box && box.getBoundingClientRect().bottom > innerHeight + 1 &&
              box.getBoundingClientRect().top > head + 1;
  // how far the section's last block (before the next section's mark, or the deck's marker after the lesson) reaches
  // below the screen: the clicker shows it before it leaves the section
  const endMark = marks[k] || document.querySelector('.fv-deck');
  let last = endMark && endMark.closest('[data-testid="stElementContainer"]');
  last = last && last.previousElementSibling;
  while (last && last.getBoundingClientRect().height === 0) last = last.previousElementSibling;
  const tail = last ? Math.round(last.getBoundingClientRect().bottom - innerHeight) : 0;
  return { k, of: marks.length, inline: inline.length, tail, inline_here: inline.some(inSection), inline_below: low,
           part: at && at.k === k ? at.part || 0 : 0, onward,
           step: mark && mark.dataset.steps ? Number(mark.dataset.step) : null,
           steps: mark && mark.dataset.steps ? Number(mark.dataset.steps) : null,
           revealed: !document.querySelector(".st-key-reveal_answer button"),
           figures: figures.filter(shown).map(e => { const r = e.getBoundingClientRect();
             // its last 8 px may lie below the screen (its margin: the clicker's SLACK)
             return [name(e), Math.round(r.height), r.top >= head - 1 && r.bottom <= innerHeight + 8]; }),
           // the lesson's text, each block that fits the screen under the bar (a teacher's walk: four paragraphs of
           // lesson 13 went by in one press), by its first words
           texts: [...document.querySelectorAll('[data-testid="stMain"] :is([data-testid="stMarkdown"],' +
                                                '[data-testid="stCaptionContainer"])')]
             // not the lesson's question: its answer follows a section's presets, off the screen by then
             .filter(e => shown(e) && e.innerText.trim() && e.getBoundingClientRect().height < innerHeight - head
                          && !e.closest('.st-key-question'))
             .map(e => { const r = e.getBoundingClientRect();
               // a block's top margin may sit under the bar (lesson 1's first line: 3 px), its text below it
               return [e.innerText.trim().slice(0, 60), Math.round(r.height),
                       r.top >= head - 8 && r.bottom <= innerHeight + 1]; }) };
}"""


SCROLLED = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"
# After a press that scrolled a section on by less than a third of the screen: a figure whole on screen whose top
# stands within the clicker's ROOM (64 px, a caption line) of the top bar, so that scrolling further would have cut
# it or its caption; or the page at its end. Else the press moved the page a few pixels where it could have moved a
# third of the screen, and looked dead to the room (a teacher's walk: 7-100 px in lessons 3, 5 and 11).
TOPPED = """() => {
  const head = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  const s = document.querySelector('[data-testid="stMain"]');
  if (s.scrollTop + s.clientHeight >= s.scrollHeight - 1) return true;
  return [...document.querySelectorAll('[data-testid="stMain"] :is(.fv-plot, iframe, [data-testid="stDataFrame"])')]
    .some(f => { const r = f.getBoundingClientRect();
      return r.height > 0 && r.top >= head - 1 && r.top <= head + 64 + 1 && r.bottom <= innerHeight + 8; });
}"""


def look(pg) -> dict:
    return {**pg.evaluate(LOOK), "top": pg.evaluate(SCROLLED)}


def path_of(k: int) -> str:
    return "/" + ("" if k == 0 else LESSONS[k].url_path)


def on_lesson(pg, k: int, settings: dict | None = None) -> None:
    """Lesson k is open and idle; with `settings`, its address carries the sidebar's settings, those exactly."""
    pg.wait_for_url(re.compile(re.escape(path_of(k)) + r"(\?|$)"), timeout=WAIT)
    drawn(pg, k)
    expect(pg.locator("[data-testid='stException']")).to_have_count(0)
    if settings is not None:
        kept = {key: value for key, value in query(pg).items() if key in SHARED}
        assert kept == settings, f"lesson {k + 1}, opened by the clicker, kept the link's settings"


def settled(pg) -> None:
    """The run is over and every chart has drawn its axes: the layout will not move."""
    pg.wait_for_selector(IDLE, timeout=WAIT)
    expect(pg.locator(SKELETON)).to_have_count(0, timeout=WAIT)
    pg.wait_for_function("() => [...document.querySelectorAll('.fv-plot')]"
                         ".every(c => c.querySelector('.main-svg'))", timeout=WAIT)


def walk_forward(pg, deck: list[int], settings: dict) -> tuple[list[tuple], dict, list[tuple], list[tuple]]:
    """PageDown from the first lesson of the deck to the last one's last section, each lesson opened with
    every one of `settings` in its address. Returns the (lesson, section, preset) of every stop, per
    lesson the figures never shown whole at any stop (name: height px), the presses that scrolled a section on by
    less than a third of the screen where the figure had room to go further (lesson, section, px), and the sections
    left with their last block's end below the screen (lesson, section, px below it)."""
    stops, misses, short, unseen = [], {}, [], []
    for at, k in enumerate(deck):
        on_lesson(pg, k, settings)
        seen, sizes = set(), {}
        while True:
            settled(pg)
            now = look(pg)
            for name, height, whole in now["figures"] + now["texts"]:
                sizes[name] = height
                if whole:
                    seen.add(name)
            if now["revealed"]:
                stops.append((k, now["k"], now["step"]))
                SHOTS.mkdir(parents=True, exist_ok=True)
                preset = "" if now["step"] is None else f"_preset{now['step'] + 1}"
                capture(pg, SHOTS / f"deck_{k + 1:02d}_{now['k']}{preset}.png")
            stepping = now["steps"] is not None and now["step"] < now["steps"] - 1
            last = (now["revealed"] and now["k"] == now["of"] and not now["inline_here"] and not stepping
                    and not now["onward"] and now["tail"] <= 12)
            if last and at == len(deck) - 1:
                break
            pg.keyboard.press("PageDown")
            if last:
                break
            if not now["revealed"]:
                expect(pg.locator(".st-key-question").first).to_contain_text(re.compile("engine says", re.I),
                                                                        timeout=WAIT)
            elif now["inline_here"] and not now["inline_below"]:
                pg.wait_for_function("n => document.querySelectorAll('[class*=\"st-key-reveal_inline_\"] button')"
                                     ".length < n", arg=now["inline"], timeout=WAIT)
            elif stepping and not now["inline_here"]:  # the next preset of this section's own control
                _wait_step(pg, now["k"], now["step"] + 1)
            else:  # the next section at the top, or this one scrolled on to a figure or question not yet whole
                try:
                    pg.wait_for_function("([k, p]) => { const s = window.__fvSection; return !!s && "
                                         "(s.k === k + 1 || (s.k === k && s.part === p + 1)); }",
                                         arg=[now["k"], now["part"]], timeout=WAIT)
                except Exception as err:
                    raise AssertionError(f"lesson {k + 1}, section {now['k']} of {now['of']}: the press neither "
                                         f"scrolled it on nor opened the next section (its end {now['tail']} px "
                                         f"below the screen); now at {pg.url}") from err
                if pg.evaluate("() => window.__fvSection.k") != now["k"] and now["tail"] > 12:
                    unseen.append((k + 1, now["k"], now["tail"]))  # left with its end below the screen
                if pg.evaluate("() => window.__fvSection.k") == now["k"]:
                    moved = pg.evaluate(SCROLLED) - now["top"]
                    if not now["inline_below"] and moved < 720 / 3 - 1 and not pg.evaluate(TOPPED):
                        short.append((k + 1, now["k"], round(moved)))
                    continue
                # the clicker writes `sec` as it scrolls; a run still ending rewrites the address bar and
                # the clicker writes it again when the run ends (explorer/clicker.js settled)
                pg.wait_for_url(re.compile(rf"[?&]sec={now['k'] + 1}(&|$)"), timeout=WAIT)
                if look(pg)["steps"] is not None:  # a section with presets opens at its first
                    _wait_step(pg, now["k"] + 1, 0)
        missing = {name: sizes[name] for name in sizes if name not in seen}
        if missing:
            misses[k + 1] = missing
    return stops, misses, short, unseen


def _wait_step(pg, k: int, step: int) -> None:
    try:
        pg.wait_for_function("([k, s]) => { const m = document.querySelectorAll("
                             "'[data-testid=\"stMain\"] .fv-slide')[k - 1];"
                             " return !!m && m.dataset.step === String(s); }", arg=[k, step], timeout=WAIT)
    except Exception as err:  # what the page held when the step did not come: CI keeps only the log
        seen = pg.evaluate("k => { const m = document.querySelectorAll('[data-testid=\"stMain\"] .fv-slide')[k - 1];"
                           " return { step: m && m.dataset.step, held: window.__fvHeld && window.__fvHeld(),"
                           " section: window.__fvSection, live: document.documentElement.dataset.fvLive }; }", k)
        raise AssertionError(f"section {k} did not reach step {step}: {seen}") from err


def walk_back(pg, deck: list[int], until: int, settings: dict) -> list[tuple]:
    """PageUp from where the forward walk ended to the top of lesson `until`, one of the deck's."""
    stops = []
    while True:
        settled(pg)
        now = look(pg)
        k = next(k for k in deck if pg.url.split("?")[0].endswith(path_of(k)))
        if not stops or stops[-1] != (k, now["k"], now["step"]):  # a section scrolled on stops there once
            stops.append((k, now["k"], now["step"]))
        if k == until and now["k"] == 0 and now["part"] == 0:
            return stops
        pg.keyboard.press("PageUp")
        if now["part"]:  # scrolled into this section: back to its top
            pg.wait_for_function("k => window.__fvSection && window.__fvSection.k === k && !window.__fvSection.part",
                                 arg=now["k"], timeout=WAIT)
        elif now["step"]:  # the previous preset of this section's own control
            _wait_step(pg, now["k"], now["step"] - 1)
        elif now["k"] > 0:
            pg.wait_for_function("k => window.__fvSection && window.__fvSection.k === k", arg=now["k"] - 1,
                                 timeout=WAIT)
        else:  # the previous lesson of the deck, opened at its last section
            before = deck[deck.index(k) - 1]
            on_lesson(pg, before, settings)
            pg.wait_for_function("() => { const m = document.querySelectorAll('[data-testid=\"stMain\"] .fv-slide');"
                                 " return window.__fvSection && m.length && window.__fvSection.k === m.length; }",
                                 timeout=WAIT)


def open_at_section(pg, url: str, k: int, sec: int) -> None:
    """Open lesson k from a presenter link and wait until the clicker has brought section `sec` on screen."""
    pg.goto(url)
    on_lesson(pg, k)
    pg.wait_for_function("s => window.__fvSection && window.__fvSection.k === s", arg=sec, timeout=WAIT)


# Every section of every lesson, each press waited for: about 70 s alone, 175 s in CI's three workers beside a
# CPU hog (measured); a busier machine could pass pyproject's 300 s per test, so this walk gets 900.
@pytest.mark.timeout(900)
@pytest.mark.parametrize("deck", [list(range(len(LESSONS))), [0, 2, 4, 8]], ids=["every lesson", "a deck of four"])
def test_the_clicker_alone_shows_every_figure_and_walks_back(server, page, deck):
    pg = page
    # The deck of four runs where the sidebar's tiles overflow (float32 at d = 128): lessons 3, 5 and 9 open
    # with the overflow banner above their question, and the clicker must still reach every figure.
    settings = SETTINGS if len(deck) == len(LESSONS) else SETTINGS.replace("float16", "float32")
    link = settings + ("" if len(deck) == len(LESSONS) else "&deck=" + ",".join(str(k + 1) for k in deck))
    pg.goto(lesson_url(server, deck[0], "?" + link))
    on_lesson(pg, deck[0])
    expect(pg.locator(".st-key-question").first).to_be_visible(timeout=WAIT)
    pg.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right"
                         " <= 40", timeout=WAIT)  # presentation mode closed the sidebar
    # the clicker's keys go to the page. (A click on the title did that, and in some runs beside a CPU hog the page
    # then stood 76 px down: lesson 1's first line never whole on screen.)
    pg.evaluate("() => document.activeElement && document.activeElement.blur()")
    # the address keeps each setting, but one at its default, which the app leaves out of every link
    kept = {key: value for key, value in (pair.split("=") for pair in settings.split("&"))
            if SHARED[key].parse(value)[0] != SHARED[key].default}
    forward, misses, short, unseen = walk_forward(pg, deck, kept)
    assert [k for k in dict.fromkeys(k for k, _, _ in forward)] == deck, "the deck's lessons, in its order"
    assert not misses, f"figures and text never whole on a 1280x720 screen, by lesson: {misses}"
    assert not short, f"presses that moved the page a few px where it could go a third of a screen: {short}"
    # a teacher's walk: lesson 2's sink paragraph ran past the screen's edge and the next press left the lesson
    assert not unseen, f"sections left before their end was on screen (lesson, section, px below): {unseen}"
    # Back: the deck of four all the way; every lesson's deck over its last three lessons, whose sections step
    # back through presets (lessons 12 and 13) and each open the one before at its last section (the same
    # clicker code for every lesson; the walk forward has shown every section of every lesson).
    until = deck[0] if len(deck) < len(LESSONS) else deck[-3]
    back = walk_back(pg, deck, until, kept)
    # a question inside a section held the clicker there once (its reveal): the way back has no such stop
    shown = [stop for k, stop in enumerate(forward) if k == 0 or stop != forward[k - 1]]
    shown = shown[next(i for i, stop in enumerate(shown) if stop[0] == until):]
    assert back == list(reversed(shown)), "PageUp retraces every section PageDown showed"
    if settings != SETTINGS:
        expect(pg.locator(".st-key-overflow_banner")).to_have_count(0)  # lesson 1 checks the tiles in 16 bits


def test_the_presenter_link_resumes_at_its_section_and_the_reader_link_reads(server, page):
    pg = page
    open_at_section(pg, lesson_url(server, 3, "?n=2048&present=true&sec=2"), 3, 2)
    assert "engine says" in pg.locator(".st-key-question").first.inner_text(), "opened past its question"
    pg.get_by_text("Share this view").click()
    presenter = pg.locator(".st-key-presenter_link [data-testid='stCode']")
    reader = pg.locator(".st-key-reader_link [data-testid='stCode']")
    expect(presenter).to_contain_text("sec=2", timeout=WAIT)
    expect(reader).to_have_text(re.compile(re.escape(lesson_url(server, 3)) + r"\?n=2048$"))
    link = presenter.inner_text()
    assert "present=true" in link
    pg.goto(reader.inner_text())  # the reader's link: the lesson to read, its question still to answer
    on_lesson(pg, 3)
    expect(pg.locator(".st-key-reveal_answer button").first).to_be_visible(timeout=WAIT)
    assert pg.locator(".fv-plot").count() > 0, "a reader sees the lesson under its question"
    open_at_section(pg, link, 3, 2)


def test_pagedown_brings_a_question_below_the_screen_on_screen_before_it_reveals_it(server, page):
    """Lesson 2's lagging-max question stands below the screen when its section comes up: PageDown first scrolls
    its box whole onto the screen, the answer still hidden, and the next press reveals it there. (A teacher's walk
    found the answer revealed below the screen and the press looking dead.)"""
    pg = page
    pg.goto(lesson_url(server, 1, "?present=true"))
    on_lesson(pg, 1)
    pg.locator("h1").first.click()
    pg.keyboard.press("PageDown")  # the lesson's question answered: its sections are drawn
    marks = ("() => [...document.querySelectorAll('[data-testid=\"stMain\"] .fv-slide')]"
             ".findIndex(m => m.dataset.title.startsWith('Rescale only')) + 1")
    pg.wait_for_function(marks, timeout=WAIT)  # that section drawn (the run draws the page's sections in turn)
    sec = pg.evaluate(marks)
    open_at_section(pg, lesson_url(server, 1, f"?present=true&sec={sec}"), 1, sec)
    settled(pg)
    box = pg.locator(".st-key-question_os_lagging")
    reveal = box.get_by_role("button", name=re.compile("Reveal the answer"))
    where = """b => { const r = b.getBoundingClientRect(),
                       head = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
                       return r.bottom <= innerHeight + 1 ? 'whole' : r.top > head + 1 ? 'below' : 'tall'; }"""
    assert box.evaluate(where) == "below", "the question's box starts on screen: nothing here to test"
    pg.evaluate("() => document.activeElement && document.activeElement.blur()")  # the keys go to the page
    pg.keyboard.press("PageDown")
    pg.wait_for_function("s => window.__fvSection.k === s && window.__fvSection.part === 1", arg=sec, timeout=WAIT)
    assert box.evaluate(where) == "whole"
    expect(reveal.first).to_be_visible()  # not revealed yet: the room reads the question first
    pg.keyboard.press("PageDown")
    expect(reveal).to_have_count(0, timeout=WAIT)
    expect(box).to_contain_text(re.compile("engine says", re.I), timeout=WAIT)
    assert pg.evaluate("() => window.__fvSection.k") == sec


def test_while_the_question_stands_the_next_lesson_button_does_not_say_pagedown(server, page):
    """Presenting, PageDown first reveals the lesson's question: the next-lesson button's "PageDown" hint, on the
    question's screen, read as the key's next move (a teacher's walk). It is back once the answer is out."""
    pg = page
    pg.goto(lesson_url(server, 0, "?present=true"))
    on_lesson(pg, 0)
    hint = pg.locator(".st-key-next_lesson kbd").first
    expect(hint).to_be_attached(timeout=WAIT)
    assert hint.evaluate("e => getComputedStyle(e).visibility") == "hidden"
    pg.keyboard.press("PageDown")
    expect(pg.locator(".st-key-reveal_answer")).to_have_count(0, timeout=WAIT)
    # the button as the page draws it now: the run after the reveal may draw it anew
    pg.wait_for_function("() => { const k = document.querySelector('.st-key-next_lesson kbd');"
                         " return !!k && getComputedStyle(k).visibility === 'visible'; }", timeout=WAIT)


def test_the_arrow_keys_step_the_player_of_the_section_on_screen(server, page):
    """Lesson 9 on a projector has a player per bug: → steps the one in the section on screen."""
    pg = page
    open_at_section(pg, lesson_url(server, 8, "?present=true&sec=2"), 8, 2)
    frames = [pg.locator("[data-testid='stMain'] iframe").nth(i).element_handle().content_frame() for i in range(2)]
    for fr in frames:
        fr.wait_for_selector("#label[data-step]", timeout=WAIT)
    steps = [int(fr.locator("#label").get_attribute("data-step")) for fr in frames]
    owner = pg.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMain\"] iframe')]"
                        ".slice(0, 2).map(f => window.__fvOwnsKeys(f))")
    assert owner == [False, True], owner
    pg.keyboard.press("ArrowRight")
    expect(frames[1].locator("#label")).to_have_attribute("data-step", str(steps[1] + 1), timeout=WAIT)
    assert int(frames[0].locator("#label").get_attribute("data-step")) == steps[0], "the other player stayed"


# The step the section on screen shows, off its mark (a section whose steps are its controls' presets: deck.py)
STEP = """() => {
  const m = [...document.querySelectorAll('[data-testid="stMain"] .fv-slide')][window.__fvSection.k - 1];
  return m && m.dataset.steps ? Number(m.dataset.step) : null; }"""
STEPS = STEP.replace("Number(m.dataset.step)", "Number(m.dataset.steps)")


def pg_at_the_timeline(server, pg):
    """Lesson 13 presented at its timeline's section, its first step set: the page, its app's state and that step."""
    open_at_section(pg, lesson_url(server, 12, "?present=true&sec=1"), 12, 1)
    idle = expect(pg.locator("[data-testid='stApp']"))
    idle.to_have_attribute("data-test-script-state", "notRunning", timeout=WAIT)
    pg.wait_for_function("() => window.__fvHeld() === 0", timeout=WAIT)  # the section's first step set
    first = pg.evaluate(STEP)
    assert first is not None and first + 2 < pg.evaluate(STEPS), f"lesson 13's timeline steps its key tile: {first}"
    return pg, idle, first


def test_an_arrow_on_a_sections_player_after_a_pagedown_step_leaves_the_next_pagedown_free(server, page):
    """Lesson 13's timeline: PageDown steps its key tile, then → steps it again (its player). The press the
    PageDown made waited for its step, which → then moved on: the clicker holds nothing after it, and the next
    press acts at once (a teacher's walk found every press held for 19 s)."""
    pg, idle, first = pg_at_the_timeline(server, page)
    pg.keyboard.press("PageDown")
    pg.wait_for_function(f"() => ({STEP})() === {first + 1}", timeout=WAIT)
    idle.to_have_attribute("data-test-script-state", "notRunning", timeout=WAIT)
    pg.wait_for_function("() => document.documentElement.dataset.fvLive === 'ready'"
                         " && Object.keys(window.__fvLive.players || {}).length > 0", timeout=WAIT)
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function(f"() => ({STEP})() === {first + 2}", timeout=WAIT)
    idle.to_have_attribute("data-test-script-state", "notRunning", timeout=WAIT)
    # the clicker's own count of presses not yet done: checked every 50 ms, so at once (19 s before)
    pg.wait_for_function("() => window.__fvHeld() === 0", timeout=3_000)
    pg.keyboard.press("PageUp")
    pg.wait_for_function(f"() => ({STEP})() === {first + 1}", timeout=WAIT)


# Streamlit's marks of the app's state as they come, from the moment this is run in the page
SEEN_STATES = """() => { window.__fvStates = []; const app = document.querySelector("[data-testid='stApp']");
  new MutationObserver(() => window.__fvStates.push(app.dataset.testScriptState))
    .observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] }); }"""
# When → is pressed after the PageDown: at once; as the step's run starts (Streamlit may mark the app running, or
# its first elements may come first: a short run can show no running state at all); as the run draws the section's
# new step (its mark, early in the run; the slider's new value comes up to 200 ms after the run is marked over)
WHEN = {"at once": None,
        "as its run starts": "first => window.__fvStates.includes('running') || (STEP)() === first + 1",
        "as its run draws the step": "first => (STEP)() === first + 1"}
WHEN = {k: v and v.replace("(STEP)", f"({STEP})") for k, v in WHEN.items()}


@pytest.mark.parametrize("when", list(WHEN))
def test_an_arrow_pressed_while_a_pagedown_step_is_running_steps_on_from_that_step(server, page, when):
    """Lesson 13's timeline: PageDown sets its key tile's next step through a run, and a teacher presses → before
    that run is over (or once it has drawn the step, while the slider still shows the old value). The arrow steps
    on from the PageDown's step; it was lost before (the run's value undid it, or it stepped the old one)."""
    pg, idle, first = pg_at_the_timeline(server, page)
    pg.evaluate(SEEN_STATES)
    pg.keyboard.press("PageDown")
    if WHEN[when]:
        pg.wait_for_function(WHEN[when], arg=first, timeout=WAIT)
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function(f"() => ({STEP})() === {first + 2}", timeout=WAIT)
    idle.to_have_attribute("data-test-script-state", "notRunning", timeout=WAIT)
    pg.wait_for_function("() => window.__fvHeld() === 0 && !(window.__fvLive.keyQueue || []).length"
                         " && document.documentElement.dataset.fvLive === 'ready'", timeout=WAIT)
    assert pg.evaluate(STEP) == first + 2
    tile = pg.locator("[data-live-knob='sc_tile']")
    ran = pg.evaluate("() => window.__fvLive.knobs.sc_tile.at")
    assert int(tile.input_value()) == int(ran), "the slider shows the run's value"


def test_the_arrow_keys_step_a_player_whole_on_screen_below_a_section_that_has_none(server, page):
    """Lesson 11's first section is text, its GPU player the next section's, and at 1280x720 the player stands whole
    under that text: → steps it there, not only once PageDown has brought its section up (a teacher's walk)."""
    pg = page
    open_at_section(pg, lesson_url(server, 10, "?present=true&sec=1"), 10, 1)
    frame = pg.locator("[data-testid='stMain'] iframe").first
    expect(frame).to_be_in_viewport(ratio=1.0, timeout=WAIT)
    player = frame.element_handle().content_frame()
    player.wait_for_selector("#label[data-step]", timeout=WAIT)
    at = int(player.locator("#label").get_attribute("data-step"))
    assert pg.evaluate("() => window.__fvSection.k") == 1, "still the section above the player's"
    pg.keyboard.press("ArrowRight")
    expect(player.locator("#label")).to_have_attribute("data-step", str(at + 1), timeout=WAIT)


def test_pagedown_opens_a_sections_folded_part_and_shows_its_figures_before_the_next_section(server, page):
    """Lesson 9 on a projector folds each bug's diff and lab figures under its player: PageDown opens the fold and
    brings its chart whole on screen before the next bug (a teacher's walk could open them only with the mouse)."""
    pg = page
    open_at_section(pg, lesson_url(server, 8, "?present=true&sec=1"), 8, 1)
    fold = pg.locator("[class*='st-key-more_'] details").first
    assert not fold.evaluate("d => d.open"), "the first bug's fold starts closed"
    whole = """e => { const r = e.getBoundingClientRect(),
                       head = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
                       return r.height > 0 && r.top >= head - 1 && r.bottom <= innerHeight + 8; }"""
    seen = False
    for _ in range(10):
        settled(pg)
        at = pg.evaluate("() => [window.__fvSection.k, window.__fvSection.part || 0]")
        if at[0] != 1:
            break
        charts = fold.locator(".fv-plot")
        seen = seen or bool(fold.evaluate("d => d.open") and charts.count() and charts.first.evaluate(whole))
        pg.keyboard.press("PageDown")
        pg.wait_for_function("([k, p]) => { const s = window.__fvSection; return s.k === k + 1 || "
                             "(s.k === k && (s.part || 0) === p + 1); }", arg=at, timeout=WAIT)
    assert fold.evaluate("d => d.open"), "the fold opened by PageDown"
    assert seen, "its chart whole on screen before the next section"


# Every height a box takes from now on, frame by frame and each time it changes size, for 1.5 s; then its box opened.
HEIGHTS = """box => { const d = box, t0 = performance.now(), h = () => Math.round(d.getBoundingClientRect().height);
  window.__fvHeights = [];
  new ResizeObserver(() => window.__fvHeights.push(h())).observe(d);
  const frame = () => { window.__fvHeights.push(h()); if (performance.now() - t0 < 1500) requestAnimationFrame(frame);
                        else window.__fvHeightsDone = true; };
  window.__fvHeightsDone = false;
  d.querySelector('summary').click();
  requestAnimationFrame(frame); }"""


def test_a_folded_part_opens_at_its_full_height_at_once(server, page):
    """Streamlit's expander grew over 500 ms as it opened, and as its content redrew, and its last frame stood at the
    height it had started from: the page 1,000 px shorter for a frame. The browser's scroll anchoring then left a deck
    636 px on, past lesson 9's last section, and the next PageUp went nowhere (a deck walk on a fast host). The fold
    stands at its full height from the first frame, and never shorter after."""
    pg = page
    open_at_section(pg, lesson_url(server, 8, "?present=true&sec=1"), 8, 1)
    settled(pg)
    fold = pg.locator("[class*='st-key-more_'] details").first
    fold.evaluate(HEIGHTS)
    pg.wait_for_function("() => window.__fvHeightsDone", timeout=WAIT)
    settled(pg)
    full = fold.evaluate("d => Math.round(d.getBoundingClientRect().height)")
    heights = pg.evaluate("window.__fvHeights")
    assert full > 500 and heights, (full, heights)
    assert min(heights) >= full - 2, f"the fold stood at {min(heights)} px on its way to {full}: {heights[:20]}"


def test_a_presenter_link_where_the_tiles_overflow_opens_with_the_banner_and_its_fix_on_screen(server, page):
    pg = page
    pg.goto(lesson_url(server, 2, "?" + SETTINGS.replace("float16", "float32")))
    on_lesson(pg, 2)
    banner, fix = pg.locator(".st-key-overflow_banner"), pg.locator(".st-key-fix_tiles button")
    expect(banner).to_contain_text("These 64 × 64 tiles do not fit in SRAM", timeout=WAIT)
    expect(fix).to_be_in_viewport(timeout=WAIT)
    fix.click()
    expect(banner).to_have_count(0, timeout=WAIT)
    pg.wait_for_url(re.compile(r"Br=48"), timeout=WAIT)


@pytest.fixture
def hog():
    """A CPU hog beside the test, as a busy classroom laptop or CI's shared machine: one core kept busy."""
    import subprocess
    import sys
    p = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield p
    finally:
        p.kill()
        p.wait()


def _two_quick_presses(pg, server, query: str = "?present=true&n=4096") -> None:
    """Lesson 3 from a presenter link, its question alone on screen: two PageDowns with no pause between
    them reveal the answer and then bring section 1 to the top, on lesson 3. The second lands while the
    reveal's runs (its fragment's, then the page's) are going on: the clicker holds it until the page's
    section marks are drawn."""
    pg.goto(lesson_url(server, 2, query))
    on_lesson(pg, 2)
    expect(pg.locator(".st-key-reveal_answer button").first).to_be_visible(timeout=WAIT)
    pg.locator("h1").first.click()
    pg.keyboard.press("PageDown")
    pg.keyboard.press("PageDown")
    pg.wait_for_function("() => window.__fvSection && window.__fvSection.k === 1", timeout=WAIT)
    pg.wait_for_url(re.compile(re.escape(path_of(2)) + r"\?.*sec=1(&|$)"), timeout=WAIT)
    settled(pg)
    now = look(pg)
    assert now["revealed"] and now["k"] == 1, now
    assert pg.url.split("?")[0].endswith(path_of(2)), f"still lesson 3: {pg.url}"


def test_two_quick_pagedowns_reveal_the_answer_then_move_one_section(server, page):
    _two_quick_presses(page, server)


def test_two_quick_pagedowns_beside_a_cpu_hog(server, page, hog):
    _two_quick_presses(page, server)


def test_a_deck_of_one_lesson_has_no_lesson_buttons_and_the_clicker_still_walks_it(server, page):
    _two_quick_presses(page, server, "?present=true&deck=3")
    assert page.locator(".st-key-prev_lesson button, .st-key-next_lesson button").count() == 0


def test_pagedown_past_the_decks_end_says_so(server, page):
    """At the last section of the deck's last lesson a press did nothing, twice (a teacher's walk): it now says the
    deck has ended, and stays there."""
    pg = page
    pg.goto(lesson_url(server, 2, "?present=true&deck=3&sec=end"))
    on_lesson(pg, 2)
    pg.wait_for_function("() => window.__fvSection && window.__fvSection.k === window.__fvSection.of", timeout=WAIT)
    end = pg.locator(".fv-end")
    for _ in range(8):  # the last section's figures first, each brought whole on screen
        settled(pg)
        pg.keyboard.press("PageDown")
        if end.count() and end.evaluate("e => getComputedStyle(e).opacity") != "0":
            break
    expect(end).to_have_text("End of the deck · PageUp goes back")
    pg.wait_for_function("e => getComputedStyle(e).opacity === '1'", arg=end.element_handle(), timeout=WAIT)
    assert pg.url.split("?")[0].endswith(path_of(2))



def _open_with_buttons_held(pg, held: list, url: str, skeleton: str = ".st-key-reveal_answer") -> None:
    """Open `url` with Button's code held back (each request waits in `held` until continued), as a busy machine
    may deliver it on a first visit: the run is over, the buttons are placeholders, the clicker is there."""
    pg.route("**/static/js/Button.*.js", lambda route: held.append(route))
    pg.goto(url)
    pg.wait_for_selector(IDLE, timeout=WAIT)
    expect(pg.locator(f"{skeleton} [data-testid^='stSkeleton']")).to_be_attached(timeout=WAIT)
    pg.wait_for_function("() => window.__fvClicker === true", timeout=WAIT)


def test_presses_before_the_buttons_code_has_come_are_held_not_lost(server, page):
    """A first visit: the run is over and the question drawn, but Button's code (the reveal and lesson buttons)
    has not come yet. Two PageDowns pressed then are held and applied once it has: the answer, then section 1.
    A reader's PageDown in the same window turns the lesson once the buttons are there."""
    pg = page
    held: list = []
    try:
        _open_with_buttons_held(pg, held, lesson_url(server, 2, "?present=true&n=4096"))
        pg.keyboard.press("PageDown")
        pg.keyboard.press("PageDown")
        assert held, "the page asked for Button's code"
        assert pg.evaluate("() => !window.__fvSection || window.__fvSection.k === 0"), "nothing moved yet"
        assert "sec=" not in pg.url
        for route in held:
            route.continue_()
        pg.wait_for_function("() => window.__fvSection && window.__fvSection.k === 1", timeout=WAIT)
        pg.wait_for_url(re.compile(re.escape(path_of(2)) + r"\?.*sec=1(&|$)"), timeout=WAIT)
    finally:
        pg.unroute("**/static/js/Button.*.js")
    held.clear()
    try:
        _open_with_buttons_held(pg, held, lesson_url(server, 2, "?n=4096"), ".st-key-next_lesson")  # reading
        pg.keyboard.press("PageDown")
        assert held, "the page asked for Button's code"
        for route in held:
            route.continue_()
        pg.wait_for_url(re.compile(re.escape(path_of(3)) + r"\?n=4096$"), timeout=WAIT)
        on_lesson(pg, 3)
    finally:
        pg.unroute("**/static/js/Button.*.js")


def test_a_press_made_long_after_one_still_held_is_let_go(server, page):
    """A first visit whose buttons come late: PageDown, then PageDown again a second later (the teacher saw nothing
    happen). Once the page is drawn, only the first acts, the answer; the second does not race on to section 1."""
    pg = page
    held: list = []
    try:
        _open_with_buttons_held(pg, held, lesson_url(server, 2, "?present=true&n=4096"))
        pg.keyboard.press("PageDown")
        start = pg.evaluate("() => performance.now()")
        pg.wait_for_function("t => performance.now() - t > 1000", arg=start, timeout=WAIT)  # the scenario: 1 s on
        pg.keyboard.press("PageDown")
        assert pg.evaluate("() => window.__fvHeld()") == 1, "the later press is not held"
        for route in held:
            route.continue_()
        expect(pg.locator(".st-key-question").first).to_contain_text(re.compile("engine says", re.I), timeout=WAIT)
        pg.wait_for_function("() => window.__fvHeld() === 0", timeout=WAIT)
        drawn(pg, 2)
        assert pg.evaluate("() => window.__fvSection ? window.__fvSection.k : 0") == 0
        assert "sec=" not in pg.url
    finally:
        pg.unroute("**/static/js/Button.*.js")
