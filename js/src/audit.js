// @ts-check
/**
 * The audit log as a table: one column per key any row has, plus a "record" column for rows that
 * are not objects.
 */
import { h } from "./dom.js";
import { longText } from "./tree.js";
import { asText, hasOwn, isObj, safeJson } from "./util.js";

/** @typedef {import("./types.js").TreeState} TreeState */

/**
 * @param {unknown} audit
 * @param {HTMLElement} body
 * @param {TreeState} tree
 */
export function renderAudit(audit, body, tree) {
  const rows = Array.isArray(audit) ? audit : [];
  /** @type {string[]} */
  const columns = [];
  for (const r of rows) if (isObj(r)) for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  const hasPlain = rows.some((r) => !isObj(r));
  const head = h(
    "tr",
    {},
    columns.map((c) => h("th", { attrs: { scope: "col" }, text: c })),
  );
  if (hasPlain) head.append(h("th", { attrs: { scope: "col" }, text: "record" }));
  const tbody = h("tbody");
  rows.forEach((r, i) => {
    const tr = h("tr");
    for (const c of columns) {
      const v = isObj(r) && hasOwn(r, c) ? r[c] : undefined;
      tr.append(
        h("td", {}, [v === undefined ? "" : longText(typeof v === "string" ? v : safeJson(v), tree, `${i}/${c}`)]),
      );
    }
    if (hasPlain) tr.append(h("td", {}, [isObj(r) ? "" : longText(asText(r), tree, `${i}`)]));
    tbody.append(tr);
  });
  body.replaceChildren(h("table", { cls: "agui-audit-table" }, [h("thead", {}, [head]), tbody]));
}
