// Approval cards: one decide message per decision, multi-interrupt cards, the lifecycle with Python.
import { describe, expect, it } from "vitest";
import { btn, card, mount, toolInterrupt, type } from "./helpers.js";

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
    const { el, model } = mount({
      items: [card({ interrupts: [toolInterrupt({ canGiveReason: false, canEdit: false })] })],
    });
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
    expect(model.sent[0]).toMatchObject({
      decisions: { "int-1": { action: "approve" } },
      alwaysAllow: ["transfer_money"],
    });
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
          decisions: {
            "i-a": { action: "reject", reason: "policy says no", args: null, payload: null },
            "i-b": { action: "cancel", reason: null, args: null, payload: null },
          },
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
      items: [
        card({
          status: "done",
          decisions: { "int-1": { action: "edit", reason: null, args: { amount: 5 }, payload: null } },
          decidedBy: "you",
        }),
      ],
    });
    const d = /** @type {HTMLElement} */ (el.querySelector(".agui-decision"));
    expect(d.textContent).toContain("approved with edited arguments by you");
    expect(d.textContent).toContain("amount");
  });
});

describe("lifecycle with Python", () => {
  it("status failed shows the error and Retry, which sends retry once", () => {
    const { el, model } = mount({
      items: [
        card({
          status: "failed",
          decisions: { "int-1": { action: "approve" } },
          decidedBy: "you",
          error: { title: "Resume failed", message: "HTTP 502 from the agent" },
        }),
      ],
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
    model.set("items", [
      card({ status: "done", decisions: { "int-1": { action: "reject" } }, decidedBy: "policy: reject-all" }),
    ]);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "already decided" });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    expect(c.dataset.status).toBe("done");
    expect(btn(el, "approve").disabled).toBe(true);
    expect(c.querySelector(".agui-decision")?.textContent).toContain("rejected by policy: reject-all");
  });

  it("a late click is told what happened, once, as a note and not as an error", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    const done = card({
      status: "done",
      decisions: { "int-1": { action: "cancel" } },
      decidedBy: "timeout: cancel after 600 s",
    });
    model.set("items", [done]);
    const said = "Your Approve arrived after the timeout had cancelled; nothing was sent.";
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: said, late: true });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    const late = /** @type {HTMLElement} */ (c.querySelector(".agui-late"));
    expect(late.hidden).toBe(false);
    expect(late.textContent).toBe(said);
    expect(late.getAttribute("role")).toBe("status");
    expect(late.classList.contains("agui-error")).toBe(false);
    expect(/** @type {HTMLElement} */ (c.querySelector(".agui-ack-error")).hidden).toBe(true);
    expect(c.querySelectorAll(".agui-late")).toHaveLength(1);
    // The card moving on (the audit, another update) keeps what happened on screen.
    model.set("items", [{ ...done, note: "something else" }]);
    expect(late.hidden).toBe(false);
    expect(late.textContent).toBe(said);
    expect(c.dataset.status).toBe("done");
  });

  it("in a race of two views, only the losing view hears of it", () => {
    const winner = mount({ items: [card()] });
    const loser = mount({ items: [card()] });
    btn(winner.el, "approve").click();
    btn(loser.el, "reject").click();
    const sending = card({ status: "sending", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" });
    for (const v of [winner, loser]) v.model.set("items", [sending]);
    winner.model.emitCustom({ type: "ack", requestId: winner.model.sent[0].requestId, accepted: true });
    const said = "Your Reject arrived after another click had approved; only that decision was sent.";
    loser.model.emitCustom({
      type: "ack",
      requestId: loser.model.sent[0].requestId,
      accepted: false,
      error: said,
      late: true,
    });
    // Both views hear every ack of the one model: each takes only its own.
    winner.model.emitCustom({
      type: "ack",
      requestId: loser.model.sent[0].requestId,
      accepted: false,
      error: said,
      late: true,
    });
    const done = card({ status: "done", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" });
    for (const v of [winner, loser]) v.model.set("items", [done]);
    const note = (/** @type {HTMLElement} */ root) => /** @type {HTMLElement} */ (root.querySelector(".agui-late"));
    expect(note(winner.el).hidden).toBe(true);
    expect(note(loser.el).hidden).toBe(false);
    expect(note(loser.el).textContent).toBe(said);
    for (const v of [winner, loser]) {
      expect(/** @type {HTMLElement} */ (v.el.querySelector(".agui-ack-error")).hidden).toBe(true);
      expect(v.el.querySelector(".agui-decision")?.textContent).toContain("approved by you");
    }
  });

  it("a refusal after the card moved on, without the late mark, is still said", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.set("items", [card({ status: "done", decisions: { "int-1": { action: "approve" } }, decidedBy: "you" })]);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "already done" });
    expect(el.querySelector(".agui-late")?.textContent).toBe(
      "Your click arrived after this card was decided (already done); nothing was sent.",
    );
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-ack-error")).hidden).toBe(true);
  });

  it("a card asking again (re-issued) drops the earlier late note", () => {
    const { el, model } = mount({ items: [card()] });
    btn(el, "approve").click();
    model.set("items", [
      card({ status: "done", decisions: { "int-1": { action: "cancel" } }, decidedBy: "policy: x" }),
    ]);
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: false, error: "late", late: true });
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-late")).hidden).toBe(false);
    model.set("items", [card({ interrupts: [toolInterrupt({ id: "int-2", reissued: true })] })]);
    expect(/** @type {HTMLElement} */ (el.querySelector(".agui-late")).hidden).toBe(true);
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

describe("who decided and several approvers (Python writes the words)", () => {
  it("a done card's status line shows Python's verdict: Approved by NAME", () => {
    const { el } = mount({
      items: [
        card({
          status: "done",
          decisions: { "int-1": { action: "approve" } },
          decidedBy: "Ada Lovelace",
          verdict: "Approved by Ada Lovelace",
        }),
      ],
    });
    expect(el.querySelector(".agui-card-status")?.textContent).toBe("Approved by Ada Lovelace");
    expect(el.querySelector(".agui-decision")?.textContent).toContain("approved by Ada Lovelace");
  });

  it("a pending card shows the count, and an approval counted while more are needed leaves it clickable", () => {
    const approvals = {
      count: 1,
      needed: 2,
      names: ["Ada"],
      text: "1 of 2 approvals: Ada",
      missing: "one more approval is needed",
      edited: false,
    };
    const { el, model } = mount({ items: [card()] });
    const c = /** @type {HTMLElement} */ (el.querySelector(".agui-card"));
    btn(c, "approve").click();
    expect(c.dataset.status).toBe("sending");
    model.emitCustom({ type: "ack", requestId: model.sent[0].requestId, accepted: true, waiting: true });
    model.set("items", [card({ approvals })]);
    expect(c.dataset.status).toBe("pending");
    expect(c.querySelector(".agui-card-status")?.textContent).toBe(
      "1 of 2 approvals: Ada; one more approval is needed",
    );
    expect(btn(c, "approve").disabled).toBe(false);
  });

  it("text from the kernel is shown as text, never as HTML", () => {
    const { el } = mount({
      items: [
        card({
          status: "done",
          decisions: { "int-1": { action: "approve" } },
          decidedBy: "x",
          verdict: "Approved by <img src=x onerror=alert(1)>",
        }),
      ],
    });
    expect(el.querySelector(".agui-card-status img")).toBeNull();
    expect(el.querySelector(".agui-card-status")?.textContent).toContain("<img");
  });
});
