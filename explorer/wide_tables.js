// A table or a displayed equation wider than its box (it scrolls sideways inside it: on a phone, most often) says so
// under it. The grid cuts a column at its edge, and a cut column's right-aligned numbers would read as other numbers;
// an equation cut at the edge reads as one that ends there. Fixed code; it reads only the page's layout, and only
// when a table or an equation comes or changes size (never on a chart's redraw: a read of a scroller's width lays
// the page out, and a live drag redraws a chart every frame).
(function () {
  if (window.__fvWideTables) return;
  window.__fvWideTables = true;
  // what scrolls, and what is marked: a table's element, or the box that holds an equation's scroller
  const GRID = '[data-testid="stDataFrame"]', EQUATION = ".katex-display";
  // A few px past the box are a glyph's overhang, not a cut: KaTeX's displays overflow theirs by 1-2 px at 1280 px,
  // where lesson 3's update, whole on screen, was said to scroll (a teacher's walk); on a phone they overflow by
  // hundreds.
  const SLACK = 8;
  const sized = new ResizeObserver((entries) => {
    for (const e of entries) {
      const grid = e.target.closest(GRID), eq = e.target.closest(EQUATION);
      if (grid) mark(grid.querySelector(".dvn-scroller"), grid.closest('[data-testid="stElementContainer"]'), "table");
      else if (eq) mark(eq, eq.parentElement, "equation");
    }
  });
  function mark(scroller, box, what) {  // data-fv-wide="table" or "equation": css.py writes the cue
    if (!scroller || !box) return;
    if (scroller.scrollWidth > scroller.clientWidth + SLACK) box.setAttribute("data-fv-wide", what);
    else box.removeAttribute("data-fv-wide");
  }
  function watch(root) {
    // a grid added, or its scroller drawn inside a grid added before
    const inside = root.closest && root.closest(GRID);
    const grids = inside ? [inside] : [...root.querySelectorAll(GRID)];
    for (const grid of grids) {
      const scroller = grid.querySelector(".dvn-scroller");
      if (!scroller || scroller.__fvWatched) continue;
      scroller.__fvWatched = true;
      sized.observe(scroller);
      if (scroller.firstElementChild) sized.observe(scroller.firstElementChild);  // as wide as all the columns
    }
    const equations = root.matches && root.matches(EQUATION) ? [root] : root.querySelectorAll(EQUATION);
    for (const eq of equations) {
      if (eq.__fvWatched) continue;
      eq.__fvWatched = true;
      sized.observe(eq);
      if (eq.firstElementChild) sized.observe(eq.firstElementChild);  // as wide as the equation
    }
  }
  new MutationObserver((records) => {
    // a chart's drawing (SVG) holds no table: a live drag redraws one every frame
    for (const r of records) for (const node of r.addedNodes) if (node instanceof HTMLElement) watch(node);
  }).observe(document.body, { childList: true, subtree: true });
  watch(document);
})();
