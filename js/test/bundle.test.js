// The shipped file: agui_notebook/static/chat.js, the esbuild bundle of js/src/ that the widget
// loads. Rendered here like the sources are, so a bundling mistake fails vitest too. (Whether it is
// the build of the current sources is scripts/test's "bundle" check.)
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import bundle from "../../agui_notebook/static/chat.js";
import srcWidget from "../src/index.js";
import { btn, card, mount } from "./helpers.js";

const BUNDLE_PATH = resolve(import.meta.dirname, "../../agui_notebook/static/chat.js");

// The size budget, in bytes. Measured on 2026-12-04: 84,864 raw and 27,634 gzipped (zlib's
// default level), minified; the same sources written out are 132,441 and 34,391. Each budget is
// that minified size plus 15%, rounded: a build that stops minifying, pulls in a library or
// inlines an asset fails here. Growing past it on purpose: raise it here and say why in the
// commit. Shrinking well below it: lower it, or the room it leaves would let a bloat through.
const RAW_BUDGET = 98_000;
const GZIP_BUDGET = 32_000;

describe("the bundle", () => {
  it("is one ES module with a generated header and no imports", () => {
    const text = readFileSync(BUNDLE_PATH, "utf8");
    const [first] = text.split("\n", 1);
    expect(first).toMatch(/^\/\/ GENERATED from js\/src\/.*`cd js && npm run build`/);
    expect(text).not.toMatch(/^\s*import\s/m);
    expect(text).toMatch(/\nexport default [\w$]+;\n$/);
    // Minified (js/build.mjs): a notebook saved with widget state carries it once per view.
    // Written out, a statement starts every other line (over a hundred); minified, one line.
    expect((text.match(/^(function|const|let|var) /gm) ?? []).length).toBeLessThanOrEqual(1);
    expect(Object.keys(bundle)).toEqual(["render"]);
    expect(Object.keys(srcWidget)).toEqual(["render"]);
  });

  it("stays inside its size budget, raw and gzipped", () => {
    const bytes = readFileSync(BUNDLE_PATH);
    const gzipped = gzipSync(bytes).length;
    expect(bytes.length, `${bytes.length} bytes (budget ${RAW_BUDGET})`).toBeLessThanOrEqual(RAW_BUDGET);
    expect(gzipped, `${gzipped} bytes gzipped (budget ${GZIP_BUDGET})`).toBeLessThanOrEqual(GZIP_BUDGET);
    // The budgets follow the bundle down too: more than a quarter of room is a budget to lower.
    expect(bytes.length).toBeGreaterThan(RAW_BUDGET * 0.75);
    expect(gzipped).toBeGreaterThan(GZIP_BUDGET * 0.75);
  });

  it("renders every kind of item and sends one decision, acked", () => {
    const { el, model } = mount(
      {
        status: "waiting",
        items: [
          { kind: "user", id: "u", text: "Pay my rent" },
          { kind: "reasoning", id: "r", text: "thinking", streaming: false },
          { kind: "assistant", id: "a", text: "Sure.", streaming: false },
          { kind: "tool", id: "t", name: "lookup", args: { q: "rent" }, argsText: "", result: "42", status: "done" },
          card(),
          { kind: "error", id: "e", title: "Server error", message: "boom", hint: "" },
          { kind: "notice", id: "n", text: "note" },
          { kind: "mystery", id: "m" },
        ],
        state: { balance: 1 },
        audit: [{ tool: "lookup" }],
      },
      bundle,
    );
    const kinds = [...el.querySelectorAll(".agui-page > .agui-item")].map(
      (n) => /** @type {HTMLElement} */ (n).dataset.kind,
    );
    expect(kinds).toEqual(["user", "reasoning", "assistant", "tool", "card", "error", "notice", "mystery"]);
    expect(el.querySelector(".agui-status")?.textContent).toBe("waiting for your decision");
    expect(el.querySelector("style")?.textContent).toContain(".agui-chat");
    expect(el.querySelector(".agui-audit summary")?.textContent).toBe("Audit (1)");
    btn(el, "approve").click();
    btn(el, "approve").click();
    expect(model.sent).toEqual([
      { type: "decide", requestId: expect.any(String), card: "card-1", decisions: { "int-1": { action: "approve" } } },
    ]);
    expect(el.querySelector(".agui-card")?.getAttribute("data-status")).toBe("sending");
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "busy" });
    expect(el.querySelector(".agui-ack-error")?.textContent).toBe("busy");
    expect(btn(el, "approve").disabled).toBe(false);
  });
});
