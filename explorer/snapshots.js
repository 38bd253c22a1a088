// Drawings made ahead for a drag (explorer/live.js; this file is put before it, in one script). While the page
// is idle, each chart that follows the slider the reader points at or focuses is drawn by plotly.js at each of the
// slider's values, in a stage of its own off the screen, as live.js draws it mid-drag (the same figure, in the
// margins a drag draws the chart in: live.js `pinOf`), and a copy of that drawing is kept, then flattened to one
// image; kept across the runs a release starts while the server names the figures along the slider the same. A move
// mid-drag then puts the copy for its value in front of the chart: a swap of elements, not a redraw by plotly.js,
// and once flattened one image to paint, not a drawing of hundreds of elements to lay out and paint
// (BENCHMARKS.md, "Live charts"). A value with no copy yet is drawn in the chart itself, as before, and that
// drawing kept. Once the slider stands still the chart itself is drawn at its value. Nothing is computed here: the
// figures are the engine's (explorer/live.py), the drawings plotly.js's, the images the browser's of those
// drawings. tests/test_live_browser.py holds a copy's drawing equal to the chart drawn at its value, mark for mark,
// and its image equal to its drawing, pixel for pixel but for a few on the edges of glyphs and lines.

const QUIET_MS = 250;  // no drawing ahead for this long after a move of the pointer with a button down, or a key
// The sliders whose copies are kept: the one pointed at last and those pointed at before it, this many in all (with
// the players' sliders besides)
const KEPT_KNOBS = 3;
// A copy is then flattened to pixels (`flatten`), which the browser paints as one image, where the drawing it holds
// has to be laid out and painted afresh at each swap. At most this many bytes of pixels, every chart's together:
// past them the nearest values keep theirs and the others stay drawings.
const MOST_PIXEL_BYTES = 160 * 2 ** 20;
let copies = 0;  // copies made, for ids of their own

// What a chart's copies along a slider hold for: the figures along it (`steps.id`, the server's name for them, the
// same at every run whose other settings are these: a slider let go and the page run again at its new value keeps
// its copies), the margins a drag draws the chart in (explorer/live.js `pinOf`), its size and the layout for its
// width (explorer/plot.js).
function snapSig(live, gd, knob, steps) {
  const pin = pinOf(live, gd, knob, steps);
  const margins = pin ? ["l", "r", "t", "b"].map((k) => Math.round(pin[k])).join(",") : "";
  return `${steps.id}|${margins}|${gd.layout.width}x${gd.layout.height}|${gd.__fvFits}`;
}

// What the page holds for a chart, by the chart's key: its copies (`${knob}|${at}` -> copy, and the signature each
// slider's hold for), and the margins a drag draws it in (explorer/live.js `pinOf`). Kept when Streamlit mounts the
// chart's element anew (it does when an element comes or goes above it at the value a slider was let go at); gone
// with the chart from the page.
function held(live, gd) {
  const chart = gd.__fvChart;  // set where the chart is found by its key (live.js `draw`, `nextSnap`)
  live.held = live.held || new Map();
  let kept = live.held.get(chart);
  if (!kept) live.held.set(chart, (kept = { sigs: new Map(), byKey: new Map(), pins: new Map() }));
  gd.__fvSnaps = kept;  // for tests and bench/live.py
  return kept;
}

// At a new run of the page: what is held for a chart no longer on it goes, and a chart's copies along a slider whose
// figures the run names otherwise (or does not carry) go, with the margins a drag drew them in. Drawing ahead is
// marked as going on until it has looked again (`snapOne`).
function prune(live) {
  for (const [chart, kept] of live.held || []) {
    if (!(chart in live.charts)) {
      live.held.delete(chart);
      continue;
    }
    for (const [knob, sig] of [...kept.sigs]) {
      const steps = live.charts[chart][knob];
      if (steps && sig.startsWith(`${steps.id}|`)) continue;
      kept.sigs.delete(knob);
      kept.pins.delete(knob);
      dropAlong(kept, knob);
    }
  }
  document.documentElement.dataset.fvSnap = "drawing";
}

// The copies a chart holds, those along `knob` kept only while they hold for `steps` as the page has them now: none
// kept from other figures, margins or sizes.
function snaps(live, gd, knob, steps) {
  const sig = snapSig(live, gd, knob, steps), kept = held(live, gd);
  if (kept.sigs.get(knob) !== sig) {
    dropAlong(kept, knob);
    kept.sigs.set(knob, sig);
  }
  return kept.byKey;
}

// A chart's copies along `knob` dropped.
function dropAlong(kept, knob) {
  for (const key of [...kept.byKey.keys()]) if (key.slice(0, key.lastIndexOf("|")) === knob) kept.byKey.delete(key);
}

// The copy of the chart at the slider `knob`'s value `at` (an index among its values) put in front of it:
// false where there is none yet (or tests asked for none: live.snapOff).
function showSnap(live, gd, knob, steps, at) {
  const copy = !live.snapOff && snaps(live, gd, knob, steps).get(`${knob}|${at}`);
  if (!copy) return false;
  let front = gd.querySelector(":scope > .fv-snap");
  if (!front) {
    front = document.createElement("div");
    front.className = "fv-snap js-plotly-plot";  // plotly.js's own style rules apply to it as to the chart
    front.style.cssText = "position:absolute;left:0;top:0;pointer-events:none;contain:strict";
    gd.style.position = "relative";
    gd.appendChild(front);
  }
  // its size its own (contain: strict): what changes inside it lays out nothing outside
  front.style.width = `${gd.layout.width}px`;
  front.style.height = `${gd.layout.height}px`;
  front.replaceChildren((!live.flatOff && copy.flat) || copy.drawing);
  const own = gd.querySelector(":scope > .plot-container");
  if (own) own.style.visibility = "hidden";
  gd.dataset.liveSnap = String(gd.dataset.liveAt);
  return true;
}

// The chart itself in front again (it is about to be drawn, or was just drawn).
function unsnap(gd) {
  const front = gd.querySelector(":scope > .fv-snap");
  if (front) front.replaceChildren();
  const own = gd.querySelector(":scope > .plot-container");
  if (own) own.style.visibility = "";
  delete gd.dataset.liveSnap;
}

// Keep a copy of what `from` (the chart, or its stage) has drawn, as the chart at `knob`'s value `at`. Its ids are
// made its own: a copy that kept them would be clipped by the first element of the page with the same id.
function keep(live, gd, knob, steps, at, from) {
  const drawing = from.querySelector(":scope > .plot-container");
  if (!drawing) return;
  const copy = drawing.cloneNode(true);
  copy.style.visibility = "";
  copy.querySelectorAll(".modebar-container").forEach((e) => e.remove());
  const tag = `-fvs${++copies}`, renamed = new Map();
  for (const el of copy.querySelectorAll("[id]")) {
    renamed.set(el.id, el.id + tag);
    el.id += tag;
  }
  if (renamed.size) {
    const swap = (s) => s.replace(/url\(["']?#([^)"']+)["']?\)/g,
      (m, id) => (renamed.has(id) ? `url(#${renamed.get(id)})` : m));
    const refs = "[clip-path], [mask], [filter], [fill^='url'], [stroke^='url'], [style*='url(']";
    for (const el of copy.querySelectorAll(refs)) {
      for (const a of ["clip-path", "mask", "filter", "fill", "stroke", "style"]) {
        const v = el.getAttribute(a);
        if (v && v.includes("url(")) el.setAttribute(a, swap(v));
      }
    }
  }
  snaps(live, gd, knob, steps).set(`${knob}|${at}`, { drawing: copy, flat: null });
}

// The copy's drawing as one image: plotly.js's SVG layers, stacked in one SVG as the page stacks them, drawn by the
// browser as an image onto a canvas of the chart's size (in the screen's pixels). An SVG drawn as an image sees none
// of the page's styles: the page's faces of the fonts its text is set in go inside it (`faces`), and so does the
// one rule of plotly.js's style sheet that changes a drawing (`.crisp`).
async function flatten(drawing, width, height) {
  const layers = [...drawing.querySelectorAll("svg.main-svg")].map((layer) => layer.cloneNode(true));
  if (!layers.length) throw new Error("no drawing");
  const svg = layers[0];
  for (const layer of layers.slice(1)) svg.appendChild(layer);
  svg.querySelectorAll(".crisp").forEach((e) => e.setAttribute("shape-rendering", "crispEdges"));
  const texts = [...svg.querySelectorAll("text")];
  if (texts.length) {
    const style = document.createElementNS("http://www.w3.org/2000/svg", "style");
    style.textContent = await faces(texts);
    svg.insertBefore(style, svg.firstChild);
  }
  const scale = window.devicePixelRatio || 1;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.style.cssText = `display:block;width:${width}px;height:${height}px`;
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(svg)], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  } finally {
    URL.revokeObjectURL(url);
  }
  return canvas;
}

// The page's @font-face rules for the fonts `texts` are set in (each text's font-family and font-style), their files
// inlined: an SVG drawn as an image loads nothing from outside itself. Fetched once a page, from the server that
// served the page only: a face whose file is elsewhere leaves the copy a drawing (`inline` throws).
const inlined = new Map();  // a face's CSS -> a promise of it with its files inlined
const bare = (name) => name.trim().replace(/^["']|["']$/g, "").toLowerCase();
const slant = (style) => (/italic|oblique/.test(style) ? "italic" : "normal");
async function faces(texts) {
  const named = new Set();
  for (const t of texts) {
    for (const f of t.style.fontFamily.split(",")) named.add(`${bare(f)}|${slant(t.style.fontStyle)}`);
  }
  const out = [];
  for (const sheet of document.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch (e) {
      continue;  // another origin's sheet: none here
    }
    for (const rule of rules) {
      if (!(rule instanceof CSSFontFaceRule)) continue;
      const family = bare(rule.style.getPropertyValue("font-family"));
      if (!named.has(`${family}|${slant(rule.style.getPropertyValue("font-style"))}`)) continue;
      if (!inlined.has(rule.cssText)) inlined.set(rule.cssText, inline(rule.cssText, sheet.href || location.href));
      out.push(inlined.get(rule.cssText));
    }
  }
  return (await Promise.all(out)).join("\n");
}

async function inline(css, base) {
  const urls = [...css.matchAll(/url\(["']?([^"')]+)["']?\)/g)].map((m) => m[1]).filter((u) => !u.startsWith("data:"));
  for (const u of new Set(urls)) {
    const url = new URL(u, base);
    if (url.origin !== location.origin) throw new Error(`a font on another host: ${url.origin}`);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`a font not served: ${url} (${response.status})`);
    const blob = await response.blob();
    const data = await new Promise((done, fail) => {
      const reader = new FileReader();
      reader.onload = () => done(reader.result);
      reader.onerror = () => fail(reader.error);
      reader.readAsDataURL(blob);
    });
    css = css.split(u).join(data);
  }
  return css;
}

// The bytes of pixels the copies hold now, every chart's together.
function pixelBytes(live) {
  let bytes = 0;
  for (const kept of live.held ? live.held.values() : []) {
    for (const copy of kept.byKey.values()) {
      if (copy && copy.flat) bytes += copy.flat.width * copy.flat.height * 4;
    }
  }
  return bytes;
}

// The reader's hands: a slider held, a move with a button down or a key. Drawing ahead waits for them to stop
// (QUIET_MS), and draws only along the slider held while it is held.
function snapWatch(live) {
  if (live.snapWatched) return;
  live.snapWatched = true;
  const held = (e) => e.target && e.target.closest && Object.keys(live.knobs)
    .some((k) => e.target.closest(`.st-key-${CSS.escape(k)}`));
  document.addEventListener("pointerdown", (e) => {
    if (held(e)) live.holding = true;
    live.lastInput = performance.now();
  }, true);
  document.addEventListener("pointermove", (e) => {
    if (e.buttons) live.lastInput = performance.now();
  }, true);
  for (const type of ["pointerup", "pointercancel"]) {
    document.addEventListener(type, () => { live.holding = false; live.lastInput = performance.now(); }, true);
  }
  document.addEventListener("keydown", () => { live.lastInput = performance.now(); }, true);
}

// Draw the next copy once the page is idle (after `wait` ms).
function snapSoon(live, wait = 0) {
  if (live.snapWaiting) return;
  live.snapWaiting = true;
  const go = () => {
    live.snapWaiting = false;
    snapOne(live);
  };
  const idle = window.requestIdleCallback ? () => requestIdleCallback(go, { timeout: 1000 }) : go;
  setTimeout(idle, wait);
}

function snapOne(live) {
  // not while a run goes on, nor while a slider stands away from this run's figures (let go, its run still to come):
  // a chart's new figure may be drawn before its sliders' figures come, and a copy drawn then would be kept
  // held still mid-drag: along the slider held, which alone stands away from the run's value (its figures hold
  // wherever it stands: explorer/live.py)
  if (!window.Plotly || performance.now() - (live.lastInput || 0) < QUIET_MS || !idle()
      || !current(live, live.holding ? live.intentKnob : null)) {
    snapSoon(live, QUIET_MS);
    return;
  }
  const job = nextSnap(live);
  document.documentElement.dataset.fvSnap = job ? "drawing" : "ready";  // for tests and bench/live.py
  if (!job) return;
  const { gd, chart, knob, steps, at, copy } = job;
  if (copy) {  // drawn already: flattened
    const sig = snapSig(live, gd, knob, steps);
    flatten(copy.drawing, gd.layout.width, gd.layout.height).then((flat) => {
      if (snapSig(live, gd, knob, steps) === sig) copy.flat = flat;
      snapSoon(live);
    }, (e) => {
      console.warn("flashviz: a copy not flattened", chart, knob, at, e);
      copy.flat = false;  // its drawing is shown
      snapSoon(live);
    });
    return;
  }
  const failed = (e) => {
    console.warn("flashviz: a copy not drawn", chart, knob, at, e);
    snaps(live, gd, knob, steps).set(`${knob}|${at}`, null);  // none: the chart itself is drawn there
    snapSoon(live);
  };
  try {
    const stage = stageOf(live, chart, gd);
    const before = snapSig(live, gd, knob, steps), { data, layout } = figureAt(live, gd, knob, steps, at, true);
    window.Plotly.react(stage, data, layout, gd.__fvConfig || {}).then(() => {
      // else drawn from figures that are gone
      if (snapSig(live, gd, knob, steps) === before) keep(live, gd, knob, steps, at, stage);
      snapSoon(live);
    }, failed);
  } catch (e) {
    failed(e);
  }
}

// A chart's stage: a box as large as the chart, off the screen (so plotly.js measures its text as in the chart).
function stageOf(live, chart, gd) {
  live.stages = live.stages || new Map();
  let stage = live.stages.get(chart);
  if (!stage || !stage.isConnected) {
    stage = document.createElement("div");
    stage.className = "fv-stage";
    stage.setAttribute("aria-hidden", "true");
    stage.style.cssText = "position:fixed;left:-30000px;top:0;pointer-events:none";
    document.body.appendChild(stage);
    live.stages.set(chart, stage);
  }
  stage.style.width = `${gd.layout.width}px`;
  stage.style.height = `${gd.layout.height}px`;
  return stage;
}

// The sliders whose copies are drawn: the one the reader last pointed at or focused (only it while it is held), and
// those the keys step as a player (explorer/live.js). Those of the sliders pointed at just before are kept
// (KEPT_KNOBS), not drawn further: a reader who reaches for another slider, or passes over it, and comes back finds
// them. The copies of the others are dropped: a slider has a copy per chart and value, and a lesson's sliders
// together would hold hundreds.
function snapKnobs(live) {
  const knobs = [...new Set([live.intentKnob, ...(live.holding ? [] : Object.values(live.players || {}))])]
    .filter((k) => k in live.knobs);
  const keep = new Set([...knobs, ...Object.values(live.players || {}), ...recentKnobs(live)]);
  for (const kept of live.held ? live.held.values() : []) {
    for (const key of [...kept.byKey.keys()]) {
      if (!keep.has(key.slice(0, key.lastIndexOf("|")))) kept.byKey.delete(key);
    }
  }
  return knobs;
}

// Whether the copies along the sliders drawn ahead (`drawing`, snapKnobs) may be flattened to images
// (MOST_PIXEL_BYTES): those kept for the sliders pointed at before go to make room, the one pointed at longest ago
// first; never those of a slider drawn ahead or a player's.
function roomFor(live, drawing) {
  const players = Object.values(live.players || {});
  const older = recentKnobs(live).filter((k) => !drawing.includes(k) && !players.includes(k));
  while (pixelBytes(live) >= MOST_PIXEL_BYTES && older.length) {
    const gone = older.pop();
    for (const kept of live.held.values()) dropAlong(kept, gone);
  }
  return pixelBytes(live) < MOST_PIXEL_BYTES;
}

// The sliders pointed at last, the last first: KEPT_KNOBS of those still on the page.
function recentKnobs(live) {
  return (live.recentKnobs || []).filter((k) => k in live.knobs).slice(0, KEPT_KNOBS);
}

// The next copy to draw: along each slider of snapKnobs, the values nearest where it stands first, and the charts
// nearest the view first; only charts drawn with this run's figure. None: every such copy is drawn.
function nextSnap(live) {
  for (const [chart, stage] of live.stages || []) {  // a chart no longer on the page (another lesson): its stage goes
    if (chart in live.charts) continue;
    window.Plotly.purge(stage);
    stage.remove();
    live.stages.delete(chart);
  }
  const drawing = snapKnobs(live);
  for (const knob of drawing) {
    const el = input(knob);
    if (!el) continue;
    const charts = [];
    for (const [chart, byKnob] of Object.entries(live.charts)) {
      const steps = byKnob[knob], gd = document.querySelector(`.st-key-${CSS.escape(chart)} .fv-plot`);
      if (gd) gd.__fvChart = chart;
      if (steps && gd && ready(live, gd)) charts.push({ chart, steps, gd, have: snaps(live, gd, knob, steps) });
    }
    if (!charts.length) continue;
    charts.sort((a, b) => away(a.gd) - away(b.gd));
    const count = charts[0].steps.values.length, here = indexOf(live, knob, charts[0].steps, Number(el.value));
    // every value's drawing first, then the images (the drawings come sooner, for a reader who drags at once)
    const room = !live.flatOff && roomFor(live, drawing);  // flatOff: tests, no images
    for (const flat of [false, true]) {
      for (let dist = 0; dist < count; dist++) {
        for (const at of dist ? [here + dist, here - dist] : [here]) {
          if (at < 0 || at >= count) continue;
          for (const c of charts) {
            const key = `${knob}|${at}`, copy = c.have.get(key);
            if (!flat && at < c.steps.values.length && !c.have.has(key)) return { ...c, knob, at };
            if (flat && room && copy && copy.flat === null) return { ...c, knob, at, copy };
          }
        }
      }
    }
  }
  return null;
}

// Whether a chart can be drawn ahead now: drawn with this run's figure (none waits to be drawn, nor has a slider
// moved it since, unless this run's figure was kept before). One a slider moved before this run, with a figure the
// run left as it was, is drawn with it again first, and one whose figure waits to be drawn is drawn now
// (explorer/plot.js): this is the page's idle time.
function ready(live, gd) {
  if (gd.__fvMoved && gd.__fvRun !== live.run && gd.__fvRedraw) gd.__fvRedraw();
  if (gd.__fvLater) gd.__fvLater(true);
  if (!gd.data || !gd.layout || gd.__fvLater || !gd.__fvWant || gd.__fvSpec !== gd.__fvWant.spec) return false;
  return !gd.__fvMoved || gd.__fvRun === live.run;
}

// How far a chart is from the view, in px (0: in it).
function away(gd) {
  const r = gd.getBoundingClientRect();
  return Math.max(0, r.top - window.innerHeight, -r.bottom);
}
