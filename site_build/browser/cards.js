// Provenance cards. Every computed number in prose (the macros write it as a
// <data data-card=...>) and every widget output (the runtime keeps its
// data-card current) opens its card on hover and on keyboard focus.
//
// One delegated set of listeners and one tooltip element serve the whole page,
// drawn with the theme's tooltip classes so a card looks like a glossary card.
// The theme's own tooltips (content.tooltips, for a title attribute) mount a
// watcher on every element when a page loads: with several hundred numbers on
// a page that cost about a second of main-thread time on Lighthouse's mobile
// profile. With JavaScript off, site.css shows the same card (.no-js).
(() => {
  const HOST = "[data-card]";
  const GAP_PX = 8; // between the host's bottom and the card, as the theme leaves it
  let tip = null;
  let host = null;
  let watcher = null;

  function card() {
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "md-tooltip2 md-tooltip2--bottom";
      tip.setAttribute("role", "tooltip");
      tip.id = "provenance-card";
      const inner = document.createElement("div");
      inner.className = "md-tooltip2__inner md-typeset";
      tip.append(inner);
    }
    return tip;
  }

  // The theme's tooltip CSS places the card from these variables: below the host, centred on it,
  // kept inside the viewport.
  function place() {
    const box = host.getBoundingClientRect();
    const style = tip.style;
    style.setProperty("--md-tooltip-host-x", `${box.left + window.scrollX}px`);
    style.setProperty("--md-tooltip-host-y", `${box.top + window.scrollY}px`);
    style.setProperty("--md-tooltip-x", `${box.width / 2}px`);
    style.setProperty("--md-tooltip-y", `${box.height + GAP_PX}px`);
    style.setProperty("--md-tooltip-tail", "0px");
    style.setProperty("--md-tooltip-width", `${tip.firstChild.getBoundingClientRect().width}px`);
  }

  function fill() {
    // Text, never markup: a card is the build's or the worker's words about numbers.
    tip.firstChild.textContent = host.dataset.card || "";
    place();
  }

  function show(el) {
    if (el === host) return;
    hide();
    host = el;
    document.body.append(card());
    fill();
    tip.classList.add("md-tooltip2--active");
    el.setAttribute("aria-describedby", tip.id);
    // A widget's card follows its inputs while it is open.
    watcher = new MutationObserver(fill);
    watcher.observe(el, { attributes: true, attributeFilter: ["data-card"] });
  }

  function hide() {
    if (!host) return;
    watcher.disconnect();
    host.removeAttribute("aria-describedby");
    tip.classList.remove("md-tooltip2--active");
    tip.remove();
    host = null;
  }

  function hostOf(target) {
    return target instanceof Element ? target.closest(HOST) : null;
  }

  document.addEventListener("focusin", (event) => {
    const el = hostOf(event.target);
    if (el) show(el);
  });
  document.addEventListener("focusout", (event) => {
    if (event.target === host) hide();
  });
  document.addEventListener("mouseover", (event) => {
    const el = hostOf(event.target);
    if (el) show(el);
    // Leaving a card's host for anything but the card (to scroll a long one) closes it,
    // unless the host has the keyboard's focus.
    else if (host && !tip.contains(event.target) && host !== document.activeElement) hide();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") hide();
  });
  window.addEventListener("resize", () => host && place());
  // Instant navigation replaces the page under an open card.
  if (typeof document$ !== "undefined") document$.subscribe(hide);
})();
