// @ts-check
/**
 * The changes an edit makes, listed by key path before the edited arguments are sent.
 */
import { h } from "./dom.js";
import { longText } from "./tree.js";
import { deepEqual, hasOwn, isObj, joinPath, MAX_DEPTH, safeJson } from "./util.js";

/**
 * Changes between two values, by key path (objects are compared key by key; anything else as a whole).
 * @param {unknown} before
 * @param {unknown} after
 * @param {string} path
 * @param {Array<{path: string, kind: "changed" | "added" | "removed", before: unknown, after: unknown}>} out
 * @param {number} [depth]
 */
export function diffValues(before, after, path, out, depth = 0) {
  if (deepEqual(before, after)) return;
  if (isObj(before) && isObj(after) && depth < MAX_DEPTH) {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !hasOwn(before, k))];
    for (const k of keys) {
      const p = joinPath(path, k);
      if (!hasOwn(after, k)) out.push({ path: p, kind: "removed", before: before[k], after: undefined });
      else if (!hasOwn(before, k)) out.push({ path: p, kind: "added", before: undefined, after: after[k] });
      else diffValues(before[k], after[k], p, out, depth + 1);
    }
    return;
  }
  const kind = before === undefined ? "added" : after === undefined ? "removed" : "changed";
  out.push({ path, kind, before, after });
}

/**
 * @param {unknown} before
 * @param {unknown} after
 * @param {HTMLElement} target
 */
export function renderDiff(before, after, target) {
  /** @type {Array<{path: string, kind: "changed" | "added" | "removed", before: unknown, after: unknown}>} */
  const changes = [];
  diffValues(before, after, "", changes);
  const state = { expanded: new Set() };
  target.replaceChildren(h("div", { cls: "agui-diff-title", text: "Changes" }));
  if (changes.length === 0) {
    target.append(h("p", { cls: "agui-diff-none", text: "No changes: the same arguments as proposed." }));
    return;
  }
  const list = h("ul", { cls: "agui-diff-list" });
  changes.forEach((c, i) => {
    const show = (/** @type {unknown} */ v, /** @type {string} */ side) =>
      v === undefined ? h("span", { cls: "agui-hint", text: "(absent)" }) : longText(safeJson(v), state, `${i}${side}`);
    list.append(
      h("li", { cls: "agui-diff-row", data: { change: c.kind } }, [
        h("code", { cls: "agui-diff-path", text: c.path || "(whole value)" }),
        ": ",
        h("del", { cls: "agui-diff-old" }, [show(c.before, "old")]),
        " → ",
        h("ins", { cls: "agui-diff-new" }, [show(c.after, "new")]),
      ]),
    );
  });
  target.append(list);
}
