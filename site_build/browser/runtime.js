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
 * outputs are [data-output=key], each with its provenance card as `data-card`;
 * [data-error-for=field] holds a field's error; [data-status] one status line;
 * [data-chart] holds the chart and its data-chart-spec attribute the name of
 * its Vega spec's file under charts/, absent for a widget without a chart.
 *
 * The outputs on screen are for one state of the form (the page's own, at
 * first); whenever the form holds another, the widget is marked
 * .widget--pending until Python answers for it, so no number passes for the
 * answer to inputs it was not computed from. While Pyodide downloads, a
 * progress bar counts the bytes; a boot that fails or stalls ends in one line
 * that says whether the network or the browser failed.
 */
(() => {
  "use strict";

  const BASE = new URL(".", document.currentScript.src);
  const WHEEL_URL = new URL("__WHEEL_URL__", BASE).href;
  const PYODIDE_URL = new URL("pyodide/", BASE).href;
  const VEGA_URL = new URL("vega.min.js", BASE).href;
  const CHARTS_URL = new URL("charts/", BASE).href;
  const WORKER_URL = new URL("worker.js", BASE).href;
  // {file: bytes} of what the boot downloads, written in by the build (site_build/assets.py).
  const DOWNLOAD_SIZES = "__DOWNLOAD_SIZES__";
  // A boot that downloads no byte for this long has stalled: give up. Once every byte is in, what
  // remains is the browser's own work (compiling, starting Python), timed by no one: on a busy
  // phone it is slow, not stalled, and the worker reports its failures itself.
  const STALL_MS = 30_000;
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
      runtime.worker = new Worker(WORKER_URL, { type: "module" });
    } catch (error) {
      fail({ cause: "browser" });
      return;
    }
    runtime.worker.onmessage = (event) => onMessage(event.data);
    runtime.worker.onerror = (event) => {
      event.preventDefault();
      // The worker reports its own failures; this is its script failing to run at all. A script that
      // ran and threw (a browser without module workers) has a message; one never delivered has none.
      fail(event.message ? { cause: "browser" } : { cause: "network", file: "worker.js (or the Pyodide loader it imports)" });
    };
    stillAlive();
    runtime.worker.postMessage({ type: "init", indexURL: PYODIDE_URL, wheel: WHEEL_URL, sizes: DOWNLOAD_SIZES });
  }

  function stillAlive() {
    clearTimeout(runtime.stallTimer);
    runtime.stallTimer = setTimeout(() => fail({ cause: "stalled" }), STALL_MS);
  }

  // One line per failure: what failed, and that the figures are the page's own.
  function failureText(failure) {
    const what = {
      network: `${failure.file} did not download (a network problem)`,
      stalled: "the download stopped (a network problem)",
      browser: "this browser could not start the live calculator",
    }[failure.cause];
    return `Interaction is unavailable: ${what}; the figures shown are for the page's own inputs.`;
  }

  function fail(failure) {
    if (runtime.status === "error") return;
    runtime.status = "error";
    runtime.failure = failure; // read by the tests, with the worker's detail
    clearTimeout(runtime.stallTimer);
    if (runtime.worker) runtime.worker.terminate();
    runtime.worker = null;
    mounted.forEach(showFailure);
  }

  function showFailure(w) {
    setState(w, "error");
    w.status.textContent = failureText(runtime.failure);
  }

  function onMessage(message) {
    if (message.type === "progress") {
      runtime.progress = message;
      mounted.forEach(showProgress);
      if (message.loaded < message.total) stillAlive();
      else clearTimeout(runtime.stallTimer);
    } else if (message.type === "ready") {
      clearTimeout(runtime.stallTimer);
      runtime.status = "live";
      runtime.snapshot = message.snapshot; // restored | none | corrupt | unavailable (worker.js)
      performance.mark("widgets:ready");
      performance.measure("widgets:boot-to-ready", "widgets:boot", "widgets:ready");
      mounted.forEach((w) => {
        setState(w, "live");
        if (w.dirty) request(w);
      });
    } else if (message.type === "snapshot") {
      runtime.snapshotSaved = message.saved; // the worker kept a snapshot for the next visit
    } else if (message.type === "failed") {
      fail(message);
    } else if (message.type === "result") {
      const sent = runtime.requests.get(message.id);
      runtime.requests.delete(message.id);
      // Only the answer to the latest input counts; older ones are stale.
      if (sent && message.id === sent.w.latest && mounted.has(sent.w)) show(sent.w, message, sent.state);
    }
  }

  // --- one widget -----------------------------------------------------------

  function setState(w, state) {
    w.root.dataset.state = state;
    w.root.setAttribute("aria-busy", state === "loading" ? "true" : "false");
    w.download.hidden = state !== "loading";
  }

  function megabytes(bytes) {
    return `${(bytes / 1e6).toFixed(1)} MB`;
  }

  function showProgress(w) {
    const { loaded, total } = runtime.progress;
    const text = `${megabytes(loaded)} of ${megabytes(total)}`;
    Object.assign(w.progressBar, { max: total, value: loaded });
    w.progressBar.setAttribute("aria-valuetext", text);
    w.progressText.textContent = text;
  }

  // A bar and its text, before the status line: "[=====     ] 4.8 MB of 12.3 MB".
  function downloadProgress(w) {
    const download = document.createElement("p");
    download.className = "widget__download";
    download.hidden = true;
    w.progressBar = document.createElement("progress");
    w.progressBar.setAttribute("aria-label", "Download of the live calculator");
    w.progressText = document.createElement("span");
    w.progressText.setAttribute("aria-hidden", "true"); // the bar's aria-valuetext says it
    download.append(w.progressBar, " ", w.progressText);
    w.status.before(download);
    return download;
  }

  // Pending: the form holds a state other than the one the outputs were computed for.
  function markPending(w) {
    w.root.classList.toggle("widget--pending", JSON.stringify(readState(w)) !== JSON.stringify(w.shown));
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
    markPending(w);
    writeUrl(w, state);
    showPicked(w, state);
    showPreset(w, state);
    if (runtime.status === "idle") boot();
    if (runtime.status !== "live") return;
    const id = runtime.nextId++;
    w.latest = id;
    w.sentAt = performance.now();
    runtime.requests.set(id, { w, state });
    runtime.worker.postMessage({ type: "update", id, widget: w.name, state });
  }

  function show(w, result, state) {
    w.dirty = false;
    for (const slot of w.root.querySelectorAll("[data-error-for]")) slot.textContent = "";
    for (const control of w.form.elements) control.removeAttribute("aria-invalid");
    w.status.textContent = "";
    if (result.error) {
      showError(w, result.error);
      return;
    }
    w.root.classList.remove("widget--stale");
    w.shown = state;
    markPending(w);
    for (const [key, text] of Object.entries(result.outputs)) {
      const el = w.root.querySelector(`[data-output="${CSS.escape(key)}"]`);
      if (el && !el.hasAttribute("data-live")) el.textContent = text;
    }
    for (const [key, text] of Object.entries(result.cards || {})) {
      const el = w.root.querySelector(`[data-output="${CSS.escape(key)}"]`);
      if (!el) continue;
      delete el.dataset.sources; // the worker's card holds its sources: the build's list is for its own state
      el.dataset.card = text; // cards.js shows it, and follows it while it is open
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

  // The highlighted preset is the one whose every value the form holds, or none: read from the state
  // after every kind of move (a field, a preset, Play, a pick, a chart click, a link), never kept.
  function showPreset(w, state) {
    for (const b of w.root.querySelectorAll("[data-preset]")) {
      const values = JSON.parse(b.dataset.preset);
      b.setAttribute("aria-pressed", String(Object.entries(values).every(([field, value]) => state[field] === value)));
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

  // The spec is fetched only when the chart first goes live (site_build/assets.write_chart_specs); one view per
  // chart, however many answers arrive while it is being made.
  async function makeView(w) {
    const vega = await loadVega();
    const response = await fetch(new URL(w.chartSpec.dataset.chartSpec, CHARTS_URL));
    if (!response.ok) throw new Error(`${response.url}: ${response.status}`);
    const spec = await response.json();
    // Vega's expressions interpreted (vega-interpreter), not compiled with Function(): no 'unsafe-eval' in the site's policy.
    const parsed = vega.parse(spec, null, { ast: true });
    const view = new vega.View(parsed, { renderer: "svg", hover: true, expr: vega.expressionInterpreter });
    w.chart.replaceChildren();
    view.initialize(w.chart);
    view.addEventListener("click", (event, item) => {
      if (item && item.datum && item.datum.pick) pick(w, item.datum.pick);
    });
    w.view = view;
    return view;
  }

  async function drawChart(w, data) {
    if (!w.chart || !w.chartSpec) return; // a widget without a chart
    w.chartData = data;
    try {
      w.viewMade ||= makeView(w);
      const view = await w.viewMade;
      for (const [name, rows] of Object.entries(w.chartData)) view.data(name, rows);
      await view.runAsync();
      w.root.dispatchEvent(new CustomEvent("widget:drawn", { detail: { ms: performance.now() - w.sentAt } }));
    } catch (error) {
      if (!w.view) w.viewMade = null; // a spec or Vega that failed to load: the next answer tries again
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
      viewMade: null,
      playing: null,
    };
    w.defaults = readState(w);
    w.shown = w.defaults; // the build-time outputs are for the page's own state
    w.download = downloadProgress(w);
    root.widget = w;
    root.dataset.enhanced = "true"; // from here on, widgets.css shows only the picked option's content
    showPicked(w, w.defaults);
    mounted.add(w);
    setState(w, runtime.status === "idle" ? "static" : runtime.status === "error" ? "error" : runtime.status);

    w.form.addEventListener("submit", (event) => event.preventDefault()); // Enter in a field recomputes, never reloads
    w.form.addEventListener("input", (event) => {
      stopPlay(w);
      delete w.invalidFromUrl[event.target.name];
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
      request(w);
    });
    // The first touch of a widget boots Pyodide at once rather than waiting for idle.
    for (const type of ["pointerdown", "focusin", "keydown"]) {
      root.addEventListener(type, boot, { once: true, passive: true });
    }
    if (restoreFromUrl(w)) request(w);
    if (runtime.status === "error") showFailure(w);
    else if (runtime.progress && runtime.status === "loading") showProgress(w);
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
