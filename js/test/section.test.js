// section.js: how an interrupt is shown (tool, form or free answer) and labelled.
import { describe, expect, it } from "vitest";
import { buildSection, reasonLabel, resolveMode } from "../src/section.js";

describe("an interrupt's mode and label", () => {
  it("resolves the mode from what the interrupt offers", () => {
    expect(resolveMode({ mode: "tool" })).toBe("tool");
    expect(resolveMode({ mode: "free", responseSchema: { type: "string" } })).toBe("free");
    expect(resolveMode({ mode: "form", responseSchema: null })).toBe("free"); // no schema, no form
    expect(resolveMode({ responseSchema: { type: "object" } })).toBe("form");
    expect(resolveMode({ toolName: "t" })).toBe("tool");
    expect(resolveMode({})).toBe("free");
    expect(resolveMode(null)).toBe("free");
  });

  it("labels reasons in words", () => {
    expect(reasonLabel("tool_call")).toBe("tool call");
    expect(reasonLabel("input_required")).toBe("input required");
    expect(reasonLabel("my_reason")).toBe("my_reason");
    expect(reasonLabel(undefined)).toBe("question");
  });
});

describe("buildSection", () => {
  it("reports clicks to its card and shows a recorded decision", () => {
    /** @type {any[]} */
    const chosen = [];
    const ctx = { isMulti: () => false, refresh: () => {}, choose: (/** @type {any} */ s, /** @type {any} */ d) => chosen.push([s.id, d]) };
    const s = buildSection({ id: "i", toolName: "t", args: { a: 1 }, canEdit: false, canGiveReason: false }, ctx);
    expect(s.node.dataset.mode).toBe("tool");
    expect(s.node.getAttribute("aria-label")).toBe("Decision: t");
    /** @type {HTMLButtonElement} */ (s.node.querySelector('[data-action="reject"]')).click();
    expect(chosen).toEqual([["i", { action: "reject" }]]);
    s.showRecorded({ action: "edit", args: { a: 2 } }, "you", true);
    expect(s.node.querySelector(".agui-decision")?.textContent).toContain("approved with edited arguments by you");
  });
});
