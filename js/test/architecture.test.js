// The rooms of js/src/: each imports only rooms below it (so there is no circle), none is too long
// to read in one sitting, and none can turn data into markup. The ranks are docs/architecture.md's.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");
/** @type {Record<string, number>} */
const RANK = {
  types: 0,
  util: 0,
  dom: 0,
  ticker: 0,
  styles: 0,
  theme: 0,
  tree: 1,
  schema: 1,
  a2ui: 1,
  image: 1,
  forms: 2,
  diff: 2,
  audit: 2,
  "a2ui-components": 2,
  parts: 2,
  preview: 2,
  checks: 2,
  verdict: 2,
  editor: 3,
  informed: 3,
  items: 3,
  activity: 4,
  surface: 4,
  section: 4,
  subagents: 4,
  runend: 4,
  card: 5,
  list: 5,
  view: 6,
  index: 7,
};
const MAX_LINES = 600;

const rooms = readdirSync(SRC)
  .filter((f) => f.endsWith(".js"))
  .map((f) => {
    const text = readFileSync(resolve(SRC, f), "utf8");
    const imports = [...text.matchAll(/^import\s[^;]*?from\s+"([^"]+)";/gms)].map((m) => m[1]);
    const typeImports = [...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]);
    return { name: f.replace(/\.js$/, ""), text, imports, typeImports };
  });

describe("the rooms of the front end", () => {
  it("are all ranked", () => {
    expect(rooms.length).toBeGreaterThan(10);
    expect(rooms.map((r) => r.name).filter((n) => !(n in RANK))).toEqual([]);
  });

  it("import only rooms below them, and nothing from outside js/src/", () => {
    const problems = [];
    for (const room of rooms) {
      for (const spec of room.imports) {
        const m = /^\.\/([a-z][a-z0-9-]*)\.js$/.exec(spec);
        if (!m) problems.push(`${room.name} imports ${spec} (only ./<room>.js: the bundle must work offline)`);
        else if (!(RANK[m[1]] < RANK[room.name]))
          problems.push(`${room.name} (rank ${RANK[room.name]}) imports ${m[1]} (rank ${RANK[m[1]]})`);
      }
      // Types may point sideways (a JSDoc import has no run-time effect), but only inside js/src/.
      for (const spec of room.typeImports) {
        if (!/^\.\/[a-z][a-z0-9-]*\.js$/.test(spec)) problems.push(`${room.name} imports types from ${spec}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it(`are each at most ${MAX_LINES} lines`, () => {
    const long = rooms.filter((r) => r.text.split("\n").length > MAX_LINES).map((r) => r.name);
    expect(long).toEqual([]);
  });

  it("set an image source in two rooms only, each behind its inline-image check", () => {
    const setters = rooms.filter((r) => /\.src\s*=|setAttribute\(\s*["']src/.test(r.text)).map((r) => r.name);
    expect(setters.sort()).toEqual(["a2ui-components", "image"]);
  });

  it("frame HTML in one room only: sandboxed without scripts, behind a CSP that loads nothing", () => {
    const framers = rooms.filter((r) => /srcdoc/.test(r.text)).map((r) => r.name);
    expect(framers).toEqual(["preview"]);
    const preview = rooms.find((r) => r.name === "preview")?.text ?? "";
    // Its sandbox has one token: no scripts, forms, popups or navigation of the page.
    const tokens = new Set([...preview.matchAll(/sandbox\W+"([^"]*)"/g)].map((m) => m[1]));
    expect(tokens).toEqual(new Set(["allow-same-origin"]));
    expect(preview).toContain("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
  });

  it("never turn data into markup", () => {
    const banned =
      /\.(?:innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment|\beval\(|new Function\(/;
    expect(rooms.filter((r) => banned.test(r.text)).map((r) => r.name)).toEqual([]);
  });
});
