// @ts-check
/**
 * Activity messages (AG-UI 1.1 ACTIVITY_SNAPSHOT / ACTIVITY_DELTA): one entry per activity,
 * titled and collapsible, redrawn in place as its content is patched. Python names the renderer
 * (docs/widget-protocol.md; users map their own types with `register_activity_renderer`):
 *
 * - `tree`: any content as a value tree (the default for unknown types);
 * - `checklist`: a plan or checklist: one row per item with its state, and the progress;
 * - `search`: the query, its status, the number of results and the results.
 *
 * Options are JSON Pointers into the content (item fields: into each item). Where an option is
 * not given, the item's `defaults` are tried: Python sends each activity its renderer's row of
 * one table (agui_notebook/_state/renderers.json), which the transcript reads too, so this file
 * holds no list of usual names of its own. Where nothing fits, the tree is shown instead, so
 * content is never hidden.
 */
import { getPointer, textOf } from "./a2ui.js";
import { h } from "./dom.js";
import { itemShell } from "./items.js";
import { renderTree } from "./tree.js";
import { asText, isObj, safeJson } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").TreeState} TreeState */

const STATE_MARK = /** @type {Record<string, string>} */ ({ done: "✓", active: "▶", failed: "✕", pending: "○" });

/**
 * What one activity's renderer reads: its options, else its defaults (sent with the item).
 * @typedef {{o: Record<string, any>, d: Record<string, any>}} Look
 */

/**
 * The value at the option's pointer, or at the first of the default pointers that has one.
 * @param {unknown} doc @param {Look} look @param {string} key
 */
export function pick(doc, look, key) {
  const option = look.o[key];
  if (typeof option === "string") return option === "" ? doc : getPointer(doc, option);
  const usual = Array.isArray(look.d[key]) ? look.d[key] : [];
  for (const p of usual) {
    const v = getPointer(doc, p);
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/**
 * A checklist item's state: done, active, failed or pending.
 * @param {unknown} item @param {Look} look
 */
export function stateOf(item, look) {
  const raw = isObj(item) ? pick(item, look, "status") : undefined;
  const v = typeof raw === "string" ? raw.toLowerCase() : raw;
  const has = (/** @type {string} */ key) => {
    const list = Array.isArray(look.o[key]) ? look.o[key] : Array.isArray(look.d[key]) ? look.d[key] : [];
    return list.some((/** @type {unknown} */ x) => (typeof x === "string" ? x.toLowerCase() : x) === v);
  };
  if (has("doneValues")) return "done";
  if (has("failedValues")) return "failed";
  if (has("activeValues")) return "active";
  return "pending";
}

/** @param {unknown} item @param {Look} look */
function labelOf(item, look) {
  if (!isObj(item)) return textOf(item);
  const v = pick(item, look, "label");
  return v === undefined ? safeJson(item) : textOf(v);
}

/**
 * @param {any} item
 * @returns {Entry}
 */
export function activityEntry(item) {
  const node = itemShell("activity", item, "agui-activity");
  const summary = h("summary", { cls: "agui-activity-title" });
  const body = h("div", { cls: "agui-activity-body" });
  const problem = h("div", { cls: "agui-hint agui-activity-problem" });
  const details = h("details", { cls: "agui-activity-details", attrs: { open: "" } }, [summary, body, problem]);
  node.append(details);
  /** @type {TreeState} */
  const tree = { expanded: new Set() };
  let shown = "";

  const update = (/** @type {any} */ it) => {
    /** @type {Look} */
    const look = { o: isObj(it?.options) ? it.options : {}, d: isObj(it?.defaults) ? it.defaults : {} };
    const content = it?.content;
    const renderer = asText(it?.renderer) || "tree";
    const key = `${renderer}\u0000${safeJson(look)}\u0000${safeJson(content)}`;
    problem.textContent = asText(it?.problem);
    problem.hidden = !problem.textContent;
    if (key === shown) return;
    shown = key;
    node.dataset.renderer = renderer;
    node.dataset.activityType = asText(it?.activityType);
    const title = textOf(pick(content, look, "title"));
    const drawn =
      renderer === "checklist" ? checklist(content, look) : renderer === "search" ? search(content, look) : null;
    const type = asText(it?.activityType) || "activity";
    summary.replaceChildren(
      h("span", { cls: "agui-label", text: title ? `${type} · ` : type }),
      title,
      drawn?.badge ?? "",
    );
    body.replaceChildren(drawn?.node ?? renderTree(content, tree));
  };
  update(item);
  return { node, kind: "activity", update, destroy() {} };
}

/**
 * @param {unknown} content @param {Look} look
 * @returns {{node: HTMLElement, badge: HTMLElement} | null}
 */
function checklist(content, look) {
  const items = Array.isArray(content) && look.o.items === undefined ? content : pick(content, look, "items");
  if (!Array.isArray(items)) return null;
  const states = items.map((it) => stateOf(it, look));
  const done = states.filter((s) => s === "done").length;
  const failed = states.filter((s) => s === "failed").length;
  const progress = h("progress", {
    cls: "agui-checklist-progress",
    attrs: { max: String(Math.max(1, items.length)), value: String(done) },
  });
  progress.setAttribute("aria-label", `${done} of ${items.length} done`);
  const list = h("ol", { cls: "agui-checklist" });
  items.forEach((it, i) => {
    list.append(
      h("li", { cls: "agui-checklist-item", data: { state: states[i] } }, [
        h("span", { cls: "agui-checklist-mark", text: STATE_MARK[states[i]], attrs: { "aria-hidden": "true" } }),
        " ",
        h("span", { text: labelOf(it, look) }),
        h("span", { cls: "agui-sr", text: ` (${states[i]})` }),
      ]),
    );
  });
  const text = `${done} of ${items.length} done${failed ? `, ${failed} failed` : ""}`;
  return {
    node: h("div", { cls: "agui-checklist-box" }, [progress, list]),
    badge: h("span", { cls: "agui-badge agui-checklist-count", text: ` ${text}` }),
  };
}

/**
 * @param {unknown} content @param {Look} look
 * @returns {{node: HTMLElement, badge: HTMLElement} | null}
 */
function search(content, look) {
  if (!isObj(content)) return null;
  const query = pick(content, look, "query");
  const status = pick(content, look, "status");
  const results = pick(content, look, "results");
  const count = pick(content, look, "count");
  const n = typeof count === "number" ? count : Array.isArray(results) ? results.length : null;
  const head = h("div", { cls: "agui-search-head" }, [
    h("span", { cls: "agui-label", text: "Query " }),
    h("q", { cls: "agui-search-query", text: textOf(query) }),
    status !== undefined ? h("span", { cls: "agui-badge agui-search-status", text: ` ${textOf(status)}` }) : null,
  ]);
  const list = h("ol", { cls: "agui-search-results" });
  if (Array.isArray(results)) {
    for (const r of results.slice(0, 100)) {
      const title = isObj(r) ? pick(r, look, "resultTitle") : r;
      const detail = isObj(r) ? pick(r, look, "resultDetail") : undefined;
      list.append(
        h("li", {}, [
          h("span", { cls: "agui-search-title", text: textOf(title ?? safeJson(r)) }),
          detail !== undefined ? h("div", { cls: "agui-hint agui-pre", text: textOf(detail) }) : null,
        ]),
      );
    }
    if (results.length > 100)
      list.append(h("li", { cls: "agui-clip-note", text: `… ${results.length - 100} more results not shown` }));
  }
  const badge = h("span", {
    cls: "agui-badge agui-search-count",
    text: n === null ? "" : ` ${n} result${n === 1 ? "" : "s"}`,
  });
  return { node: h("div", { cls: "agui-search" }, [head, list]), badge };
}
