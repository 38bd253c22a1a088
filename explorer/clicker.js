// The clicker. Reading: PageDown / PageUp change lessons wherever the focus is (a focused slider or
// toggle would take the key for itself, and Streamlit's shortcuts skip keys typed into a control; so
// focus goes back to the page and the lesson button is pressed). Presenting (the server draws
// `.fv-deck[data-present="1"]`): a lesson is a deck of sections, each starting at a `.fv-slide` mark
// (`slide()`), section 0 being the top of the page. PageDown reveals the open question, then an
// unrevealed question inside the section on screen (first scrolling it whole onto the screen), then
// scrolls the section on until each figure has been whole on screen and its end has been on screen
// (`onward`, `tail`), then scrolls the next section to the top under the top bar, and after the last
// one presses the next-lesson button; PageUp walks back the same way and, from the top, opens the
// previous lesson at its last section. Moving between sections is a scroll in the browser, no rerun;
// the section on screen goes into the URL as `sec` (replaceState), so a reload or a presenter link
// resumes there. The players ask `__fvOwnsKeys(frame)` whether their
// frame lies in the section on screen, so → and space step the player the teacher is looking at.
// A press is held until the page it acts on is drawn (drain(), below), so none is lost to a run.
// Fixed code; from the URL it reads only whether `present` is one of four fixed words.
(function () {
  if (window.__fvClicker) return;
  window.__fvClicker = true;
  const CONTROL = 'input, select, textarea, [role="slider"], [role="switch"], [role="radio"], [role="combobox"]';
  const q = s => document.querySelector(s);
  // Presenting: as the server drew it (`.fv-deck[data-present]`), or, before the first run has drawn
  // the deck, as the link asks (`present`, read as explorer/params.py reads a yes/no).
  const YES = ["true", "1", "yes", "on"];
  const presenting = () => {
    const d = q(".fv-deck");
    if (d) return d.dataset.present === "1";
    // a repeated key: the last, as the server takes it (explorer/params.py)
    return YES.includes((new URLSearchParams(location.search).getAll("present").pop() || "").toLowerCase());
  };
  const scroller = () => q('[data-testid="stMain"]');
  const marks = () => [...document.querySelectorAll('[data-testid="stMain"] .fv-slide')];
  const headBottom = () => {
    const h = q('[data-testid="stHeader"]');
    return h ? h.getBoundingClientRect().bottom : 0;
  };
  const button = key => q(".st-key-" + key + " button");
  // The section on screen: the last whose mark has reached the top bar (0: none has, the page's top).
  function current() {
    const head = headBottom() + 4;
    let k = 0;
    marks().forEach((m, i) => { if (m.getBoundingClientRect().top <= head) k = i + 1; });
    return k;
  }
  function inSection(el, k) {
    const ms = marks(), start = k > 0 ? ms[k - 1] : null, end = ms[k] || null;
    return (!start || !!(start.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) &&
           (!end || !!(end.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING));
  }
  // Which player the keys step: the one in the section on screen; where that section has none, the first whole on
  // screen (a teacher's walk: lesson 11's player stood whole under its section's text, and → did nothing until the
  // next PageDown brought its section up). Players: the lesson's iframes and the charts the keys play (live.js).
  const players = () => [...document.querySelectorAll('[data-testid="stMain"] iframe'),
    ...Object.keys((window.__fvLive && window.__fvLive.players) || {})
      .map(c => q(".st-key-" + CSS.escape(c))).filter(Boolean)];
  const whole = el => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= headBottom() - 1 && r.bottom <= screenBottom() + 1;
  };
  window.__fvOwnsKeys = frame => {
    if (!presenting()) return undefined;
    const k = current(), all = players();
    if (inSection(frame, k)) return true;
    return !all.some(p => inSection(p, k)) && all.find(whole) === frame;
  };
  // The lesson the page shows, as the server drew it (`.fv-deck[data-lesson]`, drawn at the end of
  // each run), and the section on screen (lesson null: none yet).
  const deckNow = () => q(".fv-deck");
  let shown = { lesson: null, k: 0 };
  function writeUrl(k) {
    const u = new URL(location.href);
    if (k > 0) u.searchParams.set("sec", String(k)); else u.searchParams.delete("sec");
    if (u.href !== location.href) history.replaceState(history.state, "", u.href);
  }
  function go(k) {
    const s = scroller(), ms = marks();
    if (!s) return;
    k = Math.max(0, Math.min(ms.length, k));
    s.scrollTop = k === 0 ? 0 : s.scrollTop + ms[k - 1].getBoundingClientRect().top - headBottom();
    placed(k, 0);
  }
  function placed(k, part) {
    const d = deckNow();
    shown = { lesson: d ? d.dataset.lesson : shown.lesson, k };
    writeUrl(k);
    window.__fvSection = { k, part, of: marks().length, at: performance.now() };
  }
  // A section longer than the screen: PageDown first scrolls it on, one figure (chart, player, table) at a
  // time, each brought up until its bottom is on screen (a figure taller than the screen: its top under the
  // top bar), so every figure is seen whole at some press; PageUp from there goes back to the section's top.
  const FIGURES = '.fv-plot, iframe, [data-testid="stDataFrame"]';
  const screenBottom = () => { const s = scroller(); return Math.min(innerHeight, s ? s.getBoundingClientRect().bottom : innerHeight); };
  // A press that brought only a figure's last few pixels up moved the page 7-100 px and looked dead to the room
  // (a teacher's walk, lessons 3, 5 and 11): it scrolls at least a third of the screen where the figure's top, and
  // a caption line above it (ROOM px), stay under the top bar, so the figure is still whole.
  // A figure further down than a screen comes up a screen at a time, less a line kept (ROOM), as text does (tail):
  // what lies between comes on screen on the way (a teacher's walk: lesson 13's four paragraphs between its B200
  // timeline and its table went by in one jump of 1,182 px).
  const ROOM = 64;
  function onward(k) {
    for (const f of document.querySelectorAll('[data-testid="stMain"] :is(' + FIGURES + ')')) {
      if (!inSection(f, k) || !f.checkVisibility() || f.getBoundingClientRect().height === 0) continue;
      const by = below(f);
      if (by) {
        const to = Math.max(by, Math.min(innerHeight / 3, f.getBoundingClientRect().top - headBottom() - ROOM));
        return Math.min(to, screenBottom() - headBottom() - ROOM);
      }
    }
    return 0;
  }
  // What of section k is still below the screen once its figures have been seen, in px: text under its last figure
  // (a teacher's walk: lesson 2's sink paragraph ran past the screen's edge and the next press left the lesson, so
  // the room never read its end). The section's last block is the one before the next section's mark, or before the
  // deck's marker (drawn after the lesson) for the last section; blocks with no height (styles) are not its last. A
  // block whose last TAIL px are below the screen has its text on it (a line is 27 px): a press there moved 240 px to
  // show a margin.
  const TAIL = 12;
  function tail(k) {
    const next = marks()[k] || deckNow(), box = next && next.closest('[data-testid="stElementContainer"]');
    let last = box && box.previousElementSibling;
    while (last && last.getBoundingClientRect().height === 0) last = last.previousElementSibling;
    const left = last ? last.getBoundingClientRect().bottom - screenBottom() : 0;
    return left > TAIL ? left : 0;
  }
  // How far to scroll so that `box` is whole on screen (its top under the top bar if it is taller): 0 if it is.
  // A figure with no more than its last SLACK px below the screen counts as whole (its margin): a press that moved
  // the page 7 px to show lesson 5's player to its last pixel looked dead to the room (a teacher's walk).
  const SLACK = 8;
  function below(box) {
    const r = box.getBoundingClientRect(), head = headBottom(), bottom = screenBottom();
    return r.bottom <= bottom + SLACK || r.top <= head + 1 ? 0 : Math.min(r.bottom - bottom, r.top - head);
  }
  // The deck's last section, and PageDown again: a line says so, for a moment, where a press did nothing (a teacher's
  // walk pressed twice more at the end of lesson 14, to no effect).
  function endOfDeck() {
    let note = q(".fv-end");
    if (!note) {
      note = document.createElement("div");
      note.className = "fv-end";
      note.setAttribute("role", "status");
      note.textContent = "End of the deck · PageUp goes back";
      note.style.cssText = "position:fixed;left:50%;bottom:2rem;transform:translateX(-50%);z-index:1000;" +
        "padding:0.6rem 1.2rem;border-radius:0.5rem;background:#111;color:#fff;font-size:1.3rem;" +
        "pointer-events:none;opacity:0;transition:opacity 0.2s";
      document.body.appendChild(note);
    }
    note.style.opacity = "1";
    clearTimeout(note.__fvHide);
    note.__fvHide = setTimeout(() => { note.style.opacity = "0"; }, 2500);
    return null;
  }
  // Scroll section k on by `by` px: its next part on screen (a scroll, no run: nothing to wait for).
  function scrollOn(k, by) {
    scroller().scrollTop += by;
    placed(k, (window.__fvSection && window.__fvSection.k === k ? window.__fvSection.part || 0 : 0) + 1);
    return null;
  }
  const into = k => {  // how far the section on screen has been scrolled past its top
    const ms = marks(), s = scroller();
    return k === 0 ? (s ? s.scrollTop : 0) : headBottom() - ms[k - 1].getBoundingClientRect().top;
  };
  // A section with steps (presets of the lesson's own controls): press its hidden step button,
  // and hold the section in place through the rerun that follows. Returns what the press waits
  // for (the section's mark showing step i), or null when there is no such button.
  function step(k, i) {
    const m = marks()[k - 1], b = m && button("step_" + m.dataset.slug + "_" + i);
    if (!b) return null;
    resume = { k, until: performance.now() + HOLD_MS };
    b.click();
    return () => { const n = marks()[k - 1]; return !!n && n.dataset.step === String(i) && shows(n); };
  }
  // Whether the sliders show the values a section's mark says its step set (deck.py, `data-values`): the mark is
  // drawn early in the step's run, a slider's new value up to 200 ms after the run is marked over (lesson 13's key
  // tile), and a player's key (explorer/live.js) pressed before then would step the old value.
  function shows(mark) {
    let values;
    try { values = JSON.parse(mark.dataset.values || "{}"); } catch (e) { return true; }
    return Object.entries(values).every(([key, v]) => {
      const el = q(`.st-key-${CSS.escape(key)} input[type="range"]`);
      return !el || Math.abs(Number(el.value) - v) < 1e-9;
    });
  }
  const stepOf = k => {
    const m = k > 0 ? marks()[k - 1] : null;
    return m && m.dataset.steps ? { i: Number(m.dataset.step), n: Number(m.dataset.steps) } : null;
  };
  // What a click that starts a run waits for before the next press acts: a whole run drawn after it
  // (the deck marker's run number changed; a reveal is a fragment's run and then the page's), or
  // another lesson drawn.
  const runOf = () => { const d = deckNow(); return d ? d.dataset.run : null; };
  function clickRun(b) {
    const run = runOf();
    b.click();
    return () => runOf() !== run;
  }
  function clickLesson(b) {
    const d = deckNow(), lesson = d ? d.dataset.lesson : null;
    b.click();
    return () => { const e = deckNow(); return !!e && e.dataset.lesson !== lesson; };
  }
  // One press, on a page that is drawn (ready()). Returns what it waits for when it started a run,
  // else null (a scroll, or nothing to do).
  function press(key) {
    resume = null;  // the teacher moves on: a section held in place is let go
    if (!presenting()) {
      const b = button(key === "PageDown" ? "next_lesson" : "prev_lesson");
      return b ? clickLesson(b) : null;
    }
    const down = key === "PageDown", k = current(), s = stepOf(k);
    if (down) {
      const open = button("reveal_answer");  // the lesson's question, not yet answered
      if (open) return clickRun(open);
      const inline = [...document.querySelectorAll('[class*="st-key-reveal_inline_"] button')]
        .find(b => inSection(b, k));
      if (inline) {  // its question on screen first: an answer revealed below the screen is one no one saw
        const by = below(inline.closest('[class*="st-key-question_"]') || inline);
        return by > 1 ? scrollOn(k, by) : clickRun(inline);
      }
      // an answer revealed in the section, its end below the screen: on screen before anything else (a teacher's
      // walk: lesson 2's inline answer went by under the screen's edge)
      const answered = [...document.querySelectorAll('[class*="st-key-question_"]')]
        .find(b => inSection(b, k) && below(b) > 1);
      if (answered) {  // as a figure comes up (onward): at least a third of the screen, its top kept under the bar
        const up = Math.min(innerHeight / 3, answered.getBoundingClientRect().top - headBottom() - ROOM);
        return scrollOn(k, Math.min(Math.max(below(answered), up), screenBottom() - headBottom() - ROOM));
      }
      if (s && s.i < s.n - 1) { const w = step(k, s.i + 1); if (w) return w; }
      const by = onward(k);
      if (by > 1) return scrollOn(k, by);
      // a screen at a time, less a line kept (ROOM), and at least a third of one, as onward
      const rest = Math.min(tail(k), screenBottom() - headBottom() - ROOM);
      if (rest > 0) return scrollOn(k, Math.max(rest, innerHeight / 3));
      // the section's folded part (an expander keyed more_*: lesson 9's diff and lab figures under each bug's player)
      // opens, brought up under the bar, before the next section: a clicker alone could not open it (a teacher's walk)
      const folded = [...document.querySelectorAll('[class*="st-key-more_"] details:not([open]) > summary')]
        .find(f => inSection(f, k) && f.checkVisibility());
      if (folded) {
        folded.click();
        const up = folded.getBoundingClientRect().top - headBottom() - ROOM / 4;
        return scrollOn(k, Math.max(0, Math.min(up, screenBottom() - headBottom() - ROOM)));
      }
      if (k < marks().length) {
        go(k + 1);
        const t = stepOf(k + 1);
        return t && t.i !== 0 ? step(k + 1, 0) : null;
      }
      const next = button("next_lesson");
      return next ? clickLesson(next) : endOfDeck();
    }
    if (into(k) > 2) { go(k); return null; }  // scrolled into this section: back to its top
    if (s && s.i > 0) { const w = step(k, s.i - 1); if (w) return w; }
    if (k > 0) { go(k - 1); return null; }
    const prev = button("prev_lesson");
    return prev ? clickLesson(prev) : null;
  }
  // Presses are held until the page they act on is drawn, then applied one by one, in order: a press
  // that lands while a run goes on (a reveal's fragment and the rerun after it, a preset's rerun, a
  // lesson opening), or before the buttons' code has come on a first visit, is not lost, and a
  // second press never acts on the page the first is replacing. A press that starts a run waits for
  // what it started (at most WAIT_MS).
  const WAIT_MS = 20000, HELD_MS = 10000, MOST = 8, QUICK_MS = 800;
  const held_keys = [];
  let waiting = null;  // { done: () => bool, until }
  // Drawn: the run over, the deck marker there, every lesson button it announces (`data-buttons`: the last
  // thing a run draws) and no placeholder left on screen (a button is one until Button's code has come on a
  // first visit, a chart until Plotly's has). A press held longer than HELD_MS goes on without the last two,
  // should a placeholder never go. A chart still drawing can move the marks after a held press has scrolled:
  // that section is held in place (drain).
  const skeleton = () => [...document.querySelectorAll('[data-testid="stMain"] [data-testid^="stSkeleton"]')]
    .some(e => e.checkVisibility());
  const lessonButtons = () => document.querySelectorAll(".st-key-prev_lesson button, .st-key-next_lesson button");
  function ready(old) {
    const a = q('[data-testid="stApp"]'), d = deckNow();
    if (!a || a.dataset.testScriptState !== "notRunning" || !d) return false;
    // the live figures asked for (explorer/live.js): their fragment's run may not have started yet, and a
    // lesson button clicked under it lost its click
    if (document.documentElement.dataset.fvLive === "filling") return false;
    if (!old && (lessonButtons().length < Number(d.dataset.buttons || 0) || skeleton())) return false;
    if (waiting && !waiting.done() && performance.now() < waiting.until) return false;
    waiting = null;
    return true;
  }
  // What a press waits for, once seen done, stays done: a player's key that then moves the section's step (→ on
  // lesson 13's timeline) must not make the step the press set look undone, and hold every press after it for
  // WAIT_MS (a teacher's walk: PageDown dead for 19 s after one →). Looked at after each run and every 50 ms.
  const once = (f) => { let seen = false; return () => seen || (seen = !!f()); };
  // Presses not yet done: held, or applied and waiting for the run they started (the tests read it too).
  const pending = () => held_keys.length + (waiting && !waiting.done() && performance.now() < waiting.until ? 1 : 0);
  window.__fvHeld = pending;
  function drain() {
    while (held_keys.length && ready(performance.now() - held_keys[0].at > HELD_MS)) {
      const { key, at } = held_keys.shift();
      const late = performance.now() - at > 50;  // held: charts may still be drawing under the section
      const done = press(key);
      if (done) { waiting = { done: once(done), until: performance.now() + WAIT_MS }; return; }
      const now = window.__fvSection;
      if (late && presenting() && now && now.k > 0 && !now.part) resume = { k: now.k, until: performance.now() + HOLD_MS };
    }
  }
  window.addEventListener("keydown", function (e) {
    if (e.key !== "PageDown" && e.key !== "PageUp") return;
    const t = e.target, inControl = !!(t && t.closest && t.closest(CONTROL));
    // Reading, on a drawn page with nothing held: Streamlit's own shortcut (the lesson buttons') takes it.
    if (!presenting() && !inControl && !pending() && ready(false)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (inControl && t.blur) t.blur();
    // Presses in quick succession are all kept; a press made longer than QUICK_MS after the first one still
    // held is a teacher pressing again because nothing showed yet, and is let go: when the page comes, it
    // shows the first press's effect instead of racing through sections no one saw.
    const now = performance.now();
    if (held_keys.length < MOST && !(held_keys.length && now - held_keys[0].at > QUICK_MS)) {
      held_keys.push({ key: e.key, at: now });
    }
    drain();
  }, true);
  // After each run: resume at the link's section when the page first shows a lesson (the section
  // its server run saw in the link, `data-resume`), keep `sec` in the URL (a run that rewrites the
  // address bar drops it), and close the sidebar once on entering presentation mode (the settings
  // stay one click away). A new lesson is told by the lesson the page shows, not by the address bar:
  // Streamlit changes the path when a run starts and can flag "not running" between two runs, so the
  // address can name the next lesson while the page still shows the last.
  // A section held in place: { k: its number, or "end" for the lesson's last, counted when the
  // marks are there (a run can end before a new lesson's marks are drawn), until: a deadline, HOLD_MS
  // after the last run that ended while it was held }.
  let wasPresenting = false, resume = null;
  const HOLD_MS = 8000;
  const target = r => (r.k === "end" ? marks().length : r.k);
  function settled() {
    const on = presenting();
    if (on && !wasPresenting) {
      const side = q('[data-testid="stSidebar"]'), close = q('[data-testid="stSidebarCollapseButton"] button');
      if (side && close && side.getBoundingClientRect().right > 40) close.click();
    }
    wasPresenting = on;
    const d = deckNow();
    if (!on) { shown = { lesson: d ? d.dataset.lesson : null, k: 0 }; return; }
    if (!d) return;  // the run ended before drawing its lesson: nothing to place yet
    if (resume && performance.now() < resume.until) {  // held in place, for HOLD_MS after the lesson's last run
      resume.until = performance.now() + HOLD_MS;  // a busy machine may draw the lesson's marks late
      go(target(resume)); hold(); return;
    }
    if (shown.lesson !== d.dataset.lesson) {  // a lesson opened: at the link's section, if it names one
      const raw = d.dataset.resume;
      const k = raw === "end" ? "end" : Math.max(0, parseInt(raw || "0", 10) || 0);
      resume = k === "end" || k > 0 ? { k, until: performance.now() + HOLD_MS } : null;
      go(resume ? target(resume) : 0);
      hold();
      return;
    }
    writeUrl(shown.k);
  }
  // Charts that finish drawing after the run move the marks: hold a resumed section in place
  // until the first key press, for a few seconds at most.
  const held = new ResizeObserver(() => {
    if (resume && presenting() && performance.now() < resume.until) go(target(resume)); else resume = null;
  });
  let heldBox = null;
  function hold() {
    const box = q('[data-testid="stMainBlockContainer"]');
    if (box && box !== heldBox) { if (heldBox) held.unobserve(heldBox); held.observe(box); heldBox = box; }
  }
  window.addEventListener("keydown", () => { resume = null; }, true);
  const app = q('[data-testid="stApp"]');
  const watch = () => {
    const a = q('[data-testid="stApp"]');
    if (!a) { setTimeout(watch, 50); return; }
    new MutationObserver(() => {
      if (a.dataset.testScriptState !== "notRunning") return;
      if (waiting) waiting.done();
      settled();
      drain();
    }).observe(a, { attributes: true, attributeFilter: ["data-test-script-state"] });
    if (a.dataset.testScriptState === "notRunning") settled();
    // Held presses go on as soon as the page is drawn: the last skeleton can go after the run's end.
    setInterval(() => {
      if (waiting) waiting.done();
      if (held_keys.length) drain();
    }, 50);
    // A backstop for a run's end the observer did not see (two state changes drawn in one frame):
    // a lesson on the page that the clicker has not placed yet is placed once the app is idle.
    setInterval(() => {
      const d = deckNow();
      if (d && presenting() && d.dataset.lesson !== shown.lesson && a.isConnected &&
          a.dataset.testScriptState === "notRunning") settled();
    }, 250);
  };
  if (app || document.readyState !== "loading") watch(); else addEventListener("DOMContentLoaded", watch);
})();
