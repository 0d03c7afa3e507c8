// @ts-check
/**
 * The item list: one entry per item, kept by key (kind + id) so a streaming update never replaces
 * a node with focus, typed text or open sections in it, and its nodes in page containers.
 *
 * A long transcript must not make a push cost more. Two things keep it flat:
 * - a redraw looks only at the items after those that are the same objects at the same places as
 *   last time (an item of a page the kernel did not resend is the same object); only subagent
 *   groups make it place every row again (a group's members may be anywhere in the list);
 * - the top-level nodes sit in pages of PAGE_ITEMS (`.agui-page`, the items of one kernel page),
 *   and a page off screen skips style, layout and paint (`content-visibility: auto`): a click or
 *   a new card costs the pages on screen, not every item (measured: bench/first_paint.py).
 */
import { h } from "./dom.js";
import { unknownEntry } from "./items.js";
import { arrange, placeEntries } from "./subagents.js";
import { isObj } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {{item: any, entry: Entry, key: string}} Row */

/** Top-level entries per page container: item i goes in page floor(i / PAGE_ITEMS). */
export const PAGE_ITEMS = 32;

/** @param {any} item */
const kindOf = (item) => (isObj(item) && typeof item.kind === "string" ? item.kind : "unknown");

/** @param {any} item an item a subagent group places: the group itself, or one of its members */
const groups = (item) => isObj(item) && (item.kind === "subagent" || typeof item.subagent === "string");

/**
 * @param {HTMLElement} list the container of the pages
 * @param {(kind: string, item: any) => Entry} createEntry
 */
export function createItemList(list, createEntry) {
  /** @type {Map<string, Entry>} */
  const entries = new Map();
  /** The item each entry last drew, by key. @type {Map<string, unknown>} */
  const drawn = new Map();
  /** What the last draw drew, in order. @type {Row[]} */
  let rows = [];
  /** Where each of those keys was. @type {Map<string, number>} */
  let at = new Map();
  /** @type {HTMLElement[]} */
  const pages = [];

  /** @param {number} k */
  const pageAt = (k) => {
    while (pages.length <= k) {
      const page = h("div", { cls: "agui-page" });
      pages.push(page);
      list.append(page);
    }
    return pages[k];
  };

  /** @param {any} item @param {number} i @param {(key: string) => boolean} taken @returns {Row} */
  const drawRow = (item, i, taken) => {
    const kind = kindOf(item);
    const id = isObj(item) ? item.id : undefined;
    let key = typeof id === "string" || typeof id === "number" ? `${kind}\u0000${id}` : `\u0001${i}`;
    while (taken(key)) key += "\u0000";
    let entry = entries.get(key);
    try {
      if (entry && drawn.get(key) !== item) entry.update(item);
      else if (!entry) {
        entry = createEntry(kind, item);
        entries.set(key, entry);
      }
    } catch (e) {
      console.error("agui-chat: could not render an item", e);
      entry?.destroy();
      entry = unknownEntry(item, kind);
      entries.set(key, entry);
    }
    drawn.set(key, item);
    return { item, entry, key };
  };

  /** Draw `items`: entries made, updated, dropped and put in place; the rest untouched. @param {any[]} items */
  const draw = (items) => {
    let same = 0;
    const n = Math.min(items.length, rows.length);
    while (same < n && items[same] === rows[same].item) same++;
    /** @type {Map<string, number>} */
    const tailAt = new Map();
    const next = rows.slice(0, same);
    for (let i = same; i < items.length; i++) {
      const row = drawRow(items[i], i, (key) => tailAt.has(key) || (at.get(key) ?? Infinity) < same);
      tailAt.set(row.key, i);
      next.push(row);
    }
    for (const { key } of rows.slice(same)) {
      at.delete(key);
      if (tailAt.has(key)) continue;
      entries.get(key)?.destroy();
      entries.get(key)?.node.remove();
      entries.delete(key);
      drawn.delete(key);
    }
    for (const [key, i] of tailAt) at.set(key, i);
    rows = next;
    const count = Math.ceil(rows.length / PAGE_ITEMS);
    // Move only what is out of place: moving a node would drop focus inside it. Without groups
    // now, a row before `same` was never in one (it would still say so): it is in place.
    if (rows.some((row) => groups(row.item))) {
      const placed = placeEntries(rows, (i) => pageAt(Math.floor(i / PAGE_ITEMS)));
      for (let k = 0; k < count; k++) if (!placed.has(pageAt(k))) placed.set(pageAt(k), []);
      arrange(placed);
    } else {
      // No groups: page k holds rows k*PAGE_ITEMS.. in order; those before `same` are in place.
      for (let k = Math.floor(same / PAGE_ITEMS); k < count; k++) {
        const nodes = rows.slice(k * PAGE_ITEMS, (k + 1) * PAGE_ITEMS).map((row) => row.entry.node);
        arrange(new Map([[pageAt(k), nodes]]));
      }
    }
    for (const page of pages.splice(count)) page.remove();
  };

  const destroy = () => {
    for (const entry of entries.values()) entry.destroy();
    entries.clear();
    drawn.clear();
    rows = [];
    at = new Map();
  };

  return { draw, destroy };
}
