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
 * holding one field, data-field, data-kind="multi"; a toggle one checkbox, data-kind="toggle"),
 * far down a page in the page only once the widget is near (showControls);
 * outputs are [data-output=key], each with its provenance card as `data-card`;
 * [data-error-for=field] holds a field's error; [data-status] one status line;
 * [data-chart] holds the chart and its data-chart-spec attribute the name of
 * its Vega spec's file under charts/, absent for a widget without a chart.
 *
 * The outputs on screen are for one state of the form (the page's own, at
 * first); whenever the form holds another and Python's answer does not come
 * at a glance, the widget is marked .widget--pending until it does, so no
 * number passes for the answer to inputs it was not computed from. While
 * Pyodide downloads, a progress bar counts the bytes; a boot that fails or
 * stalls ends in one line that says whether the network or the browser failed.
 *
 * Once live, each widget shows its tools ([data-tools], made here, so a page
 * without JavaScript shows none): pin the shown state, whose outputs then stay
 * beside the live ones ([data-pinned-for=key]) with the difference Python
 * computed for each; copy the state as a command line or as JSON (also left in
 * [data-copied], for a browser that refuses the clipboard); download the
 * chart's data as CSV. The address holds a pinned state beside the live one.
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
  // A browser without requestIdleCallback does what waits for an idle moment (the boot after load)
  // this long after.
  const IDLE_FALLBACK_MS = 200;
  // The address is written once the form has held still this long: a reader typing (a few keys a
  // second) or dragging changes it faster, and each write's work in the browser ran beside the next
  // answer's Python, on the same cores. A reader copies or reloads the address only after a pause.
  const ADDRESS_PAUSE_MS = 500;
  // The longest the address may lag after that pause while the page is busy (a Play running, say).
  const ADDRESS_WAIT_MS = 500;

  // The script has run: widgets.css's "not live yet" cue, for a runtime blocked or failed, stays away
  // even while widgets wait to be mounted.
  document.documentElement.dataset.widgetRuntime = "started";

  const runtime = { status: "idle", boots: 0, worker: null, requests: new Map(), nextId: 1, addressPending: false };
  const mounted = new Set();
  window.widgetRuntime = runtime; // read by the tests and the benchmark
  runtime.stateOf = (root) => readState(root.widget); // the state a widget's form holds, as sent to Python
  runtime.asTyped = (text, whole) => asTyped(text, whole); // read by the tests against contract.as_typed

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
      // The worker reports its own failures, Pyodide's loader's among them; this is its script failing to
      // run at all. A script that ran and threw (a browser without module workers) has a message; one
      // never delivered has none.
      fail(event.message ? { cause: "browser" } : { cause: "network", file: "worker.js" });
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
    w.tools.root.hidden = state !== "live"; // each tool needs Python's answer
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

  // Marked at once while no Python is there to answer; live, only if the answer is slower than a
  // glance. A mark that came and went with every keystroke's answer flickered, and restyling the
  // widget for it held that answer up.
  const PENDING_AFTER_MS = 100;

  function markPendingUnlessAnswered(w) {
    clearTimeout(w.pendingTimer);
    if (runtime.status === "live") w.pendingTimer = setTimeout(() => markPending(w), PENDING_AFTER_MS);
    else markPending(w);
  }

  // A multi-choice is a group of checkboxes, each named on its own as every control of a form is, that
  // hold one field (data-field), read as "a,b,c"; a toggle one checkbox, "true" or "false".
  const MULTI_SEPARATOR = ",";
  const fieldOf = (control) => control.dataset?.field || control.name;

  function readState(w) {
    const state = {};
    for (const control of w.form.elements) {
      const field = fieldOf(control);
      if (!field) continue;
      if (control.dataset.kind === "multi") {
        const picked = state[field] ? state[field].split(MULTI_SEPARATOR) : [];
        if (control.checked) picked.push(control.value);
        state[field] = picked.join(MULTI_SEPARATOR);
      } else if (control.dataset.kind === "toggle") {
        state[field] = String(control.checked);
      } else {
        // A number set from an example keeps its exact text while the field still shows it as typed (asTyped).
        const shows = control.dataset.exactShows ?? control.defaultValue;
        state[field] = control.dataset.exact !== undefined && control.value === shows ? control.dataset.exact : control.value;
      }
    }
    // A value from a link that the form cannot hold still goes to Python, which rejects it by name.
    return Object.assign(state, w.invalidFromUrl);
  }

  // Put a field's text form into its control(s); false when the form cannot hold it (an unknown option).
  function setField(w, name, value) {
    const controls = [...w.form.elements].filter((c) => fieldOf(c) === name);
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
    const control = controls[0];
    // .value, never markup: a URL cannot inject HTML. A number reads as a person types it; its exact
    // text stays beside it, what the state holds, until the reader types.
    const shown = control.tagName === "INPUT" ? asTyped(value, control.inputMode === "numeric") : value;
    if (shown !== value) Object.assign(control.dataset, { exact: value, exactShows: shown });
    else {
      delete control.dataset.exact;
      delete control.dataset.exactShows;
    }
    control.value = shown;
    return control.value === shown;
  }

  // A number's text as a person would type it, as the build writes it (pyodide_widgets.contract.as_typed,
  // estimators/units.py's `integer` for a count, `number` for a figure: three significant digits,
  // never fewer than its whole part, thousands grouped); text that is no number as it is.
  const SIGNIFICANT = 3;
  const PLAIN_RANGE = [1e-3, 1e6];

  // Only a decimal figure, as Python reads it too: JavaScript's Number also takes "0x10" or "Infinity".
  const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
  const GROUPED = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?$/;

  function asTyped(text, whole) {
    const trimmed = text.trim();
    if (!DECIMAL.test(trimmed) && !GROUPED.test(trimmed)) return text;
    const value = Number(trimmed.replaceAll(",", ""));
    if (!Number.isFinite(value)) return text;
    if (whole && Number.isInteger(value)) return value.toLocaleString("en-US");
    const magnitude = Math.abs(value);
    if (!magnitude) return "0";
    const sign = value < 0 ? "-" : "";
    const scientific = () => sign + magnitude.toExponential(SIGNIFICANT - 1).replace(/\.?0+e/, "e").replace("e+", "e");
    if (magnitude >= PLAIN_RANGE[1]) return scientific();
    const wholeDigits = magnitude >= 1 ? String(Math.trunc(magnitude)).length : 0;
    const rounded = Number(magnitude.toPrecision(Math.max(SIGNIFICANT, wholeDigits)));
    if (rounded < PLAIN_RANGE[0] || rounded >= PLAIN_RANGE[1]) return scientific();
    return sign + rounded.toLocaleString("en-US", { maximumFractionDigits: 20 });
  }

  // A folded field ("More inputs") opens its fold: the address set it, or it holds an error.
  function unfold(w, name) {
    const control = [...w.form.elements].find((c) => fieldOf(c) === name);
    const fold = control?.closest("details");
    if (fold) fold.open = true;
  }

  // The state goes to the worker first: Python computes while this thread shows what needs no
  // answer (the picked option, the preset, the units).
  function request(w) {
    w.dirty = true;
    const state = readState(w);
    if (runtime.status === "idle") boot();
    if (runtime.status === "live") {
      const id = runtime.nextId++;
      w.latest = id;
      w.sentAt = performance.now();
      runtime.requests.set(id, { w, state });
      runtime.worker.postMessage({ type: "update", id, widget: w.name, state, pinned: w.pinned });
    }
    markPendingUnlessAnswered(w);
    writeUrlSoon(w);
    showPicked(w, state);
    showPreset(w, state);
    showUnits(w);
  }

  function show(w, result, state) {
    w.dirty = false;
    for (const slot of within(w, "[data-error-for]")) slot.textContent = "";
    for (const control of w.form.elements) control.removeAttribute("aria-invalid");
    w.status.textContent = "";
    if (result.error) {
      // Play steps past an option the widget refuses in this state (a cut a dense model cannot take),
      // as far as once round its options: it lands on one the picture and the numbers can both show.
      if (w.stepping > 0) {
        w.stepping -= 1;
        advance(w, w.steppingField);
        request(w);
        return;
      }
      showError(w, result.error);
      // The picture keeps showing the state of the outputs it stands beside, the last good one; the
      // refused input stays in the form, its error beside it.
      showPicked(w, w.shown || w.defaults);
      w.afterResult = null; // a tool waits for a good answer; the reader fixes the input and asks again
      return;
    }
    w.stepping = 0;
    w.root.classList.remove("widget--stale");
    w.shown = state;
    w.result = { state, outputs: result.outputs, data: result.data, command: result.command };
    showPinned(w, result.pinned);
    w.pinnedData = result.pinned && !result.pinned.error ? result.pinned.data : null;
    markPending(w);
    for (const [key, text] of Object.entries(result.outputs)) {
      const el = within(w, `[data-output="${CSS.escape(key)}"]`)[0];
      if (el && !el.hasAttribute("data-live")) el.textContent = text;
    }
    // A pick whose value an output computes (an optimum for the current state) picks that value now.
    for (const button of within(w, "[data-pick-output]")) {
      const field = button.dataset.pick.split("=")[0];
      button.dataset.pick = `${field}=${result.outputs[button.dataset.pickOutput]}`;
    }
    showPicked(w, readState(w));
    showCards(w, result);
    showSources(w, result.sources);
    announce(w, result.outputs.summary || "");
    if (result.data) drawChart(w, result.data);
    const after = w.afterResult;
    w.afterResult = null;
    if (after) after(w.result);
    w.root.dispatchEvent(new CustomEvent("widget:updated", { detail: { ms: performance.now() - w.sentAt } }));
  }

  // The cards' inputs, each field's line once, on the widget's root, as the build wrote them
  // (site_build/render.py): one write for every card of the widget, whose slots refer to them.
  // The sources each card cites follow them in data-card-sources (the build's list under the
  // widget is for its own state). cards.js shows a card from these, and follows them while it is open.
  function showCards(w, result) {
    if (!result.card_lines) return;
    const css = (line) => `'\\A ${line.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
    const style = Object.entries(result.card_lines).map(([field, line]) => `--card-${field}:${css(line)}`).join(";");
    const sources = JSON.stringify(result.card_sources);
    // Unchanged text is not written again: a new style restyles every element of the widget.
    if (w.root.getAttribute("style") !== style) w.root.setAttribute("style", style);
    if (w.root.dataset.cardSources !== sources) w.root.dataset.cardSources = sources;
  }

  // "Sources of these figures" under the widget names the sources of the figures it now shows, and
  // the inputs that are the reader's own (pyodide_widgets.provenance.listed): the build's list is for
  // its own state. Rewritten only when it reads otherwise.
  function showSources(w, sources) {
    const list = w.root.querySelector(".widget__sources ol");
    if (!list || !sources) return;
    if ([...list.children].map((item) => item.textContent).join("\n") === sources.join("\n")) return;
    list.replaceChildren(...sources.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }));
  }

  function showError(w, error) {
    // The last good outputs stay, marked as such (widgets.css), so nothing reads NaN or passes a stale number as current.
    w.root.classList.add("widget--stale");
    const slot = error.field && within(w, `[data-error-for="${CSS.escape(error.field)}"]`)[0];
    if (slot) slot.textContent = error.message;
    else w.status.textContent = error.message;
    if (error.field) unfold(w, error.field);
    for (const control of w.form.elements) {
      if (error.field && fieldOf(control) === error.field) control.setAttribute("aria-invalid", "true");
    }
  }

  function announce(w, text) {
    clearTimeout(w.announceTimer);
    w.announceTimer = setTimeout(() => {
      if (w.live) w.live.textContent = text;
    }, ANNOUNCE_AFTER_MS);
  }

  // A unit reads singular after a value of one ("1 GPU"): the build wrote both of its forms
  // (estimators.units.unit_after) on each unit that has two.
  function showUnits(w) {
    for (const unit of within(w, "[data-unit-one]")) {
      const input = unit.parentElement.querySelector("input");
      unit.textContent = Number(input.value.trim().replaceAll(",", "")) === 1 ? unit.dataset.unitOne : unit.dataset.unit;
    }
  }

  // --- pick-one content and play --------------------------------------------
  // [data-when="field=value"] belongs to one option of a field: with JavaScript off all of it reads;
  // live, the picked option's parts get .is-picked (widgets.css shows or highlights them), at once,
  // without waiting for Python. A [data-pick="field=value"] button picks its option.
  const PLAY_STEP_MS = 2000;

  function showPicked(w, state) {
    for (const el of within(w, "[data-when], [data-pick]")) {
      const [field, value] = (el.dataset.when || el.dataset.pick).split("=");
      const picked = (state[field] || "").split(MULTI_SEPARATOR).includes(value);
      el.classList.toggle("is-picked", picked);
      if (el.dataset.pick) el.setAttribute("aria-pressed", String(picked));
    }
  }

  // The highlighted preset is the one whose every value the form holds, or none: read from the state
  // after every kind of move (a field, a preset, Play, a pick, a chart click, a link), never kept.
  function showPreset(w, state) {
    for (const b of within(w, "[data-preset]")) {
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

  // Play steps a choice through its options, as a reader pressing "next" would. A reader who asked
  // for reduced motion gets that button as it reads: each press steps once, and nothing moves on
  // by itself (content that changes unasked is the motion they turned off).
  const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");

  function advance(w, field) {
    const select = w.form.elements.namedItem(field);
    select.selectedIndex = (select.selectedIndex + 1) % select.options.length;
    return select;
  }

  function stepOnce(w, button) {
    const select = advance(w, button.dataset.play);
    w.steppingField = button.dataset.play;
    w.stepping = select.options.length - 1; // the options left to try if this one is refused
    request(w);
  }

  function togglePlay(w, button) {
    if (REDUCED_MOTION.matches) {
      stepOnce(w, button);
      return;
    }
    if (w.playing) {
      stopPlay(w);
      return;
    }
    button.setAttribute("aria-pressed", "true");
    w.playing = { button, timer: setInterval(() => stepOnce(w, button), PLAY_STEP_MS) };
  }

  // "Play", a toggle; or, under reduced motion, "Next", a plain button. Followed when the setting changes.
  function showPlayButtons(w) {
    if (REDUCED_MOTION.matches) stopPlay(w);
    for (const button of within(w, "[data-play]")) {
      button.textContent = REDUCED_MOTION.matches ? "Next" : "Play";
      if (REDUCED_MOTION.matches) button.removeAttribute("aria-pressed");
      else button.setAttribute("aria-pressed", String(Boolean(w.playing)));
    }
  }

  function stopPlay(w) {
    w.stepping = 0; // a move of the reader's own is answered as it stands, refused or not
    if (!w.playing) return;
    clearInterval(w.playing.timer);
    w.playing.button.setAttribute("aria-pressed", "false");
    w.playing = null;
  }

  // --- the URL ------------------------------------------------------------
  // Each widget's state lives in the query string as <widget id>.<field>=<value>.

  // A pinned state's fields are <widget id>.pin.<field>, every one of them: the link says all it compares against.
  function urlKey(w, field) {
    return `${w.root.id}.${field}`;
  }

  function pinKey(w, field) {
    return `${w.root.id}.pin.${field}`;
  }

  // The address is written once the form has held still (ADDRESS_PAUSE_MS) and the page is idle, for
  // every widget changed since, not with each change: history.replaceState costs milliseconds of this
  // thread and more of the browser's, which on every keystroke came before the answer (over half of a
  // simple widget's time to answer), and written after each answer it still slowed the next one's Python
  // (a third of the planner's time from its Mixtral example).
  const unwritten = new Map(); // widget -> the path of the page it was changed on
  let addressTimer = 0;

  function writeUrlSoon(w) {
    unwritten.set(w, location.pathname);
    runtime.addressPending = true; // read by the tests before they share the address a reader would copy
    clearTimeout(addressTimer);
    addressTimer = setTimeout(() => {
      if ("requestIdleCallback" in window) requestIdleCallback(writeUrl, { timeout: ADDRESS_WAIT_MS });
      else writeUrl();
    }, ADDRESS_PAUSE_MS);
  }

  function writeUrl() {
    const url = new URL(location.href);
    // Instant navigation may have moved to another page meanwhile, whose address is not the widgets'.
    const widgets = [...unwritten].filter(([w, path]) => path === url.pathname && w.root.isConnected).map(([w]) => w);
    unwritten.clear();
    runtime.addressPending = false;
    for (const w of widgets) {
      // Only what differs from the page's own state, so a shared link stays short.
      for (const [field, value] of Object.entries(readState(w))) {
        if (value === w.defaults[field]) url.searchParams.delete(urlKey(w, field));
        else url.searchParams.set(urlKey(w, field), value);
      }
      for (const key of [...url.searchParams.keys()]) if (key.startsWith(pinKey(w, ""))) url.searchParams.delete(key);
      for (const [field, value] of Object.entries(w.pinned || {})) url.searchParams.set(pinKey(w, field), value);
    }
    if (widgets.length) history.replaceState(history.state, "", url);
  }

  function restoreFromUrl(w) {
    const params = new URL(location.href).searchParams;
    let restored = false;
    for (const name of new Set([...w.form.elements].map(fieldOf).filter(Boolean))) {
      if (!params.has(urlKey(w, name))) continue;
      const value = params.get(urlKey(w, name));
      if (!setField(w, name, value)) w.invalidFromUrl[name] = value;
      unfold(w, name);
      restored = true;
    }
    // A pinned state from a link is sent to Python as it stands (a field it lacks takes the page's own
    // value), which names a bad one: it is never put into the form, nor shown unchecked.
    const pinned = [...params].filter(([key]) => key.startsWith(pinKey(w, "")));
    if (pinned.length) {
      w.pinned = { ...w.defaults };
      for (const [key, value] of pinned) {
        const field = key.slice(pinKey(w, "").length);
        if (field in w.defaults) w.pinned[field] = value;
      }
      showPinButton(w);
      restored = true;
    }
    return restored;
  }

  // --- pin and compare, copy, CSV -----------------------------------------------

  function button(label, tool) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "md-button";
    b.dataset.tool = tool;
    b.textContent = label;
    return b;
  }

  // Hidden until the runtime is live (setState): without Python no tool can answer. Put in the page
  // with the controls (showControls): they are form controls too.
  function makeTools(w) {
    const root = document.createElement("div");
    root.className = "widget__tools";
    root.dataset.tools = "";
    root.hidden = true;
    const group = document.createElement("div");
    group.className = "widget__tool-buttons";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Compare and take away");
    const tools = { root, pin: button("Pin this state", "pin") };
    tools.pin.setAttribute("aria-pressed", "false");
    group.append(tools.pin, button("Copy as command", "command"), button("Copy as JSON", "json"));
    if (w.chart) group.append(button("Download the chart's data (CSV)", "csv"));
    tools.status = document.createElement("p");
    tools.status.className = "widget__tool-status";
    tools.status.dataset.toolStatus = "";
    tools.status.setAttribute("role", "status");
    // What was last copied, readable and selectable here too: a browser may refuse the clipboard.
    tools.copied = document.createElement("textarea");
    tools.copied.className = "widget__copied";
    tools.copied.dataset.copied = "";
    tools.copied.readOnly = true;
    tools.copied.hidden = true;
    tools.copied.rows = 3;
    tools.copied.setAttribute("aria-label", "Copied text");
    root.append(group, tools.status, tools.copied);
    return tools;
  }

  function useTool(w, tool) {
    if (tool === "pin") {
      togglePin(w);
      return;
    }
    const act = {
      command: (r) => copy(w, r.command, "command"),
      json: (r) => copy(w, JSON.stringify({ widget: w.name, state: r.state, outputs: r.outputs }, null, 2), "JSON"),
      csv: (r) => downloadCsv(w, r.data),
    }[tool];
    // The outputs on screen may be the page's own, computed at build time: ask Python for them first.
    if (w.result && !w.dirty) act(w.result);
    else {
      w.afterResult = act;
      request(w);
    }
  }

  function showPinButton(w) {
    w.tools.pin.setAttribute("aria-pressed", String(Boolean(w.pinned)));
    w.tools.pin.textContent = w.pinned ? "Unpin" : "Pin this state";
  }

  // Pin the state the outputs are for (never a form holding a bad value); unpin clears the comparison.
  function togglePin(w) {
    w.pinned = w.pinned ? null : { ...w.shown };
    showPinButton(w);
    w.tools.status.textContent = "";
    if (!w.pinned) {
      for (const el of within(w, "[data-pinned-for]")) el.remove();
      w.pinnedData = null;
      if (w.chartData) drawChart(w, w.chartData);
      writeUrlSoon(w);
      return;
    }
    request(w);
  }

  function labelOf(w, field) {
    const control = [...w.form.elements].find((c) => fieldOf(c) === field);
    const label = control && (control.closest("fieldset")?.querySelector("legend") || control.labels?.[0]);
    return label ? label.textContent.trim() : field;
  }

  // Beside each output, what it read for the pinned state and how the live one differs (both from Python).
  function showPinned(w, pinned) {
    if (!pinned) return;
    if (pinned.error) {
      for (const el of within(w, "[data-pinned-for]")) el.remove();
      const where = pinned.error.field ? `${labelOf(w, pinned.error.field)}: ` : "";
      w.tools.status.textContent = `The pinned state in this address cannot be compared. ${where}${pinned.error.message} Unpin to clear it.`;
      return;
    }
    let compared = 0;
    let same = 0;
    for (const slot of within(w, "[data-output]:not([data-live])")) {
      const key = slot.dataset.output;
      if (!(key in pinned.outputs)) continue;
      let el = slot.nextElementSibling;
      if (!el || el.dataset.pinnedFor !== key) {
        el = document.createElement(slot.tagName === "P" ? "p" : "span");
        el.className = "widget__pinned";
        el.dataset.pinnedFor = key;
        slot.after(el);
      }
      const difference = pinned.differences[key];
      el.dataset.difference = difference;
      // An unchanged figure carries no line of its own: one line below says how many read as pinned.
      el.hidden = difference === "same";
      const now = { same: "", changed: "" }[difference] ?? ` · now ${difference}`;
      el.textContent = difference === "same" ? "" : `Pinned: ${pinned.outputs[key]}${now}`;
      compared += 1;
      if (difference === "same") same += 1;
    }
    const figures = (n) => (n === 1 ? "1 figure" : `${n} figures`);
    w.tools.status.textContent = !same ? ""
      : same === compared ? "Pinned: every figure reads as it does now."
        : `Pinned: the ${figures(same)} without a pinned line read as they do now.`;
  }

  async function copy(w, text, what) {
    w.tools.copied.value = text;
    w.tools.copied.hidden = false;
    try {
      await navigator.clipboard.writeText(text);
      w.tools.status.textContent = `Copied the ${what}; it is also below.`;
    } catch (error) {
      w.tools.copied.select();
      w.tools.status.textContent = `This browser did not allow copying: the ${what} is below, selected.`;
    }
  }

  // One CSV of every dataset the chart is drawn from, a row per mark, the dataset named in its first column.
  const CSV_SPECIAL = /[",\r\n]/;

  function csvCell(value) {
    const text = value == null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    return CSV_SPECIAL.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }

  function csvOf(data) {
    const rows = Object.entries(data).flatMap(([dataset, marks]) => (Array.isArray(marks) ? marks : []).map((mark) => ({ dataset, ...mark })));
    const columns = [...new Set(rows.flatMap(Object.keys))];
    return [columns, ...rows.map((row) => columns.map((c) => row[c]))].map((line) => line.map(csvCell).join(",")).join("\r\n") + "\r\n";
  }

  // What the chart draws beside the widget's rows: the lines its figure module names and draws for
  // every state (equal-compute lines, the Chinchilla line); Altair's unnamed data (source_0) are
  // parts of the drawing only.
  const UNNAMED = /^(source|data)_\d+$/;
  // The datasets a chart draws the pinned state from: its own, named with this prefix (figures/_pinned.py).
  const PINNED = "pinned_";

  async function downloadCsv(w, data) {
    let drawn = {};
    try {
      await viewOf(w);
      drawn = Object.fromEntries((w.spec.data || []).filter((d) => Array.isArray(d.values) && !(d.name in data) && !UNNAMED.test(d.name) && !d.name.startsWith(PINNED))
        .map((d) => [d.name, d.values]));
    } catch (error) {
      // No chart drawn live (Vega or its spec did not load): the widget's rows alone.
    }
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([csvOf({ ...data, ...drawn })], { type: "text/csv" }));
    link.download = `${w.root.id}.csv`;
    link.hidden = true;
    w.tools.root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 0);
    w.tools.status.textContent = `Downloaded ${link.download}: the rows the chart is drawn from.`;
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

  // The chart's Vega view, made once: on the first answer, or on the first drag, whichever comes
  // first. Its spec is fetched only then (site_build/assets.write_chart_specs), so a reader who
  // never touches the widget never loads it. `holder` is the widget for its chart, or one of its
  // further figures (w.figures).
  function viewOf(w, holder = w) {
    holder.viewReady ||= (async () => {
      const vega = await loadVega();
      const response = await fetch(new URL(holder.chartSpec.dataset.chartSpec, CHARTS_URL));
      if (!response.ok) throw new Error(`${response.url}: ${response.status}`);
      const spec = await response.json();
      holder.spec = spec;
      // Vega's expressions interpreted (vega-interpreter), not compiled with Function(): no 'unsafe-eval' in the site's policy.
      const parsed = vega.parse(spec, null, { ast: true });
      const view = new vega.View(parsed, { renderer: "svg", hover: true, expr: vega.expressionInterpreter });
      holder.chart.replaceChildren();
      view.initialize(holder.chart);
      view.addEventListener("click", (event, item) => {
        if (item && item.datum && item.datum.pick) pick(w, item.datum.pick);
      });
      await view.runAsync();
      holder.view = view;
      return view;
    })();
    return holder.viewReady;
  }

  // The answer's datasets that a spec draws: a widget with a further figure answers rows for both.
  function drawnBy(spec, data) {
    const names = new Set((spec.data || []).map((d) => d.name));
    return Object.entries(data).filter(([name]) => names.has(name));
  }

  // The answer's rows into a view (the chart's, or a further figure's), and the pinned state's beside
  // them where its spec draws one; none once unpinned.
  async function drawRows(w, holder, data) {
    const view = await viewOf(w, holder);
    for (const [name, rows] of drawnBy(holder.spec, data)) view.data(name, rows);
    for (const d of holder.spec.data || []) {
      if (d.name.startsWith(PINNED)) view.data(d.name, w.pinnedData?.[d.name.slice(PINNED.length)] || []);
    }
    await view.runAsync();
  }

  // A further figure of the widget (one of its folded charts: the run's cost under the training-time
  // widget's plane), redrawn from the same answer in a view of its own.
  async function drawFigure(w, figure, data) {
    try {
      await drawRows(w, figure, data);
    } catch (error) {
      if (!figure.view) figure.viewReady = null; // the next answer tries again
      w.status.textContent = "The chart could not be redrawn; the numbers above are current.";
    }
  }

  async function drawChart(w, data) {
    for (const figure of w.figures) drawFigure(w, figure, data);
    if (!w.chart || !w.chartSpec) return; // a widget without a chart
    w.chartData = data;
    try {
      await drawRows(w, w, w.chartData);
      const tapped = w.pickOnDraw && Object.values(w.chartData).flat().find((row) => row.label === w.pickOnDraw && row.pick);
      w.pickOnDraw = null;
      if (tapped) pick(w, tapped.pick);
      w.root.dispatchEvent(new CustomEvent("widget:drawn", { detail: { ms: performance.now() - w.sentAt } }));
    } catch (error) {
      if (!w.view) w.viewReady = null; // a spec or Vega that failed to load: the next answer tries again
      // The build-time SVG (or the last drawing) stays; the numbers are still live.
      w.status.textContent = "The chart could not be redrawn; the numbers above are current.";
    }
  }

  // --- dragging a chart along its x axis -----------------------------------
  // A chart marked data-drag="field" draws that field on its x axis (in SI; data-drag-scale turns it
  // into the field's display units): pressing or dragging on it, with a mouse, a pen or a finger,
  // sets the field to the value under the pointer, continuously; with the chart focused, the arrow
  // keys step it (a tenth of a decade on a log axis, a hundredth of the axis on a linear one).
  const DRAG_DIGITS = 3; // significant digits of a dragged value: finer than a pointer can aim
  const LOG_KEY_STEP = 10 ** 0.1;
  const LINEAR_KEY_STEPS = 100;
  const KEY_DIRECTIONS = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 };

  function dragTo(w, si) {
    const [lo, hi] = w.view.scale("x").domain();
    const value = Math.min(Math.max(si, Math.min(lo, hi)), Math.max(lo, hi)) / w.drag.scale;
    stopPlay(w);
    setField(w, w.drag.field, String(Number(value.toPrecision(DRAG_DIGITS))));
    delete w.invalidFromUrl[w.drag.field];
    request(w);
  }

  function valueUnder(w, event) {
    const svg = w.chart.querySelector("svg");
    const box = svg.getBoundingClientRect();
    const viewBox = svg.viewBox.baseVal;
    const drawnPerCss = viewBox && viewBox.width ? viewBox.width / box.width : 1;
    // The plot starts at the view's origin past its padding, in the SVG's own units.
    const left = w.view.origin()[0] + w.view.padding().left;
    return w.view.scale("x").invert((event.clientX - box.left) * drawnPerCss - left);
  }

  function bindDrag(w) {
    const chart = w.chart;
    // One new value a frame, however fast the pointer reports: the latest position, once the view
    // exists (a drag that starts on the build's picture waits for the live one, and loses no move).
    const follow = (event) => {
      w.dragAt = event;
      w.dragFrame ||= requestAnimationFrame(() => {
        w.dragFrame = 0;
        viewOf(w).then(() => dragTo(w, valueUnder(w, w.dragAt)), () => {});
      });
    };
    chart.addEventListener("pointerdown", (event) => {
      if (!event.isPrimary || event.button > 0) return;
      w.dragging = true;
      try {
        chart.setPointerCapture(event.pointerId);
      } catch {
        // A pointer the browser no longer tracks: the drag still follows moves over the chart.
      }
      follow(event);
    });
    chart.addEventListener("pointermove", (event) => {
      if (w.dragging && event.isPrimary) follow(event);
    });
    for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) {
      chart.addEventListener(type, () => { w.dragging = false; });
    }
    chart.addEventListener("keydown", (event) => {
      const direction = KEY_DIRECTIONS[event.key];
      const now = Number(readState(w)[w.drag.field].replace(/[,\s]/g, "")) * w.drag.scale;
      if (!direction || !Number.isFinite(now)) return;
      event.preventDefault();
      viewOf(w).then((view) => {
        const scale = view.scale("x");
        const [lo, hi] = scale.domain();
        dragTo(w, scale.type === "log" ? now * LOG_KEY_STEP ** direction : now + (direction * (hi - lo)) / LINEAR_KEY_STEPS);
      }, () => {});
    });
  }

  // --- deferred controls --------------------------------------------------------
  // Far down a page the build leaves a widget's controls (its presets and form) as the text of a
  // <noscript data-controls> (site_build/sections.py): made here into elements apart from the page,
  // they hold the widget's state at once and go into the page, its tools with them, when the
  // widget's block comes near the viewport (its content-visibility: auto stops skipping it), or
  // before the page prints.
  function deferredControls(root) {
    const source = root.querySelector("noscript[data-controls]");
    if (!source) return null;
    const holder = document.createElement("div");
    // The page's parser leaves it as text; instant navigation's DOMParser, which runs no script, as elements.
    if (source.firstElementChild) holder.append(...source.childNodes);
    else holder.innerHTML = source.textContent; // the build's own markup
    return { source, holder };
  }

  // Every element of the widget that matches `selector`, its controls included wherever they are.
  function within(w, selector) {
    const found = w.root.querySelectorAll(selector);
    return w.deferred ? [...found, ...w.deferred.holder.querySelectorAll(selector)] : found;
  }

  function showControls(w) {
    if (w.tools.root.isConnected) return;
    w.status.before(w.tools.root);
    if (!w.deferred) return;
    w.deferred.source.replaceWith(...w.deferred.holder.childNodes);
    w.deferred = null;
  }

  document.addEventListener("contentvisibilityautostatechange", (event) => {
    if (event.skipped) return;
    for (const w of mounted) if (event.target.contains(w.root)) showControls(w);
  }, true); // capturing: the event does not bubble
  runtime.showControls = () => mounted.forEach(showControls); // print.js, before it writes each control's value

  // --- binding --------------------------------------------------------------

  // Each field's error line ([data-error-for]), last in its field and describing its control, made here:
  // without JavaScript nothing is computed, so no error shows, and the built page carries none.
  function makeErrorSlots(w) {
    for (const box of w.form.querySelectorAll(".widget__field")) {
      const control = box.querySelector("input, select");
      const slot = document.createElement("p");
      slot.className = "widget__error";
      slot.id = `${w.root.id}-${fieldOf(control)}-error`;
      slot.dataset.errorFor = fieldOf(control);
      slot.setAttribute("role", "status");
      box.append(slot);
      // A group of checkboxes is described as one, on its fieldset.
      (box.matches("fieldset") ? box : control).setAttribute("aria-describedby", slot.id);
    }
  }

  function mount(root) {
    if (root.widget) return; // idempotent: state lives on the element
    const deferred = deferredControls(root);
    const w = {
      root,
      name: root.dataset.widget,
      deferred,
      form: (deferred ? deferred.holder : root).querySelector("form"),
      status: root.querySelector("[data-status]"),
      live: root.querySelector("[data-live]"),
      chart: root.querySelector("[data-chart]"),
      chartSpec: root.querySelector("[data-chart-spec]"),
      // Further figures redrawn live (a chart's spec outside [data-chart]), each its own view.
      figures: [...root.querySelectorAll("[data-chart-spec]:not([data-chart])")].map((el) => ({ chart: el, chartSpec: el, view: null, viewReady: null })),
      invalidFromUrl: {},
      pinned: null, // the pinned state, as the form's texts
      pinnedData: null, // its chart's rows, drawn beside the live ones
      result: null, // Python's last good answer: {state, outputs, data, command}
      afterResult: null, // a tool waiting for that answer
      dirty: false,
      latest: 0,
      view: null,
      viewReady: null,
      playing: null,
      pickOnDraw: null, // the label of a build-time chart mark tapped before the live chart was drawn
      stepping: 0, // while Play's step waits for its answer: the options it may still step past
      steppingField: null,
    };
    makeErrorSlots(w);
    w.defaults = readState(w);
    w.shown = w.defaults; // the build-time outputs are for the page's own state
    w.download = downloadProgress(w);
    w.tools = makeTools(w);
    if (w.chartSpec && w.chart.dataset.drag) {
      w.drag = { field: w.chart.dataset.drag, scale: Number(w.chart.dataset.dragScale) };
      bindDrag(w);
    }
    root.widget = w;
    root.dataset.enhanced = "true"; // from here on, widgets.css shows only the picked option's content
    // A second picture (the planner's table, the cuts' holdings) is built open, so a page read without
    // JavaScript shows it; live, it folds, keeping the widget within a screen, one tap from open.
    for (const fold of root.querySelectorAll("details[data-fold]")) fold.open = false;
    showPicked(w, w.defaults);
    showUnits(w);
    showPlayButtons(w);
    mounted.add(w);
    setState(w, runtime.status === "idle" ? "static" : runtime.status === "error" ? "error" : runtime.status);

    // Enter in a field, or the form's Recompute button: recompute now, never reload the page.
    w.form.addEventListener("submit", (event) => {
      event.preventDefault();
      stopPlay(w);
      request(w);
    });
    w.form.addEventListener("input", (event) => {
      stopPlay(w);
      delete event.target.dataset?.exact; // the reader typed: the text they see is the value
      delete w.invalidFromUrl[fieldOf(event.target)];
      request(w);
    });
    root.addEventListener("click", (event) => {
      const tool = event.target.closest("[data-tool]");
      if (tool) useTool(w, tool.dataset.tool);
      const play = event.target.closest("[data-play]");
      if (play) togglePlay(w, play);
      const choice = event.target.closest("[data-pick]");
      if (choice) pick(w, choice.dataset.pick);
      // A mark of the build's chart, before the live one replaces it (a fresh page): the live chart
      // picks the row it stands for once it is drawn, so a tap is never lost.
      const mark = w.chartSpec && !w.view && event.target.closest?.("[data-chart] [aria-label]");
      if (mark) {
        w.pickOnDraw = mark.getAttribute("aria-label");
        request(w);
      }
      const button = event.target.closest("[data-preset]");
      if (!button) return;
      stopPlay(w);
      const values = JSON.parse(button.dataset.preset);
      for (const [field, value] of Object.entries(values)) setField(w, field, value);
      w.invalidFromUrl = {};
      request(w);
    });
    // A part of a picture that picks an option (a station of the loop, a lane) is a button there:
    // Enter or Space on it picks, as on the buttons under it.
    root.addEventListener("keydown", (event) => {
      const part = event.target.closest?.("svg [data-pick]");
      if (!part || (event.key !== "Enter" && event.key !== " ")) return;
      event.preventDefault();
      pick(w, part.dataset.pick);
    });
    // The first touch of a widget boots Pyodide at once rather than waiting for idle.
    for (const type of ["pointerdown", "focusin", "keydown"]) {
      root.addEventListener(type, boot, { once: true, passive: true });
    }
    if (restoreFromUrl(w)) request(w);
    // Near the viewport already (or in a browser that skips nothing): its block's event came and went.
    if (!deferred || root.checkVisibility?.({ contentVisibilityAuto: true }) !== false) showControls(w);
    if (runtime.status === "error") showFailure(w);
    else if (runtime.progress && runtime.status === "loading") showProgress(w);
  }

  // Each widget is mounted in a task of its own, after the theme's: document$ emits inside the
  // theme's own handler, which with every widget mounted in it was one task long enough to hold
  // up a reader's first tap on a phone.
  async function mountAll() {
    for (const w of mounted) if (!w.root.isConnected) mounted.delete(w);
    for (const root of document.querySelectorAll("[data-widget]")) {
      await nextTask();
      if (root.isConnected) mount(root); // instant navigation may have replaced the page meanwhile
    }
    if (mounted.size && runtime.status === "idle") bootWhenIdle();
  }

  // A new task, first in line where the browser can say so (scheduler.yield), so mounting is not
  // queued behind other work yet lets a tap or a frame go first.
  function nextTask() {
    return globalThis.scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve));
  }

  function bootWhenIdle() {
    const later = () =>
      "requestIdleCallback" in window ? requestIdleCallback(boot) : setTimeout(boot, IDLE_FALLBACK_MS);
    if (document.readyState === "complete") later();
    else window.addEventListener("load", later, { once: true });
  }

  REDUCED_MOTION.addEventListener("change", () => mounted.forEach(showPlayButtons));

  // mkdocs-material's document$ emits on the first page and after each instant navigation.
  if (window.document$) window.document$.subscribe(mountAll);
  else mountAll();
})();
