// Live figures (explorer/live.py): while a slider is dragged, every chart that follows it is redrawn
// from the figures the engine computed at each of the slider's values. This script chooses among
// them; it computes nothing. Streamlit sends the slider's value to the server only when it is let go.
export default function ({ data, setTriggerValue }) {
  const live = (window.__fvLive = window.__fvLive || { charts: {}, knobs: {}, watched: new WeakSet(), run: 0 });
  const fresh = live.serverRun !== data.run;  // a new run of the page, not the figures it left out arriving
  live.serverRun = data.run;
  live.charts = data.charts;
  live.knobs = data.knobs;
  // each slider's value (as its input counts) where its charts were last drawn: the server's, at a new run
  if (fresh) live.drawnAt = {};
  for (const [knob, k] of Object.entries(data.knobs)) if (!(knob in live.drawnAt)) live.drawnAt[knob] = k.at;
  live.players = data.players || {};
  if (!live.keys) {  // once a page: the players' keys
    live.keys = true;
    document.addEventListener("keydown", (e) => playerKey(live, e), true);
  }
  if (fresh) {
    prune(live);  // the copies of figures this run does not carry go (explorer/snapshots.js)
    live.run += 1;  // a new run: each chart's figure on screen is the server's again
    clearTimeout(live.later);  // and no chart is drawn again from the last run's figures once the slider stands still
  }
  // The page's run carried the figures built already; a slider's missing ones are asked for when the
  // reader shows the intent to move it (explorer/live.py), and come in a run of this component's fragment.
  live.render = (live.render || 0) + 1;  // this drawing of the component: its asks are its own
  live.missing = new Set(data.missing || []);
  // what was asked for and is still missing (its ask dropped by this drawing, or answered for an older run): again
  const again = [...(live.wanted || [])].filter((k) => live.missing.has(k));
  live.wanted = new Set();
  live.asking = new Set();  // an answer came (a run, or a fill): what is still missing may be asked again
  live.ask = (knobs) => {
    const want = knobs.filter((k) => live.missing.has(k) && !live.asking.has(k));
    if (!want.length) return;
    want.forEach((k) => { live.asking.add(k); live.wanted.add(k); });
    state(live);
    const render = live.render;
    // an ask still waiting when the component is drawn again is dropped: that drawing asks afresh for what the
    // pointer and the focus still want, and Streamlit sent an older drawing's trigger with its fragment gone
    recorded(live, () => {
      if (live.render !== render) return;
      if (live.dropAsk) live.dropAsk -= 1;  // tests: this ask lost on its way
      else setTriggerValue("fill", { run: data.run, knobs: want });
      unanswered(live, render, want);
    });
  };
  state(live);
  if (!live.intent) {  // once a page: the pointer over a slider, or the keyboard's focus on it
    live.intent = (e) => intent(live, e);
    document.addEventListener("pointerover", live.intent, true);
    document.addEventListener("focusin", live.intent, true);
  }
  // a touch screen has no pointer to hover before the drag, and a player's keys step its slider: at once
  const now = [...Object.values(live.players), ...again];
  if (window.matchMedia && window.matchMedia("(pointer: coarse)").matches) now.push(...live.missing);
  for (const knob of live.missing) {  // the pointer already over a slider, or the focus on it, when the run came
    const box = document.querySelector(`.st-key-${CSS.escape(knob)}`);
    if (box && (box.matches(":hover") || box.contains(document.activeElement))) now.push(knob);
  }
  live.ask(now);
  for (const el of document.querySelectorAll("[data-live-knob]")) {  // a slider no chart here follows
    if (!(el.dataset.liveKnob in data.knobs)) delete el.dataset.liveKnob;
  }
  rewatch(live);
  follow(live);  // a drag drawn in the frame its pointer moved in (explorer/pointer.js)
  snapWatch(live);
  snapSoon(live);  // the copies for a drag, drawn while the page is idle (explorer/snapshots.js)
  if (!live.page) {  // a slider drawn after this script ran (its code still loading, or drawn anew): watched then
    live.page = new MutationObserver(() => {
      if (live.pending) return;
      live.pending = requestAnimationFrame(() => { live.pending = 0; rewatch(live); });
    });
    live.page.observe(document.body, { childList: true, subtree: true });
  }
}

// What the page says of its live figures, for tests and bench/live.py: "filling" while an ask is out,
// "partial" while some slider's figures are still to be asked for, else "ready".
function state(live) {
  document.documentElement.dataset.fvLive = live.asking.size ? "filling" : live.missing.size ? "partial" : "ready";
}

// Call `send` once the page holds the run it was drawn by: the run over, and every live slider showing the value
// the run gave it. The ask carries Streamlit's record of every control, and right after a run that set a slider
// on the server (a step of the clicker's sets the key tile) that record can still hold the old value until the
// slider has drawn the new one: the server would take it for a move and rerun the page at it, undoing the step.
// At most RECORDED_MS: a reader dragging another slider holds it away from the run's value until let go.
const RECORDED_MS = 1000;
// Whether no run of the page is going on (Streamlit marks its app's state).
function idle() {
  const app = document.querySelector('[data-testid="stApp"]');
  return !app || app.dataset.testScriptState === "notRunning";
}

function recorded(live, send) {
  const until = performance.now() + RECORDED_MS;
  const check = () => {
    if ((idle() && current(live, null)) || performance.now() > until) send();
    else requestAnimationFrame(check);
  };
  check();
}

// An ask whose answer has not come once the page has stood idle for ASK_AGAIN_MS is made again: an answer draws the
// component again (a new `render`), and one that leaves the figures missing (an ask the server took for an older
// run's) draws nothing new, so the page would wait for good.
const ASK_AGAIN_MS = 3000;
function unanswered(live, render, want) {
  let idleSince = null;
  const check = () => {
    if (live.render !== render) return;  // answered, or drawn again: that drawing asks afresh for what is missing
    const still = want.filter((k) => live.missing.has(k));
    if (!still.length) return;
    if (!idle()) idleSince = null;
    else if (idleSince === null) idleSince = performance.now();
    if (idleSince === null || performance.now() - idleSince < ASK_AGAIN_MS) {
      setTimeout(check, 250);
      return;
    }
    still.forEach((k) => live.asking.delete(k));
    live.ask(still);
  };
  setTimeout(check, 250);
}

function intent(live, e) {
  const t = e.target;
  if (!t || !t.closest) return;
  const knob = Object.keys(live.knobs).find((k) => t.closest(`.st-key-${CSS.escape(k)}`));
  if (knob && knob !== live.intentKnob) {  // its copies drawn ahead first (explorer/snapshots.js)
    live.intentKnob = knob;
    live.recentKnobs = [knob, ...(live.recentKnobs || []).filter((k) => k !== knob)].slice(0, KEPT_KNOBS);
    snapSoon(live);
  }
  for (const knob of live.missing) {
    if (t.closest(`.st-key-${CSS.escape(knob)}`)) { live.ask([knob]); return; }
  }
}

function rewatch(live) {
  for (const knob of Object.keys(live.knobs)) watch(live, knob);
}

// The range input of the slider whose URL key is `knob` (Streamlit marks a keyed widget st-key-<key>).
function input(knob) {
  return document.querySelector(`.st-key-${CSS.escape(knob)} input[type="range"]`);
}

function watch(live, knob) {
  const el = input(knob);
  if (!el) return;
  el.dataset.liveKnob = knob;
  if (live.watched.has(el)) return;
  live.watched.add(el);
  // React sets the thumb's aria-valuetext and value on every move of a drag or a key.
  // a value the drag's pointer has passed already is not drawn again (explorer/pointer.js `lagging`)
  new MutationObserver(() => { if (!lagging(live, knob, el)) soon(live, knob, el); })
    .observe(el, { attributes: true, attributeFilter: ["aria-valuetext"] });
}

// A move is drawn at once (the slider's React update has just run, so the paint that shows the slider
// shows the chart too), and at most once a frame: moves that come faster wait for the next frame, and
// only the latest value is drawn then.
function soon(live, knob, el) {
  live.latest = [knob, el];
  if (live.frame) return;
  if (!live.busy) {
    live.busy = requestAnimationFrame(() => { live.busy = 0; });
    moved(live, knob, el);
    return;
  }
  live.frame = requestAnimationFrame(() => {
    live.frame = 0;
    moved(live, ...live.latest);
  });
}

// Whether every other live slider (every one, for `knob` null) still stands where it stood for this run's
// figures: after one is let go, the others' figures are the old run's until the new one arrives, and none is
// drawn from them.
function current(live, knob) {
  return Object.entries(live.knobs).every(([other, k]) => {
    if (other === knob) return true;
    const el = input(other);
    return !el || Math.abs(Number(el.value) - k.at) < 1e-9;
  });
}

// The charts in view are redrawn at once, in this frame: a copy drawn ahead put in front, or else the chart drawn in
// the margins a drag draws it in (`draw`'s `moving`, `pinOf`). Once the slider has stood still for LATER_MS, one
// chart a task: those above or below the screen, and those in view again with the margins the figure's own labels
// need; one with a copy in front waits HELD_MS while the slider is still held, its figure already on screen. So the
// redraws after a move seldom hold up the frame of the next (a task that runs before the frame delays its paint: at
// 40 ms a move on lesson 12, and a drag paused for a moment met them all in one task).
const LATER_MS = 150, HELD_MS = 1000;
function moved(live, knob, el, raw = Number(el.value)) {
  if (!current(live, knob)) return;
  const later = [];
  // React sets the attribute again on any render (a resize, say): only a new value is a move
  if (live.drawnAt[knob] === raw) return;
  live.drawnAt[knob] = raw;
  const now = [];
  for (const [chart, byKnob] of Object.entries(live.charts)) {
    const steps = byKnob[knob];
    if (!steps) continue;
    const at = indexOf(live, knob, steps, raw);
    if (at < 0 || at >= steps.values.length) continue;
    const box = document.querySelector(`.st-key-${CSS.escape(chart)}`);
    // which charts are in view, all read before any is drawn: a read after a drawing lays the page out again
    if (box && inView(box)) now.push([chart, steps, at]);
    later.push({ chart, draw: () => draw(live, chart, knob, steps, at, false) });
  }
  for (const [chart, steps, at] of now) draw(live, chart, knob, steps, at, true);
  for (const item of later) {
    const gd = document.querySelector(`.st-key-${CSS.escape(item.chart)} .fv-plot`);
    item.copy = !!gd && "liveSnap" in gd.dataset;
  }
  later.sort((a, b) => a.copy - b.copy);
  const move = (live.move = (live.move || 0) + 1), movedAt = performance.now();
  clearTimeout(live.later);
  const next = () => {
    if (live.move !== move || !later.length) return;
    const held = live.heldMs ?? HELD_MS;  // heldMs: a test that compares what a copy shows holds it longer
    const left = movedAt + (later[0].copy && live.holding ? held : LATER_MS) - performance.now();
    if (left > 0) {
      live.later = setTimeout(next, left);
      return;
    }
    later.shift().draw();
    live.later = setTimeout(next, 0);
  };
  if (later.length) live.later = setTimeout(next, LATER_MS);
}

// The chart at the slider's value `at` (an index among steps.values). `moving`: mid-drag, where the copy drawn
// ahead for the value is shown if there is one (explorer/snapshots.js), else the chart is drawn in the margins a
// drag draws it in (`figureAt`, `pinOf`). Plotly otherwise fits the margins to the labels by drawing the chart,
// measuring them and drawing it again, half of a move's redraw on lesson 14 (94 ms a move at the median against 59
// in fixed margins); the chart is drawn again in its own margins once the slider stands still (`moved`), as the
// server draws it after the release.
function draw(live, chart, knob, steps, at, moving) {
  const gd = document.querySelector(`.st-key-${CSS.escape(chart)} .fv-plot`);
  if (gd) gd.__fvChart = chart;  // what the page holds for it is held by its key (explorer/snapshots.js `held`)
  if (gd && gd.__fvLater) gd.__fvLater(true);  // the run's figure, still waiting to be drawn (explorer/plot.js): now
  if (!gd || !window.Plotly || !gd.data) return;
  based(live, gd);  // before this move marks the chart (the run's figure may be drawn again first)
  const value = String(steps.values[at]);
  gd.dataset.liveAt = value;  // asked for
  gd.__fvMoved = true;  // the run's figure is no longer the one on screen (explorer/plot.js draws it again)
  // shown, and an event for whoever measures the redraw (bench/live.py); data-live-drawn: the value whose figure
  // the chart itself holds now (what a test reads waits for it), data-live-snap: the one a copy shows in front
  // (in view: mid-drag, `moved` drew only charts in view, and read so before it drew any)
  const shown = () => gd.dispatchEvent(new CustomEvent("fv-live-drawn", { bubbles: true,
    detail: { inView: moving || inView(gd), moving, snapshot: "liveSnap" in gd.dataset } }));
  if (moving && showSnap(live, gd, knob, steps, at)) {
    shown();
    return;
  }
  const { data, layout } = figureAt(live, gd, knob, steps, at, moving);
  const sig = snapSig(live, gd, knob, steps), drawing = (gd.__fvDrawings = (gd.__fvDrawings || 0) + 1), run = live.run;
  unsnap(gd);
  window.Plotly.react(gd, data, layout).then(() => {
    if (gd.dataset.liveAt === value) gd.dataset.liveDrawn = value;
    // kept for the next pass over this value, once the frame that shows it is painted (a copy taken before it holds
    // up its paint: 1 to 3 ms a chart) and while the chart still holds this drawing; not while a run goes on: its
    // figure may be drawn before its sliders' figures come, and the title dressed by the old ones (`figureAt`) would
    // be kept for as long as the figures stand
    if (moving) {
      keepSoon(live, gd, () => {
        // no drawing since, of either; the same run, and the chart on the page
        const still = gd.__fvDrawings === drawing && gd.dataset.liveDrawn === value && live.run === run;
        if (still && gd.isConnected && idle() && snapSig(live, gd, knob, steps) === sig) {
          keep(live, gd, knob, steps, at, gd);
        }
      });
    }
    shown();
  });
}

// A copy of a chart's drawing (`take`), taken once the frame that shows it is painted, or before the next move is
// drawn if that comes first (explorer/pointer.js `drawMove`): one a chart, the newest.
function keepSoon(live, gd, take) {
  live.keeps = live.keeps || new Map();
  live.keeps.set(gd, take);
  requestAnimationFrame(() => setTimeout(() => takeKeeps(live), 0));
}

function takeKeeps(live) {
  const keeps = [...(live.keeps || [])];
  if (live.keeps) live.keeps.clear();
  for (const [, take] of keeps) take();
}

// The figure of the chart `gd` at the slider's value `at`: every attribute that changes along the slider set on
// the chart as the server drew it, to that value's own or else the reference value's (live.py steps). `pinned`:
// in the margins a drag draws it in (`pinOf`).
function figureAt(live, gd, knob, steps, at, pinned) {
  based(live, gd);
  const base = gd.__fvBase, change = steps.data[at], lay = { ...steps.ref.layout, ...steps.layout[at] };
  const data = Array.isArray(change) ? change
    : base.data.map((t, i) => merge(t, { ...steps.ref.data[i], ...change[i] }));
  const layout = merge(base.layout, lay);
  // the size the chart has now, not the one it had when the run drew it (the window may have changed
  // since), but a height the engine's figure changes with the value
  for (const key of ["width", "height", "autosize"]) {
    if (key === "height" && lay && lay.height != null) continue;
    if (key in gd.layout) layout[key] = gd.layout[key];
    else delete layout[key];
  }
  const title = lay.title, drawn = base.layout.title, own = ownTitle(live, knob, steps);
  if (title && own && drawn && typeof drawn.text === "string") {
    // the title as the chart was drawn is the engine's, dressed (bold, explorer/plot.js): dress the new one alike
    const [before, after] = drawn.text.split(own);
    if (after !== undefined) layout.title = { ...title, text: before + title.text + after };
  }
  const size = pinned && pinOf(live, gd, knob, steps);
  if (size) {
    layout.margin = { ...layout.margin, l: size.l, r: size.r, t: size.t, b: size.b, autoexpand: false };
  }
  // the layout for the chart's width the figure carries (a phone's: explorer/plot.js)
  return gd.__fvFit ? gd.__fvFit({ data, layout }) : { data, layout };
}

// The chart as the server drew it at this run's settings, kept once a run (gd.__fvBase), with the margins it was drawn
// in (gd.__fvPin). A chart a slider moved before this run, whose figure the run left as it was, is drawn with it again
// first (Streamlit then draws no component anew: explorer/plot.js); one whose figure waits to be drawn, now.
function based(live, gd) {
  if (gd.__fvRun === live.run) return;
  if (gd.__fvMoved && gd.__fvRedraw) gd.__fvRedraw();
  if (gd.__fvLater) gd.__fvLater(true);
  gd.__fvBase = { data: gd.data.map((t) => ({ ...t })), layout: { ...gd.layout } };
  gd.__fvRun = live.run;
  gd.__fvPin = gd._fullLayout && { ...gd._fullLayout._size };
}

// The margins a drag along `knob` draws the chart in: those a run drew it in at rest (`based`), the first run that
// drew it with these figures along the slider (`steps.id`: the slider let go, the page run again at its new value,
// keeps them) at this width. So a drag after a release draws the chart, and shows the copies drawn ahead before it
// (explorer/snapshots.js), in the same margins, though the chart at rest has its own at each value.
function pinOf(live, gd, knob, steps) {
  based(live, gd);
  const pins = held(live, gd).pins, key = `${steps.id}|${gd.layout.width}|${gd.__fvFits}`;
  const kept = pins.get(knob);
  if (kept && kept.key === key) return kept.pin;
  if (gd.__fvPin) pins.set(knob, { key, pin: gd.__fvPin });
  return gd.__fvPin;
}

// The engine's title of the chart at the value the run drew it at (the slider where the server had it).
function ownTitle(live, knob, steps) {
  const at = indexOf(live, knob, steps, live.knobs[knob].at);
  const title = at < 0 ? null : { ...steps.ref.layout, ...steps.layout[at] }.title;
  return title && typeof title.text === "string" ? title.text : null;
}

// The index among the slider's values of what its input holds (`raw`): the position itself for a select slider.
function indexOf(live, knob, steps, raw) {
  return live.knobs[knob].mode === "index" ? raw : steps.values.findIndex((v) => Math.abs(v - raw) < 1e-9);
}

// A copy of `into` with `change`'s keys set (null: removed).
function merge(into, change) {
  const out = { ...into };
  for (const [k, v] of Object.entries(change || {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

// A chart that plays its slider, as the app's players do: → and ← step the slider, Home and End take it to its
// ends, space plays it through, one step a second. The keys act on the chart in the section on screen when
// presenting (the clicker's __fvOwnsKeys), else on one in view; a focused control keeps its own keys. Each step
// moves Streamlit's slider, so the chart follows at once and the page catches up with its run.
const FIELDS = "input, textarea, select, [contenteditable='true'], [role='slider'], [role='combobox']";
const PLAYER_KEYS = { ArrowRight: "ArrowRight", ArrowLeft: "ArrowLeft", Home: "Home", End: "End" };

function inView(el) {
  const r = el.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}

function press(el, key) {
  for (const type of ["keydown", "keyup"]) el.dispatchEvent(new KeyboardEvent(type, { key, code: key, bubbles: true }));
}

function playerKey(live, e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !(e.key in PLAYER_KEYS || e.key === " ")) return;
  const t = e.target;
  if (t && t.closest && t.closest(FIELDS)) return;
  if (e.key === " " && t && t.closest && t.closest("button")) return;
  for (const [chart, knob] of Object.entries(live.players)) {
    const box = document.querySelector(`.st-key-${CSS.escape(chart)}`), el = input(knob);
    if (!box || !el) continue;
    const owns = typeof window.__fvOwnsKeys === "function" ? window.__fvOwnsKeys(box) : undefined;
    if (owns === false || (owns === undefined && !inView(box))) continue;
    e.preventDefault();
    e.stopPropagation();
    const key = e.key;
    holdKey(live, () => {
      if (key === " ") { playing(live, knob, !live.playing); return; }
      playing(live, knob, false);
      const now = input(knob);  // the slider as the page holds it now (a run may have drawn it anew)
      if (now) press(now, PLAYER_KEYS[key]);
    });
    return;
  }
}

// A player's key waits for the page it acts on. One pressed while a run goes on (the run a clicker's PageDown
// started to set lesson 13's key tile, say) would move the slider from the value that run replaces, and the
// run's value would then undo it. Keys are applied in order, each once no run goes on, every live slider shows
// its run's value and the clicker holds no press (explorer/clicker.js: a PageDown's step is held until the slider
// shows the step's value, which comes some frames after Streamlit marks the run over), or HELD_KEY_MS after it was
// pressed.
const HELD_KEY_MS = 10000, MOST_KEYS = 8;
function keysReady(live) {
  const clicker = typeof window.__fvHeld === "function" ? window.__fvHeld() : 0;
  return idle() && !clicker && current(live, null);
}

function holdKey(live, act) {
  live.keyQueue = live.keyQueue || [];
  if (live.keyQueue.length >= MOST_KEYS) return;
  live.keyQueue.push({ act, at: performance.now() });
  if (live.keyQueue.length === 1) applyKeys(live);
}

function applyKeys(live) {
  while (live.keyQueue.length) {
    if (!keysReady(live) && performance.now() - live.keyQueue[0].at < HELD_KEY_MS) {
      setTimeout(() => applyKeys(live), 16);
      return;
    }
    live.keyQueue.shift().act();
  }
}

function playing(live, knob, on) {
  clearInterval(live.playing);
  live.playing = 0;
  if (!on) return;
  const tick = () => {
    const el = input(knob);
    if (!el || Number(el.value) >= Number(el.max)) { playing(live, knob, false); return; }
    if (keysReady(live)) press(el, "ArrowRight");  // else the last step's run is still on its way: a step later
  };
  const el = input(knob);
  if (el && Number(el.value) >= Number(el.max)) press(el, "Home");  // from the end: play it again from the start
  live.playing = setInterval(tick, 1000);
}
