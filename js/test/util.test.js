// util.js: JSON text that never throws, deep equality, own keys for untrusted names, formats.
import { describe, expect, it } from "vitest";
import { asText, deepEqual, fmtInt, hasOwn, isObj, joinPath, safeJson, setOwn } from "../src/util.js";

describe("values", () => {
  it("safeJson and asText never throw", () => {
    /** @type {any} */
    const cyclic = { a: 1 };
    cyclic.self = cyclic;
    expect(safeJson(cyclic)).toMatch(/^\(cannot display this value: /);
    expect(safeJson(undefined)).toBe("undefined");
    expect(safeJson({ a: [1] }, 2)).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(asText(null)).toBe("");
    expect(asText(undefined)).toBe("");
    expect(asText(3)).toBe("3");
    expect(asText(false)).toBe("false");
    expect(asText("s")).toBe("s");
    expect(asText({ k: "v" })).toBe('{"k":"v"}');
  });

  it("deepEqual compares by value, key order aside", () => {
    expect(deepEqual({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(deepEqual(1, "1")).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
  });

  it("setOwn makes even __proto__ an own key and pollutes nothing", () => {
    /** @type {Record<string, unknown>} */
    const o = {};
    setOwn(o, "__proto__", { polluted: true });
    expect(hasOwn(o, "__proto__")).toBe(true);
    expect(Object.keys(o)).toEqual(["__proto__"]);
    expect(/** @type {any} */ ({}).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(o))).toEqual(JSON.parse('{"__proto__": {"polluted": true}}'));
  });

  it("isObj is for plain objects only", () => {
    expect(isObj({})).toBe(true);
    expect(isObj([])).toBe(false);
    expect(isObj(null)).toBe(false);
    expect(isObj("x")).toBe(false);
  });
});

describe("formats", () => {
  it("thousands separators and key paths", () => {
    expect(fmtInt(999)).toBe("999");
    expect(fmtInt(1234567)).toBe("1,234,567");
    expect(joinPath("", "a")).toBe("a");
    expect(joinPath("a.b", "c")).toBe("a.b.c");
  });
});
