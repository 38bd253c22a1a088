// Live figures (explorer/live.py): while a slider is dragged, every chart that follows it is redrawn
// from the figures the engine computed at each of the slider's values. This script chooses among
// them; it computes nothing. Streamlit sends the slider's value to the server only when it is let go.
export default function ({ data }) {
  const live = (window.__fvLive = window.__fvLive || { charts: {}, knobs: {}, watched: new WeakSet(), run: 0 });
  live.charts = data.charts;
  live.knobs = data.knobs;
  live.run += 1;  // a new run: each chart's figure on screen is the server's again
  for (const el of document.querySelectorAll("[data-live-knob]")) {  // a slider no chart here follows
    if (!(el.dataset.liveKnob in data.knobs)) delete el.dataset.liveKnob;
  }
  for (const knob of Object.keys(data.knobs)) watch(live, knob);
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
  new MutationObserver(() => moved(live, knob, el)).observe(el, { attributes: true, attributeFilter: ["aria-valuetext"] });
}

// Whether every other live slider still stands where it stood for this run's figures: after one is let
// go, the others' figures are the old run's until the new one arrives, and none is drawn from them.
function current(live, knob) {
  return Object.entries(live.knobs).every(([other, k]) => {
    if (other === knob) return true;
    const el = input(other);
    return !el || Math.abs(Number(el.value) - k.at) < 1e-9;
  });
}

function moved(live, knob, el) {
  if (!current(live, knob)) return;
  const raw = Number(el.value);
  for (const [chart, byKnob] of Object.entries(live.charts)) {
    const steps = byKnob[knob];
    if (!steps) continue;
    const at = live.knobs[knob].mode === "index" ? raw : steps.values.findIndex((v) => Math.abs(v - raw) < 1e-9);
    if (at >= 0 && at < steps.values.length) draw(live, chart, steps, at);
  }
}

function draw(live, chart, steps, at) {
  const gd = document.querySelector(`.st-key-${CSS.escape(chart)} .js-plotly-plot`);
  if (!gd || !window.Plotly || !gd.data) return;
  if (gd.__fvRun !== live.run) {  // the chart as the server drew it at this run's settings
    gd.__fvBase = { data: gd.data.map((t) => ({ ...t })), layout: { ...gd.layout } };
    gd.__fvRun = live.run;
  }
  const base = gd.__fvBase, change = steps.data[at], lay = steps.layout[at];
  const data = Array.isArray(change) ? change : base.data.map((t, i) => merge(t, change[i]));
  const layout = merge(base.layout, lay);
  if (lay.title && steps.title && base.layout.title && typeof base.layout.title.text === "string") {
    // the title as Streamlit drew it is the engine's, dressed (bold): dress the new one alike
    const [before, after] = base.layout.title.text.split(steps.title);
    if (after !== undefined) layout.title = { ...lay.title, text: before + lay.title.text + after };
  }
  gd.dataset.liveAt = String(steps.values[at]);
  // drawn: an event for whoever measures the redraw (bench/live.py)
  window.Plotly.react(gd, data, layout).then(() => gd.dispatchEvent(new Event("fv-live-drawn", { bubbles: true })));
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
