// subagents.js and the view: a subagent's items inside its collapsible group, wherever they are in
// the list; nested groups; status, name, description and error as text; no circles, no links.
import { describe, expect, it } from "vitest";
import { arrange, placeEntries, subagentEntry } from "../src/subagents.js";
import { card, mount, toolInterrupt } from "./helpers.js";

const group = (/** @type {string} */ id, /** @type {any} */ over = {}) => ({
  kind: "subagent",
  id: `subagent:${id}`,
  subagentRunId: id,
  name: null,
  description: null,
  parentSubagentRunId: null,
  parentToolCallId: null,
  status: "running",
  error: null,
  subagent: null,
  ...over,
});
const say = (/** @type {string} */ id, /** @type {string} */ text, /** @type {string | null} */ subagent) => ({
  kind: "assistant",
  id,
  text,
  streaming: false,
  subagent,
});
const tool = (/** @type {string} */ id, /** @type {string} */ name, /** @type {string | null} */ subagent) => ({
  kind: "tool",
  id: `tool:${id}`,
  name,
  args: {},
  argsText: "",
  result: null,
  resultValue: null,
  resultParts: null,
  status: "called",
  subagent,
  encrypted: false,
});

/** @param {Element | null | undefined} box */
const ids = (box) => [...(box?.children ?? [])].map((n) => /** @type {HTMLElement} */ (n).dataset.itemId);
/** The list's top-level items, page after page. @param {Element} el */
const topIds = (el) =>
  [...el.querySelectorAll(".agui-items > .agui-page > .agui-item")].map(
    (n) => /** @type {HTMLElement} */ (n).dataset.itemId,
  );
/** @param {Element} el @param {string} id */
const groupBox = (el, id) =>
  /** @type {HTMLElement} */ (el.querySelector(`.agui-subagent[data-item-id="subagent:${id}"]`));
/** @param {Element} el @param {string} id */
const members = (el, id) => ids(groupBox(el, id).querySelector(".agui-subagent-items"));

describe("subagent groups in the view", () => {
  it("puts each item in its group in list order, even far apart and interleaved, nested under its parent", () => {
    const items = [
      { kind: "user", id: "u", text: "Pay the bills" },
      tool("call-1", "delegate", null),
      group("A", { name: "payments", description: "The payments specialist", parentToolCallId: "call-1" }),
      group("B", { name: "research" }),
      say("a1", "A starts", "A"),
      say("b1", "B starts", "B"),
      group("C", { name: "checker", subagent: "A", parentSubagentRunId: "A" }),
      say("c1", "C checks", "C"),
      tool("t-a", "transfer_money", "A"),
      say("top", "Parent agent", null),
      say("a2", "A continues in a later run", "A"),
      { kind: "notice", id: "orphan", text: "tagged with an unknown subagent", subagent: "Z" },
    ];
    const { el } = mount({ items });
    expect(topIds(el)).toEqual(["u", "tool:call-1", "subagent:A", "subagent:B", "top", "orphan"]);
    expect(members(el, "A")).toEqual(["a1", "subagent:C", "tool:t-a", "a2"]);
    expect(members(el, "B")).toEqual(["b1"]);
    expect(members(el, "C")).toEqual(["c1"]);
    const a = groupBox(el, "A");
    const details = /** @type {HTMLDetailsElement} */ (a.querySelector("details"));
    expect(details.open).toBe(true);
    expect(a.querySelector("summary")?.textContent).toBe(
      "Subagent payments running… · The payments specialist · 4 items",
    );
    expect(a.querySelector(".agui-subagent-parent")?.textContent).toBe("Started by the tool call delegate (call-1)");
    expect(a.querySelectorAll("a").length).toBe(0);
    expect(groupBox(el, "C").querySelector(".agui-subagent-parent")?.hidden).toBe(true);
  });

  it("updates a group in place: status badge, suspended, done, error; a person's collapse is kept", () => {
    const { el, model } = mount({ items: [group("A", { name: "payments" }), say("a1", "one", "A")] });
    const a = groupBox(el, "A");
    const details = /** @type {HTMLDetailsElement} */ (a.querySelector("details"));
    details.open = false; // the person collapsed it
    const badge = () => a.querySelector(".agui-badge");
    model.set("items", [group("A", { name: "payments", status: "suspended" }), say("a1", "one", "A"), card()]);
    expect(groupBox(el, "A")).toBe(a);
    expect(details.open).toBe(false);
    expect(a.dataset.status).toBe("suspended");
    expect(badge()?.textContent).toBe("suspended: waiting for an answer");
    model.set("items", [
      group("A", { name: "payments", status: "done" }),
      say("a1", "one", "A"),
      say("a2", "two", "A"),
      card({ status: "done" }),
    ]);
    expect(badge()?.textContent).toBe("done");
    expect(members(el, "A")).toEqual(["a1", "a2"]);
    expect(a.querySelector(".agui-subagent-count")?.textContent).toBe(" · 2 items");
    model.set("items", [
      group("A", { name: "payments", status: "error", error: '<img src=x onerror="alert(1)">' }),
      say("a1", "one", "A"),
    ]);
    const error = /** @type {HTMLElement} */ (a.querySelector(".agui-subagent-error"));
    expect(error.hidden).toBe(false);
    expect(error.textContent).toBe('<img src=x onerror="alert(1)">');
    expect(a.querySelectorAll("img").length).toBe(0);
  });

  it("an unannounced group shows its id and no badge; a streaming update moves nothing", () => {
    const { el, model } = mount({ items: [group("sub-9", { status: null }), say("x", "hel", "sub-9")] });
    const g = groupBox(el, "sub-9");
    expect(g.dataset.status).toBe("unannounced");
    expect(g.querySelector(".agui-subagent-name")?.textContent).toBe("sub-9");
    expect(/** @type {HTMLElement} */ (g.querySelector(".agui-badge")).hidden).toBe(true);
    const text = /** @type {HTMLElement} */ (g.querySelector('[data-item-id="x"]'));
    const parent = text.parentNode;
    model.set("items", [group("sub-9", { status: null }), say("x", "hello", "sub-9")]);
    expect(g.querySelector('[data-item-id="x"]')).toBe(text);
    expect(text.parentNode).toBe(parent);
    expect(text.textContent).toBe("hello");
  });

  it("circles and self-parents stay at the top instead of hanging the view", () => {
    const { el } = mount({
      items: [
        group("A", { subagent: "B" }),
        group("B", { subagent: "A" }),
        group("S", { subagent: "S" }),
        say("a", "in A", "A"),
        say("s", "in S", "S"),
      ],
    });
    expect(topIds(el)).toEqual(["subagent:A", "subagent:B", "subagent:S"]);
    expect(members(el, "A")).toEqual(["a"]);
    expect(members(el, "S")).toEqual(["s"]);
  });

  it("when a group disappears its items return to the top; a group's card names the subagent", () => {
    const { el, model } = mount({ items: [group("A", { name: "payments" }), say("a1", "one", "A")] });
    model.set("items", [
      say("a1", "one", "A"),
      card({ interrupts: [toolInterrupt({ subagentRunId: "A", subagentName: "payments" })] }),
    ]);
    expect(topIds(el)).toEqual(["a1", "card-1"]);
    expect(el.querySelector(".agui-subagent")).toBeNull();
    expect(el.querySelector(".agui-card .agui-asked-by")?.textContent).toBe("Asked by subagent payments");
  });
});

describe("placing entries", () => {
  it("moves only what is out of place", () => {
    const top = document.createElement("div");
    const g = subagentEntry(group("A"));
    const row = (/** @type {any} */ item) => ({
      item,
      entry: { node: document.createElement("p"), kind: item.kind, update() {}, destroy() {} },
    });
    const x = row(say("x", "", "A"));
    const y = row(say("y", "", null));
    const rows = [{ item: group("A"), entry: g }, x, y];
    arrange(placeEntries(rows, top));
    expect([...top.children]).toEqual([g.node, y.entry.node]);
    expect(x.entry.node.parentNode).toBe(g.children);
    const moves = [];
    const observer = new MutationObserver((records) => moves.push(...records));
    observer.observe(top, { childList: true, subtree: true });
    arrange(placeEntries(rows, top));
    observer.disconnect();
    expect(moves).toEqual([]);
  });
});
