// Answers widget requests with Pyodide under Node: the same wheel and the same
// pyodide_widgets.dispatch.handle the browser's worker calls.
// Usage: node run_in_pyodide.mjs WHEEL REQUESTS.json  ->  JSON array of replies on stdout
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const [wheel, requestsFile] = process.argv.slice(2);
const pyodide = await loadPyodide();
pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel"); // a Buffer is not a typed array Pyodide accepts
const handle = pyodide.pyimport("pyodide_widgets.dispatch").handle;
const version = pyodide.runPython("import sys; sys.version.split()[0]");
const requests = JSON.parse(readFileSync(requestsFile, "utf8"));
const replies = requests.map((request) => JSON.parse(handle(JSON.stringify(request))));
process.stdout.write(JSON.stringify({ version, replies }));
