// @ts-check
/**
 * Subagents: each `subagent` item is a collapsible group (its name, description, a status badge,
 * its error as text) holding the items that carry its subagentRunId, in list order, wherever they
 * are in the list (parallel subagents interleave; a suspended one continues in a later run). A
 * group sits inside the group of the invocation that spawned it. The tool call that started it
 * is named as text, never as a link.
 *
 * `placeEntries` decides, for the whole list, which container each entry's node goes in; the
 * list (list.js) moves only the nodes that are out of place (moving a node drops focus inside it).
 */
import { h } from "./dom.js";
import { itemShell } from "./items.js";
import { fmtInt, isObj } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */

export const SUBAGENT_STATUS_TEXT = /** @type {Record<string, string>} */ ({
  running: "running…",
  done: "done",
  suspended: "suspended: waiting for an answer",
  error: "error",
});

/**
 * @typedef {Entry & {
 *   children: HTMLElement,
 *   setCount(n: number): void,
 *   setParentTool(name: string | null): void,
 * }} GroupEntry
 */

/** @param {any} item @returns {GroupEntry} */
export function subagentEntry(item) {
  const node = itemShell("subagent", item, "agui-subagent");
  node.setAttribute("role", "group");
  const details = h("details", { cls: "agui-subagent-details", attrs: { open: "" } });
  const name = h("strong", { cls: "agui-subagent-name" });
  const description = h("span", { cls: "agui-hint agui-subagent-description" });
  const badge = h("span", { cls: "agui-badge" });
  const count = h("span", { cls: "agui-hint agui-subagent-count" });
  const error = h("div", { cls: "agui-error agui-pre agui-subagent-error", attrs: { role: "alert" } });
  const parent = h("div", { cls: "agui-hint agui-subagent-parent" });
  const children = h("div", { cls: "agui-subagent-items" });
  details.append(
    h("summary", { cls: "agui-subagent-head" }, [
      h("span", { cls: "agui-label", text: "Subagent " }),
      name,
      " ",
      badge,
      description,
      count,
    ]),
    error,
    parent,
    children,
  );
  node.append(details);
  /** @type {any} */
  let current = item;
  /** @type {string | null} */
  let toolName = null;

  const showParent = () => {
    const call =
      typeof current?.parentToolCallId === "string" && current.parentToolCallId ? current.parentToolCallId : null;
    parent.hidden = call === null;
    parent.textContent = call === null ? "" : `Started by the tool call ${toolName ? `${toolName} (${call})` : call}`;
  };
  const update = (/** @type {any} */ it) => {
    current = it;
    const id = typeof it?.subagentRunId === "string" ? it.subagentRunId : "";
    const label = typeof it?.name === "string" && it.name ? it.name : id || "(unnamed)";
    if (name.textContent !== label) name.textContent = label;
    const status = typeof it?.status === "string" ? it.status : "";
    node.dataset.status = status || "unannounced";
    badge.dataset.status = status;
    badge.textContent = SUBAGENT_STATUS_TEXT[status] ?? status;
    badge.hidden = !status;
    const d = typeof it?.description === "string" ? it.description : "";
    description.textContent = d ? ` · ${d}` : "";
    const e = typeof it?.error === "string" ? it.error : "";
    error.textContent = e;
    error.hidden = !e;
    showParent();
  };
  update(item);
  return {
    node,
    kind: "subagent",
    update,
    destroy() {},
    children,
    setCount(n) {
      const text = ` · ${n === 1 ? "1 item" : `${fmtInt(n)} items`}`;
      if (count.textContent !== text) count.textContent = text;
    },
    setParentTool(n) {
      if (n !== toolName) {
        toolName = n;
        showParent();
      }
    },
  };
}

/**
 * Which container each entry goes in: the group of `subagent:<item.subagent>` when the list has
 * that group (and nesting there makes no circle), else the top of the list for its place.
 * @param {Array<{item: any, entry: Entry}>} rows  the list, in order
 * @param {HTMLElement | ((index: number) => HTMLElement)} top  the top container, or the one for
 *   the row at `index` (the list's pages)
 * @returns {Map<HTMLElement, HTMLElement[]>} container -> its nodes in order
 */
export function placeEntries(rows, top) {
  const topOf = typeof top === "function" ? top : () => top;
  /** @type {Map<string, {item: any, entry: GroupEntry}>} */
  const groups = new Map();
  for (const row of rows) {
    if (
      row.entry.kind === "subagent" &&
      "children" in row.entry &&
      typeof row.item?.id === "string" &&
      !groups.has(row.item.id)
    ) {
      groups.set(row.item.id, /** @type {{item: any, entry: GroupEntry}} */ (row));
    }
  }
  /** @param {any} item */
  const groupOf = (item) =>
    isObj(item) && typeof item.subagent === "string" ? groups.get(`subagent:${item.subagent}`) : undefined;
  /** @param {{item: any, entry: GroupEntry}} group nested in its parent unless that makes a circle */
  const nests = (group) => {
    const seen = new Set([group.item.id]);
    for (let up = groupOf(group.item); up; up = groupOf(up.item)) {
      if (seen.has(up.item.id)) return false; // A in B in A, or A in itself: both stay at the top
      seen.add(up.item.id);
    }
    return true;
  };
  /** @type {Map<string, string>} tool call id -> its name, for the line naming a group's caller */
  const tools = new Map();
  for (const { item } of rows) {
    if (isObj(item) && item.kind === "tool" && typeof item.id === "string" && typeof item.name === "string")
      tools.set(item.id, item.name);
  }
  /** @type {Map<HTMLElement, HTMLElement[]>} */
  const placed = new Map();
  for (const group of groups.values()) placed.set(group.entry.children, []);
  rows.forEach((row, i) => {
    const own = row.entry.kind === "subagent" && groups.get(row.item?.id) === row;
    const parent = own && !nests(/** @type {{item: any, entry: GroupEntry}} */ (row)) ? undefined : groupOf(row.item);
    const container = parent ? parent.entry.children : topOf(i);
    const nodes = placed.get(container);
    if (nodes) nodes.push(row.entry.node);
    else placed.set(container, [row.entry.node]);
  });
  for (const { item, entry } of groups.values()) {
    entry.setCount(placed.get(entry.children)?.length ?? 0);
    const call = typeof item.parentToolCallId === "string" ? tools.get(`tool:${item.parentToolCallId}`) : undefined;
    entry.setParentTool(call ?? null);
  }
  return placed;
}

/**
 * Put each container's nodes in order, moving only those out of place.
 * @param {Map<HTMLElement, HTMLElement[]>} placed
 */
export function arrange(placed) {
  for (const [container, nodes] of placed) {
    let ref = container.firstChild;
    for (const node of nodes) {
      if (node === ref) ref = node.nextSibling;
      else container.insertBefore(node, ref);
    }
  }
}
