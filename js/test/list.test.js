// list.js: the item list drawn by key into pages. Its fast path (a redraw looks only at the items
// after those that are the same objects at the same places) is held to the general behaviour: a
// list redrawn through random changes draws what a fresh list of the same items draws.
import { describe, expect, it } from "vitest";
import { assistantEntry, noticeEntry, userEntry } from "../src/items.js";
import { createItemList, PAGE_ITEMS } from "../src/list.js";
import { subagentEntry } from "../src/subagents.js";

/** @param {string} kind @param {any} item */
const createEntry = (kind, item) => {
  if (kind === "user") return userEntry(item);
  if (kind === "assistant") return assistantEntry(item);
  if (kind === "subagent") return subagentEntry(item);
  return noticeEntry(item);
};

/** @returns {{el: HTMLElement, list: ReturnType<typeof createItemList>}} */
const fresh = () => {
  const el = document.createElement("div");
  document.body.append(el);
  return { el, list: createItemList(el, createEntry) };
};

/** The drawn structure: pages, and in each the items (id, text), groups with their members. */
const shape = (/** @type {Element} */ box) =>
  [...box.children].map((/** @type {any} */ n) =>
    n.classList.contains("agui-page") || n.classList.contains("agui-subagent-items")
      ? { box: n.className, items: shape(n) }
      : n.dataset.kind === "subagent"
        ? { id: n.dataset.itemId, members: shape(n.querySelector(".agui-subagent-items")) }
        : `${n.dataset.itemId}:${n.textContent}`,
  );

/** A deterministic pseudo-random sequence, so a failure replays. @param {number} seed */
const random = (seed) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

describe("the item list", () => {
  it("puts item i in page floor(i / PAGE_ITEMS), and drops pages it no longer needs", () => {
    const { el, list } = fresh();
    const items = Array.from({ length: 2 * PAGE_ITEMS + 1 }, (_, n) => ({ kind: "user", id: `u${n}`, text: `${n}` }));
    list.draw(items);
    const pages = [...el.children];
    expect(pages.map((p) => p.className)).toEqual(["agui-page", "agui-page", "agui-page"]);
    expect(pages.map((p) => p.children.length)).toEqual([PAGE_ITEMS, PAGE_ITEMS, 1]);
    expect(/** @type {HTMLElement} */ (pages[1].firstElementChild).dataset.itemId).toBe(`u${PAGE_ITEMS}`);
    list.draw(items.slice(0, PAGE_ITEMS));
    expect(el.children.length).toBe(1);
    list.draw([]);
    expect(el.children.length).toBe(0);
  });

  it("a change at the end touches neither the earlier pages' nodes nor their entries", () => {
    const el = document.createElement("div");
    document.body.append(el);
    /** @type {string[]} */
    const updated = [];
    const list = createItemList(el, (kind, item) => {
      const entry = createEntry(kind, item);
      const update = entry.update;
      entry.update = (/** @type {any} */ it) => {
        updated.push(it.id);
        return update(it);
      };
      return entry;
    });
    let items = Array.from({ length: 3 * PAGE_ITEMS + 5 }, (_, n) => ({
      kind: "assistant",
      id: `a${n}`,
      text: `${n}`,
    }));
    list.draw(items);
    const moves = /** @type {MutationRecord[]} */ ([]);
    const observer = new MutationObserver((records) => moves.push(...records));
    for (const page of [...el.children].slice(0, 3))
      observer.observe(page, { childList: true, subtree: true, characterData: true });
    // The kernel resends the last page: its items are new objects, the others the same ones.
    const last = 3 * PAGE_ITEMS;
    items = [
      ...items.slice(0, last),
      ...items.slice(last).map((it) => ({ ...it })),
      { kind: "assistant", id: "new", text: "new" },
    ];
    list.draw(items);
    observer.disconnect();
    expect(moves).toEqual([]);
    expect(updated).toEqual(items.slice(last, -1).map((it) => it.id));
    expect(el.lastElementChild?.lastElementChild?.textContent).toBe("new");
  });

  it("a group that goes gives back its members, even those pages before it", () => {
    const { el, list } = fresh();
    const member = { kind: "assistant", id: "m", text: "member", subagent: "S" };
    const filler = Array.from({ length: PAGE_ITEMS + 8 }, (_, n) => ({ kind: "user", id: `u${n}`, text: `${n}` }));
    const group = {
      kind: "subagent",
      id: "subagent:S",
      subagentRunId: "S",
      name: "s",
      status: "running",
      subagent: null,
    };
    list.draw([member, ...filler, group]);
    expect(el.querySelector(".agui-subagent-items")?.firstElementChild?.getAttribute("data-item-id")).toBe("m");
    list.draw([member, ...filler]);
    expect(el.firstElementChild?.firstElementChild?.getAttribute("data-item-id")).toBe("m");
    const other = fresh();
    other.list.draw([member, ...filler]);
    expect(shape(el)).toEqual(shape(other.el));
  });

  it("draws what a fresh list of the same items draws, whatever the changes, and keeps entries", () => {
    const next = random(11);
    const { el, list } = fresh();
    /** @type {any[]} */
    let items = [];
    let counter = 0;
    const make = () => {
      const r = next();
      const n = counter++;
      if (r < 0.06)
        return {
          kind: "subagent",
          id: `subagent:S${n % 5}`,
          subagentRunId: `S${n % 5}`,
          name: `s${n % 5}`,
          status: "running",
          subagent: null,
        };
      if (r < 0.14) return { kind: "assistant", id: `m${n}`, text: `member ${n}`, subagent: `S${n % 5}` };
      if (r < 0.2) return { kind: "notice", text: `no id ${n}` }; // keyed by its place
      if (r < 0.25 && items.length) return { ...items[Math.floor(next() * items.length)], text: `same id ${n}` }; // a repeated key
      return { kind: next() < 0.5 ? "user" : "assistant", id: `i${n}`, text: `text ${n}` };
    };
    for (let step = 0; step < 80; step++) {
      const r = next();
      const at = Math.floor(next() * (items.length + 1));
      if (r < 0.4 || items.length === 0) {
        items = [...items, ...Array.from({ length: 1 + Math.floor(next() * 24) }, make)];
        if (items.length > 4 * PAGE_ITEMS) items = items.slice(PAGE_ITEMS); // bounded, so the test stays quick
      } else if (r < 0.6) {
        // a page resent: the same items as new objects from a page boundary on
        const from = Math.floor(at / PAGE_ITEMS) * PAGE_ITEMS;
        items = [...items.slice(0, from), ...items.slice(from).map((it) => ({ ...it }))];
        if (items.length > from) items[items.length - 1] = { ...items[items.length - 1], text: `changed ${step}` };
      } else if (r < 0.72) {
        const k = Math.min(at, items.length - 1);
        items = [...items.slice(0, k), { ...items[k], text: `changed ${step}` }, ...items.slice(k + 1)];
      } else if (r < 0.82) {
        items = [...items.slice(0, at), ...items.slice(at + 1 + Math.floor(next() * 3))];
      } else if (r < 0.92) {
        items = [...items.slice(0, at), make(), ...items.slice(at)];
      } else if (r < 0.94) {
        items = items.filter((it) => !(it.kind === "subagent" || typeof it.subagent === "string"));
      } else if (r < 0.96) {
        items = items.filter((it) => it.kind !== "subagent"); // the groups go, their members stay
      } else {
        items = [...items].reverse();
      }
      const firstId = items.find((it) => typeof it.id === "string" && it.kind !== "subagent")?.id;
      const kept = firstId ? el.querySelector(`[data-item-id="${firstId}"]`) : null;
      list.draw(items);
      const other = fresh();
      other.list.draw(items);
      expect(shape(el)).toEqual(shape(other.el));
      other.list.destroy();
      other.el.remove();
      if (kept && el.querySelector(`[data-item-id="${firstId}"]`)) expect(el.contains(kept)).toBe(true); // kept, not rebuilt
    }
    expect(counter).toBeGreaterThan(4 * PAGE_ITEMS); // the list spanned several pages
  });
});
