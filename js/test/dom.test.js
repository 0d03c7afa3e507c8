// dom.js: elements built from text only; the attributes that could carry a URL, a style or a
// handler are refused.
import { describe, expect, it, vi } from "vitest";
import { button, h, newRequestId, nextId, setAttr } from "../src/dom.js";

describe("h", () => {
  it("builds class, text, attributes, data and children; strings stay text", () => {
    const node = h("div", { cls: "a b", text: "<b>x</b>", attrs: { "aria-label": "L" }, data: { kind: "k" } }, [
      "<i>y</i>",
      null,
      undefined,
      false,
      h("span", { text: "z" }),
    ]);
    expect(node.className).toBe("a b");
    expect(node.getAttribute("aria-label")).toBe("L");
    expect(node.dataset.kind).toBe("k");
    expect(node.textContent).toBe("<b>x</b><i>y</i>z");
    expect(node.querySelectorAll("b, i").length).toBe(0);
    expect(node.childNodes.length).toBe(3);
  });

  it("refuses attributes through which data could act", () => {
    for (const name of [
      "onclick",
      "ONload",
      "href",
      "src",
      "style",
      "action",
      "formaction",
      "xlink:href",
      "srcdoc",
      "background",
      "poster",
    ]) {
      expect(() => h("div", { attrs: { [name]: "x" } })).toThrow(/refusing/);
      expect(() => setAttr(document.createElement("div"), name, "x")).toThrow(/refusing/);
    }
    expect(() => h("div", { attrs: { "aria-describedby": "x", rows: "2", type: "text" } })).not.toThrow();
  });

  it("buttons are type=button with their action and label", () => {
    const b = button("Go", "approve", "Approve it", "agui-primary");
    expect(b.tagName).toBe("BUTTON");
    expect(b.getAttribute("type")).toBe("button");
    expect(b.dataset.action).toBe("approve");
    expect(b.getAttribute("aria-label")).toBe("Approve it");
    expect(b.className).toBe("agui-btn agui-primary");
    expect(button("x", null).hasAttribute("data-action")).toBe(false);
  });
});

describe("ids", () => {
  it("nextId and newRequestId never repeat, with or without crypto.randomUUID", () => {
    const ids = new Set(Array.from({ length: 100 }, () => nextId("p")));
    expect(ids.size).toBe(100);
    const requests = new Set(Array.from({ length: 100 }, () => newRequestId()));
    expect(requests.size).toBe(100);
    vi.stubGlobal("crypto", {});
    try {
      const fallback = new Set(Array.from({ length: 100 }, () => newRequestId()));
      expect(fallback.size).toBe(100);
      for (const id of fallback) expect(id).toMatch(/^req-/);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
