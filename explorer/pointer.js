// A drag's value read from the pointer, as soon as the pointer's move reaches the page (explorer/live.js; this file
// is put before it, in one script). Streamlit's slider (react-aria's) takes a pointer move in React's next task, after
// the browser has drawn the frame the move came in: a chart redrawn only once the slider shows its new value is
// painted a frame late (about 16 ms of a move's 33, bench/live.py, BENCHMARKS.md "Live charts"). So the slider's own
// rule is followed here as the move comes in: where the pointer is along the track, from where the thumb stood at the
// drag's first move plus the pointer's travel since it went down, snapped to the slider's step between its ends
// (react-aria's useSliderThumb and useSlider: getThumbPercent × the track's width, plus each move's pageX
// difference, getPercentValue). The chart is drawn at that value at once, and when the slider then shows its
// value, live.js redraws only if the two differ. Nothing is computed here but which of the slider's own values the
// pointer is at: the figures are still the engine's.
// A move is taken from `pointerrawupdate` where the browser has it (Chromium, in a secure context: localhost or
// https), which it hands to the page as the move arrives, where `pointermove` waits for the next frame (up to 16 ms
// on a 60 Hz screen); `pointermove` then brings the same move again, and finds it drawn. At most one move a frame is
// drawn as it comes: one that comes while a frame's drawing is done already waits for that frame's `pointermove`.

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

// Once a page: each pointer that goes down on a live slider's track is followed until it comes up.
function follow(live) {
  if (live.following) return;
  live.following = true;
  document.addEventListener("pointerdown", (e) => {
    live.drag = live.pointerAt = null;
    // the slider takes no press with Alt, Ctrl or Meta held on its track: none is followed here
    if (e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || !e.target || !e.target.closest) return;
    for (const knob of Object.keys(live.knobs)) {
      const el = input(knob), track = el && trackOf(el);
      if (track && track.contains(e.target) && !el.disabled) {  // a disabled slider does not move
        live.drag = { knob, id: e.pointerId, down: e.pageX, x: e.pageX, at: null };
        return;
      }
    }
  }, true);
  const onMove = (e) => {
    const drag = live.drag;
    // pointerOff: the slider's own value, as before (bench/pointer_frame.py measures the two side by side)
    if (!drag || e.pointerId !== drag.id || !e.buttons || live.pointerOff) return;
    if (e.type === "pointerrawupdate" && live.rawDrawn) return;  // a move drawn this frame: this one waits for it
    const el = input(drag.knob), track = el && trackOf(el);
    if (!track || !(drag.knob in live.knobs)) return;
    if (e.pageX === drag.x) return;  // react-aria too takes no move that did not move; and a move's second event
    drag.x = e.pageX;
    const width = track.getBoundingClientRect().width;
    if (!width) return;
    const lo = Number(el.min), hi = Number(el.max);
    // the thumb's place at the first move: where the slider's value puts it (after a press on the track, that
    // value); then the pointer's travel since it went down (the sum of react-aria's moves, each move's difference)
    if (drag.at === null) drag.at = ((Number(el.value) - lo) / (hi - lo || 1)) * width - drag.down;
    const raw = valueAt(el, Math.min(1, Math.max(0, (drag.at + e.pageX) / width)));
    if (live.frame) {  // a move of the slider's own still waiting for its frame: this one is newer
      cancelAnimationFrame(live.frame);
      live.frame = 0;
    }
    if (e.type === "pointerrawupdate") {
      live.rawDrawn = true;
      requestAnimationFrame(() => { live.rawDrawn = false; });
    }
    live.pointerAt = { knob: drag.knob, raw };  // for tests: what the pointer was taken to be at
    moved(live, drag.knob, el, raw);
  };
  if ("onpointerrawupdate" in window) document.addEventListener("pointerrawupdate", onMove, true);
  document.addEventListener("pointermove", onMove, true);
  for (const type of ["pointerup", "pointercancel"]) {
    document.addEventListener(type, (e) => {
      if (live.drag && e.pointerId === live.drag.id) live.drag = null;
    }, true);
  }
}
