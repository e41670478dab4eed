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
