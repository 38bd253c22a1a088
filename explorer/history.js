// A setting moved is not a place to go Back to. Streamlit adds an entry to the browser's history each time the app
// writes the address bar's query (every slider let go, every toggle), but on Back the session's settings stay and the
// app writes them into the address again: Back looked dead for as many presses as settings had moved (a laptop
// reader's walk: three moves of n, three dead presses, and the fourth left the app). Here a new entry that changes
// only the query of the page shown replaces the current one, so Back goes to the lesson before, as a reader expects;
// a new lesson still makes an entry of its own. Fixed code, no input.
(function () {
  if (window.__fvQueryEntries) return;
  window.__fvQueryEntries = true;
  const push = window.history.pushState.bind(window.history);
  window.history.pushState = function (state, title, url) {
    const to = url == null ? null : new URL(String(url), window.location.href);
    if (to && to.origin === window.location.origin && to.pathname === window.location.pathname) {
      return window.history.replaceState(state, title, url);
    }
    return push(state, title, url);
  };
})();
