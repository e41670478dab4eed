// Wide tables scroll sideways inside mkdocs-material's wrapper. A keyboard user
// can scroll one only if it takes focus (WCAG 2.1.1; axe-core's
// scrollable-region-focusable). document$ emits on every page, instant
// navigation included, after the theme has wrapped the tables.
document$.subscribe(() => {
  for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])")) {
    wrap.tabIndex = 0;
  }
});

// A heading a link leads to stays where the link put it while the page settles. A block of a
// section far from the viewport (site_build/sections.py) is laid out only when it comes near
// (site.css: content-visibility), at the size it had when last laid out; one above the target
// that changed meanwhile (the theme wrapped its tables, the runtime mounted its widgets) takes
// its real size as it comes near, and Chromium's scroll anchoring does not make up for that
// change: the heading slides down the window. Until the reader scrolls, clicks or types, or
// SETTLE_MS have passed, the target is put back whenever a block changes size.
(() => {
  const SETTLE_MS = 10_000;
  const READER_MOVES = ["wheel", "touchstart", "keydown", "pointerdown"];
  let observer = null;
  let timer = 0;

  function release() {
    observer?.disconnect();
    observer = null;
    clearTimeout(timer);
    for (const type of READER_MOVES) removeEventListener(type, release, true);
  }

  function hold() {
    release();
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    for (const type of READER_MOVES) addEventListener(type, release, { capture: true, passive: true });
    observer = new ResizeObserver(() => target.scrollIntoView());
    for (const block of document.querySelectorAll(".md-typeset .page-section > div")) observer.observe(block);
    timer = setTimeout(release, SETTLE_MS);
  }

  document$.subscribe(hold);
  addEventListener("hashchange", hold);
})();

// A widget's inputs whatever happens to its script. Far down a page a widget's controls wait as the
// text of a <noscript data-controls> (site_build/sections.py), for runtime.js to make into elements
// when the widget comes near: in place from the start, Chromium's form autofill would lay out every
// far block that holds them at each load. If runtime.js is blocked, or fails before it mounts a
// widget, no script would make them: once the runtime has had its time (the same two seconds after
// which widgets.css's status line says the inputs are not live), every widget it has not mounted
// gets its controls here, marked `data-unmounted` for that status line. A mounted widget is the
// runtime's, which makes them when the widget comes near.
(() => {
  const RUNTIME_WAIT_MS = 2000;

  function showUnmounted() {
    for (const source of document.querySelectorAll(".widget:not([data-enhanced]) noscript[data-controls]")) {
      source.closest(".widget").dataset.unmounted = "";
      // The page's parser leaves the content as text; instant navigation's DOMParser as elements.
      if (source.firstElementChild) source.replaceWith(...source.childNodes);
      else source.outerHTML = source.textContent; // the build's own markup
    }
  }

  document$.subscribe(() => setTimeout(showUnmounted, RUNTIME_WAIT_MS));
})();
