// A drag's value read from the pointer, as soon as the pointer's move reaches the page (explorer/live.js; this file
// is put before it, in one script). Streamlit's slider (react-aria's) takes a pointer move in React's next task, after
// the browser has drawn the frame the move came in: a chart redrawn only once the slider shows its new value is
// painted a frame late (about 16 ms of a move's 33, bench/live.py, BENCHMARKS.md "Live charts"). So the slider's own
// rule is followed here as the move comes in: where the pointer is along the track, from where the thumb stood at the
// drag's first move plus the pointer's travel since it went down, snapped to the slider's step between its ends
// (react-aria's useSliderThumb and useSlider: getThumbPercent × the track's width, plus each move's pageX
// difference, getPercentValue). The chart is drawn at that value at once. The slider shows each value a task later;
// live.js draws it only if the pointer never passed it (`lagging`), and once more at the release if the two differ.
// Nothing is computed here but which of the slider's own values the pointer is at: the figures are the engine's.
// A move is taken from `pointerrawupdate` where the browser has it (Chromium, in a secure context: localhost or
// https), which it hands to the page as the move arrives, where `pointermove` waits for the next frame (up to 16 ms
// on a 60 Hz screen); `pointermove` then brings the same move again, and finds it taken. One move is drawn a frame:
// a newer one that comes before that frame is painted waits for the paint, and only the newest is drawn then.

// The track of the slider whose range input is `el` (the thumb's parent; the input sits in the thumb).
function trackOf(el) {
  const thumb = el.parentElement && el.parentElement.parentElement;
  return thumb && thumb.parentElement;
}

// The slider's value at `percent` (0 to 1) of its track: its step's nearest, within its ends, rounded to the step's
// decimals (getPercentValue, and snapValueToStep where the slider takes it: 0.30000000000000004 is 0.3).
function valueAt(el, percent) {
  const lo = Number(el.min), hi = Number(el.max), step = Number(el.step) || 1;
  const raw = Math.min(hi, Math.max(lo, Math.round((percent * (hi - lo)) / step) * step + lo));
  const decimals = (String(step).split(".")[1] || "").length, scale = 10 ** decimals;
  return decimals ? Math.round(raw * scale) / scale : raw;
}

// Whether the slider `knob`, whose range input is `el`, shows a value the drag's pointer has passed already: React's
// update of the slider comes a task after the move, and a newer move may have been drawn since. Not drawn again.
function lagging(live, knob, el) {
  const drag = live.drag;
  return !!drag && drag.knob === knob && !live.pointerOff && drag.passed.has(Number(el.value));
}

// The drag's value `raw` drawn (live.js `moved`), at most one drawing a frame: a move that comes before the frame
// that shows the last drawing waits, and the newest of those is drawn after that frame.
function drawMove(live, knob, el, raw) {
  if (live.moveDrawn) {
    live.nextMove = { knob, el, raw };
    return;
  }
  live.nextMove = null;
  // nothing to draw (`moved` would draw nothing): the frame's one drawing is not taken
  if (live.drawnAt[knob] === raw || !current(live, knob)) return;
  takeKeeps(live);  // the copies of the drawing on screen first (live.js `keepSoon`)
  moved(live, knob, el, raw);
  live.moveDrawn = true;
  requestAnimationFrame(() => {  // this frame paints the drawing: the next move is drawn as it comes
    live.moveDrawn = false;
    if (live.nextMove) {
      setTimeout(() => {
        const next = live.nextMove;
        if (next) drawMove(live, next.knob, next.el, next.raw);
      }, 0);
    }
  });
}

// Once the drag is let go and its last move drawn: the slider's own value, drawn if it is not the one drawn (the two
// agree but where the rule above and react-aria's part).
function settle(live, knob) {
  if (live.moveDrawn || live.nextMove) {
    setTimeout(() => settle(live, knob), 16);
    return;
  }
  const el = input(knob);
  if (el) soon(live, knob, el);
}

// Once a page: each pointer that goes down on a live slider's track is followed until it comes up.
function follow(live) {
  if (live.following) return;
  live.following = true;
  const raw = "onpointerrawupdate" in window;
  const onMove = (e) => {
    const drag = live.drag;
    // pointerOff: the slider's own value, as before (bench/pointer_frame.py measures the two side by side)
    if (!drag || e.pointerId !== drag.id || !e.buttons || live.pointerOff) return;
    const el = input(drag.knob), track = el && trackOf(el);
    if (!track || !(drag.knob in live.knobs)) return;
    if (e.pageX === drag.x) return;  // react-aria too takes no move that did not move; and a move's second event
    drag.x = e.pageX;
    const width = track.getBoundingClientRect().width;
    if (!width) return;
    const lo = Number(el.min), hi = Number(el.max);
    // where the thumb stood at the first move (its value's place; after a press on the track, that value's), less
    // where the pointer went down: plus where the pointer is, the thumb's place (react-aria's sum of each move's
    // difference)
    if (drag.origin === null) drag.origin = ((Number(el.value) - lo) / (hi - lo || 1)) * width - drag.down;
    const value = valueAt(el, Math.min(1, Math.max(0, (drag.origin + e.pageX) / width)));
    if (live.frame) {  // a move of the slider's own still waiting for its frame: this one is newer
      cancelAnimationFrame(live.frame);
      live.frame = 0;
    }
    live.pointerAt = { knob: drag.knob, raw: value };  // for tests: what the pointer was taken to be at
    drag.passed.add(value);
    drawMove(live, drag.knob, el, value);
  };
  document.addEventListener("pointerdown", (e) => {
    live.drag = live.pointerAt = null;
    // the slider takes no press with Alt, Ctrl or Meta held on its track: none is followed here
    if (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || !e.target || !e.target.closest) return;
    for (const knob of Object.keys(live.knobs)) {
      const el = input(knob), track = el && trackOf(el);
      if (track && track.contains(e.target) && !el.disabled) {  // a disabled slider does not move
        live.drag = { knob, id: e.pointerId, down: e.pageX, x: e.pageX, origin: null, passed: new Set() };
        // raw moves listened to only while a slider is followed: the browser hands each to the page as it comes
        if (raw) document.addEventListener("pointerrawupdate", onMove, true);
        return;
      }
    }
  }, true);
  document.addEventListener("pointermove", onMove, true);
  for (const type of ["pointerup", "pointercancel"]) {
    document.addEventListener(type, (e) => {
      if (!live.drag || e.pointerId !== live.drag.id) return;
      const { knob } = live.drag;
      live.drag = null;
      if (raw) document.removeEventListener("pointerrawupdate", onMove, true);
      setTimeout(() => settle(live, knob), 0);
    }, true);
  }
}
