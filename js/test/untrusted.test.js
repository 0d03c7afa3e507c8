// Everything from the agent is untrusted text: no active element, nothing clipped silently.
import { describe, expect, it } from "vitest";
import { btn, card, mount, toolInterrupt, type, visibleText } from "./helpers.js";

describe("untrusted text", () => {
  const IMG = '<img src=x onerror="alert(1)">';
  const SCRIPT = "</script><script>alert(2)</script>";
  const JS = "javascript:alert(3)";
  const IFRAME = '<iframe src="javascript:alert(4)"></iframe>';
  const LINK = '<a href="javascript:alert(5)">click</a>';
  const ALL = [IMG, SCRIPT, JS, IFRAME, LINK];
  const nest = (/** @type {number} */ n) => {
    /** @type {any} */
    let v = { [IMG]: SCRIPT };
    for (let i = 0; i < n; i++) v = { [`${LINK}${i}`]: v, [JS]: [IFRAME] };
    return v;
  };

  /** @param {HTMLElement} el */
  function assertInert(el) {
    expect(el.querySelectorAll("img,script,iframe,a,object,embed,link,meta,svg,math,base,form").length).toBe(0);
    expect(el.querySelectorAll("a[href]").length).toBe(0);
    expect(el.querySelectorAll("style").length).toBe(1);
    for (const node of el.querySelectorAll("*")) {
      for (const attr of node.attributes) {
        expect(attr.name.startsWith("on")).toBe(false);
        expect(["href", "src", "style", "srcdoc", "action", "formaction"]).not.toContain(attr.name);
      }
    }
  }

  it("renders hostile strings everywhere as text and creates no active elements", () => {
    const args = { [IMG]: SCRIPT, [JS]: [IFRAME, LINK], deep: nest(50) };
    const { el, model } = mount({
      status: IMG,
      items: [
        { kind: "user", id: IMG, text: IMG },
        { kind: "assistant", id: SCRIPT, text: `${SCRIPT}\n${JS}`, streaming: false },
        { kind: "reasoning", id: "r", text: IFRAME, streaming: true },
        { kind: "tool", id: "t", name: IMG, args, argsText: SCRIPT, result: LINK, status: SCRIPT },
        { kind: "tool", id: "t2", name: JS, args: null, argsText: IFRAME, result: null, status: "streaming" },
        card({
          id: SCRIPT,
          interrupts: [
            toolInterrupt({
              id: IMG,
              toolName: IMG,
              message: SCRIPT,
              args,
              argsSchema: {
                type: "object",
                properties: {
                  [IMG]: { type: "string", title: LINK, description: IFRAME },
                  [JS]: { enum: [IMG, SCRIPT] },
                },
              },
            }),
            toolInterrupt({ id: "__proto__", toolName: JS, reason: IFRAME, mode: "free", message: LINK }),
          ],
          note: IFRAME,
          timeoutAt: new Date(Date.now() + 1e6).toISOString(),
          timeoutDefault: SCRIPT,
        }),
        card({
          id: "c2",
          status: "failed",
          error: { title: IMG, message: SCRIPT },
          decisions: { [IMG]: { action: IMG, reason: SCRIPT, payload: LINK } },
          decidedBy: JS,
          interrupts: [toolInterrupt({ id: IMG })],
        }),
        { kind: "error", id: "e", title: IMG, message: SCRIPT, hint: JS },
        { kind: "notice", id: "n", text: LINK },
        { kind: IMG, id: "u", text: SCRIPT },
      ],
      state: { [IMG]: SCRIPT, nested: nest(50) },
      audit: [{ [IMG]: SCRIPT, tool: LINK }, JS],
    });
    // Open everything that can be opened, including the edit forms and every "show more".
    for (const b of el.querySelectorAll('button[data-action="edit"]')) /** @type {HTMLButtonElement} */ (b).click();
    for (const d of el.querySelectorAll("details")) /** @type {HTMLDetailsElement} */ (d).open = true;
    for (const b of el.querySelectorAll("button.agui-more")) /** @type {HTMLButtonElement} */ (b).click();
    assertInert(el);
    const text = visibleText(el);
    for (const s of ALL) expect(text).toContain(s);
    // Hostile keys appear as labels and in the diff without being interpreted.
    const form = /** @type {HTMLElement} */ (el.querySelector(".agui-edit"));
    expect(form.textContent).toContain(LINK);
    expect(form.textContent).toContain(IFRAME);
    // Decide with a hostile interrupt id "__proto__": still an own key in the message.
    const free = /** @type {HTMLElement} */ (el.querySelector('.agui-interrupt[data-mode="free"]'));
    type(/** @type {HTMLTextAreaElement} */ (free.querySelector("textarea")), IMG);
    btn(free, "answer").click();
    btn(el.querySelector(".agui-interrupt"), "approve").click();
    btn(el, "send").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].card).toBe(SCRIPT);
    expect(Object.keys(model.sent[0].decisions)).toEqual([IMG, "__proto__"]);
    expect(model.sent[0].decisions[IMG]).toEqual({ action: "approve" });
    expect(Object.getOwnPropertyDescriptor(model.sent[0].decisions, "__proto__")?.value).toEqual({
      action: "answer",
      payload: IMG,
    });
    // A hostile ack error is text too.
    const c2 = /** @type {HTMLElement} */ (el.querySelector('.agui-card[data-card-id="c2"]'));
    btn(c2, "retry").click();
    model.emitCustom({ type: "ack", requestId: model.sent[1].requestId, accepted: false, error: IMG });
    expect(c2.querySelector(".agui-ack-error")?.textContent).toBe(IMG);
    assertInert(el);
  });

  it("hostile keys in an edit form and the diff stay text, and round-trip into the message", () => {
    const args = { [IMG]: "a", __proto__x: 1 };
    Object.defineProperty(args, "__proto__", { value: { polluted: true }, enumerable: true });
    const { el, model } = mount({
      items: [
        card({
          interrupts: [
            toolInterrupt({ args, argsSchema: { type: "object", properties: { [IMG]: { type: "string" } } } }),
          ],
        }),
      ],
    });
    btn(el, "edit").click();
    const input = /** @type {HTMLInputElement} */ (el.querySelector(".agui-edit .agui-field .agui-input"));
    type(input, SCRIPT);
    expect(el.querySelector(".agui-diff")?.textContent).toContain(`${IMG}: "a" → ${JSON.stringify(SCRIPT)}`);
    btn(el, "edit-send").click();
    const sentArgs = model.sent[0].decisions["int-1"].args;
    expect(sentArgs[IMG]).toBe(SCRIPT);
    expect(Object.getOwnPropertyDescriptor(sentArgs, "__proto__")?.value).toEqual({ polluted: true });
    expect(/** @type {any} */ ({}).polluted).toBeUndefined();
    assertInert(el);
  });

  it("never truncates silently: long strings say how much is hidden and expand in full", () => {
    const long = `${"A".repeat(50_000)}${"B".repeat(50_000)}`;
    const manyLines = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
    const bigList = Array.from({ length: 120 }, (_, i) => i);
    const { el } = mount({
      items: [
        { kind: "assistant", id: "a", text: long, streaming: false },
        {
          kind: "tool",
          id: "t",
          name: "big",
          args: { long, manyLines, bigList },
          argsText: "",
          result: long,
          status: "done",
        },
      ],
    });
    expect(el.querySelector(".agui-assistant")?.textContent).toBe(long); // conversation text is never clipped
    const tool = /** @type {HTMLElement} */ (el.querySelector(".agui-tool"));
    const notes = [...tool.querySelectorAll(".agui-clip-note")].map((n) => n.textContent);
    expect(notes).toContain("… 99,600 more characters hidden");
    expect(notes).toContain("… 70 more items hidden ");
    expect(notes.some((n) => /more characters \(28 more lines\) hidden/.test(n ?? ""))).toBe(true);
    expect(tool.textContent).not.toContain("B");
    for (const b of tool.querySelectorAll("button.agui-more")) /** @type {HTMLButtonElement} */ (b).click();
    const strings = [...tool.querySelectorAll(".agui-text")].map((n) => n.textContent);
    expect(strings.filter((s) => s === long)).toHaveLength(2); // args.long and the result
    expect(strings).toContain(manyLines);
    expect(tool.querySelectorAll(".agui-args .agui-kv-array tr").length).toBe(120);
  });

  it("values nested deeper than the tree limit are shown as JSON, not dropped", () => {
    /** @type {any} */
    let v = "bottom";
    for (let i = 0; i < 100; i++) v = { k: v };
    const { el } = mount({ state: v });
    const state = /** @type {HTMLElement} */ (el.querySelector(".agui-state"));
    expect(state.textContent).toContain("nested deeper than");
    for (const b of state.querySelectorAll("button.agui-more")) /** @type {HTMLButtonElement} */ (b).click();
    expect(state.textContent).toContain('"bottom"');
  });

  it("survives malformed items", () => {
    const { el } = mount({
      items: [
        null,
        42,
        "text",
        { kind: "card" },
        { kind: "tool" },
        { kind: "card", id: "x", interrupts: [null, { id: 5 }] },
        { kind: "subagent" },
        { kind: "subagent", id: 7, subagent: 7 },
        { kind: "run-end", usage: 5, totals: "x", metadata: 3 },
        { kind: "tool", id: "p", resultParts: [null, 4, { type: "image", data: 5 }], encrypted: "yes" },
        { kind: "reasoning", encrypted: 1 },
        { kind: "assistant", id: "g", subagent: { not: "a string" } },
      ],
    });
    expect(el.querySelectorAll(".agui-item").length).toBe(12);
    expect(el.querySelectorAll(".agui-page > .agui-item").length).toBe(12);
    assertInert(el);
  });
});
