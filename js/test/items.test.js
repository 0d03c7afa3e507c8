// items.js: the plain entries update their own node in place and show every field as text.
import { describe, expect, it } from "vitest";
import {
  assistantEntry,
  errorEntry,
  itemShell,
  noticeEntry,
  reasoningEntry,
  toolEntry,
  unknownEntry,
  userEntry,
} from "../src/items.js";

describe("entries", () => {
  it("an item shell carries kind and id", () => {
    const node = itemShell("user", { id: 7 }, "agui-user");
    expect(node.className).toBe("agui-item agui-user");
    expect(node.dataset.kind).toBe("user");
    expect(node.dataset.itemId).toBe("7");
    expect(itemShell("user", { id: { no: 1 } }, "x").hasAttribute("data-item-id")).toBe(false);
  });

  it("text entries update the same text node as the text streams", () => {
    for (const make of [userEntry, assistantEntry, reasoningEntry]) {
      const entry = make({ id: "1", text: "Hel", streaming: true });
      const textNode = entry.node.querySelector(".agui-text")?.firstChild;
      entry.update({ id: "1", text: "Hello", streaming: false });
      expect(entry.node.querySelector(".agui-text")?.firstChild).toBe(textNode);
      expect(textNode?.textContent).toBe("Hello");
    }
    const a = assistantEntry({ text: "x", streaming: true });
    expect(a.node.classList.contains("agui-streaming")).toBe(true);
    a.update({ text: "x", streaming: false });
    expect(a.node.classList.contains("agui-streaming")).toBe(false);
    const r = reasoningEntry({ text: "x", streaming: true });
    expect(r.node.querySelector("summary")?.textContent).toBe("Reasoning (thinking…)");
  });

  it("reasoning with an encrypted value stays collapsed and says the value is kept, even with no text", () => {
    const r = reasoningEntry({ id: "r", text: "Summary only.", streaming: false, encrypted: false });
    const details = /** @type {HTMLDetailsElement} */ (r.node.querySelector("details"));
    const note = /** @type {HTMLElement} */ (r.node.querySelector(".agui-encrypted"));
    expect(note.hidden).toBe(true);
    expect(r.node.querySelector("summary")?.textContent).toBe("Reasoning");
    r.update({ id: "r", text: "Summary only.", streaming: false, encrypted: true });
    expect(details.open).toBe(false);
    expect(r.node.querySelector("summary")?.textContent).toBe("Reasoning · encrypted part kept");
    expect(note.hidden).toBe(false);
    expect(note.textContent).toContain("the client keeps it");
    expect(note.textContent).toContain("sends it back to the agent unread");
    const only = reasoningEntry({ id: "r2", text: "", streaming: false, encrypted: true });
    expect(only.node.querySelector("summary")?.textContent).toBe("Reasoning · encrypted, kept");
    expect(/** @type {HTMLElement} */ (only.node.querySelector(".agui-text")).hidden).toBe(true);
    expect(/** @type {HTMLDetailsElement} */ (only.node.querySelector("details")).open).toBe(false);
  });

  it("a JSON-encoded result (resultValue) shows as a value tree, not a quoted string", () => {
    const t = toolEntry({
      id: "t",
      name: "lookup",
      args: {},
      argsText: "{}",
      result: '{"balance": 1200}',
      resultValue: { balance: 1200 },
      status: "done",
    });
    expect(t.node.querySelector(".agui-result th")?.textContent).toBe("balance");
    expect(t.node.querySelector(".agui-result")?.textContent).not.toContain('{"balance"');
    t.update({
      id: "t",
      name: "lookup",
      args: {},
      argsText: "{}",
      result: "plain",
      resultValue: "plain",
      status: "done",
    });
    expect(t.node.querySelector(".agui-result th")).toBeNull();
    expect(t.node.querySelector(".agui-result")?.textContent).toContain("plain");
  });

  it("a tool shows its status, arguments as they stream, then the parsed arguments and the result", () => {
    const t = toolEntry({
      id: "t",
      name: "lookup",
      args: null,
      argsText: '{"q": "re',
      result: null,
      status: "streaming",
    });
    expect(t.node.dataset.status).toBe("streaming");
    expect(t.node.querySelector(".agui-badge")?.textContent).toBe("receiving arguments…");
    expect(t.node.querySelector(".agui-args-text")?.textContent).toBe('{"q": "re');
    expect(/** @type {HTMLElement} */ (t.node.querySelector(".agui-result")).hidden).toBe(true);
    t.update({ id: "t", name: "lookup", args: { q: "rent" }, argsText: "", result: "42", status: "done" });
    expect(t.node.querySelector(".agui-badge")?.textContent).toBe("done");
    expect(t.node.querySelector(".agui-args th")?.textContent).toBe("q");
    expect(t.node.querySelector(".agui-result")?.textContent).toContain("42");
    t.update({ id: "t", name: "lookup", args: null, argsText: "", result: null, status: "weird" });
    expect(t.node.querySelector(".agui-badge")?.textContent).toBe("weird");
    expect(t.node.querySelector(".agui-args")?.textContent).toBe("(no arguments)");
  });

  it("errors, notices and unknown kinds", () => {
    const e = errorEntry({ title: "", message: "boom", hint: "" });
    expect(e.node.getAttribute("role")).toBe("alert");
    expect(e.node.querySelector(".agui-error-title")?.textContent).toBe("Error");
    expect(/** @type {HTMLElement} */ (e.node.querySelector(".agui-hint")).hidden).toBe(true);
    const n = noticeEntry({ text: "<b>note</b>" });
    expect(n.node.textContent).toBe("<b>note</b>");
    const u = unknownEntry({ kind: "future", x: 1 }, "future");
    expect(u.kind).toBe("future");
    expect(u.node.textContent).toContain('Item of unknown kind "future"');
    expect(u.node.textContent).toContain('"x": 1');
  });
});
