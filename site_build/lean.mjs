// The figures' SVG optimizer, svgo, configured once for the site. site_build/lean.py starts this once
// per build process, at the first figure the build cache does not hold; it reads one JSON string per
// line, an SVG (or a diagram's <figure>s of SVGs), and answers each with one JSON line: {"svg": ...}
// or {"error": ...}.
import { createInterface } from "node:readline";
// svgo's own single-file build of the same code: it loads in a fifth of the time its many modules take
// (about 60 ms against 300 ms, paid by every cold build's svgo process), and answers byte for byte the same.
import { optimize } from "svgo/browser";

export const CONFIG = {
  // A hundredth of a pixel, in coordinates, lengths and path data.
  floatPrecision: 2,
  js2svg: { pretty: false },
  plugins: [
    {
      name: "preset-default",
      params: {
        overrides: {
          // Ids are the figures' own (clip paths, labels): render.py prefixes each with its widget's.
          cleanupIds: false,
          // A mark's role says what its label describes (the aria and data attributes stay by default).
          removeUnknownsAndDefaults: { keepRoleAttr: true },
          // Moving a group's attributes onto each of its children lengthened the site's figures.
          moveGroupAttrsToElems: false,
          // Sorted attributes compressed worse.
          sortAttrs: false,
          // The site's figures have no <style>, <defs> or empty attribute for these to shorten: each
          // cost time at every cold build for nothing.
          minifyStyles: false,
          removeUselessDefs: false,
          removeEmptyAttrs: false,
          cleanupAttrs: false,
        },
      },
    },
    // Nothing points at a static picture: the runtime replaces it once it goes live.
    { name: "removeAttrs", params: { attrs: ["pointer-events"] } },
  ],
};

// svgo reads one SVG and drops what SVG does not know: a diagram's <figure>s of SVGs (one per option)
// keep their own markup, and each SVG is optimized where it stands.
const lean = (text) => text.replace(/<svg\b[\s\S]*?<\/svg>/g, (svg) => optimize(svg, CONFIG).data);

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let answer;
  try {
    answer = { svg: lean(JSON.parse(line)) };
  } catch (error) {
    answer = { error: String(error.message ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
