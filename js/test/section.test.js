// section.js: how an interrupt is shown (tool, form or free answer) and labelled.
import { describe, expect, it } from "vitest";
import { buildSection, reasonLabel, resolveMode, subagentLabel } from "../src/section.js";

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
    const ctx = {
      isMulti: () => false,
      refresh: () => {},
      choose: (/** @type {any} */ s, /** @type {any} */ d) => chosen.push([s.id, d]),
    };
    const s = buildSection({ id: "i", toolName: "t", args: { a: 1 }, canEdit: false, canGiveReason: false }, ctx);
    expect(s.node.dataset.mode).toBe("tool");
    expect(s.node.getAttribute("aria-label")).toBe("Decision: t");
    /** @type {HTMLButtonElement} */ (s.node.querySelector('[data-action="reject"]')).click();
    expect(chosen).toEqual([["i", { action: "reject" }]]);
    s.showRecorded({ action: "edit", args: { a: 2 } }, "you", true);
    expect(s.node.querySelector(".agui-decision")?.textContent).toContain("approved with edited arguments by you");
  });

  const ctx = { isMulti: () => false, refresh: () => {}, choose: () => {} };

  it("says why a tool call has no Edit when the server's answer has no place for arguments", () => {
    const note = "Edit is unavailable: <i>no place</i>";
    const s = buildSection({ id: "i", toolName: "t", args: { a: 1 }, canEdit: false, editNote: note }, ctx);
    expect(s.node.querySelector('[data-action="edit"]')).toBeNull();
    expect(s.node.querySelector(".agui-edit-unavailable")?.textContent).toBe(note);
    expect(s.node.querySelector("i")).toBeNull(); // text, never HTML
    const editable = buildSection({ id: "i", toolName: "t", args: { a: 1 }, canEdit: true, editNote: note }, ctx);
    expect(editable.node.querySelector('[data-action="edit"]')).not.toBeNull();
    expect(editable.node.querySelector(".agui-edit-unavailable")).toBeNull();
  });

  it("says which subagent asked: its name, else its run id", () => {
    expect(subagentLabel({ subagentRunId: "sub-1", subagentName: "payments" })).toBe("payments");
    expect(subagentLabel({ subagentRunId: "sub-1", subagentName: null })).toBe("sub-1");
    expect(subagentLabel({ subagentRunId: null, subagentName: "payments" })).toBe("");
    const named = buildSection(
      { id: "i", toolName: "t", subagentRunId: "sub-1", subagentName: "<b>payments</b>" },
      ctx,
    );
    expect(named.node.querySelector(".agui-asked-by")?.textContent).toBe("Asked by subagent <b>payments</b>");
    expect(named.node.querySelector("b")).toBeNull();
    expect(
      buildSection({ id: "i", toolName: "t", subagentRunId: "sub-1" }, ctx).node.querySelector(".agui-asked-by")
        ?.textContent,
    ).toBe("Asked by subagent sub-1");
    expect(buildSection({ id: "i", toolName: "t" }, ctx).node.querySelector(".agui-asked-by")).toBeNull();
  });

  it("a form or a free answer shows what it is about: the call's arguments, or what is under review", () => {
    // CrewAI's named outcomes about a tool call: a string enum form, with the call's arguments.
    const form = buildSection(
      {
        id: "i",
        mode: "form",
        toolName: "transfer_money",
        args: { amount: 100 },
        responseSchema: { type: "string", enum: ["approved", "rejected"] },
        message: "Approve this call?",
      },
      ctx,
    );
    expect(form.node.dataset.mode).toBe("form");
    expect(form.node.querySelector(".agui-args .agui-label")?.textContent).toBe("Arguments");
    expect(form.node.querySelector(".agui-args th")?.textContent).toBe("amount");
    // A CrewAI step's output under review (no tool): a free answer, with the output shown.
    const free = buildSection(
      {
        id: "j",
        mode: "free",
        reason: "crewai:human_feedback",
        args: null,
        review: { draft: "Dear customer, <script>" },
        message: "Review this draft",
      },
      ctx,
    );
    expect(free.node.querySelector(".agui-args")).toBeNull();
    expect(free.node.querySelector(".agui-review .agui-label")?.textContent).toBe("Under review");
    expect(free.node.querySelector(".agui-review")?.textContent).toContain("Dear customer, <script>");
    expect(free.node.querySelector("script")).toBeNull();
    // Arguments without a tool name: under review too.
    const bare = buildSection({ id: "k", mode: "free", args: ["a", "b"] }, ctx);
    expect(bare.node.querySelector(".agui-args .agui-label")?.textContent).toBe("Under review");
    // Nothing to show: only the question, as before.
    const plain = buildSection({ id: "l", mode: "free", message: "Why?" }, ctx);
    expect(plain.node.querySelector(".agui-args, .agui-review")).toBeNull();
  });
});
