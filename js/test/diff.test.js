// diff.js: an edit's changes by key path, shown before the edited arguments are sent.
import { describe, expect, it } from "vitest";
import { diffValues, renderDiff } from "../src/diff.js";

describe("diffValues", () => {
  it("lists changed, added and removed keys by path, objects key by key", () => {
    /** @type {any[]} */
    const out = [];
    diffValues(
      { a: 1, b: { c: 2, d: 3 }, list: [1, 2], gone: true },
      { a: 1, b: { c: 5, e: 4 }, list: [1, 3], added: null },
      "",
      out,
    );
    expect(out).toEqual([
      { path: "b.c", kind: "changed", before: 2, after: 5 },
      { path: "b.d", kind: "removed", before: 3, after: undefined },
      { path: "b.e", kind: "added", before: undefined, after: 4 },
      { path: "list", kind: "changed", before: [1, 2], after: [1, 3] },
      { path: "gone", kind: "removed", before: true, after: undefined },
      { path: "added", kind: "added", before: undefined, after: null },
    ]);
  });

  it("a whole value that changes type is one change", () => {
    /** @type {any[]} */
    const out = [];
    diffValues({ a: 1 }, [1], "", out);
    expect(out).toEqual([{ path: "", kind: "changed", before: { a: 1 }, after: [1] }]);
  });
});

describe("renderDiff", () => {
  it("says when nothing changed, and shows values as text", () => {
    const target = document.createElement("div");
    renderDiff({ a: 1 }, { a: 1 }, target);
    expect(target.textContent).toContain("No changes");
    renderDiff({ a: "<b>x</b>" }, { a: "<i>y</i>", n: 2 }, target);
    const rows = [...target.querySelectorAll(".agui-diff-row")];
    expect(rows.map((r) => /** @type {HTMLElement} */ (r).dataset.change)).toEqual(["changed", "added"]);
    expect(rows[0].textContent).toBe('a: "<b>x</b>" → "<i>y</i>"');
    expect(rows[1].textContent).toBe("n: (absent) → 2");
    expect(target.querySelectorAll("b, i").length).toBe(0);
  });
});
