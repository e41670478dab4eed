// Wide tables scroll sideways inside mkdocs-material's wrapper. A keyboard user
// can scroll one only if it takes focus (WCAG 2.1.1; axe-core's
// scrollable-region-focusable). document$ emits on every page, instant
// navigation included, after the theme has wrapped the tables.
document$.subscribe(() => {
  for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])")) {
    wrap.tabIndex = 0;
  }
});
