// A table wider than its box (its columns scroll sideways inside it: on a phone, most often) says so under it: the
// grid cuts a column at its edge, and a cut column's right-aligned numbers would read as other numbers. Fixed code;
// it reads only the page's layout, and only when a table comes or changes size (never on a chart's redraw: a read of
// a scroller's width lays the page out, and a live drag redraws a chart every frame).
(function () {
  if (window.__fvWideTables) return;
  window.__fvWideTables = true;
  const GRID = '[data-testid="stDataFrame"]';
  const sized = new ResizeObserver((entries) => {
    for (const e of entries) mark(e.target.closest(GRID));
  });
  function mark(grid) {
    const scroller = grid && grid.querySelector(".dvn-scroller");
    const box = grid && grid.closest('[data-testid="stElementContainer"]');
    if (!scroller || !box) return;
    box.toggleAttribute("data-fv-wide", scroller.scrollWidth > scroller.clientWidth + 1);
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
  }
  new MutationObserver((records) => {
    // a chart's drawing (SVG) holds no table: a live drag redraws one every frame
    for (const r of records) for (const node of r.addedNodes) if (node instanceof HTMLElement) watch(node);
  }).observe(document.body, { childList: true, subtree: true });
  watch(document);
})();
