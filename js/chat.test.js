// Unit tests for chat.js: render({model, el}) with a small fake anywidget model (vitest + happy-dom).
import { afterEach, describe, expect, it, vi } from "vitest";
import widget from "./chat.js";

/** A fake anywidget model: get/on/off/send, plus helpers to change traits and emit custom messages. */
function fakeModel(initial = {}) {
  /** @type {Record<string, any>} */
  const data = { items: [], status: "idle", state: null, audit: [], ...initial };
  /** @type {Map<string, Set<Function>>} */
  const handlers = new Map();
  /** @type {any[]} */
  const sent = [];
  return {
    sent,
    handlers,
    get: (/** @type {string} */ k) => data[k],
    on(/** @type {string} */ evt, /** @type {Function} */ cb) {
      if (!handlers.has(evt)) handlers.set(evt, new Set());
      handlers.get(evt)?.add(cb);
    },
    off(/** @type {string} */ evt, /** @type {Function} */ cb) {
      handlers.get(evt)?.delete(cb);
    },
    send(/** @type {any} */ msg) {
      sent.push(structuredClone(msg));
    },
    set(/** @type {string} */ k, /** @type {any} */ v) {
      data[k] = structuredClone(v);
      for (const cb of handlers.get(`change:${k}`) ?? []) cb();
    },
    emitCustom(/** @type {any} */ msg) {
      for (const cb of handlers.get("msg:custom") ?? []) cb(msg, []);
    },
    listenerCount() {
      let n = 0;
      for (const s of handlers.values()) n += s.size;
      return n;
    },
  };
}

/** @type {Array<() => void>} */
let cleanups = [];

function mount(initial = {}) {
  const model = fakeModel(initial);
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = widget.render({ model, el });
  cleanups.push(cleanup);
  return { model, el, cleanup };
}

afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
  document.body.replaceChildren();
  vi.useRealTimers();
});

const toolInterrupt = (over = {}) => ({
  id: "int-1",
  reason: "tool_call",
  toolName: "transfer_money",
  toolCallId: "tc-1",
  message: "Transfer 100 EUR to Alice?",
  args: { amount: 100, to: "Alice", meta: { note: "rent", tags: ["a", "b"] } },
  argsSchema: null,
  responseSchema: null,
  expiresAt: null,
  mode: "tool",
  canEdit: true,
  canGiveReason: true,
  reissued: false,
  ...over,
});

const card = (over = {}) => ({
  kind: "card",
  id: "card-1",
  status: "pending",
  interrupts: [toolInterrupt()],
  decisions: null,
  decidedBy: null,
  error: null,
  note: null,
  timeoutAt: null,
  timeoutDefault: null,
  ...over,
});

/** @param {ParentNode} root @param {string} action */
const btn = (root, action) => /** @type {HTMLButtonElement} */ (root.querySelector(`button[data-action="${action}"]`));
/** @param {ParentNode} root @param {string} action */
const btns = (root, action) => /** @type {HTMLButtonElement[]} */ ([...root.querySelectorAll(`button[data-action="${action}"]`)]);
/** @param {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} input @param {string} value */
function type(input, value) {
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
}
/** @param {ParentNode} root @param {string} path */
const fieldInput = (root, path) =>
  /** @type {HTMLInputElement} */ (root.querySelector(`.agui-field[data-path="${path}"] .agui-input, .agui-field[data-path="${path}"] .agui-checkbox`));
/** @param {HTMLElement} el */
const visibleText = (el) => el.textContent ?? "";

describe("rendering items", () => {
  it("renders every item kind in order, plus status, state and audit", () => {
    const { el } = mount({
      status: "running",
      items: [
        { kind: "user", id: "u1", text: "Pay my rent" },
        { kind: "reasoning", id: "r1", text: "thinking about rent", streaming: false },
        { kind: "assistant", id: "a1", text: "Sure.\n  Let me check.", streaming: true },
        { kind: "tool", id: "tc-0", name: "lookup", args: { q: "rent", nested: { list: [1, { deep: true }] } }, argsText: "", result: "42 EUR", status: "done" },
        { kind: "tool", id: "tc-s", name: "partial", args: null, argsText: '{"q": "re', result: null, status: "streaming" },
        card(),
        { kind: "error", id: "e1", title: "Server error", message: "boom", hint: "try again" },
        { kind: "notice", id: "n1", text: "run cancelled by the server" },
        { kind: "mystery", id: "m1", text: "future kind" },
      ],
      state: { balance: 1200, history: [{ amount: 5 }] },
      audit: [{ time: "12:00", tool: "transfer_money", decision: "approve" }],
    });
    const kinds = [...el.querySelectorAll(".agui-items > .agui-item")].map((n) => /** @type {HTMLElement} */ (n).dataset.kind);
    expect(kinds).toEqual(["user", "reasoning", "assistant", "tool", "tool", "card", "error", "notice", "mystery"]);

    expect(el.querySelector(".agui-status")?.getAttribute("data-status")).toBe("running");
    expect(el.querySelector(".agui-status")?.textContent).toContain("running");
    expect(el.querySelector(".agui-status .agui-spinner")?.hasAttribute("hidden")).toBe(false);

    expect(el.querySelector(".agui-user")?.textContent).toContain("Pay my rent");
    const assistant = /** @type {HTMLElement} */ (el.querySelector(".agui-assistant"));
    expect(assistant.textContent).toBe("Sure.\n  Let me check.");
    expect(assistant.classList.contains("agui-streaming")).toBe(true);

    const reasoning = /** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-reasoning-details"));
    expect(reasoning.open).toBe(false);
    expect(reasoning.textContent).toContain("thinking about rent");

    const tool = /** @type {HTMLElement} */ (el.querySelector('.agui-tool[data-item-id="tc-0"]'));
    expect(tool.querySelector(".agui-tool-name")?.textContent).toBe("lookup");
    expect(tool.querySelector(".agui-badge")?.getAttribute("data-status")).toBe("done");
    expect(tool.querySelectorAll(".agui-args table.agui-kv").length).toBeGreaterThanOrEqual(3); // nested
    const keys = [...tool.querySelectorAll(".agui-args th")].map((n) => n.textContent);
    expect(keys).toEqual(expect.arrayContaining(["q", "nested", "list", "0", "1", "deep"]));
    expect(tool.querySelector(".agui-result")?.textContent).toContain("42 EUR");

    const partial = /** @type {HTMLElement} */ (el.querySelector('.agui-tool[data-item-id="tc-s"]'));
    expect(partial.querySelector(".agui-args-text")?.textContent).toBe('{"q": "re');
    expect(/** @type {HTMLElement} */ (partial.querySelector(".agui-result")).hidden).toBe(true);

    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.dataset.status).toBe("pending");
    expect(c.querySelector(".agui-tool-name")?.textContent).toBe("transfer_money");
    expect(c.querySelector(".agui-message")?.textContent).toContain("Transfer 100 EUR to Alice?");
    expect(c.querySelector(".agui-args")?.textContent).toContain("Alice");

    expect(el.querySelector(".agui-error-item .agui-error-title")?.textContent).toBe("Server error");
    expect(el.querySelector(".agui-error-item .agui-error")?.textContent).toBe("boom");
    expect(el.querySelector(".agui-notice")?.textContent).toBe("run cancelled by the server");
    expect(el.querySelector(".agui-unknown")?.textContent).toContain("future kind");

    const state = /** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-state"));
    expect(state.open).toBe(false);
    expect(state.hidden).toBe(false);
    expect(state.textContent).toContain("balance");
    expect(state.textContent).toContain("1200");

    const audit = /** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-audit"));
    expect(audit.hidden).toBe(false);
    expect(audit.querySelector("summary")?.textContent).toBe("Audit (1)");
    expect([...audit.querySelectorAll("th")].map((n) => n.textContent)).toEqual(["time", "tool", "decision"]);
  });

  it("hides empty state and audit and shows the waiting / error headers", () => {
    const { el, model } = mount({ status: "waiting" });
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-state")).hidden).toBe(true);
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-audit")).hidden).toBe(true);
    expect(el.querySelector(".agui-status")?.textContent).toBe("waiting for your decision");
    model.set("status", "error");
    expect(el.querySelector(".agui-status")?.getAttribute("data-status")).toBe("error");
    expect(el.querySelector(".agui-status .agui-spinner")?.hasAttribute("hidden")).toBe(true);
  });

  it("buttons are real buttons with aria-labels naming the tool; the countdown is aria-live", () => {
    const t = Date.now() + 60_000;
    const { el } = mount({ items: [card({ interrupts: [toolInterrupt({ expiresAt: new Date(t).toISOString() })] })] });
    for (const action of ["approve", "reject", "edit", "cancel"]) {
      const b = btn(el, action);
      expect(b.tagName).toBe("BUTTON");
      expect(b.getAttribute("type")).toBe("button");
      expect(b.getAttribute("aria-label")).toContain("transfer_money");
    }
    expect(btn(el, "approve").getAttribute("aria-label")).toBe("Approve transfer_money");
    expect(el.querySelector(".agui-countdown.agui-expiry")?.getAttribute("aria-live")).toBe("polite");
    expect(el.querySelector("style")?.textContent).toContain(":focus-visible");
  });
});

describe("keyed reconciliation", () => {
  it("a streaming text update keeps the card, its typed reason, focus, and open sections", () => {
    const items = [
      { kind: "reasoning", id: "r1", text: "hmm", streaming: true },
      { kind: "assistant", id: "a1", text: "Hel", streaming: true },
      { kind: "tool", id: "tc-0", name: "lookup", args: { long: "x".repeat(1000) }, argsText: "", result: null, status: "called" },
      card(),
    ];
    const { el, model } = mount({ items, state: { a: 1 } });
    const cardNode = el.querySelector(".agui-card");
    const reason = /** @type {HTMLTextAreaElement} */ (el.querySelector("textarea.agui-reason"));
    reason.focus();
    type(reason, "too expensive");
    /** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-reasoning-details")).open = true;
    /** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-state")).open = true;
    /** @type {HTMLButtonElement} */ (el.querySelector(".agui-tool .agui-more")).click();
    expect(el.querySelector(".agui-tool .agui-text")?.textContent).toBe("x".repeat(1000));
    btn(el, "edit").click();
    const amount = fieldInputOrJson(el);
    type(amount, '{"amount": 5}');

    for (const text of ["Hell", "Hello", "Hello, world"]) {
      model.set("items", [
        { ...items[0], text: `hmm ${text}` },
        { ...items[1], text },
        items[2],
        card(),
        { kind: "assistant", id: "a2", text: "more", streaming: true },
      ]);
      model.set("state", { a: 2 });
    }
    expect(el.querySelector(".agui-card")).toBe(cardNode);
    expect(el.querySelector("textarea.agui-reason")).toBe(reason);
    expect(reason.value).toBe("too expensive");
    expect(document.activeElement).toBe(reason);
    expect(fieldInputOrJson(el).value).toBe('{"amount": 5}');
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-edit-slot")).hidden).toBe(false);
    expect(/** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-reasoning-details")).open).toBe(true);
    expect(/** @type {HTMLDetailsElement} */ (el.querySelector("details.agui-state")).open).toBe(true);
    expect(el.querySelector(".agui-tool .agui-text")?.textContent).toBe("x".repeat(1000));
    expect(el.querySelector(".agui-assistant")?.textContent).toBe("Hello, world");
    expect(el.querySelectorAll(".agui-assistant").length).toBe(2);
    expect(el.querySelector(".agui-state")?.textContent).toContain("2");
  });

  it("removes items that disappear and follows a new order", () => {
    const { el, model } = mount({
      items: [
        { kind: "user", id: "1", text: "one" },
        { kind: "user", id: "2", text: "two" },
        { kind: "user", id: "3", text: "three" },
      ],
    });
    const three = el.querySelector('[data-item-id="3"]');
    model.set("items", [
      { kind: "user", id: "3", text: "three" },
      { kind: "user", id: "1", text: "one!" },
    ]);
    const texts = [...el.querySelectorAll(".agui-user .agui-text")].map((n) => n.textContent);
    expect(texts).toEqual(["three", "one!"]);
    expect(el.querySelector('[data-item-id="3"]')).toBe(three);
  });
});

/** @param {ParentNode} root */
function fieldInputOrJson(root) {
  return /** @type {HTMLTextAreaElement} */ (root.querySelector(".agui-edit textarea.agui-json"));
}

describe("single-interrupt decisions", () => {
  it("approve sends exactly one decide message with the contract's shape", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    expect(model.sent).toHaveLength(1);
    const msg = model.sent[0];
    expect(msg).toEqual({
      type: "decide",
      requestId: expect.any(String),
      card: "card-1",
      decisions: { "int-1": { action: "approve" } },
    });
    expect(msg.requestId.length).toBeGreaterThan(0);
  });

  it("reject sends the typed reason", () => {
    const { el, model } = mount({ items: [card()] });
    type(/** @type {HTMLTextAreaElement} */ (el.querySelector("textarea.agui-reason")), "  too much  ");
    btn(el, "reject").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions).toEqual({ "int-1": { action: "reject", reason: "too much" } });
  });

  it("reject without a reason, and no reason box when canGiveReason is false", () => {
    const { el, model } = mount({ items: [card({ interrupts: [toolInterrupt({ canGiveReason: false, canEdit: false })] })] });
    expect(el.querySelector("textarea.agui-reason")).toBeNull();
    expect(btn(el, "edit")).toBeNull();
    btn(el, "reject").click();
    expect(model.sent[0].decisions).toEqual({ "int-1": { action: "reject" } });
  });

  it("cancel sends cancel", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "cancel").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions).toEqual({ "int-1": { action: "cancel" } });
  });

  it("a double click (or any click while sending) sends one message and shows sending…", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    btn(el, "approve").click();
    btn(el, "reject").click();
    btn(el, "cancel").click();
    expect(model.sent).toHaveLength(1);
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.dataset.status).toBe("sending");
    expect(c.querySelector(".agui-card-status")?.textContent).toContain("sending…");
    for (const b of c.querySelectorAll("button")) expect(/** @type {HTMLButtonElement} */ (b).disabled).toBe(true);
  });

  it("always allow adds alwaysAllow with the tool name", () => {
    const { el, model } = mount({ items: [card()] });
    const box = /** @type {HTMLInputElement} */ (el.querySelector("input.agui-always-allow"));
    expect(box.parentElement?.textContent).toContain("Always allow transfer_money in this session");
    box.checked = true;
    btn(el, "approve").click();
    expect(model.sent[0]).toMatchObject({ decisions: { "int-1": { action: "approve" } }, alwaysAllow: ["transfer_money"] });
  });

  it("each message has a unique requestId", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.set("items", [card({ id: "card-2" })]);
    btn(el, "approve").click();
    expect(model.sent).toHaveLength(2);
    expect(model.sent[0].requestId).not.toBe(model.sent[1].requestId);
    expect(model.sent[1].card).toBe("card-2");
  });
});

describe("multi-interrupt cards", () => {
  const two = () =>
    card({
      interrupts: [
        toolInterrupt({ id: "i-a", toolName: "delete_file", args: { path: "/tmp/x" } }),
        toolInterrupt({ id: "i-b", toolName: "send_email", args: { to: "bob" } }),
        toolInterrupt({ id: "i-c", toolName: "delete_file", args: { path: "/tmp/y" } }),
      ],
    });

  it("collects a decision per interrupt and sends ONE message after all are decided", () => {
    const { el, model } = mount({ items: [two()] });
    const [a, b, c] = [...el.querySelectorAll(".agui-interrupt")];
    const send = btn(el, "send");
    expect(send.disabled).toBe(true);
    btn(a, "approve").click();
    /** @type {HTMLInputElement} */ (a.querySelector(".agui-always-allow")).checked = true;
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-card-status")?.textContent).toBe("1 of 3 decided");
    expect(a.querySelector(".agui-choice")?.textContent).toContain("approve");
    expect(btn(a, "approve").getAttribute("aria-pressed")).toBe("true");
    type(/** @type {HTMLTextAreaElement} */ (b.querySelector(".agui-reason")), "not now");
    btn(b, "reject").click();
    expect(send.disabled).toBe(true);
    btn(c, "approve").click();
    btn(c, "cancel").click(); // changing one's mind replaces the choice
    expect(model.sent).toHaveLength(0);
    expect(send.disabled).toBe(false);
    send.click();
    send.click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0]).toEqual({
      type: "decide",
      requestId: expect.any(String),
      card: "card-1",
      decisions: {
        "i-a": { action: "approve" },
        "i-b": { action: "reject", reason: "not now" },
        "i-c": { action: "cancel" },
      },
      alwaysAllow: ["delete_file"],
    });
  });

  it("a done card shows each decision and who decided", () => {
    const { el } = mount({
      items: [
        card({
          status: "done",
          interrupts: [toolInterrupt({ id: "i-a" }), toolInterrupt({ id: "i-b", toolName: "other" })],
          decisions: { "i-a": { action: "reject", reason: "policy says no", args: null, payload: null }, "i-b": { action: "cancel", reason: null, args: null, payload: null } },
          decidedBy: "policy: reject-all",
          note: "This kernel cannot wait in the cell; the run continues in the background.",
        }),
      ],
    });
    const recorded = [...el.querySelectorAll(".agui-decision")].map((n) => n.textContent);
    expect(recorded[0]).toContain("rejected by policy: reject-all");
    expect(recorded[0]).toContain("policy says no");
    expect(recorded[1]).toContain("cancelled by policy: reject-all");
    expect(el.querySelector(".agui-card")?.getAttribute("data-status")).toBe("done");
    expect(el.querySelector(".agui-note")?.textContent).toContain("cannot wait in the cell");
    expect(btn(el, "approve").closest(".agui-controls")?.hasAttribute("hidden")).toBe(true);
  });

  it("a done card says approved by you / edited arguments", () => {
    const { el } = mount({
      items: [card({ status: "done", decisions: { "int-1": { action: "edit", reason: null, args: { amount: 5 }, payload: null } }, decidedBy: "you" })],
    });
    const d = /** @type {HTMLElement} */ (el.querySelector(".agui-decision"));
    expect(d.textContent).toContain("approved with edited arguments by you");
    expect(d.textContent).toContain("amount");
  });
});

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
          args: { amount: 100, to: "Alice", currency: "EUR", when: "2025-01-31", urgent: false, count: 1, bank: { iban: "DE00" }, memo: "rent", extra: [1, 2] },
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
        args: { amount: 250.5, to: "Alice", currency: "USD", when: "2025-02-01", urgent: true, count: 1, bank: { iban: "DE00", bic: "XYZ" }, memo: "rent", extra: [1, 2] },
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
    expect(form.querySelector('.agui-field[data-path="bank.iban"] .agui-field-error')?.textContent).toContain("required");

    type(fieldInput(form, "amount"), "3");
    type(fieldInput(form, "count"), "2");
    type(fieldInput(form, "bank.iban"), "DE99");
    btn(form, "edit-send").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions["int-1"].args).toMatchObject({ amount: 3, count: 2, bank: { iban: "DE99" } });
  });

  it("reports a required field that the agent left out", () => {
    const args = { amount: 1, to: "x" }; // memo missing
    const { el, model } = mount({ items: [card({ interrupts: [toolInterrupt({ args, argsSchema: transferSchema })] })] });
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
    expect(rows).toEqual(['amount: 100 → 7', 'meta.tags: ["a","b"] → ["a"]']);
    btn(el, "edit-send").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions["int-1"]).toEqual({ action: "edit", args: { amount: 7, to: "Alice", meta: { note: "rent", tags: ["a"] } } });
  });

  it("on a multi card, an edit is recorded and sent with the others", () => {
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ id: "x" }), toolInterrupt({ id: "y", toolName: "other", canEdit: false })] })],
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
        toolInterrupt({ id: "q1", reason: "input_required", toolName: null, args: null, mode: "form", canEdit: false, responseSchema, message: "Tell us about you" }),
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
        q1: { action: "answer", payload: { name: "Ada", height: 1.7, age: 36, subscribe: true, color: "green", birthday: "1815-12-10", address: { city: "London" } } },
      },
    });
  });

  it("a form with a non-object schema answers with a bare value; Cancel works", () => {
    const schema = { type: "boolean", title: "Proceed?" };
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ id: "q", reason: "confirmation", toolName: null, mode: "form", responseSchema: schema })] })],
    });
    const box = /** @type {HTMLInputElement} */ (el.querySelector(".agui-answer-form .agui-checkbox"));
    box.checked = true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    btn(el, "answer").click();
    expect(model.sent[0].decisions).toEqual({ q: { action: "answer", payload: true } });

    const second = mount({
      items: [card({ interrupts: [toolInterrupt({ id: "q", reason: "confirmation", toolName: null, mode: "form", responseSchema: schema })] })],
    });
    btn(second.el, "cancel").click();
    expect(second.model.sent[0].decisions).toEqual({ q: { action: "cancel" } });
  });

  it("free mode answers with the typed string and refuses an empty answer", () => {
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ id: "f", reason: "weird_reason", toolName: null, args: null, mode: "free", message: "What next?" })] })],
    });
    expect(el.querySelector(".agui-interrupt")?.textContent).toContain("What next?");
    expect(el.querySelector(".agui-interrupt")?.textContent).toContain("weird_reason");
    btn(el, "answer").click();
    expect(model.sent).toHaveLength(0);
    expect(el.querySelector(".agui-interrupt .agui-error:not([hidden])")?.textContent).toContain("Type an answer");
    type(/** @type {HTMLTextAreaElement} */ (el.querySelector("textarea.agui-free")), "Go on\nplease");
    btn(el, "answer").click();
    expect(model.sent).toEqual([{ type: "decide", requestId: expect.any(String), card: "card-1", decisions: { f: { action: "answer", payload: "Go on\nplease" } } }]);
    expect(btn(el, "cancel").disabled).toBe(true);
  });
});

describe("countdowns", () => {
  it("counts down to expiresAt, then disables everything but Cancel and says expired", () => {
    vi.useFakeTimers();
    const t0 = new Date("2025-06-01T12:00:00Z").getTime();
    vi.setSystemTime(t0);
    const { el, model } = mount({ items: [card({ interrupts: [toolInterrupt({ expiresAt: new Date(t0 + 3000).toISOString() })] })] });
    const clock = /** @type {HTMLElement} */ (el.querySelector(".agui-countdown.agui-expiry"));
    expect(clock.textContent).toBe("Expires in 0:03");
    vi.advanceTimersByTime(1000);
    expect(clock.textContent).toBe("Expires in 0:02");
    expect(btn(el, "approve").disabled).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(clock.textContent).toContain("Expired");
    expect(el.querySelector(".agui-interrupt")?.classList.contains("agui-expired")).toBe(true);
    for (const a of ["approve", "reject", "edit"]) expect(btn(el, a).disabled).toBe(true);
    expect(/** @type {HTMLTextAreaElement} */ (el.querySelector(".agui-reason")).disabled).toBe(true);
    expect(/** @type {HTMLInputElement} */ (el.querySelector(".agui-always-allow")).disabled).toBe(true);
    expect(btn(el, "cancel").disabled).toBe(false);
    btn(el, "approve").click();
    expect(model.sent).toHaveLength(0);
    btn(el, "cancel").click();
    expect(model.sent).toHaveLength(1);
    expect(model.sent[0].decisions).toEqual({ "int-1": { action: "cancel" } });
  });

  it("a multi card with an expired interrupt can only send Cancel for it", () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ id: "a", expiresAt: new Date(t0 + 1000).toISOString() }), toolInterrupt({ id: "b" })] })],
    });
    const [a, b] = [...el.querySelectorAll(".agui-interrupt")];
    btn(a, "approve").click();
    btn(b, "approve").click();
    vi.advanceTimersByTime(1500);
    expect(btn(el, "send").disabled).toBe(true);
    btn(el, "send").click();
    expect(model.sent).toHaveLength(0);
    btn(a, "cancel").click();
    expect(btn(el, "send").disabled).toBe(false);
    btn(el, "send").click();
    expect(model.sent[0].decisions).toEqual({ a: { action: "cancel" }, b: { action: "approve" } });
  });

  it("shows 'No answer by HH:MM:SS → default' for timeoutAt", () => {
    vi.useFakeTimers();
    const t0 = new Date(2025, 5, 1, 9, 5, 0).getTime(); // local time
    vi.setSystemTime(t0);
    const { el } = mount({ items: [card({ timeoutAt: new Date(t0 + 65_000).toISOString(), timeoutDefault: "cancel" })] });
    const line = /** @type {HTMLElement} */ (el.querySelector(".agui-countdown.agui-timeout"));
    expect(line.textContent).toBe("No answer by 09:06:05 → cancel (in 1:05)");
    vi.advanceTimersByTime(5000);
    expect(line.textContent).toBe("No answer by 09:06:05 → cancel (in 1:00)");
    vi.advanceTimersByTime(60_000);
    expect(line.textContent).toBe("No answer by 09:06:05 → cancel (time is up)");
    expect(btn(el, "approve").disabled).toBe(false); // the default is Python's job
  });

  it("cleanup clears the interval and removes listeners", () => {
    vi.useFakeTimers();
    const { model, cleanup, el } = mount({ items: [card({ interrupts: [toolInterrupt({ expiresAt: new Date(Date.now() + 60_000).toISOString() })] })] });
    expect(vi.getTimerCount()).toBe(1);
    expect(model.listenerCount()).toBeGreaterThan(0);
    cleanup();
    expect(vi.getTimerCount()).toBe(0);
    expect(model.listenerCount()).toBe(0);
    expect(el.querySelector(".agui-chat")).toBeNull();
  });

  it("the interval stops once the card is no longer pending", () => {
    vi.useFakeTimers();
    const c = card({ interrupts: [toolInterrupt({ expiresAt: new Date(Date.now() + 60_000).toISOString() })] });
    const { model } = mount({ items: [c] });
    expect(vi.getTimerCount()).toBe(1);
    model.set("items", [{ ...c, status: "done", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("lifecycle with Python", () => {
  it("status failed shows the error and Retry, which sends retry once", () => {
    const { el, model } = mount({
      items: [card({ status: "failed", decisions: { "int-1": { action: "approve" } }, decidedBy: "you", error: { title: "Resume failed", message: "HTTP 502 from the agent" } })],
    });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.dataset.status).toBe("failed");
    expect(c.querySelector(".agui-card-error")?.textContent).toContain("Resume failed");
    expect(c.querySelector(".agui-card-error")?.textContent).toContain("HTTP 502 from the agent");
    const retry = btn(c, "retry");
    expect(retry.hidden).toBe(false);
    retry.click();
    retry.click();
    expect(model.sent).toEqual([{ type: "retry", requestId: expect.any(String), card: "card-1" }]);
    expect(c.dataset.status).toBe("sending");
    // Python: sending, then done.
    model.set("items", [card({ status: "sending", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" })]);
    expect(c.dataset.status).toBe("sending");
    model.set("items", [card({ status: "done", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" })]);
    expect(c.dataset.status).toBe("done");
    expect(btn(c, "retry").hidden).toBe(true);
    expect(c.querySelector(".agui-decision")?.textContent).toContain("approved by you");
  });

  it("a rejected retry ack re-enables Retry", () => {
    const { el, model } = mount({ items: [card({ status: "failed", error: { title: "x", message: "y" } })] });
    btn(el, "retry").click();
    expect(btn(el, "retry").disabled).toBe(true);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "nothing to retry" });
    expect(btn(el, "retry").disabled).toBe(false);
    expect(el.querySelector(".agui-ack-error")?.textContent).toBe("nothing to retry");
  });

  it("an ack with accepted=false shows the error and re-enables a still-pending card", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    expect(btn(el, "approve").disabled).toBe(true);
    model.emitCustom({ type: "ack", requestId: "someone-else", accepted: false, error: "not mine" });
    expect(btn(el, "approve").disabled).toBe(true);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "the run has ended" });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    const err = /** @type {HTMLElement} */ (c.querySelector(".agui-ack-error.agui-error"));
    expect(err.hidden).toBe(false);
    expect(err.textContent).toBe("the run has ended");
    expect(c.dataset.status).toBe("pending");
    expect(btn(el, "approve").disabled).toBe(false);
    btn(el, "approve").click();
    expect(model.sent).toHaveLength(2);
    expect(err.hidden).toBe(true);
  });

  it("a rejected ack does not re-enable a card that is no longer pending", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.set("items", [card({ status: "done", decisions: { "int-1": { action: "reject" } }, decidedBy: "policy: reject-all" })]);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "already decided" });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.dataset.status).toBe("done");
    expect(btn(el, "approve").disabled).toBe(true);
    expect(c.querySelector(".agui-decision")?.textContent).toContain("rejected by policy: reject-all");
  });

  it("a refusal arriving after the card is done (another view won) is not shown", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.set("items", [card({ status: "done", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" })]);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "already done" });
    const err = /** @type {HTMLElement} */ (el.querySelector(".agui-ack-error"));
    expect(err.hidden).toBe(true);
    expect(err.textContent).toBe("");
  });

  it("an accepted ack keeps the card sending until Python updates it", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: true });
    model.set("items", [card(), { kind: "assistant", id: "a", text: "…", streaming: true }]);
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.dataset.status).toBe("sending");
    expect(btn(el, "approve").disabled).toBe(true);
  });

  it("a re-issued card (status back to pending with new interrupts) can be decided again", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.set("items", [card({ status: "sending" })]);
    model.set("items", [card({ interrupts: [toolInterrupt({ id: "int-2", reissued: true })] })]);
    expect(el.querySelector(".agui-reissued")?.textContent).toBe("re-issued");
    btn(el, "approve").click();
    expect(model.sent).toHaveLength(2);
    expect(model.sent[1].decisions).toEqual({ "int-2": { action: "approve" } });
  });
});

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
            toolInterrupt({ id: IMG, toolName: IMG, message: SCRIPT, args, argsSchema: { type: "object", properties: { [IMG]: { type: "string", title: LINK, description: IFRAME }, [JS]: { enum: [IMG, SCRIPT] } } } }),
            toolInterrupt({ id: "__proto__", toolName: JS, reason: IFRAME, mode: "free", message: LINK }),
          ],
          note: IFRAME,
          timeoutAt: new Date(Date.now() + 1e6).toISOString(),
          timeoutDefault: SCRIPT,
        }),
        card({ id: "c2", status: "failed", error: { title: IMG, message: SCRIPT }, decisions: { [IMG]: { action: IMG, reason: SCRIPT, payload: LINK } }, decidedBy: JS, interrupts: [toolInterrupt({ id: IMG })] }),
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
    expect(Object.getOwnPropertyDescriptor(model.sent[0].decisions, "__proto__")?.value).toEqual({ action: "answer", payload: IMG });
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
    const { el, model } = mount({ items: [card({ interrupts: [toolInterrupt({ args, argsSchema: { type: "object", properties: { [IMG]: { type: "string" } } } })] })] });
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
        { kind: "tool", id: "t", name: "big", args: { long, manyLines, bigList }, argsText: "", result: long, status: "done" },
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
    const { el } = mount({ items: [null, 42, "text", { kind: "card" }, { kind: "tool" }, { kind: "card", id: "x", interrupts: [null, { id: 5 }] }] });
    expect(el.querySelectorAll(".agui-item").length).toBe(6);
    assertInert(el);
  });
});
