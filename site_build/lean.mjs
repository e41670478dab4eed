// The figures' SVG optimizer, svgo, configured once for the site, with the passes it has not. site_build/lean.py
// starts this once per build process, at the first figure the build cache does not hold (for a build whose cache
// holds none, before the pages); it reads one JSON string per
// line, an SVG (or a diagram's <figure>s of SVGs), and answers each with one JSON line: {"svg": ...}
// or {"error": ...}.
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
// svgo's own single-file build of the same code: it loads in a fifth of the time its many modules take
// (about 60 ms against 300 ms, paid by every cold build's svgo process), and answers byte for byte the same.
import { optimize } from "svgo/browser";

// First, what svgo cannot know is Vega's or the site's; svgo then drops the groups these leave bare.

// A label Vega says twice goes, so that a listener hears each once, on the mark it describes: a line's (with its
// first point's words) and an axis's inner group's (with the axis's). Which of Vega's labels repeat is Vega's, not SVG's.
const SAID_AGAIN = new Set(["line mark", "group mark"]);
const saidOnce = {
  name: "saidOnce",
  fn: (root) => {
    const times = new Map();
    const count = (node) => {
      for (const child of node.children) {
        if (child.type !== "element") continue;
        const label = child.attributes["aria-label"];
        if (label !== undefined) times.set(label, (times.get(label) ?? 0) + 1);
        count(child);
      }
    };
    count(root);
    return {
      element: {
        enter: (node) => {
          const label = node.attributes["aria-label"];
          if (SAID_AGAIN.has(node.attributes["aria-roledescription"]) && times.get(label) > 1) {
            for (const name of ["aria-label", "role", "aria-roledescription"]) delete node.attributes[name];
          }
        },
      },
    };
  },
};

// A graphics-* role and Vega's aria-roledescription ("group mark container") go from an element with no label:
// svgo keeps every role or none, and whether a role says something depends on a label beside it (axe flags a
// label on a role-less <g>; "bar" tells a listener what the label describes).
const LABELLING = ["aria-label", "aria-labelledby", "aria-describedby"];
const rolesWithLabels = {
  name: "rolesWithLabels",
  fn: () => ({
    element: {
      enter: (node) => {
        if (node.name === "svg" || !(node.attributes.role ?? "").startsWith("graphics-")) return;
        if (LABELLING.some((name) => name in node.attributes)) return;
        delete node.attributes.role;
        delete node.attributes["aria-roledescription"];
      },
    },
  }),
};

// Vega's class names that no stylesheet of the site styles go (widgets.css styles axis rules and subtitles by
// theirs): svgo cannot see the site's stylesheets.
const BROWSER = new URL("browser/", import.meta.url);
const STYLED = new Set(readdirSync(BROWSER).filter((file) => file.endsWith(".css"))
  .flatMap((file) => [...readFileSync(new URL(file, BROWSER), "utf8").matchAll(/\.(role-[\w-]+)/g)].map((match) => match[1])));
const VEGA_CLASS = /^(?:mark-[\w-]+|role-[\w-]+|\w+_(?:marks|group|pathgroup)|background|foreground|root|marks)$/;
const styledClassesOnly = {
  name: "styledClassesOnly",
  fn: () => ({
    element: {
      enter: (node) => {
        if (node.attributes.class === undefined) return;
        const kept = node.attributes.class.split(/\s+/).filter((name) => name && (STYLED.has(name) || !VEGA_CLASS.test(name)));
        if (kept.length) node.attributes.class = kept.join(" ");
        else delete node.attributes.class;
      },
    },
  }),
};

// A shape that paints neither a fill nor a stroke draws nothing, and neither does one whose path only
// returns to where it starts: Vega writes one as each group's background. svgo's removeHiddenElems
// removes a hidden shape only when it is zero-sized or its path is empty, and removeUselessStrokeAndFill's
// removeNone every unpainted shape without an id, whatever its class or label. A shape that a stylesheet (its
// class, a style), a reference (its id) or a reader (its label) may need stays, and so does anything
// inside a clip path, mask, marker or pattern, where paint does not decide what it draws.
const SHAPES = new Set(["path", "rect", "circle", "ellipse", "line", "polyline", "polygon"]);
const GEOMETRY_ONLY = new Set(["clipPath", "mask", "marker", "pattern", "symbol", "defs"]);
const NO_AREA = /^\s*M\s*[-+\d.e]+[\s,]*[-+\d.e]+(?:\s*[hv]\s*[-+]?0+(?:\.0*)?)*\s*z?\s*$/i;

const removeUnpaintedShapes = {
  name: "removeUnpaintedShapes",
  fn: () => {
    // What each open element passes to its children: its fill and stroke, and whether paint counts there.
    const inherited = [{ fill: "black", stroke: "none", painted: true }];
    return {
      element: {
        enter: (node, parent) => {
          const from = inherited[inherited.length - 1];
          const { fill = from.fill, stroke = from.stroke } = node.attributes;
          const painted = from.painted && !GEOMETRY_ONLY.has(node.name);
          const needed = ["id", "class", "style", "aria-label", "marker-start", "marker-mid", "marker-end"].some((a) => a in node.attributes);
          const blank = (fill === "none" && stroke === "none") || (node.name === "path" && NO_AREA.test(node.attributes.d ?? "") && stroke === "none");
          if (SHAPES.has(node.name) && painted && !needed && blank) {
            parent.children = parent.children.filter((child) => child !== node);
          }
          // svgo leaves a removed element too, at exit.
          inherited.push({ fill, stroke, painted });
        },
        exit: () => {
          inherited.pop();
        },
      },
    };
  },
};

// Each number of a figure's geometry written as the shortest decimal a browser reads as the same single-
// precision float (Chromium reads SVG lengths and path data into 32-bit floats): 13.606229569972509 becomes
// 13.60623 and draws exactly as before, where svgo's rounding to any number of decimals moves an edge across
// a sample of the rasterizer sooner or later. Path data and transforms keep their commands and order.
const GEOMETRY = new Set(["d", "transform", "points", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height"]);
const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;
const COMMAND = /([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)/g;
// A path's commands as drawn: each letter with its numbers' text.
const commands = (d) => [...d.matchAll(COMMAND)].map(([, letter, rest]) => [letter, rest.match(NUMBER) ?? []]);

const float32 = (token) => {
  const value = Math.fround(Number(token));
  for (let digits = 1; digits <= 9; digits++) {
    const short = String(Number(value.toPrecision(digits))).replace(/^(-?)0\./, "$1.");
    if (Math.fround(Number(short)) === value) return short.length < token.length ? short : token;
  }
  return token;
};

// Path data without what a browser reads the same way: a line along an axis to its H or V (the point it
// reaches is the same float), a command letter that repeats, a separator before a sign or a second point.
// A path's points are followed only while it names them absolutely (the sum of relative steps is the
// browser's own arithmetic); after anything else, the rest is written as it was.
const shortPath = (d) => {
  const out = [];
  let [x, y, followed, previous] = [null, null, true, null];
  for (const [letter, numbers] of commands(d)) {
    const values = numbers.map(float32);
    const pairs = "ML".includes(letter) && values.length % 2 === 0;
    if (!followed || !(pairs || letter === "H" || letter === "V" || letter === "Z" || letter === "z")) {
      followed = false;
      out.push([letter, values]);
      previous = letter;
      continue;
    }
    if (letter === "Z" || letter === "z" || letter === "H" || letter === "V") {
      // Z returns to where the path started: followed no further.
      if (letter === "Z" || letter === "z") followed = false;
      else if (letter === "H") x = Math.fround(Number(values.at(-1)));
      else y = Math.fround(Number(values.at(-1)));
      out.push([letter, values]);
      previous = letter;
      continue;
    }
    for (let at = 0; at < values.length; at += 2) {
      const [nx, ny] = [Math.fround(Number(values[at])), Math.fround(Number(values[at + 1]))];
      const line = !(letter === "M" && at === 0);
      const [command, args] = line && ny === y ? ["H", [values[at]]] : line && nx === x ? ["V", [values[at + 1]]]
        : [line ? "L" : "M", [values[at], values[at + 1]]];
      // After M, a pair without a letter is a line: M's own letter never repeats.
      const implicit = command === previous || (command === "L" && previous === "M");
      if (implicit && out.length) out.at(-1)[1].push(...args);
      else out.push([command, args]);
      previous = command === "M" ? "M" : command;
      [x, y] = [nx, ny];
    }
  }
  return out.map(([letter, values]) => letter + values.reduce((text, value, i) =>
    text + (i && !/^[-.]/.test(value) ? " " : i && value[0] === "." && !/[.e]/.test(values[i - 1]) ? " " : "") + value, "")).join("");
};

const shortestFloats = {
  name: "shortestFloats",
  fn: () => ({
    element: {
      enter: (node) => {
        for (const [name, value] of Object.entries(node.attributes)) {
          if (name === "d") node.attributes.d = shortPath(value);
          else if (GEOMETRY.has(name)) node.attributes[name] = value.replace(NUMBER, float32);
        }
      },
    },
  }),
};

// svgo's mergePaths joins sibling shapes drawn alike into one path, and checks only that they do not
// overlap; shapes that touch or stand less than a pixel apart share edge pixels, which a browser blends once
// per shape but once for a merged path (the bits of a number touching each other lost their seams, 60/255).
// So each run of siblings that mergePaths may join is cut where a shape comes within a pixel of one before
// it in the run, by a mark on the attributes it compares, taken away again after it.
const APART = 1;
const RUN = "data-lean-run";
const ARGUMENTS = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, z: 0 };

// The box around every point a path names (its control points too, which hold its curves), or null for
// arcs and what it cannot read.
const box = (d) => {
  let [x, y, startX, startY] = [0, 0, 0, 0];
  const xs = [], ys = [];
  for (const [letter, numbers] of commands(d)) {
    const kind = letter.toLowerCase(), relative = letter === kind, count = ARGUMENTS[kind];
    if (count === undefined) return null;
    const values = numbers.map(Number);
    if (kind === "z") {
      [x, y] = [startX, startY];
      continue;
    }
    if (values.length === 0 || values.length % count) return null;
    for (let at = 0; at < values.length; at += count) {
      const [baseX, baseY] = relative ? [x, y] : [0, 0];
      if (kind === "h") x = baseX + values[at];
      else if (kind === "v") y = baseY + values[at];
      else {
        for (let k = at; k < at + count; k += 2) {
          xs.push(baseX + values[k]);
          ys.push(baseY + values[k + 1]);
        }
        [x, y] = [xs[xs.length - 1], ys[ys.length - 1]];
      }
      xs.push(x);
      ys.push(y);
      if (kind === "m" && at === 0) [startX, startY] = [x, y];
    }
  }
  return xs.length ? { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) } : null;
};

const near = (a, b, margin) => a.left - margin < b.right && b.left - margin < a.right && a.top - margin < b.bottom && b.top - margin < a.bottom;

// What an element's stroke can reach beyond its points, from its own and inherited attributes and style: its
// width at a cap, miterlimit half-widths at a join. A shape with no stroke may still get one from the page's
// stylesheet under a pinned state's class (widgets.css), so that counts as a stroke of the width it inherits.
const STROKE_DEFAULTS = { stroke: "none", "stroke-width": "1", "stroke-miterlimit": "4", pinned: false };
const strokeOf = (node, from) => {
  const style = Object.fromEntries((node.attributes.style ?? "").split(";").map((d) => d.split(":").map((s) => s.trim())).filter((d) => d.length === 2));
  const own = (name) => style[name] ?? node.attributes[name] ?? from[name];
  return { stroke: own("stroke"), "stroke-width": own("stroke-width"), "stroke-miterlimit": own("stroke-miterlimit"),
           pinned: from.pinned || /pinned_/.test(node.attributes.class ?? "") };
};
const reach = (stroke, d) => {
  if (stroke.stroke === "none" && !stroke.pinned) return 0;
  const width = Number.parseFloat(stroke["stroke-width"]);
  let segments = 0;
  for (const [letter, numbers] of commands(d)) {
    const kind = letter.toLowerCase(), count = numbers.length;
    // An arc, which ARGUMENTS leaves out (box cannot bound it), takes seven numbers.
    segments += kind === "z" ? 1 : kind === "m" ? count / 2 - 1 : count / (ARGUMENTS[kind] ?? 7);
  }
  // Along the axes alone, a join reaches half the width out, as a cap does: two shapes reach a width together.
  const joins = segments > 1 && /[^MmHhVvZz\d\s,.eE+-]/.test(d);
  return Number.isFinite(width) ? width * (joins ? Math.max(1, Number(stroke["stroke-miterlimit"]) / 2) : 1) : Infinity;
};

// A path moved by a translation alone takes it into its points where every moved number is exactly a 32-bit
// float (whole and half pixels, most often: a chart's grid and tick lines), so a browser reaches the same
// points: svgo's convertPathData does this at any cost in precision, and then the lines can merge.
const TRANSLATION = /^translate\(([-+\d.e]+)(?:[ ,]+([-+\d.e]+))?\)$/;

const exactTranslations = {
  name: "exactTranslations",
  fn: () => ({
    element: {
      enter: (node) => {
        const moved = node.name === "path" && TRANSLATION.exec(node.attributes.transform ?? "");
        if (!moved) return;
        const by = [Math.fround(Number(moved[1])), Math.fround(Number(moved[2] ?? 0))];
        const parts = [];
        let first = true;
        for (const [letter, numbers] of commands(node.attributes.d ?? "")) {
          const values = numbers.map((v) => Math.fround(Number(v)));
          // A first m is absolute; every other lowercase command and Z move by steps, unchanged.
          const absolute = first || letter !== letter.toLowerCase();
          first = false;
          const axes = { M: [0, 1], L: [0, 1], H: [0], V: [1] }[absolute ? letter.toUpperCase() : ""];
          if (absolute && !axes && !"Zz".includes(letter)) return;
          if (!axes) {
            parts.push(letter + values.join(" "));
            continue;
          }
          const sums = values.map((v, i) => v + by[axes[i % axes.length]]);
          if (sums.some((s) => Math.fround(s) !== s)) return;
          parts.push(letter.toUpperCase() + sums.join(" "));
        }
        node.attributes.d = parts.join("");
        delete node.attributes.transform;
      },
    },
  }),
};

const markMergeRuns = {
  name: "markMergeRuns",
  fn: () => {
    const strokes = [STROKE_DEFAULTS];
    return {
      element: {
        enter: (node) => {
          const inherited = strokeOf(node, strokes[strokes.length - 1]);
          strokes.push(inherited);
          // mergePaths joins only neighbours whose other attributes are the same: a run starts afresh at each change.
          let run = 0, boxes = [], drawn = null;
          for (const child of node.children) {
            if (child.type !== "element") continue;
            const { d = "", ...rest } = child.attributes;
            const alike = JSON.stringify([child.name, rest]);
            if (alike !== drawn) boxes = [];
            drawn = alike;
            if (child.name !== "path") continue;
            const own = child.attributes.transform ? null : box(d);
            // A browser draws a lone rectangle by another route than a path of several: where its edges fall
            // between pixels, they were blended differently (5/255), so only a shape on whole pixels joins a run.
            const whole = own && [own.left, own.right, own.top, own.bottom].every(Number.isInteger);
            const margin = APART + reach(strokeOf(child, inherited), d);
            if (!whole || boxes.some((other) => near(own, other, margin))) {
              run += 1;
              boxes = [];
            }
            if (run) child.attributes[RUN] = String(run);
            if (whole) boxes.push(own);
            else run += 1; // and stands alone
          }
        },
        exit: () => {
          strokes.pop();
        },
      },
    };
  },
};

const unmarkMergeRuns = {
  name: "unmarkMergeRuns",
  fn: () => ({ element: { enter: (node) => { delete node.attributes[RUN]; } } }),
};

// svgo's passes that write numbers round them to this many decimals: more than a 32-bit float holds at a
// figure's sizes, so that they keep every number as a browser reads it, and shortestFloats shortens them.
const EXACT = 12;

export const CONFIG = {
  js2svg: { pretty: false },
  plugins: [
    saidOnce,
    rolesWithLabels,
    styledClassesOnly,
    // Before svgo's own, so that the groups it leaves empty go with svgo's removeEmptyContainers.
    removeUnpaintedShapes,
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
          // Path data stays as drawn: a browser rasterizes an edge on a grid of sub-pixel samples, so any
          // rewriting of a path's numbers (rounded, made relative or absolute, a translation applied)
          // can move an edge across a sample and change pixels, at every precision tried, down to 12
          // digits.
          convertPathData: false,
          // After the runs are marked, below.
          mergePaths: false,
          // A translation rounded to a hundredth of a pixel moved text and marks by up to 71/255 at
          // their edges; kept exact, translations still combine and drop when they do nothing.
          convertTransform: { floatPrecision: EXACT },
          // Likewise lengths: shortestFloats writes them short.
          cleanupNumericValues: { floatPrecision: EXACT },
          convertShapeToPath: { floatPrecision: EXACT },
        },
      },
    },
    // Nothing points at a static picture: the runtime replaces it once it goes live.
    { name: "removeAttrs", params: { attrs: ["pointer-events"] } },
    exactTranslations,
    markMergeRuns,
    { name: "mergePaths", params: { floatPrecision: EXACT } },
    unmarkMergeRuns,
    shortestFloats,
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
