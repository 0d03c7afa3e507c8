// Editing arguments: the generated form, validation, the diff, the edited arguments sent.
import { describe, expect, it } from "vitest";
import { btn, card, fieldInput, fieldInputOrJson, mount, toolInterrupt, type } from "./helpers.js";

const transferSchema = {
  type: "object",
  properties: {
    amount: { type: "number", minimum: 0 },
    to: { type: "string", title: "Recipient" },
    currency: { enum: ["EUR", "USD"] },
    when: { type: "string", format: "date" },
    urgent: { type: "boolean" },
    count: { type: "integer" },
    bank: { type: "object", properties: { iban: { type: "string" }, bic: { type: "string" } }, required: ["iban"] },
    memo: { type: "string" },
  },
  required: ["amount", "to", "memo"],
};

describe("editing arguments", () => {
  const editCard = () =>
    card({
      interrupts: [
        toolInterrupt({
          args: {
            amount: 100,
            to: "Alice",
            currency: "EUR",
            when: "2025-01-31",
            urgent: false,
            count: 1,
            bank: { iban: "DE00" },
            memo: "rent",
            extra: [1, 2],
          },
          argsSchema: transferSchema,
        }),
      ],
    });

  it("generates a form from argsSchema, shows the diff, validates, and sends the edited args", () => {
    const { el, model } = mount({ items: [editCard()] });
    const edit = btn(el, "edit");
    expect(edit.getAttribute("aria-expanded")).toBe("false");
    edit.click();
    expect(edit.getAttribute("aria-expanded")).toBe("true");
    const form = /** @type {HTMLElement} */ (el.querySelector(".agui-edit"));
    expect(fieldInput(form, "amount").value).toBe("100");
    expect(fieldInput(form, "to").value).toBe("Alice");
    expect(form.querySelector('.agui-field[data-path="to"] label')?.textContent).toContain("Recipient");
    expect(fieldInput(form, "currency").tagName).toBe("SELECT");
    expect(fieldInput(form, "when").getAttribute("type")).toBe("date");
    expect(fieldInput(form, "urgent").getAttribute("type")).toBe("checkbox");
    expect(fieldInput(form, "bank.iban").value).toBe("DE00");
    expect(form.querySelector('.agui-field[data-path="extra"] textarea.agui-json')).not.toBeNull(); // not in the schema, kept
    expect(form.querySelector(".agui-diff")?.textContent).toContain("No changes");

    type(fieldInput(form, "amount"), "250.5");
    const currency = /** @type {HTMLSelectElement} */ (/** @type {unknown} */ (fieldInput(form, "currency")));
    currency.value = String(["EUR", "USD"].indexOf("USD"));
    currency.dispatchEvent(new Event("change", { bubbles: true }));
    type(fieldInput(form, "when"), "2025-02-01");
    const urgent = fieldInput(form, "urgent");
    urgent.checked = true;
    urgent.dispatchEvent(new Event("change", { bubbles: true }));
    type(fieldInput(form, "bank.bic"), "XYZ");

    const diff = /** @type {HTMLElement} */ (form.querySelector(".agui-diff"));
    const rows = [...diff.querySelectorAll(".agui-diff-row")].map((r) => r.textContent);
    expect(rows).toEqual([
      "amount: 100 → 250.5",
      'currency: "EUR" → "USD"',
      'when: "2025-01-31" → "2025-02-01"',
      "urgent: false → true",
      'bank.bic: (absent) → "XYZ"',
    ]);
    expect(form.querySelector(".agui-form-errors")?.hasAttribute("hidden")).toBe(true);

    btn(form, "edit-send").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions).toEqual({
      "int-1": {
        action: "edit",
        args: {
          amount: 250.5,
          to: "Alice",
          currency: "USD",
          when: "2025-02-01",
          urgent: true,
          count: 1,
          bank: { iban: "DE00", bic: "XYZ" },
          memo: "rent",
          extra: [1, 2],
        },
      },
    });
  });

  it("blocks an invalid edit with inline errors", () => {
    const { el, model } = mount({ items: [editCard()] });
    btn(el, "edit").click();
    const form = /** @type {HTMLElement} */ (el.querySelector(".agui-edit"));
    type(fieldInput(form, "amount"), "lots");
    type(fieldInput(form, "count"), "1.5");
    type(fieldInput(form, "bank.iban"), "");
    type(/** @type {HTMLTextAreaElement} */ (form.querySelector('.agui-field[data-path="extra"] textarea')), "[1, 2");
    btn(form, "edit-send").click();
    expect(model.sent).toHaveLength(0);
    const errors = /** @type {HTMLElement} */ (form.querySelector(".agui-form-errors.agui-error"));
    expect(errors.hidden).toBe(false);
    expect(errors.textContent).toContain("amount must be a number");
    expect(errors.textContent).toContain("not valid JSON");
    const amountErr = form.querySelector('.agui-field[data-path="amount"] .agui-field-error');
    expect(amountErr?.textContent).toContain("must be a number");
    expect(fieldInput(form, "amount").getAttribute("aria-invalid")).toBe("true");

    // Parse problems fixed: schema problems (integer, minimum, required) now show.
    type(/** @type {HTMLTextAreaElement} */ (form.querySelector('.agui-field[data-path="extra"] textarea')), "[1, 2]");
    type(fieldInput(form, "amount"), "-3");
    btn(form, "edit-send").click();
    expect(model.sent).toHaveLength(0);
    expect(errors.textContent).toContain("count must be an integer");
    expect(errors.textContent).toContain("amount must be at least 0");
    expect(errors.textContent).toContain("bank.iban is required");
    expect(form.querySelector('.agui-field[data-path="bank.iban"] .agui-field-error')?.textContent).toContain(
      "required",
    );

    type(fieldInput(form, "amount"), "3");
    type(fieldInput(form, "count"), "2");
    type(fieldInput(form, "bank.iban"), "DE99");
    btn(form, "edit-send").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions["int-1"].args).toMatchObject({ amount: 3, count: 2, bank: { iban: "DE99" } });
  });

  it("reports a required field that the agent left out", () => {
    const args = { amount: 1, to: "x" }; // memo missing
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ args, argsSchema: transferSchema })] })],
    });
    btn(el, "edit").click();
    btn(el, "edit-send").click();
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-form-errors")?.textContent).toContain("memo is required");
    type(fieldInput(el, "memo"), "hi");
    btn(el, "edit-send").click();
    expect(model.sent[0].decisions["int-1"].args).toEqual({ amount: 1, to: "x", memo: "hi" });
  });

  it("without a schema, edits JSON text: parse errors and non-objects are blocked", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "edit").click();
    const area = fieldInputOrJson(el);
    expect(JSON.parse(area.value)).toEqual(toolInterrupt().args);
    type(area, '{"amount": ');
    btn(el, "edit-send").click();
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-edit .agui-error:not([hidden])")?.textContent).toContain("not valid JSON");
    type(area, "[1]");
    btn(el, "edit-send").click();
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-form-errors")?.textContent).toContain("must be a JSON object");
    type(area, '{"amount": 7, "to": "Alice", "meta": {"note": "rent", "tags": ["a"]}}');
    const rows = [...el.querySelectorAll(".agui-diff-row")].map((r) => r.textContent);
    expect(rows).toEqual(["amount: 100 → 7", 'meta.tags: ["a","b"] → ["a"]']);
    btn(el, "edit-send").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions["int-1"]).toEqual({
      action: "edit",
      args: { amount: 7, to: "Alice", meta: { note: "rent", tags: ["a"] } },
    });
  });

  it("on a multi card, an edit is recorded and sent with the others", () => {
    const { el, model } = mount({
      items: [
        card({
          interrupts: [toolInterrupt({ id: "x" }), toolInterrupt({ id: "y", toolName: "other", canEdit: false })],
        }),
      ],
    });
    const [x, y] = [...el.querySelectorAll(".agui-interrupt")];
    btn(x, "edit").click();
    type(/** @type {HTMLTextAreaElement} */ (x.querySelector("textarea.agui-json")), '{"amount": 1}');
    expect(btn(x, "edit-send").textContent).toBe("Use edited arguments");
    btn(x, "edit-send").click();
    btn(y, "approve").click();
    expect(model.sent).toHaveLength(0);
    btn(el, "send").click();
    expect(model.sent[0].decisions).toEqual({ x: { action: "edit", args: { amount: 1 } }, y: { action: "approve" } });
  });
});
