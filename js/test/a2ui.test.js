// a2ui.js: the A2UI v0.9 model without the DOM: messages, JSON Pointers, dynamic values, checks.
import { describe, expect, it } from "vitest";
import {
  absolute,
  applyMessage,
  callFunction,
  failedChecks,
  formatDate,
  formatString,
  getPointer,
  kindOf,
  newSurface,
  resolve,
  setPointer,
} from "../src/a2ui.js";

/** @param {any} data @param {string} [scope] */
const at = (data, scope = "/") => ({ data: () => data, scope });

describe("A2UI messages", () => {
  it("an envelope holds exactly one message", () => {
    expect(kindOf({ version: "v0.9", createSurface: { surfaceId: "s" } })).toBe("createSurface");
    expect(kindOf({ createSurface: {}, deleteSurface: {} })).toBe(null);
    expect(kindOf({ version: "v0.9" })).toBe(null);
    expect(kindOf("createSurface")).toBe(null);
  });

  it("builds a surface: create, components (replaced by id), data upserts, delete", () => {
    const s = newSurface("f");
    expect(
      applyMessage(s, {
        version: "v0.9",
        createSurface: {
          surfaceId: "f",
          catalogId: "c",
          sendDataModel: true,
          theme: { agentDisplayName: "Bank", primaryColor: "#f00" },
        },
      }),
    ).toBe("structure");
    expect([s.created, s.sendDataModel, s.agentName]).toEqual([true, true, "Bank"]);
    applyMessage(s, {
      updateComponents: { surfaceId: "f", components: [{ id: "root", component: "Text", text: "a" }, { id: "x" }] },
    });
    applyMessage(s, {
      updateComponents: { surfaceId: "f", components: [{ id: "root", component: "Text", text: "b" }] },
    });
    expect(s.components.get("root")?.text).toBe("b");
    expect(s.problems.join()).toContain("without a string id");
    expect(applyMessage(s, { updateDataModel: { surfaceId: "f", path: "/t/amount", value: 5 } })).toBe("data");
    applyMessage(s, { updateDataModel: { surfaceId: "f", path: "/t/to", value: "x" } });
    applyMessage(s, { updateDataModel: { surfaceId: "f", path: "/t/to" } });
    expect(s.data).toEqual({ t: { amount: 5 } });
    applyMessage(s, { updateDataModel: { surfaceId: "f", value: { all: 1 } } });
    expect(s.data).toEqual({ all: 1 });
    applyMessage(s, { createSurface: { surfaceId: "f" } });
    expect(s.problems.join()).toContain("already exists");
    applyMessage(s, { deleteSurface: { surfaceId: "f" } });
    expect(s.deleted).toBe(true);
  });

  it("says when a message is of another version", () => {
    const s = newSurface("f");
    applyMessage(s, { version: "v0.8", createSurface: { surfaceId: "f" } });
    expect(s.problems.join()).toContain("v0.8");
  });
});

describe("JSON Pointers with A2UI's rules", () => {
  it("resolves relative paths in a scope", () => {
    expect(absolute("/users/0", "name")).toBe("/users/0/name");
    expect(absolute("/users/0", "/company")).toBe("/company");
    expect(absolute("/", "name")).toBe("/name");
  });

  it("reads, and upserts creating objects or arrays, never mutating the input", () => {
    const doc = { a: [{ b: 1 }], "x/y": { "~": 2 } };
    expect(getPointer(doc, "/a/0/b")).toBe(1);
    expect(getPointer(doc, "/x~1y/~0")).toBe(2);
    expect(getPointer(doc, "/a/9/b")).toBe(undefined);
    const next = setPointer(doc, "/n/0/m", "v");
    expect(next.n).toEqual([{ m: "v" }]);
    expect(doc).not.toHaveProperty("n");
    // biome-ignore lint/suspicious/noProto: the test reads the own key a "/__proto__" pointer must make
    expect(setPointer({}, "/__proto__/polluted", 1).__proto__).toEqual({ polluted: 1 });
    expect(/** @type {any} */ ({}).polluted).toBe(undefined);
    expect(setPointer({ a: [] }, "/a/x", 1)).toEqual({ a: [] });
  });
});

describe("dynamic values and functions", () => {
  const data = { user: { name: "Ada", age: 36 }, list: [{ n: "a" }], email: "ada@example.com", empty: "" };

  it("resolves literals, paths and function calls, recursively in objects", () => {
    expect(resolve("x", at(data))).toBe("x");
    expect(resolve({ path: "/user/name" }, at(data))).toBe("Ada");
    expect(resolve({ path: "n" }, at(data, "/list/0"))).toBe("a");
    expect(resolve({ who: { path: "/user/name" }, n: 1 }, at(data))).toEqual({ who: "Ada", n: 1 });
    expect(resolve({ call: "formatString", args: { value: "Hi ${/user/name}, ${user/age} \\${x}" } }, at(data))).toBe(
      "Hi Ada, 36 ${x}",
    );
  });

  it("the basic catalog's checks", () => {
    const c = (/** @type {string} */ name, /** @type {any} */ args) => callFunction(name, args, at(data), 0);
    expect(c("required", { value: { path: "/empty" } })).toBe(false);
    expect(c("required", { value: { path: "/user/name" } })).toBe(true);
    expect(c("email", { value: { path: "/email" } })).toBe(true);
    expect(c("email", { value: "nope" })).toBe(false);
    expect(c("regex", { value: "1234567890", pattern: "^[0-9]{10}$" })).toBe(true);
    expect(c("regex", { value: "x", pattern: "(" })).toBe(false);
    expect(c("length", { value: "abc", min: 2, max: 3 })).toBe(true);
    expect(c("numeric", { value: "12.5", min: 0.01 })).toBe(true);
    expect(c("numeric", { value: "", min: 0 })).toBe(false);
    expect(c("and", { values: [true, { call: "not", args: { value: false } }] })).toBe(true);
    expect(c("or", { values: [false, false] })).toBe(false);
    expect(c("openUrl", { url: "https://example.com" })).toBe(undefined);
    expect(c("formatNumber", { value: 1234.5, decimals: 2 })).toBe("1,234.50");
    expect(c("formatCurrency", { value: 5, currency: "EUR" })).toBe("€5.00");
    expect(c("pluralize", { value: 1, one: "item", other: "items" })).toBe("item");
  });

  it("formats dates with a pattern (UTC) and strings with interpolation", () => {
    expect(formatDate("2030-03-01T15:04:05Z", "E MMM d, yyyy HH:mm")).toBe("Fri Mar 1, 2030 15:04");
    expect(formatDate("not a date", "yyyy")).toBe("not a date");
    expect(formatString("${/missing}|${now()}|${", at({}), 0)).toBe("||${");
  });

  it("collects the messages of failing checks, in both spellings", () => {
    const checks = [
      { condition: { call: "required", args: { value: { path: "/empty" } } }, message: "Required" },
      { call: "email", args: { value: { path: "/email" } }, message: "Bad email" },
      { call: "regex", args: { value: "x", pattern: "^y$" }, message: "" },
    ];
    expect(failedChecks(checks, at(data))).toEqual(["Required", "This value is not valid."]);
    expect(failedChecks("nope", at(data))).toEqual([]);
  });
});
