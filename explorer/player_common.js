// The players' shared behaviour: formatting, colour keys, the tile grid, the control bar and the keys.
// A player defines its drawing and calls fvControls(N, draw); the bar's ids are
// #first #prev #play #next #last #step #speed, as in every player.
"use strict";
const C = { blue: "#0072B2", orange: "#E69F00", green: "#009E73", red: "#D55E00", purple: "#CC79A7",
            done: "#A6CEE3", pending: "#E9ECEF", text: "#000" };
const $ = id => document.getElementById(id);
const num = v => (typeof v === "string" ? Number(v) : v);
// Numbers as the engine sent them (4 significant digits); a true minus sign reads better on a projector.
const fmt = v => { v = num(v); if (!isFinite(v)) return isNaN(v) ? "nan" : (v > 0 ? "inf" : "−inf");
                   const s = Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : String(v);
                   return s.replace(/-/g, "−"); };
const mb = b => (b / 1048576).toFixed(2) + " MB";
const kb = b => (b >= 10240 ? (b / 1024).toFixed(0) : (b / 1024).toFixed(1)) + " KB";
function swatch(colour, text, extra) {
  return `<span class="swt"><span class="sw" style="background:${colour};${extra || ""}"></span>${text}</span>`;
}
// The key's entries for a mask's tiles (the run's kinds, the engine's: 0 empty, 1 partial, 2 full), drawn as on a
// grid of `cell` px tiles: an empty tile crossed out, a partial one with a dark corner (its masked scores).
const CROSS_FROM = 10;  // px: smaller masked tiles are left blank (a cross that small is a grey smudge)
const EMPTY_TILE = 0, PARTIAL_TILE = 1;
const maskedSwatch = cell => swatch("#fff", "empty: skipped", "border:1px solid #bbb" + (cell < CROSS_FROM ? "" :
  ";background:linear-gradient(to bottom right, #fff 44%, #999 44%, #999 56%, #fff 56%)"));
const partialSwatch = () => swatch(C.done, "partial: masked", "background:linear-gradient(to bottom left, " +
  `#333 30%, ${C.done} 30%)`);
// Which of the two the key needs: [empty?, partial?] over every tile.
const maskKinds = kinds => [kinds.some(r => r.includes(EMPTY_TILE)), kinds.some(r => r.includes(PARTIAL_TILE))];
function maskSwatches(kinds, cell) {
  const [empty, partial] = maskKinds(kinds);
  return (empty ? [maskedSwatch(cell)] : []).concat(partial ? [partialSwatch()] : []);
}

// The tile grid on a canvas: g = { G (its 2D context), x0, y0 (the first tile's corner), cell (px) }.
// Tile (i, j) is filled with colour(s, j), s = tileStep[i][j] the step that computes it (-1: no frame).
// A tile the mask leaves empty (kinds[i][j] === 0, the engine's) is drawn crossed out, a partial one (1)
// with a dark corner; one past the last frame sent is still to do, and is drawn so.
function drawTiles(g, tileStep, kinds, colour) {
  const { G, x0, y0, cell } = g, gap = cell >= 10 ? 1 : 0;
  G.fillStyle = C.text; G.font = "16px sans-serif";
  G.fillText("key blocks j →", x0, 17);
  G.save(); G.translate(8, y0 + 4); G.rotate(Math.PI / 2); G.fillText("query blocks i →", 0, 0); G.restore();
  tileStep.forEach((row, i) => row.forEach((s, j) => {
    const x = x0 + j * cell, y = y0 + i * cell;
    if (kinds[i][j] === EMPTY_TILE) {  // no key of it seen by any query of the block: never computed
      if (cell < CROSS_FROM) return;
      G.strokeStyle = "#bbb"; G.lineWidth = 1; G.strokeRect(x + 1, y + 1, cell - 2, cell - 2);
      G.beginPath(); G.moveTo(x + 2, y + 2); G.lineTo(x + cell - 2, y + cell - 2); G.stroke(); return;
    }
    G.fillStyle = s < 0 ? C.pending : colour(s, j); G.fillRect(x + gap, y + gap, cell - 2 * gap, cell - 2 * gap);
    if (kinds[i][j] === PARTIAL_TILE && cell >= 6) {  // masked inside: a dark corner, top right
      const t = Math.max(3, Math.round(cell * 0.45));
      G.fillStyle = "#333"; G.beginPath(); G.moveTo(x + cell - gap - t, y + gap); G.lineTo(x + cell - gap, y + gap);
      G.lineTo(x + cell - gap, y + gap + t); G.closePath(); G.fill();
    }
  }));
}
// What sits in SRAM this step, over a grid of Tr x Tc tiles: query block i's row (blue; i = null
// leaves it out) and key block j's column (red dashes).
function drawBlocks(g, Tr, Tc, i, j) {
  const { G, x0, y0, cell } = g;
  G.lineWidth = 3;
  if (i !== null) { G.strokeStyle = C.blue; G.strokeRect(x0 - 1, y0 + i * cell - 1, Tc * cell + 2, cell + 2); }
  G.strokeStyle = C.red; G.setLineDash([5, 3]);
  G.strokeRect(x0 + j * cell - 1, y0 - 1, cell + 2, Tr * cell + 2); G.setLineDash([]);
}

// Wires the bar and the keys; draw(k) draws step k. Returns { show, current }.
function fvControls(N, draw) {
  let k = 0, playing = false, last = 0;
  window.fvStats = { rendered: 0, first: null, last: null, steps: [] };
  function show(s) {
    k = Math.max(0, Math.min(N - 1, s));
    draw(k);
    $("step").value = String(k);
    const st = window.fvStats; st.rendered++; st.last = performance.now(); if (st.first === null) st.first = st.last;
    if (st.steps.length < 5000) st.steps.push(k);
  }
  function tick(t) {
    if (!playing) return;
    if (t - last >= 1000 / Number($("speed").value) - 1) {
      last = t;
      if (k >= N - 1) { setPlaying(false); return; }
      show(k + 1);  // one frame at a time: a slow machine plays slower, never skips a state
    }
    requestAnimationFrame(tick);
  }
  function setPlaying(p) {
    playing = p; $("play").textContent = p ? "❙❙ pause" : "▶ play";
    if (p) { if (k >= N - 1) show(0); last = 0; requestAnimationFrame(tick); }
  }
  const step = d => { setPlaying(false); show(k + d); };
  const jump = s => { setPlaying(false); show(s); };
  $("first").onclick = () => jump(0);
  $("last").onclick = () => jump(N - 1);
  $("prev").onclick = () => step(-1);
  $("next").onclick = () => step(1);
  $("play").onclick = () => setPlaying(!playing);
  const range = $("step");
  range.max = String(N - 1);
  range.oninput = () => jump(Number(range.value));

  const ACTIONS = { ArrowRight: () => step(1), ArrowLeft: () => step(-1), " ": () => setPlaying(!playing),
                    Home: () => jump(0), End: () => jump(N - 1) };
  const FIELDS = "input, textarea, select, [contenteditable='true'], [role='slider'], [role='combobox']";
  // The player's keys, wherever they are pressed (the app's page included).
  function onKey(e) {
    const t = e.target;
    if (t && t.closest && t !== range && t.closest(FIELDS)) return;  // a focused widget keeps its keys
    if (e.key === " " && t && t.closest && t.closest("button")) return;  // the button's own click handles it
    const act = ACTIONS[e.key];
    if (act && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); e.stopPropagation(); act(); }
  }
  // Keys pressed inside the player that it does not use go on to the app's page, where Streamlit's
  // button shortcuts listen: so a clicker's PageDown still turns the lesson after a click in here.
  const NATIVE = new Set(["Tab", "Enter", "Shift", "Control", "Alt", "Meta", "ArrowUp", "ArrowDown"]);
  function forwards(e) {
    if (e.key === "PageDown" || e.key === "PageUp") return true;
    if (NATIVE.has(e.key) || (e.key in ACTIONS && !e.ctrlKey && !e.metaKey && !e.altKey)) return false;
    const t = e.target;
    return !(t && t.closest && t.closest("input, select, textarea"));
  }
  function forward(e) {
    try {
      const p = window.parent;
      if (p === window) return;
      const copy = new p.KeyboardEvent(e.type, { key: e.key, code: e.code, keyCode: e.keyCode, which: e.which,
        location: e.location, repeat: e.repeat, ctrlKey: e.ctrlKey, shiftKey: e.shiftKey, altKey: e.altKey,
        metaKey: e.metaKey, bubbles: true, cancelable: true, composed: true });
      p.document.body.dispatchEvent(copy);
      e.preventDefault();  // the page acts on it, not this frame (a focused range would jump by pages)
    } catch (err) { /* a cross-origin host: the key stays here */ }
  }
  document.addEventListener("keydown", e => { if (forwards(e)) forward(e); else onKey(e); });
  document.addEventListener("keyup", e => { if (forwards(e)) forward(e); });
  // No click needed first: every player listens on the app's page too, and one of them acts on
  // each key. The app's presentation mode says which (window.__fvOwnsKeys(frame): true for a frame
  // in the section on screen, false for one elsewhere, undefined when not presenting); without an
  // answer the first player registered on the page acts, as it did before there were sections.
  try {
    const p = window.parent, me = window.frameElement;
    if (p !== window) {
      const players = p.__fvPlayers = p.__fvPlayers || [];
      const onPageKey = e => {
        const owns = typeof p.__fvOwnsKeys === "function" ? p.__fvOwnsKeys(me) : undefined;
        if (owns === true || (owns !== false && players[0] === onPageKey)) onKey(e);
      };
      players.push(onPageKey); p.document.addEventListener("keydown", onPageKey);
      window.addEventListener("pagehide", () => {
        p.document.removeEventListener("keydown", onPageKey);
        const at = players.indexOf(onPageKey); if (at >= 0) players.splice(at, 1);
      });
    }
  } catch (err) { /* a cross-origin host: keys work once the player has focus */ }
  return { show, current: () => k };
}

// Streamlit sizes a content-height frame from inside it by the largest of the body's and the root's
// heights, and the root is never shorter than the frame: a frame that already held a taller page kept
// that height above a blank band (seen when "show standard" replaced the flash player on a loaded
// machine). So a player also states its own height, in the message Streamlit's sizing script sends
// (streamlit 1.67's st.iframe: "streamlit:iframe:setSize", to the parent window only), after every
// layout and once after that script's own first message. Another Streamlit ignores it.
function fvFitFrame() {
  const b = document.body, s = getComputedStyle(b);
  const height = Math.ceil(b.scrollHeight + parseFloat(s.marginTop) + parseFloat(s.marginBottom));
  window.parent.postMessage({ type: "streamlit:iframe:setSize", width: document.documentElement.clientWidth, height }, "*");
}
// After a layout, Streamlit's script measures too, in the same frame, and the root still has the old
// height (a sidebar closed beside a taller page): so state it again once that script has spoken.
function fvFitFrameSoon() { fvFitFrame(); requestAnimationFrame(() => setTimeout(fvFitFrame, 0)); }
addEventListener("load", () => setTimeout(fvFitFrame, 0));

// A frame's height changes as it is sized to its content (fvFitFrame, or Streamlit's own script), and
// each change is a resize event inside it. A player's layout depends on the frame's width alone, and
// measures every frame to fix its size (many forced layouts): it runs again only when the width changed.
function fvRelayoutOnWidth(layout) {
  let width = document.documentElement.clientWidth;
  addEventListener("resize", () => {
    const now = document.documentElement.clientWidth;
    if (now !== width) { width = now; layout(); }
  });
}
