// A chart drawn in place (explorer/plot.py): one element for the page's life, its figure redrawn by
// Plotly.react where it stands when a run sends a new one (explorer/live.js redraws it as a slider moves).
// Streamlit's chart theme is merged in as its own chart merges it (explorer/plot.py says what is carried over);
// nothing of the figure is computed here.
const THEME = THEME_JSON;  // explorer/plot.py writes Streamlit's chart theme here
const CHUNK = CHUNK_NAME;  // and the name of Streamlit's chunk that holds plotly.js

export default function ({ data, parentElement }) {
  let gd = parentElement.querySelector(".fv-plot");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "fv-plot";
    parentElement.appendChild(gd);
    // the chart follows its column's width, as Streamlit's does
    gd.__fvResize = new ResizeObserver(() => resized(gd));
    gd.__fvResize.observe(parentElement);
  }
  gd.__fvWant = data;
  // the run's figure drawn again, now: explorer/live.js asks it of a chart a slider moved when a new run left this
  // chart's figure as it was (Streamlit then draws no component anew, so nothing here is called)
  gd.__fvRedraw = () => window.Plotly && soon(window.Plotly, gd);
  if (!gd._fullLayout) gd.style.minHeight = `${height(gd)}px`;  // its room held while plotly.js loads
  plotly().then((Plotly) => soon(Plotly, gd), (e) => console.error("flashviz: plotly.js did not load", e));
  // Once the chart has left the page (its element mounted anew elsewhere, or gone): nothing of it stays running.
  return () => setTimeout(() => {
    if (gd.isConnected) return;
    gd.__fvResize.disconnect();
    if (gd.__fvLater) gd.__fvLater(false);
    if (window.Plotly) window.Plotly.purge(gd);
  }, 0);
}

// A chart on the screen, or within a screen of it, is drawn at once. One further away waits until the page is
// idle (at most IDLE_MS) or until it comes within a screen of the view, whichever is first: a run's own elements
// are drawn first, and a long lesson's charts below the screen do not hold up the paint of what the reader sees.
const IDLE_MS = 1000;
const idle = window.requestIdleCallback
  ? (f) => { const id = requestIdleCallback(f, { timeout: IDLE_MS }); return () => cancelIdleCallback(id); }
  : (f) => { const id = setTimeout(f, IDLE_MS / 4); return () => clearTimeout(id); };  // Safari has none
let near = null;  // the page scrolls inside Streamlit's main area: the observer's root, for its margin to count
function nearing() {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!near || near.root !== main) {
    if (near) near.disconnect();
    near = new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting && e.target.__fvLater) e.target.__fvLater(true);
    }, { root: main, rootMargin: "100% 0px" });
  }
  return near;
}

function soon(Plotly, gd) {
  if (gd.__fvLater) gd.__fvLater(false);  // a draw still waiting: this one takes its place
  const data = gd.__fvWant;
  // unchanged, and not redrawn by a slider's move since: nothing to draw
  if (gd.__fvSpec === data.spec && !gd.__fvMoved) return;
  const r = gd.getBoundingClientRect();
  if (r.bottom > -window.innerHeight && r.top < 2 * window.innerHeight) {
    draw(Plotly, gd, data);
    return;
  }
  const observer = nearing(), cancel = idle(() => gd.__fvLater && gd.__fvLater(true));
  gd.dataset.waiting = "";  // for tests: a draw waits
  gd.__fvLater = (now) => {
    observer.unobserve(gd);
    cancel();
    gd.__fvLater = null;
    delete gd.dataset.waiting;
    if (now) draw(Plotly, gd, data);
  };
  observer.observe(gd);
}

function draw(Plotly, gd, data) {
  gd.__fvSpec = data.spec;
  gd.__fvMoved = false;
  gd.__fvRun = undefined;  // explorer/live.js takes this figure as the one its slider's changes apply to
  delete gd.dataset.liveAt;  // and it is no slider's live figure
  delete gd.dataset.liveDrawn;
  gd.__fvDrawnAt = performance.now();  // for tests: the order the charts were drawn in
  const fig = themed(JSON.parse(data.spec), THEME), w = width(gd);
  gd.__fvFits = fitKey(fig.layout, w);
  Object.assign(fig, fitted(fig, w));
  // explorer/live.js fits its figures alike, at the height it drew them (a fullscreen chart's, say)
  gd.__fvFit = (f) => {
    const out = fitted(f, f.layout.width || width(gd));
    if (f.layout.height != null) out.layout.height = f.layout.height;
    return out;
  };
  gd.__fvTall = fig.layout.height;  // the figure's height, or its narrow layout's
  fig.layout.width = w;
  fig.layout.height = height(gd);
  const config = JSON.parse(data.config);
  config.showSendToCloud = false;  // as Streamlit sets it, and no selection tools: a chart here selects nothing
  config.modeBarButtonsToRemove = [...(config.modeBarButtonsToRemove || []), "lasso2d", "select2d"];
  config.modeBarButtonsToAdd = [FULLSCREEN];
  gd.__fvConfig = config;  // explorer/snapshots.js draws its copies with it
  // a copy drawn ahead for a drag (explorer/snapshots.js) no longer in front: the chart is drawn anew
  const front = gd.querySelector(":scope > .fv-snap");
  if (front) front.replaceChildren();
  const own = gd.querySelector(":scope > .plot-container");
  if (own) own.style.visibility = "";
  delete gd.dataset.liveSnap;
  Plotly.react(gd, fig.data, fig.layout, config).then(() => { gd.style.minHeight = ""; });
}

function width(gd) {
  return Math.max(gd.parentElement.clientWidth, 150);
}

function height(gd) {
  if (document.fullscreenElement === gd.parentElement) return window.innerHeight;
  const want = gd.__fvWant;  // the narrow layout's height, where it applies (explorer/plot.py)
  return gd.__fvTall || (want.narrow && fits({ meta: want }, width(gd)).narrow ? want.narrow.height : want.height);
}

// The column's width changed, or the chart went into fullscreen or out of it: the chart follows. Its height is
// the figure's (explorer/live.js may draw another value's) but in fullscreen, and back to it after.
function resized(gd) {
  if (!window.Plotly || !gd._fullLayout) return;
  const full = document.fullscreenElement === gd.parentElement, change = {}, w = width(gd);
  if (fitKey(gd.layout, w) !== gd.__fvFits) {  // a phone turned, say: drawn anew in the layouts for its width
    gd.__fvSpec = null;
    gd.__fvBefore = full ? -1 : 0;  // in fullscreen: back to that layout's own height on leaving it
    soon(window.Plotly, gd);
    return;
  }
  if (Math.abs(gd._fullLayout.width - w) >= 1) change.width = w;
  if (full && !gd.__fvBefore) {
    gd.__fvBefore = gd._fullLayout.height;
    change.height = window.innerHeight;
  } else if (!full && gd.__fvBefore) {
    change.height = gd.__fvBefore > 0 ? gd.__fvBefore : height(gd);
    gd.__fvBefore = 0;
  }
  if (Object.keys(change).length) window.Plotly.relayout(gd, change);
}

// The modebar's fullscreen button, as Streamlit's chart has one: the chart fills the screen (Escape leaves).
const FULLSCREEN = {
  name: "Fullscreen", title: "Fullscreen",
  icon: { width: 24, height: 24, path: "M3 3h7v2H5v5H3V3zm11 0h7v7h-2V5h-5V3zM3 14h2v5h5v2H3v-7zm16 0h2v7h-7v-2h5v-5z" },
  click: (gd) => {
    const box = gd.parentElement;
    if (document.fullscreenElement) document.exitFullscreen();
    else if (box.requestFullscreen) box.requestFullscreen().catch(() => {});
  },
};

// The figure as Streamlit's theme="streamlit" gives it: the theme merged into its template's layout (what the
// figure sets itself wins), its title in bold.
function themed(fig, theme) {
  fig.layout = fig.layout || {};
  const template = (fig.layout.template = fig.layout.template || {});
  template.layout = over(template.layout || {}, theme);
  const title = fig.layout.title;
  if (title !== undefined && title !== null) {
    const t = typeof title === "string" ? { text: title } : title;
    fig.layout.title = { ...t, text: `<b>${typeof t.text === "string" ? t.text : ""}</b>` };
  }
  return fig;
}


// A figure carries the layouts it takes elsewhere (explorer/charts/labels.py), and each is put on the figure's own:
// layout.meta.narrow on a chart narrower than its `below` px (the roofline's labels laid out anew, panels in rows,
// short names in the legend), and layout.meta.phone on a phone's screen, at most its `screen` px wide (every title
// and legend in smaller type). Streamlit stacks columns on a screen that narrow: a chart as narrow on a wider screen
// is one of a row, at 1280 px beside the sidebar say, and keeps the type a projector's back row reads. The places
// and fonts are the server's; nothing is laid out here. Which apply, as a key that changes when one does.
function fits(layout, w) {
  const meta = layout.meta || {};
  return { narrow: !!meta.narrow && w < meta.narrow.below,
           phone: !!meta.phone && window.innerWidth <= meta.phone.screen };
}
const fitKey = (layout, w) => JSON.stringify(fits(layout, w));

function fitted({ data, layout }, w) {
  const fit = fits(layout, w), meta = layout.meta;
  let out = fit.phone ? over(layout, meta.phone.layout) : layout;
  if (!fit.narrow) return { data, layout: out };
  const narrow = meta.narrow, traces = narrow.data || {};
  out = over(out, narrow.layout || {});
  if (narrow.annotations && out.annotations) {
    out.annotations = out.annotations.map((a, i) => over(a, narrow.annotations[i] || {}));
  }
  return { data: data.map((t, i) => (String(i) in traces ? over(t, traces[i]) : t)), layout: out };
}

// A copy of `into` with `from`'s keys set, objects merged key by key: `into` is left as it was.
function over(into, from) {
  const out = { ...into };
  for (const [k, v] of Object.entries(from)) {
    const both = v && typeof v === "object" && !Array.isArray(v) && out[k] && typeof out[k] === "object";
    out[k] = both ? over(out[k], v) : v;
  }
  return out;
}

// plotly.js as the page's st.plotly_chart has it: Streamlit's own chunk, which sets window.Plotly.
function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  const main = document.querySelector('script[src*="/static/js/index."]');
  const url = new URL(CHUNK, main ? main.src : document.baseURI).href;
  return import(url).then(() => window.Plotly);
}
