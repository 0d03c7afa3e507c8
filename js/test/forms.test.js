// Answer forms generated from responseSchema, and free answers.
import { describe, expect, it } from "vitest";
import { buildField } from "../src/forms.js";
import { btn, card, fieldInput, mount, toolInterrupt, type } from "./helpers.js";

describe("answer forms", () => {
  const responseSchema = {
    type: "object",
    properties: {
      name: { type: "string", description: "Your name" },
      height: { type: "number" },
      age: { type: "integer" },
      subscribe: { type: "boolean" },
      color: { type: "string", enum: ["red", "green"] },
      birthday: { type: "string", format: "date" },
      address: { type: "object", properties: { city: { type: "string" }, zip: { type: "string" } } },
    },
    required: ["name", "age"],
  };
  const formCard = () =>
    card({
      interrupts: [
        toolInterrupt({
          id: "q1",
          reason: "input_required",
          toolName: null,
          args: null,
          mode: "form",
          canEdit: false,
          responseSchema,
          message: "Tell us about you",
        }),
      ],
    });

  it("renders a form from responseSchema and answers with the payload", () => {
    const { el, model } = mount({ items: [formCard()] });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.querySelector(".agui-interrupt")?.getAttribute("data-mode")).toBe("form");
    expect(btn(c, "approve")).toBeNull();
    expect(c.textContent).toContain("Tell us about you");
    expect(c.textContent).toContain("Your name");
    // Required fields missing: blocked.
    btn(c, "answer").click();
    expect(model.sent).toHaveLength(0);
    expect(c.querySelector(".agui-form-errors")?.textContent).toContain("name is required");
    type(fieldInput(c, "name"), "Ada");
    type(fieldInput(c, "height"), "1.7");
    type(fieldInput(c, "age"), "36");
    const sub = fieldInput(c, "subscribe");
    sub.checked = true;
    sub.dispatchEvent(new Event("change", { bubbles: true }));
    const color = /** @type {HTMLSelectElement} */ (/** @type {unknown} */ (fieldInput(c, "color")));
    color.value = "1";
    color.dispatchEvent(new Event("change", { bubbles: true }));
    type(fieldInput(c, "birthday"), "1815-12-10");
    type(fieldInput(c, "address.city"), "London");
    btn(c, "answer").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0]).toEqual({
      type: "decide",
      requestId: expect.any(String),
      card: "card-1",
      decisions: {
        q1: {
          action: "answer",
          payload: {
            name: "Ada",
            height: 1.7,
            age: 36,
            subscribe: true,
            color: "green",
            birthday: "1815-12-10",
            address: { city: "London" },
          },
        },
      },
    });
  });

  it("a form with a non-object schema answers with a bare value; Cancel works", () => {
    const schema = { type: "boolean", title: "Proceed?" };
    const { el, model } = mount({
      items: [
        card({
          interrupts: [
            toolInterrupt({ id: "q", reason: "confirmation", toolName: null, mode: "form", responseSchema: schema }),
          ],
        }),
      ],
    });
    const box = /** @type {HTMLInputElement} */ (el.querySelector(".agui-answer-form .agui-checkbox"));
    box.checked = true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    btn(el, "answer").click();
    expect(model.sent[0].decisions).toEqual({ q: { action: "answer", payload: true } });

    const second = mount({
      items: [
        card({
          interrupts: [
            toolInterrupt({ id: "q", reason: "confirmation", toolName: null, mode: "form", responseSchema: schema }),
          ],
        }),
      ],
    });
    btn(second.el, "cancel").click();
    expect(second.model.sent[0].decisions).toEqual({ q: { action: "cancel" } });
  });

  it("free mode answers with the typed string and refuses an empty answer", () => {
    const { el, model } = mount({
      items: [
        card({
          interrupts: [
            toolInterrupt({
              id: "f",
              reason: "weird_reason",
              toolName: null,
              args: null,
              mode: "free",
              message: "What next?",
            }),
          ],
        }),
      ],
    });
    expect(el.querySelector(".agui-interrupt")?.textContent).toContain("What next?");
    expect(el.querySelector(".agui-interrupt")?.textContent).toContain("weird_reason");
    btn(el, "answer").click();
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-interrupt .agui-error:not([hidden])")?.textContent).toContain("Type an answer");
    type(/** @type {HTMLTextAreaElement} */ (el.querySelector("textarea.agui-free")), "Go on\nplease");
    btn(el, "answer").click();
    expect(model.sent).toEqual([
      {
        type: "decide",
        requestId: expect.any(String),
        card: "card-1",
        decisions: { f: { action: "answer", payload: "Go on\nplease" } },
      },
    ]);
    expect(btn(el, "cancel").disabled).toBe(true);
  });
});

describe("buildField", () => {
  /** @param {unknown} schema @param {unknown} initial */
  const field = (schema, initial) => {
    const registry = new Map();
    const f = buildField(schema, initial, { key: null, path: "", required: true, depth: 0, registry });
    document.body.append(f.node);
    return { f, registry };
  };

  it("a number typo is a problem, not an empty value", () => {
    const { f } = field({ type: "object", properties: { n: { type: "number" } } }, { n: 1 });
    const input = /** @type {HTMLInputElement} */ (f.node.querySelector('.agui-field[data-path="n"] input'));
    input.value = "12x";
    expect(f.read().problems).toEqual([{ path: "n", message: "n must be a number" }]);
    input.value = "";
    expect(f.read()).toEqual({ value: {}, omit: false, problems: [] });
  });

  it("keeps what does not fit the schema: extra keys as JSON, an enum's current value", () => {
    const { f } = field({ type: "object", properties: { c: { enum: ["a", "b"] } } }, { c: "zzz", extra: { k: [1] } });
    const select = /** @type {HTMLSelectElement} */ (f.node.querySelector("select"));
    expect(select.value).toBe("current");
    expect(f.node.querySelector('.agui-field[data-path="extra"]')?.textContent).toContain("(not in the schema)");
    expect(f.read().value).toEqual({ c: "zzz", extra: { k: [1] } });
  });

  it("a value that does not fit its widget becomes JSON text", () => {
    const { f } = field({ type: "string" }, { not: "a string" });
    const area = /** @type {HTMLTextAreaElement} */ (f.node.querySelector("textarea.agui-json"));
    expect(JSON.parse(area.value)).toEqual({ not: "a string" });
    area.value = "{oops";
    expect(f.read().problems[0].message).toMatch(/^Value: not valid JSON/);
  });
});
