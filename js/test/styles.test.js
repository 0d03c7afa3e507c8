// styles.js: every rule stays inside the view and nothing in it loads from anywhere.
import { describe, expect, it } from "vitest";
import { CSS } from "../src/styles.js";

describe("styles", () => {
  it("scopes every selector under .agui-chat", () => {
    const withoutKeyframes = CSS.replace(/@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}/g, "");
    const selectors = [...withoutKeyframes.matchAll(/([^{};]+)\{/g)]
      .map((m) => m[1].trim())
      .filter((s) => !s.startsWith("@media"));
    expect(selectors.length).toBeGreaterThan(50);
    for (const group of selectors) {
      for (const selector of group.split(/,(?![^(]*\))/)) expect(selector).toContain(".agui-chat");
    }
  });

  it("loads nothing: no url(), no @import", () => {
    expect(CSS).not.toMatch(/url\s*\(/i);
    expect(CSS).not.toMatch(/@import/i);
  });
});
