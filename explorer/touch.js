// On a touch screen a slider moves by its thumb, and a swipe that starts anywhere else on it scrolls the page.
// Streamlit's slider (react-aria's) takes a press anywhere on its track as a move to that point, and its track stops
// the browser's panning: a reader scrolling with a finger set whatever slider the finger came down on (a phone walk:
// lesson 12's batch went from 1 to 64, and the link with it; five sliders cover a quarter of its screen). Here a touch
// that goes down on a slider but not on its thumb goes no further than the window, so the slider never hears of it,
// and the browser pans (css.py lets a slider's track pan vertically on a touch screen, and gives the thumb a larger
// target). A mouse or a pen still presses the track as before. Fixed code, no input.
(function () {
  if (window.__fvTouch) return;
  window.__fvTouch = true;
  // The slider hears a finger three ways: its pointer, its touch and, after a tap, the mouse events the browser makes
  // of it (Chrome marks those as coming from a touch).
  const touch = (e) => e.type === "touchstart" || e.pointerType === "touch"
    || (e.type === "mousedown" && !!(e.sourceCapabilities && e.sourceCapabilities.firesTouchEvents));
  const off = (e) => {
    if (!touch(e) || !e.target || !e.target.closest) return;
    const slider = e.target.closest('[data-testid="stSlider"]');
    if (!slider) return;
    // a thumb: the element its range input sits in (the input is visually hidden inside it)
    const thumbs = [...slider.querySelectorAll('input[type="range"]')].map((i) => i.parentElement.parentElement);
    if (thumbs.some((t) => t && t.contains(e.target))) return;
    e.stopPropagation();
  };
  for (const type of ["pointerdown", "touchstart", "mousedown"]) window.addEventListener(type, off, true);
})();
