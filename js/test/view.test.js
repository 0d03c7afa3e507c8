// The view shell: every item kind in order, the header, state and audit; keyed reconciliation.
import { describe, expect, it, vi } from "vitest";
import { btn, card, fieldInputOrJson, mount, toolInterrupt, type } from "./helpers.js";

describe("rendering items", () => {
  it("renders every item kind in order, plus status, state and audit", () => {
    const { el } = mount({
      status: "running",
      items: [
        { kind: "user", id: "u1", text: "Pay my rent" },
        { kind: "reasoning", id: "r1", text: "thinking about rent", streaming: false },
        { kind: "assistant", id: "a1", text: "Sure.\n  Let me check.", streaming: true },
        {
          kind: "tool",
          id: "tc-0",
          name: "lookup",
          args: { q: "rent", nested: { list: [1, { deep: true }] } },
          argsText: "",
          result: "42 EUR",
          status: "done",
        },
        {
          kind: "tool",
          id: "tc-s",
          name: "partial",
          args: null,
          argsText: '{"q": "re',
          result: null,
          status: "streaming",
        },
        card(),
        { kind: "error", id: "e1", title: "Server error", message: "boom", hint: "try again" },
        { kind: "notice", id: "n1", text: "run cancelled by the server" },
        { kind: "mystery", id: "m1", text: "future kind" },
      ],
      state: { balance: 1200, history: [{ amount: 5 }] },
      audit: [{ time: "12:00", tool: "transfer_money", decision: "approve" }],
    });
    const kinds = [...el.querySelectorAll(".agui-page > .agui-item")].map(
      (n) => /** @type {HTMLElement} */ (n).dataset.kind,
    );
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

  it("says how many decisions there are when the kernel sends only the last of them", () => {
    const rows = (/** @type {number} */ n) => Array.from({ length: n }, (_, i) => ({ tool: `t${i}` }));
    const { el, model } = mount({ audit: rows(2) }); // saved before audit_count: all of them
    const summary = () => el.querySelector("details.agui-audit summary")?.textContent;
    expect(summary()).toBe("Audit (2)");
    model.set("audit", rows(3));
    model.set("audit_count", 3);
    expect(summary()).toBe("Audit (3)");
    model.set("audit_count", 120);
    expect(summary()).toBe("Audit (120; the last 3 shown, all in chat.audit)");
    expect(el.querySelectorAll("details.agui-audit tbody tr").length).toBe(3);
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

  it("says how the turn ended once the view is idle, in the static transcript's words", () => {
    const { el, model } = mount({ status: "running", outcome: null });
    const header = () => el.querySelector(".agui-status")?.textContent;
    expect(header()).toBe("running…");
    model.set("status", "idle");
    expect(header()).toBe("idle");
    model.set("outcome", "success");
    expect(header()).toBe("finished");
    model.set("outcome", "aborted");
    expect(header()).toBe("stopped: aborted");
    model.set("outcome", "something-new");
    expect(header()).toBe("finished: something-new");
    model.set("status", "running"); // a new turn: the header follows the status again
    expect(header()).toBe("running…");
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
      {
        kind: "tool",
        id: "tc-0",
        name: "lookup",
        args: { long: "x".repeat(1000) },
        argsText: "",
        result: null,
        status: "called",
      },
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

describe("items held in pages (child models the pages trait refers to)", () => {
  /** A widget manager over fake page models; get_model resolves on the next microtask. */
  const pagesOf = (/** @type {Record<string, any[]>} */ byId) => {
    /** @type {Record<string, ReturnType<typeof mount>["model"]>} */
    const models = {};
    for (const [id, items] of Object.entries(byId)) models[id] = mount({ items }).model;
    document.body.replaceChildren();
    return {
      models,
      widget_manager: {
        get_model: (/** @type {string} */ id) =>
          models[id] ? Promise.resolve(models[id]) : Promise.reject(new Error(`no ${id}`)),
      },
    };
  };
  const flush = () => new Promise((r) => setTimeout(r, 0));
  const ids = (/** @type {HTMLElement} */ el) =>
    [...el.querySelectorAll(".agui-page > .agui-item")].map((n) => /** @type {HTMLElement} */ (n).dataset.itemId);

  it("shows the pages' items in order, follows a page's change and a new page", async () => {
    const { models, widget_manager } = pagesOf({
      p1: [
        { kind: "user", id: "u1", text: "one" },
        { kind: "assistant", id: "a1", text: "two" },
      ],
      p2: [{ kind: "notice", id: "n1", text: "three" }],
      p3: [{ kind: "user", id: "u2", text: "four" }],
    });
    const { el, model } = mount({ pages: ["IPY_MODEL_p1", "IPY_MODEL_p2"] });
    Object.assign(model, { widget_manager });
    model.set("pages", ["IPY_MODEL_p1", "IPY_MODEL_p2"]);
    await flush();
    expect(ids(el)).toEqual(["u1", "a1", "n1"]);
    const assistant = el.querySelector(".agui-assistant");
    models.p2.set("items", [{ kind: "notice", id: "n1", text: "three!" }]);
    expect(el.querySelector(".agui-notice")?.textContent).toBe("three!");
    expect(el.querySelector(".agui-assistant")).toBe(assistant); // not redrawn
    model.set("pages", ["IPY_MODEL_p1", "IPY_MODEL_p2", "IPY_MODEL_p3"]);
    await flush();
    expect(ids(el)).toEqual(["u1", "a1", "n1", "u2"]);
    model.set("pages", ["IPY_MODEL_p1"]);
    expect(ids(el)).toEqual(["u1", "a1"]);
    models.p3.set("items", [{ kind: "user", id: "u9", text: "gone" }]); // no longer listened to
    expect(ids(el)).toEqual(["u1", "a1"]);
  });

  it("a page's change redraws that page's entries only, not the unchanged pages'", async () => {
    const { models, widget_manager } = pagesOf({
      p1: [{ kind: "assistant", id: "a1", text: "kept" }],
      p2: [{ kind: "notice", id: "n1", text: "three" }],
    });
    const { el, model } = mount({});
    Object.assign(model, { widget_manager });
    model.set("pages", ["IPY_MODEL_p1", "IPY_MODEL_p2"]);
    await flush();
    const text = /** @type {HTMLElement} */ (el.querySelector(".agui-assistant .agui-text"));
    if (text.firstChild) /** @type {Text} */ (text.firstChild).data = "marked"; // an update would reset it
    models.p2.set("items", [{ kind: "notice", id: "n1", text: "three!" }]);
    expect(el.querySelector(".agui-notice")?.textContent).toBe("three!");
    expect(text.textContent).toBe("marked"); // p1's item is the same object: not redrawn
    models.p1.set("items", [{ kind: "assistant", id: "a1", text: "kept" }]); // a new object
    expect(text.textContent).toBe("kept");
  });

  it("a page that cannot be read leaves the others shown", async () => {
    const { widget_manager } = pagesOf({ p1: [{ kind: "user", id: "u1", text: "one" }] });
    const { el, model } = mount({});
    Object.assign(model, { widget_manager });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    model.set("pages", ["IPY_MODEL_missing", "IPY_MODEL_p1"]);
    await flush();
    expect(ids(el)).toEqual(["u1"]);
    expect(errors).toHaveBeenCalled();
    errors.mockRestore();
  });
});
