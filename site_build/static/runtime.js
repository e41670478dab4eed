/*
 * Widget runtime: binds every [data-widget] on the page to one Pyodide worker.
 *
 * The page already shows each widget's build-time outputs; this script makes
 * them live. Pyodide boots in a Web Worker once per visit (instant navigation
 * keeps this script and its worker alive across pages), lazily: when the
 * browser is first idle after the load event, or at the first interaction
 * with a widget. The worker answers {widget, state} with the same Python
 * `update(state)` that rendered the page.
 *
 * DOM contract: root [data-widget=name][data-state=static|loading|live|error]
 * with a unique id (the URL keys are <id>.<field>, so a page can hold one
 * widget twice); inputs are named form controls (a multi-choice is checkboxes
 * sharing a name, data-kind="multi"; a toggle one checkbox, data-kind="toggle");
 * outputs are [data-output=key];
 * [data-error-for=field] holds a field's error; [data-status] one status line;
 * [data-chart] holds the chart and [data-chart-spec] its Vega spec, both
 * absent for a widget without a chart.
 */
(() => {
  "use strict";

  const BASE = new URL(".", document.currentScript.src);
  const WHEEL_URL = new URL("__WHEEL_URL__", BASE).href;
  const PYODIDE_URL = new URL("pyodide/", BASE).href;
  const VEGA_URL = new URL("vega.min.js", BASE).href;
  // Screen readers hear the new outputs once the reader pauses, not on every step.
  const ANNOUNCE_AFTER_MS = 800;
  // A browser without requestIdleCallback boots this long after load.
  const IDLE_FALLBACK_MS = 200;

  const runtime = { status: "idle", boots: 0, worker: null, requests: new Map(), nextId: 1 };
  const mounted = new Set();
  window.widgetRuntime = runtime; // read by the tests and the benchmark
  runtime.stateOf = (root) => readState(root.widget); // the state a widget's form holds, as sent to Python

  // --- the worker ---------------------------------------------------------

  function boot() {
    if (runtime.status !== "idle") return;
    runtime.status = "loading";
    runtime.boots += 1;
    performance.mark("widgets:boot");
    mounted.forEach((w) => setState(w, "loading"));
    try {
      runtime.worker = new Worker(new URL("worker.js", BASE), { type: "module" });
    } catch (error) {
      fail();
      return;
    }
    runtime.worker.onmessage = (event) => onMessage(event.data);
    runtime.worker.onerror = (event) => {
      event.preventDefault();
      fail();
    };
    runtime.worker.postMessage({ type: "init", indexURL: PYODIDE_URL, wheel: WHEEL_URL });
  }

  function fail() {
    runtime.status = "error";
    if (runtime.worker) runtime.worker.terminate();
    runtime.worker = null;
    mounted.forEach((w) => {
      setState(w, "error");
      w.status.textContent = "Interaction is unavailable in this browser; the figures shown are for the default inputs.";
    });
  }

  function onMessage(message) {
    if (message.type === "ready") {
      runtime.status = "live";
      performance.mark("widgets:ready");
      performance.measure("widgets:boot-to-ready", "widgets:boot", "widgets:ready");
      mounted.forEach((w) => {
        setState(w, "live");
        if (w.dirty) request(w);
      });
    } else if (message.type === "failed") {
      fail();
    } else if (message.type === "result") {
      const w = runtime.requests.get(message.id);
      runtime.requests.delete(message.id);
      // Only the answer to the latest input counts; older ones are stale.
      if (w && message.id === w.latest && mounted.has(w)) show(w, message);
    }
  }

  // --- one widget -----------------------------------------------------------

  function setState(w, state) {
    w.root.dataset.state = state;
    w.root.setAttribute("aria-busy", state === "loading" ? "true" : "false");
  }

  // A multi-choice is a group of checkboxes sharing a name, read as "a,b,c"; a toggle one checkbox, "true" or "false".
  const MULTI_SEPARATOR = ",";

  function readState(w) {
    const state = {};
    for (const control of w.form.elements) {
      if (!control.name) continue;
      if (control.dataset.kind === "multi") {
        const picked = state[control.name] ? state[control.name].split(MULTI_SEPARATOR) : [];
        if (control.checked) picked.push(control.value);
        state[control.name] = picked.join(MULTI_SEPARATOR);
      } else if (control.dataset.kind === "toggle") {
        state[control.name] = String(control.checked);
      } else {
        state[control.name] = control.value;
      }
    }
    // A value from a link that the form cannot hold still goes to Python, which rejects it by name.
    return Object.assign(state, w.invalidFromUrl);
  }

  // Put a field's text form into its control(s); false when the form cannot hold it (an unknown option).
  function setField(w, name, value) {
    const controls = [...w.form.elements].filter((c) => c.name === name);
    if (!controls.length) return true;
    const kind = controls[0].dataset.kind;
    if (kind === "multi") {
      const picked = value.split(MULTI_SEPARATOR).filter(Boolean);
      for (const c of controls) c.checked = picked.includes(c.value);
      return picked.length > 0 && picked.every((v) => controls.some((c) => c.value === v));
    }
    if (kind === "toggle") {
      controls[0].checked = value === "true";
      return value === "true" || value === "false";
    }
    controls[0].value = value; // .value, never markup: a URL cannot inject HTML
    return controls[0].value === value;
  }

  function request(w) {
    w.dirty = true;
    const state = readState(w);
    writeUrl(w, state);
    showPicked(w, state);
    if (runtime.status === "idle") boot();
    if (runtime.status !== "live") return;
    const id = runtime.nextId++;
    w.latest = id;
    w.sentAt = performance.now();
    runtime.requests.set(id, w);
    runtime.worker.postMessage({ type: "update", id, widget: w.name, state });
  }

  function show(w, result) {
    w.dirty = false;
    for (const slot of w.root.querySelectorAll("[data-error-for]")) slot.textContent = "";
    for (const control of w.form.elements) control.removeAttribute("aria-invalid");
    w.status.textContent = "";
    if (result.error) {
      showError(w, result.error);
      return;
    }
    w.root.classList.remove("widget--stale");
    for (const [key, text] of Object.entries(result.outputs)) {
      const el = w.root.querySelector(`[data-output="${CSS.escape(key)}"]`);
      if (el && !el.hasAttribute("data-live")) el.textContent = text;
    }
    announce(w, result.outputs.summary || "");
    if (result.data) drawChart(w, result.data);
    w.root.dispatchEvent(new CustomEvent("widget:updated", { detail: { ms: performance.now() - w.sentAt } }));
  }

  function showError(w, error) {
    // The last good outputs stay, marked as such (widgets.css), so nothing reads NaN or passes a stale number as current.
    w.root.classList.add("widget--stale");
    const slot = error.field && w.root.querySelector(`[data-error-for="${CSS.escape(error.field)}"]`);
    if (slot) slot.textContent = error.message;
    else w.status.textContent = error.message;
    for (const control of w.form.elements) {
      if (error.field && control.name === error.field) control.setAttribute("aria-invalid", "true");
    }
  }

  function announce(w, text) {
    clearTimeout(w.announceTimer);
    w.announceTimer = setTimeout(() => {
      if (w.live) w.live.textContent = text;
    }, ANNOUNCE_AFTER_MS);
  }

  // --- pick-one content and play --------------------------------------------
  // [data-when="field=value"] belongs to one option of a field: with JavaScript off all of it reads;
  // live, the picked option's parts get .is-picked (widgets.css shows or highlights them), at once,
  // without waiting for Python. A [data-pick="field=value"] button picks its option.
  const PLAY_STEP_MS = 2000;

  function showPicked(w, state) {
    for (const el of w.root.querySelectorAll("[data-when], [data-pick]")) {
      const [field, value] = (el.dataset.when || el.dataset.pick).split("=");
      const picked = (state[field] || "").split(MULTI_SEPARATOR).includes(value);
      el.classList.toggle("is-picked", picked);
      if (el.dataset.pick) el.setAttribute("aria-pressed", String(picked));
    }
  }

  // `target` is "field=value": from a [data-pick] button, or from a chart mark whose row carries a `pick`.
  function pick(w, target) {
    const [field, value] = target.split("=");
    stopPlay(w);
    setField(w, field, value);
    request(w);
  }

  // Play steps a choice through its options, as a reader pressing "next" would.
  function togglePlay(w, button) {
    if (w.playing) {
      stopPlay(w);
      return;
    }
    const select = w.form.elements.namedItem(button.dataset.play);
    button.setAttribute("aria-pressed", "true");
    w.playing = {
      button,
      timer: setInterval(() => {
        select.selectedIndex = (select.selectedIndex + 1) % select.options.length;
        request(w);
      }, PLAY_STEP_MS),
    };
  }

  function stopPlay(w) {
    if (!w.playing) return;
    clearInterval(w.playing.timer);
    w.playing.button.setAttribute("aria-pressed", "false");
    w.playing = null;
  }

  // --- the URL ------------------------------------------------------------
  // Each widget's state lives in the query string as <widget id>.<field>=<value>.

  function urlKey(w, field) {
    return `${w.root.id}.${field}`;
  }

  function writeUrl(w, state) {
    // Only what differs from the page's own state, so a shared link stays short.
    const url = new URL(location.href);
    for (const [field, value] of Object.entries(state)) {
      if (value === w.defaults[field]) url.searchParams.delete(urlKey(w, field));
      else url.searchParams.set(urlKey(w, field), value);
    }
    history.replaceState(history.state, "", url);
  }

  function restoreFromUrl(w) {
    const params = new URL(location.href).searchParams;
    let restored = false;
    for (const name of new Set([...w.form.elements].map((c) => c.name).filter(Boolean))) {
      if (!params.has(urlKey(w, name))) continue;
      const value = params.get(urlKey(w, name));
      if (!setField(w, name, value)) w.invalidFromUrl[name] = value;
      restored = true;
    }
    return restored;
  }

  // --- charts ---------------------------------------------------------------

  let vegaLoading = null;

  function loadVega() {
    vegaLoading ||= new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = VEGA_URL;
      script.onload = () => resolve(window.vega);
      script.onerror = reject;
      document.head.append(script);
    });
    return vegaLoading;
  }

  async function drawChart(w, data) {
    if (!w.chart || !w.chartSpec) return; // a widget without a chart
    w.chartData = data;
    try {
      const vega = await loadVega();
      if (!w.view) {
        const spec = JSON.parse(w.chartSpec.textContent);
        w.view = new vega.View(vega.parse(spec), { renderer: "svg", hover: true });
        w.chart.replaceChildren();
        w.view.initialize(w.chart);
        w.view.addEventListener("click", (event, item) => {
          if (item && item.datum && item.datum.pick) pick(w, item.datum.pick);
        });
      }
      for (const [name, rows] of Object.entries(w.chartData)) w.view.data(name, rows);
      await w.view.runAsync();
      w.root.dispatchEvent(new CustomEvent("widget:drawn", { detail: { ms: performance.now() - w.sentAt } }));
    } catch (error) {
      // The build-time SVG (or the last drawing) stays; the numbers are still live.
      w.status.textContent = "The chart could not be redrawn; the numbers above are current.";
    }
  }

  // --- binding --------------------------------------------------------------

  function mount(root) {
    if (root.widget) return; // idempotent: state lives on the element
    const w = {
      root,
      name: root.dataset.widget,
      form: root.querySelector("form"),
      status: root.querySelector("[data-status]"),
      live: root.querySelector("[data-live]"),
      chart: root.querySelector("[data-chart]"),
      chartSpec: root.querySelector("[data-chart-spec]"),
      invalidFromUrl: {},
      dirty: false,
      latest: 0,
      view: null,
      playing: null,
    };
    w.defaults = readState(w);
    root.widget = w;
    root.dataset.enhanced = "true"; // from here on, widgets.css shows only the picked option's content
    showPicked(w, w.defaults);
    mounted.add(w);
    setState(w, runtime.status === "idle" ? "static" : runtime.status === "error" ? "error" : runtime.status);

    w.form.addEventListener("submit", (event) => event.preventDefault()); // Enter in a field recomputes, never reloads
    w.form.addEventListener("input", (event) => {
      stopPlay(w);
      delete w.invalidFromUrl[event.target.name];
      // A field changed by hand: the state is no longer any preset's.
      for (const b of root.querySelectorAll("[data-preset]")) b.setAttribute("aria-pressed", "false");
      request(w);
    });
    root.addEventListener("click", (event) => {
      const play = event.target.closest("[data-play]");
      if (play) togglePlay(w, play);
      const choice = event.target.closest("[data-pick]");
      if (choice) pick(w, choice.dataset.pick);
      const button = event.target.closest("[data-preset]");
      if (!button) return;
      stopPlay(w);
      const values = JSON.parse(button.dataset.preset);
      for (const [field, value] of Object.entries(values)) setField(w, field, value);
      w.invalidFromUrl = {};
      for (const b of root.querySelectorAll("[data-preset]")) b.setAttribute("aria-pressed", String(b === button));
      request(w);
    });
    // The first touch of a widget boots Pyodide at once rather than waiting for idle.
    for (const type of ["pointerdown", "focusin", "keydown"]) {
      root.addEventListener(type, boot, { once: true, passive: true });
    }
    if (restoreFromUrl(w)) {
      root.classList.add("widget--stale");
      request(w);
    } else if (runtime.status === "error") {
      fail();
    }
  }

  function mountAll() {
    for (const w of mounted) if (!w.root.isConnected) mounted.delete(w);
    document.querySelectorAll("[data-widget]").forEach(mount);
    if (mounted.size && runtime.status === "idle") bootWhenIdle();
  }

  function bootWhenIdle() {
    const later = () =>
      "requestIdleCallback" in window ? requestIdleCallback(boot) : setTimeout(boot, IDLE_FALLBACK_MS);
    if (document.readyState === "complete") later();
    else window.addEventListener("load", later, { once: true });
  }

  // mkdocs-material's document$ emits on the first page and after each instant navigation.
  if (window.document$) window.document$.subscribe(mountAll);
  else mountAll();
})();
