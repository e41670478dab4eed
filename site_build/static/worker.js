// The widgets' Web Worker: boots Pyodide from the site's own files, unpacks
// the project's wheel, and answers each {widget, state} with JSON from
// pyodide_widgets.dispatch.handle. JSON text crosses the boundary, never a
// Python proxy.
import { loadPyodide } from "./pyodide/pyodide.mjs";

let handle = null;

async function init({ indexURL, wheel }) {
  const started = performance.now();
  // The wheel downloads while Pyodide starts, which takes far longer.
  const wheelBytes = fetch(wheel).then((response) => {
    if (!response.ok) throw new Error(`the widget wheel answered ${response.status}`);
    return response.arrayBuffer();
  });
  wheelBytes.catch(() => {}); // a failure is reported when it is awaited below, not as unhandled
  const pyodide = await loadPyodide({ indexURL });
  pyodide.unpackArchive(await wheelBytes, "wheel");
  handle = pyodide.pyimport("pyodide_widgets.dispatch").handle;
  return performance.now() - started;
}

self.onmessage = async ({ data }) => {
  if (data.type === "init") {
    try {
      const ms = await init(data);
      self.postMessage({ type: "ready", ms });
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
  }
};
