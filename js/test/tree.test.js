// tree.js: value trees and long text; every clip says what it hides and opens in full.
import { describe, expect, it } from "vitest";
import { CLIP_CHARS, CLIP_ENTRIES, CLIP_LINES, clipPoint, longText, renderTree } from "../src/tree.js";

const tree = () => ({ expanded: new Set() });

describe("clipPoint", () => {
  it("leaves short text alone and clips long text by characters or by lines", () => {
    expect(clipPoint("short")).toBe(-1);
    expect(clipPoint("x".repeat(CLIP_CHARS))).toBe(-1);
    expect(clipPoint("x".repeat(CLIP_CHARS + 1))).toBe(CLIP_CHARS);
    const lines = Array.from({ length: CLIP_LINES + 5 }, () => "l").join("\n");
    const cut = clipPoint(lines);
    expect(lines.slice(0, cut).split("\n")).toHaveLength(CLIP_LINES);
  });

  it("never splits a surrogate pair", () => {
    const text = `${"x".repeat(CLIP_CHARS - 1)}😀${"y".repeat(10)}`;
    const cut = clipPoint(text);
    expect(cut).toBe(CLIP_CHARS - 1);
    expect(text.slice(0, cut).endsWith("x")).toBe(true);
  });
});

describe("longText", () => {
  it("says how much is hidden, opens in full, and keeps its state across re-renders", () => {
    const state = tree();
    const text = "a".repeat(1000);
    const first = longText(text, state, "p");
    expect(first.querySelector(".agui-clip-note")?.textContent).toBe("… 600 more characters hidden");
    const more = /** @type {HTMLButtonElement} */ (first.querySelector("button.agui-more"));
    expect(more.getAttribute("aria-expanded")).toBe("false");
    more.click();
    expect(first.querySelector(".agui-text")?.textContent).toBe(text);
    expect(more.getAttribute("aria-expanded")).toBe("true");
    const again = longText(text, state, "p");
    expect(again.querySelector(".agui-text")?.textContent).toBe(text);
  });
});

describe("renderTree", () => {
  it("shows scalars, empties and nested values as tables", () => {
    const node = renderTree({ s: "x", n: 1.5, b: true, z: null, e: {}, a: [], nested: { list: [1, 2] } }, tree());
    const keys = [...node.querySelectorAll("th")].map((n) => n.textContent);
    expect(keys).toEqual(["s", "n", "b", "z", "e", "a", "nested", "list", "0", "1"]);
    expect(node.querySelector(".agui-v-number")?.textContent).toBe("1.5");
    expect(node.querySelector(".agui-v-boolean")?.textContent).toBe("true");
    expect(node.querySelector(".agui-v-null")?.textContent).toBe("null");
    expect([...node.querySelectorAll(".agui-v-empty")].map((n) => n.textContent)).toEqual(["{ }", "[ ]"]);
  });

  it("shows the first entries of a long list and the rest on request", () => {
    const list = Array.from({ length: CLIP_ENTRIES + 7 }, (_, i) => i);
    const node = renderTree(list, tree());
    expect(node.querySelectorAll("tbody > tr:not(.agui-more-row)").length).toBe(CLIP_ENTRIES);
    expect(node.querySelector(".agui-more-row")?.textContent).toContain("7 more items hidden");
    /** @type {HTMLButtonElement} */ (node.querySelector(".agui-more-row button")).click();
    expect(node.querySelectorAll("tbody > tr").length).toBe(CLIP_ENTRIES + 7);
  });
});
