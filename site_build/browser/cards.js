// Cards: every computed number in prose, every widget output and every
// glossary term's first use on a page opens its card on hover and on
// keyboard focus. A number (the macros write it as <data value><a
// href="../numbers/PAGE/#N">) links to its card's entry on its page's list,
// each card, formula and source written there once (site_build/cards.py);
// the list is fetched the first time one of its numbers' cards opens, and the
// card is read from its entry. A widget output carries what its card
// holds of its own (the formula) in data-card, and in --card-in the widget's
// --card-<field> properties its inputs' lines are: a widget writes each line
// once, on its root, and the runtime keeps them current, at most one write per answer.
// As built, a slot names the sources it cites in data-sources, by their numbers
// in the list under its widget, where each is written once; live, the runtime
// writes each card's sources in the widget's data-card-sources. A glossary term
// carries its definition, and the page that says more about it if it names one
// (data-card-link).
//
// One delegated set of listeners and one tooltip element serve the whole page,
// drawn with the theme's tooltip classes. The theme's own tooltips
// (content.tooltips, off in mkdocs.yml) mount a watcher on every element when
// a page loads: with several hundred numbers and terms on a page that cost
// about a second of main-thread time on Lighthouse's mobile profile. With
// JavaScript off, site.css shows a data-card (.no-js) and a number's link leads
// to its entry.
(() => {
  const HOST = "[data-card], data[value] > a";
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

  // The theme's tooltip CSS places the card from these variables: centred on its host, kept inside
  // the viewport sideways; below the host, or above it when the window has no room below and has
  // room above (a number near the bottom of the screen).
  function place() {
    const box = host.getBoundingClientRect();
    const style = tip.style;
    style.setProperty("--md-tooltip-host-x", `${box.left + window.scrollX}px`);
    style.setProperty("--md-tooltip-host-y", `${box.top + window.scrollY}px`);
    style.setProperty("--md-tooltip-x", `${box.width / 2}px`);
    style.setProperty("--md-tooltip-tail", "0px");
    style.setProperty("--md-tooltip-width", `${tip.firstChild.getBoundingClientRect().width}px`);
    const needed = tip.firstChild.getBoundingClientRect().height + GAP_PX;
    const above = window.innerHeight - box.bottom < needed && box.top >= needed;
    tip.classList.toggle("md-tooltip2--top", above);
    tip.classList.toggle("md-tooltip2--bottom", !above);
    style.setProperty("--md-tooltip-y", above ? `${-needed}px` : `${box.height + GAP_PX}px`);
  }

  // A line of an entry as the card reads it: each source link replaced by the source's text.
  function lineText(list, line) {
    let text = "";
    for (const node of line.childNodes) {
      const cited = node instanceof HTMLAnchorElement && list.getElementById(node.hash.slice(1));
      text += (cited || node).textContent;
    }
    return text;
  }

  // The entry's term (the card's first line) and the lines after it, up to the next entry.
  function entryText(list, link) {
    const term = list.getElementById(decodeURIComponent(link.hash.slice(1)));
    if (!term) return "";
    const lines = [term.textContent];
    for (let line = term.nextElementSibling; line && line.tagName === "DD"; line = line.nextElementSibling) {
      lines.push(lineText(list, line));
    }
    return lines.join("\n");
  }

  // The list pages fetched, by address: each once, when a card first needs it; and those that
  // could not be fetched at the last try.
  const lists = new Map();
  const unreachable = new Set();

  function listOf(link) {
    const address = link.href.split("#")[0];
    if (!lists.has(address)) {
      unreachable.delete(address);
      lists.set(address, fetch(address)
        .then((response) => (response.ok ? response.text() : Promise.reject(new Error(`${address}: ${response.status}`))))
        .then((text) => new DOMParser().parseFromString(text, "text/html"))
        .catch((error) => {
          lists.delete(address); // the next card tries again
          unreachable.add(address);
          throw error;
        }));
    }
    return lists.get(address);
  }

  // A CSS string as its text ('\A Model: …' reads "\nModel: …"): a card line the build or the runtime wrote.
  function cssText(value) {
    return value.trim().slice(1, -1).replace(/\\([0-9a-fA-F]{1,6}) ?|\\([^])/g,
      (_, hex, char) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : char));
  }

  // A widget output's card, as pyodide_widgets/provenance.py's `text` reads it: its own line, its
  // inputs' lines from the widget's properties that its --card-in names, then the sources it cites.
  function slotText(slot) {
    const widget = slot.closest("[data-widget]");
    const names = slot.style.getPropertyValue("--card-in").match(/--card-[\w-]+/g) || [];
    const lines = names.map((name) => cssText(widget.style.getPropertyValue(name)).replace(/^\n/, ""));
    const live = widget?.dataset.cardSources;
    const listed = widget?.querySelector(".widget__sources ol")?.children ?? [];
    const cited = live ? JSON.parse(live)[slot.dataset.output] || []
      : (slot.dataset.sources || "").split(" ").filter(Boolean).map((n) => listed[n - 1]?.textContent ?? "");
    return [slot.dataset.card, ...lines, ...cited].filter(Boolean).join("\n");
  }
  // print.js writes each card as a note under its widget.
  window.widgetCardText = slotText;

  // Text, never markup: a card is the build's or the worker's words about numbers. A glossary term
  // whose page says more (site_build/glossary.py, card_links) gets a link to it under its definition.
  function fill() {
    tip.firstChild.textContent = slotText(host);
    if (host.dataset.cardLink) {
      const more = document.createElement("a");
      more.href = host.dataset.cardLink;
      more.textContent = host.dataset.cardLinkText;
      tip.firstChild.append("\nMore: ", more);
    }
    place();
  }

  function show(el) {
    if (el === host) return;
    hide();
    host = el;
    if (el.hasAttribute("data-card")) open(el);
    else {
      listOf(el).then(
        (list) => el === host && open(el, entryText(list, el)),
        // Without its list (offline, say), a number's link still leads to its entry.
        () => {},
      );
    }
  }

  // The card shown for `el`: a widget output's own, kept current; a number's, its entry's `text`.
  function open(el, text) {
    document.body.append(card());
    if (text === undefined) fill();
    else {
      tip.firstChild.textContent = text;
      place();
    }
    tip.classList.add("md-tooltip2--active");
    el.setAttribute("aria-describedby", tip.id);
    if (text !== undefined) return;
    // A widget's card follows its inputs while it is open: its lines and sources are the widget's.
    watcher = new MutationObserver(fill);
    watcher.observe(el, { attributes: true, attributeFilter: ["data-card", "data-sources"] });
    const widget = el.closest("[data-widget]");
    if (widget) watcher.observe(widget, { attributes: true, attributeFilter: ["style", "data-card-sources"] });
  }

  function hide() {
    if (!host) return;
    watcher?.disconnect();
    watcher = null;
    host.removeAttribute("aria-describedby");
    tip?.classList.remove("md-tooltip2--active");
    tip?.remove();
    host = null;
  }

  function hostOf(target) {
    return target instanceof Element ? target.closest(HOST) : null;
  }

  document.addEventListener("focusin", (event) => {
    const el = hostOf(event.target);
    if (el) show(el);
  });
  // Focus moving from a term into its card (a press on the card's link) keeps the card open.
  document.addEventListener("focusout", (event) => {
    if (event.target === host && !tip?.contains(event.relatedTarget)) hide();
  });
  document.addEventListener("mouseover", (event) => {
    const el = hostOf(event.target);
    if (el) show(el);
    // Leaving a card's host for anything but the card (to scroll a long one) closes it,
    // unless the host has the keyboard's focus.
    else if (host && !tip?.contains(event.target) && host !== document.activeElement) hide();
  });
  // With the card shown, a number's link to its entry (the way to it without JavaScript) would
  // only carry the reader away from the sentence; a tap on a touch screen shows the card instead,
  // unless the list could not be fetched: then the link is the way to the entry.
  document.addEventListener("click", (event) => {
    const el = hostOf(event.target);
    if (el && !el.hasAttribute("data-card") && !unreachable.has(el.href.split("#")[0])) event.preventDefault();
  });
  // By keyboard, a term's card link is the next stop after the term: Tab from the term reaches it,
  // Shift+Tab returns to the term, and Tab from it goes on from the term (focus moved back to the term,
  // the browser's own Tab then leaves it).
  document.addEventListener("keydown", (event) => {
    const link = host?.dataset.cardLink ? tip.querySelector("a") : null;
    if (event.key === "Escape") {
      if (link && document.activeElement === link) host.focus();
      hide();
    } else if (event.key === "Tab" && link) {
      if (document.activeElement === host && !event.shiftKey) {
        event.preventDefault();
        link.focus();
      } else if (document.activeElement === link) {
        if (event.shiftKey) event.preventDefault();
        host.focus();
      }
    }
  });
  window.addEventListener("resize", () => host && place());
  // Instant navigation replaces the page under an open card.
  if (typeof document$ !== "undefined") document$.subscribe(hide);
})();
