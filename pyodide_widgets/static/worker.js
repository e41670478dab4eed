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
import { loadPyodide, version } from "./pyodide/pyodide.mjs";

const SNAPSHOT_CACHE = "widgets-pyodide-snapshot";
const DIGEST_HEADER = "x-snapshot-sha256";
// The snapshot waits until the reader has paused this long, so it never delays an answer.
const SNAPSHOT_AFTER_IDLE_MS = 1000;

let handle = null;
let pendingSnapshot = null; // () => Promise, run once the worker is idle
let snapshotTimer = null;

async function openStore() {
  try {
    return await self.caches.open(SNAPSHOT_CACHE);
  } catch {
    return null; // no Cache API here (private browsing, insecure origin): boot without a snapshot
  }
}

function snapshotKey(indexURL, wheel) {
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

async function restore(indexURL, bytes) {
  try {
    return await loadPyodide({ indexURL, _loadSnapshot: bytes });
  } catch {
    return null;
  }
}

async function init({ indexURL, wheel }) {
  const started = performance.now();
  // The wheel downloads while Pyodide starts, which takes far longer.
  const wheelBytes = fetch(wheel).then((response) => {
    if (!response.ok) throw new Error(`the widget wheel answered ${response.status}`);
    return response.arrayBuffer();
  });
  wheelBytes.catch(() => {}); // a failure is reported when it is awaited below, not as unhandled
  const store = await openStore();
  const key = snapshotKey(indexURL, wheel);
  let { bytes, status } = store ? await readSnapshot(store, key) : { bytes: null, status: "unavailable" };
  let pyodide = bytes && (await restore(indexURL, bytes));
  if (bytes && !pyodide) {
    status = "corrupt";
    await store.delete(key).catch(() => {});
  }
  if (!pyodide) {
    pyodide = await loadPyodide({ indexURL, _makeSnapshot: Boolean(store) });
    if (store) pendingSnapshot = () => saveSnapshot(pyodide, store, key);
  }
  // Also after a restore: a module imported lazily later still finds its files.
  pyodide.unpackArchive(await wheelBytes, "wheel");
  handle = pyodide.pyimport("pyodide_widgets.dispatch").handle;
  scheduleSnapshot();
  return { ms: performance.now() - started, snapshot: status };
}

self.onmessage = async ({ data }) => {
  if (data.type === "init") {
    try {
      self.postMessage({ type: "ready", ...(await init(data)) });
    } catch (error) {
      self.postMessage({ type: "failed", message: String(error) });
    }
  } else if (data.type === "update") {
    let reply;
    try {
      reply = JSON.parse(handle(JSON.stringify({ widget: data.widget, state: data.state })));
    } catch (error) {
      // A bug, not bad input (that comes back as reply.error): say so without the traceback.
      console.error(error);
      reply = { error: { field: null, message: "This widget could not compute that; the figures shown are the last good ones." } };
    }
    self.postMessage({ type: "result", id: data.id, ...reply });
    scheduleSnapshot();
  }
};
