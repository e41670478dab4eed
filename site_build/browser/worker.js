// The widgets' Web Worker: boots Pyodide from the site's own files, unpacks
// the project's wheel, and answers each {widget, state} with JSON from
// pyodide_widgets.dispatch.handle. JSON text crosses the boundary, never a
// Python proxy.
//
// Return visits restore a memory snapshot instead of starting the interpreter
// (about 0.3 s instead of 2-3 s). The first boot runs with _makeSnapshot on,
// answers the page at once, and only when no request has come for a while
// takes the snapshot (tens of milliseconds) and keeps it in the Cache API,
// keyed by Pyodide's version and the wheel's URL (which holds its content
// hash). An entry is used only if its SHA-256 matches the one stored with it
// and Pyodide restores it; otherwise it is deleted and a fresh boot makes a
// new one. No storage (private browsing, an insecure origin) or a full quota
// simply means no snapshot. Pyodide's snapshots are experimental API (the
// underscore options); a snapshot also fixes Python's hash seed, which no
// widget depends on.
// Pyodide's loader is imported when the boot starts, not as this module's static import: a static
// import that does not download fails the worker before any of it runs, and the page could not tell
// which of the two files the network lost; imported here, its failure names it (failBoot).
const PYODIDE_LOADER = "./pyodide/pyodide.mjs";

const SNAPSHOT_CACHE = "widgets-pyodide-snapshot";
const DIGEST_HEADER = "x-snapshot-sha256";
// The snapshot waits until the reader has paused this long, so it never delays an answer.
const SNAPSHOT_AFTER_IDLE_MS = 1000;

let handle = null;
let pendingSnapshot = null; // () => Promise, run once the worker is idle
let snapshotTimer = null;

// --- what the boot downloads, and every way it can fail ---------------------
// Every fetch of the boot is counted ({file: bytes} of known size, from the
// page) so the page can show progress, and remembered when it fails, so a
// failure says which file the network did not deliver. Pyodide reports some
// failures only on the console or from a promise nobody awaits (a wasm that
// does not download): both are caught here and end the boot with one message.
let downloads = null; // {sizes, loaded, reported} while booting
let failedFile = null;
let booting = false;
const bootConsole = []; // what Pyodide printed while booting: the detail of a failure
// Progress is posted at most every this fraction of the total, not per chunk.
const PROGRESS_STEP = 0.01;

function fileOf(url) {
  return new URL(url, self.location.href).pathname.split("/").pop();
}

function countProgress(bytes) {
  downloads.loaded += bytes;
  const total = Object.values(downloads.sizes).reduce((a, b) => a + b, 0);
  if (downloads.loaded - downloads.reported >= PROGRESS_STEP * total || downloads.loaded >= total) {
    downloads.reported = downloads.loaded;
    self.postMessage({ type: "progress", loaded: Math.min(downloads.loaded, total), total });
  }
}

const networkFetch = self.fetch.bind(self);
self.fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input); // Pyodide passes URL objects
  let response;
  try {
    response = await networkFetch(input, init);
  } catch (error) {
    failedFile ||= fileOf(url);
    throw error;
  }
  if (!response.ok) failedFile ||= fileOf(url);
  if (!downloads || !response.ok || !response.body || !(fileOf(url) in downloads.sizes)) return response;
  const counter = new TransformStream({
    transform(chunk, controller) {
      countProgress(chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  // Same status and headers (application/wasm keeps streaming compilation), the body counted on its way.
  return new Response(response.body.pipeThrough(counter), response);
};

function failBoot(error) {
  if (!booting) return;
  booting = false;
  const text = String(error && error.message ? error.message : error);
  // A module the network did not deliver names itself in the import error.
  const missingModule = /imported module:? (\S+)/.exec(text);
  const file = failedFile || (missingModule && fileOf(missingModule[1]));
  self.postMessage({ type: "failed", cause: file ? "network" : "browser", file, message: [text, ...bootConsole].join(" | ") });
}

// A failure Pyodide leaves unawaited ends the boot here rather than as an uncaught error.
self.addEventListener("unhandledrejection", (event) => {
  if (!booting) return;
  event.preventDefault();
  failBoot(event.reason);
});
self.addEventListener("error", (event) => {
  if (!booting) return;
  event.preventDefault();
  failBoot(event.error || event.message);
});

async function quietly(task) {
  // Pyodide prints its boot failures on the console; they become the failure's detail instead.
  // Some it only prints (a WebAssembly that does not compile is logged, and the boot waits forever):
  // an error logged while booting ends the boot.
  const { error, warn } = console;
  console.error = console.warn = (...args) => {
    bootConsole.push(args.join(" "));
    const logged = args.find((arg) => arg instanceof Error);
    if (logged) failBoot(logged);
  };
  try {
    return await task();
  } finally {
    Object.assign(console, { error, warn });
  }
}

// --- the snapshot of a booted worker ------------------------------------------------

async function openStore() {
  try {
    return await self.caches.open(SNAPSHOT_CACHE);
  } catch {
    return null; // no Cache API here (private browsing, insecure origin): boot without a snapshot
  }
}

function snapshotKey(version, indexURL, wheel) {
  return `${indexURL}snapshot?pyodide=${encodeURIComponent(version)}&wheel=${encodeURIComponent(wheel)}`;
}

async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The stored snapshot's bytes, or null if there is none or it fails its checksum (then it is deleted).
async function readSnapshot(store, key) {
  try {
    const response = await store.match(key);
    if (!response) return { bytes: null, status: "none" };
    const bytes = new Uint8Array(await response.arrayBuffer());
    if ((await sha256(bytes)) === response.headers.get(DIGEST_HEADER)) return { bytes, status: "restored" };
  } catch {
    // An entry that cannot be read is treated as a corrupt one.
  }
  await store.delete(key).catch(() => {});
  return { bytes: null, status: "corrupt" };
}

async function saveSnapshot(pyodide, store, key) {
  try {
    // Every widget module is imported first, so a restored worker never waits on an import.
    pyodide.runPython("import pyodide_widgets\nfor name in pyodide_widgets.WIDGETS: pyodide_widgets.module(name)");
    const bytes = pyodide.makeMemorySnapshot();
    const headers = { [DIGEST_HEADER]: await sha256(bytes), "content-type": "application/octet-stream" };
    // Entries for another wheel or Pyodide can never be used again: free their space first.
    for (const old of await store.keys()) if (old.url !== key) await store.delete(old);
    await store.put(key, new Response(bytes, { headers }));
    return { saved: true, bytes: bytes.length };
  } catch (error) {
    return { saved: false, reason: String(error) }; // a full quota, most likely: no snapshot this time
  }
}

function scheduleSnapshot() {
  clearTimeout(snapshotTimer);
  if (!pendingSnapshot) return;
  snapshotTimer = setTimeout(async () => {
    const save = pendingSnapshot;
    pendingSnapshot = null;
    self.postMessage({ type: "snapshot", ...(await save()) });
  }, SNAPSHOT_AFTER_IDLE_MS);
}

async function restore(loadPyodide, indexURL, bytes) {
  try {
    return await loadPyodide({ indexURL, _loadSnapshot: bytes });
  } catch {
    return null;
  }
}

// --- the boot and the answers ---------------------------------------------------

async function init({ indexURL, wheel, sizes }) {
  const started = performance.now();
  downloads = { sizes: sizes || {}, loaded: 0, reported: 0 };
  // The wheel downloads while Pyodide starts, which takes far longer.
  const wheelBytes = fetch(wheel).then((response) => {
    if (!response.ok) throw new Error(`the widget wheel answered ${response.status}`);
    return response.arrayBuffer();
  });
  wheelBytes.catch(failBoot); // at once, not after Pyodide has started (and never as unhandled)
  const { loadPyodide, version } = await import(PYODIDE_LOADER);
  const store = await openStore();
  const key = snapshotKey(version, indexURL, wheel);
  let { bytes, status } = store ? await readSnapshot(store, key) : { bytes: null, status: "unavailable" };
  let pyodide = bytes && (await restore(loadPyodide, indexURL, bytes));
  if (bytes && !pyodide) {
    status = "corrupt";
    await store.delete(key).catch(() => {});
  }
  if (!pyodide) {
    pyodide = await quietly(() => loadPyodide({ indexURL, _makeSnapshot: Boolean(store) }));
    if (store) pendingSnapshot = () => saveSnapshot(pyodide, store, key);
  }
  // Also after a restore: a module imported lazily later still finds its files.
  pyodide.unpackArchive(await wheelBytes, "wheel");
  handle = pyodide.pyimport("pyodide_widgets.dispatch").handle;
  downloads = null;
  scheduleSnapshot();
  return { ms: performance.now() - started, snapshot: status };
}

self.onmessage = async ({ data }) => {
  if (data.type === "init") {
    booting = true;
    try {
      const ready = await init(data);
      if (booting) self.postMessage({ type: "ready", ...ready });
      booting = false;
    } catch (error) {
      failBoot(error);
    }
  } else if (data.type === "update") {
    let reply;
    try {
      reply = JSON.parse(handle(JSON.stringify({ widget: data.widget, state: data.state, pinned: data.pinned })));
    } catch (error) {
      // A bug, not bad input (that comes back as reply.error): say so without the traceback.
      console.error(error);
      reply = { error: { field: null, message: "This widget could not compute that; the figures shown are the last good ones." } };
    }
    self.postMessage({ type: "result", id: data.id, ...reply });
    scheduleSnapshot();
  }
};
