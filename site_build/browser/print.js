// On paper a widget is its current state, not a form: as the page goes to print, each control's
// value is written beside it as text (print.css hides the controls and shows these), and each
// output's card (its formula, inputs and sources) is written as a numbered note under the
// widget, its mark beside the output (one note for outputs that share a card); and each number in
// prose is marked with its entry's number. Written afresh at each print, so they follow the state
// the reader left; with JavaScript off, print.css prints the controls as they are.
(() => {
  const VALUE = "widget__printed";
  const NOTES = "widget__notes";

  function text(className, content) {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = content;
    return span;
  }

  function valueOf(control) {
    if (control.tagName === "SELECT") return control.selectedOptions[0]?.textContent.trim() ?? "";
    if (control.dataset.kind === "toggle") return control.checked ? "yes" : "no";
    return control.value;
  }

  function writeState(widget) {
    for (const control of widget.querySelectorAll(".widget__inputs :is(select, input:not([type=checkbox]), input[data-kind=toggle])")) {
      const shown = text(VALUE, valueOf(control));
      // A toggle's value follows its label's text; any other control's stands in its place.
      if (control.dataset.kind === "toggle") control.closest("label").append(shown);
      else control.after(shown);
    }
    // cards.js: each output's card, its own line, the widget's lines it uses and its sources (a card
    // that only quotes its sources has no own line: its text is what counts).
    const carded = [...widget.querySelectorAll("[data-output][data-card]")]
      .map((output) => [output, window.widgetCardText(output)]).filter(([, card]) => card);
    if (!carded.length) return;
    const notes = document.createElement("ol");
    notes.className = NOTES;
    const numbered = new Map();  // card -> its note's number: an output and its detail share one card
    for (const [output, card] of carded) {
      if (!numbered.has(card)) {
        numbered.set(card, numbered.size + 1);
        const note = document.createElement("li");
        note.textContent = card;
        notes.append(note);
      }
      output.dataset.note = String(numbered.get(card));  // an attribute, not text: the output's text stays the runtime's
    }
    widget.append(notes);
  }

  function clear(widget) {
    for (const old of widget.querySelectorAll(`.${VALUE}, .${NOTES}`)) old.remove();
    // The folds opened for paper close again as the reader left them.
    for (const fold of widget.querySelectorAll("details[data-opened-to-print]")) {
      fold.open = false;
      delete fold.dataset.openedToPrint;
    }
    for (const output of widget.querySelectorAll("[data-output][data-note]")) delete output.dataset.note;
    delete widget.dataset.printed;
  }

  // A number in prose links to its entry on its page's list of "How the numbers were made", whose
  // number its link's fragment is: on paper that number follows it as a note mark (print.css), the
  // list printing numbered in the same order. Written here rather than by the build on every link:
  // the fragment already holds it (a page of four hundred numbers carried it twice, some kilobytes).
  const NUMBERS = "data[value] > a";

  function writeNumberNotes() {
    for (const link of document.querySelectorAll(NUMBERS)) link.dataset.note = decodeURIComponent(link.hash.slice(1));
  }

  function clearNumberNotes() {
    for (const link of document.querySelectorAll(`${NUMBERS}[data-note]`)) delete link.dataset.note;
  }

  function writeAll() {
    writeNumberNotes();
    window.widgetRuntime?.showControls(); // those the build deferred (runtime.js) stand in the page now
    for (const widget of document.querySelectorAll("[data-widget]")) {
      clear(widget);
      // Paper has no fold to open: the inputs under "More inputs", and a second picture, print with the rest.
      for (const fold of widget.querySelectorAll("details:is([data-more], [data-fold]):not([open])")) {
        fold.open = true;
        fold.dataset.openedToPrint = "";
      }
      writeState(widget);
      widget.dataset.printed = "";
    }
  }

  function clearAll() {
    clearNumberNotes();
    for (const widget of document.querySelectorAll("[data-widget][data-printed]")) clear(widget);
  }

  window.addEventListener("beforeprint", writeAll);
  window.addEventListener("afterprint", clearAll);
  // Emulated print media (a test's, a browser's print preview) may come without beforeprint.
  matchMedia("print").addEventListener("change", (event) => (event.matches ? writeAll() : clearAll()));
})();
