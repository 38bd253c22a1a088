// The lessons' strip (explorer/nav.py): each chapter's name over its lessons' links. The links are real addresses
// (the lesson with the settings), so a middle click or a click with a modifier opens a lesson in a new tab, as any
// link does. A plain click (or Enter on a focused link) asks the server instead, which opens the lesson in this
// tab with the settings (nav.py `draw`), as Streamlit's own page links do: the app's code, already loaded, draws
// it. While the page has no connection to the server, the links are marked disabled and a plain click does
// nothing, as Streamlit's page links are and do. Everything shown is set as text, never as HTML.
export default function ({ data, parentElement, setTriggerValue }) {
  let nav = parentElement.querySelector("nav.fv-nav");
  if (!nav) {
    nav = document.createElement("nav");
    nav.className = "fv-nav";
    nav.setAttribute("aria-label", "Lessons");
    nav.addEventListener("click", (e) => {
      const a = e.target.closest("a[data-lesson]");
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      if (a.getAttribute("aria-disabled") !== "true") nav.fvGo(Number(a.dataset.lesson));
    });
    parentElement.appendChild(nav);
    const app = document.querySelector('[data-testid="stApp"]');
    if (app) {
      nav.fvOnline = new MutationObserver(() => online(nav, app));
      nav.fvOnline.observe(app, { attributes: true, attributeFilter: ["data-test-connection-state"] });
    }
  }
  nav.fvGo = (k) => setTriggerValue("go", k);  // this drawing's: a trigger for the run on screen
  nav.replaceChildren(...data.chapters.map((chapter) => {
    const box = element("div", chapter.here ? "fv-chapter fv-here" : "fv-chapter");
    box.append(element("p", "fv-chapter-name", chapter.name));
    const links = element("div", "fv-links");
    for (const link of chapter.links) {
      const a = element("a", link.current ? "fv-current" : "", link.label);
      a.href = link.href;
      a.title = link.title;
      a.dataset.lesson = String(link.lesson);
      if (link.current) a.setAttribute("aria-current", "page");
      links.append(a);
    }
    box.append(links);
    return box;
  }));
  const app = document.querySelector('[data-testid="stApp"]');
  if (app) online(nav, app);
  // Once the strip has left the page: its observer goes with it.
  return () => setTimeout(() => { if (!nav.isConnected && nav.fvOnline) nav.fvOnline.disconnect(); }, 0);
}

// The links disabled while the page is not connected to the server (Streamlit's connection state on its root).
function online(nav, app) {
  const off = app.dataset.testConnectionState !== "CONNECTED";
  for (const a of nav.querySelectorAll("a")) {
    if (off) a.setAttribute("aria-disabled", "true");
    else a.removeAttribute("aria-disabled");
  }
}

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}
