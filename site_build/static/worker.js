// The widgets' Web Worker: boots Pyodide from the site's own files, unpacks
// the project's wheel, and answers each {widget, state} with JSON from
// pyodide_widgets.dispatch.handle. JSON text crosses the boundary, never a
// Python proxy.
import { loadPyodide } from "./pyodide/pyodide.mjs";

let handle = null;

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
  const pyodide = await quietly(() => loadPyodide({ indexURL }));
  pyodide.unpackArchive(await wheelBytes, "wheel");
  handle = pyodide.pyimport("pyodide_widgets.dispatch").handle;
  downloads = null;
  return performance.now() - started;
}

self.onmessage = async ({ data }) => {
  if (data.type === "init") {
    booting = true;
    try {
      const ms = await init(data);
      if (booting) self.postMessage({ type: "ready", ms });
      booting = false;
    } catch (error) {
      failBoot(error);
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
  }
};
