// @ts-check
/**
 * The plain entries of the item list: user, assistant, reasoning, tool, error, notice, and any
 * kind this front end does not know (shown as JSON text, never dropped). Each entry keeps its
 * node and updates it in place. An encrypted value the server attached (to reasoning or a tool
 * call) never reaches the view: a muted note says one is kept and sent back.
 */
import { h } from "./dom.js";
import { renderParts } from "./parts.js";
import { longText, renderTree } from "./tree.js";
import { asText, deepEqual, isObj, safeJson } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").TreeState} TreeState */

/** @param {string} kind @param {any} item @param {string} cls */
export function itemShell(kind, item, cls) {
  const node = h("div", { cls: `agui-item ${cls}`, data: { kind } });
  if (isObj(item) && (typeof item.id === "string" || typeof item.id === "number"))
    node.dataset.itemId = String(item.id);
  return node;
}

/** @param {any} item @returns {Entry} */
export function userEntry(item) {
  const node = itemShell("user", item, "agui-user");
  const text = document.createTextNode("");
  node.append(h("div", { cls: "agui-role", text: "You" }), h("div", { cls: "agui-text agui-pre" }, [text]));
  const update = (/** @type {any} */ it) => {
    const t = asText(it?.text);
    if (text.data !== t) text.data = t;
  };
  update(item);
  return { node, kind: "user", update, destroy() {} };
}

/** @param {any} item @returns {Entry} */
export function assistantEntry(item) {
  const node = itemShell("assistant", item, "agui-assistant");
  const text = document.createTextNode("");
  node.append(h("div", { cls: "agui-text agui-pre" }, [text]));
  const update = (/** @type {any} */ it) => {
    const t = asText(it?.text);
    if (text.data !== t) text.data = t;
    node.classList.toggle("agui-streaming", it?.streaming === true);
  };
  update(item);
  return { node, kind: "assistant", update, destroy() {} };
}

/** @param {any} item @returns {Entry} */
export function reasoningEntry(item) {
  const node = itemShell("reasoning", item, "agui-reasoning");
  const details = h("details", { cls: "agui-reasoning-details" });
  const live = h("span", { cls: "agui-hint" });
  const mark = h("span", { cls: "agui-hint agui-encrypted-mark" });
  const text = document.createTextNode("");
  const body = h("div", { cls: "agui-text agui-pre" }, [text]);
  const note = h("div", { cls: "agui-note agui-encrypted", text: ENCRYPTED_REASONING });
  details.append(h("summary", {}, ["Reasoning", live, mark]), body, note);
  node.append(details);
  const update = (/** @type {any} */ it) => {
    const t = asText(it?.text);
    if (text.data !== t) text.data = t;
    live.textContent = it?.streaming === true ? " (thinking…)" : "";
    const encrypted = it?.encrypted === true;
    mark.textContent = encrypted ? (t ? " · encrypted part kept" : " · encrypted, kept") : "";
    note.hidden = !encrypted;
    body.hidden = encrypted && !t;
  };
  update(item);
  return { node, kind: "reasoning", update, destroy() {} };
}

export const ENCRYPTED_REASONING =
  "Part of this reasoning is encrypted: the client keeps it and sends it back to the agent unread; it cannot be shown.";
export const ENCRYPTED_TOOL = "An encrypted value came with this call: it is kept for the agent and not shown.";

export const TOOL_STATUS_TEXT = /** @type {Record<string, string>} */ ({
  streaming: "receiving arguments…",
  called: "called",
  awaiting: "awaiting a decision",
  done: "done",
  rejected: "rejected",
  cancelled: "cancelled",
});

/** @param {any} item @returns {Entry} */
export function toolEntry(item) {
  const node = itemShell("tool", item, "agui-tool");
  const name = h("strong", { cls: "agui-tool-name" });
  const badge = h("span", { cls: "agui-badge" });
  const args = h("div", { cls: "agui-args" });
  const resultBody = h("div", { cls: "agui-result-body" });
  const result = h("div", { cls: "agui-result" }, [h("div", { cls: "agui-label", text: "Result" }), resultBody]);
  const sealed = h("div", { cls: "agui-note agui-encrypted", text: ENCRYPTED_TOOL });
  node.append(
    h("div", { cls: "agui-tool-head" }, [h("span", { cls: "agui-label", text: "Tool " }), name, " ", badge]),
    args,
    result,
    sealed,
  );
  /** @type {TreeState} */
  const tree = { expanded: new Set() };
  let argsKey = "";
  /** @type {string | null | undefined} */
  let resultKey; // undefined: not rendered yet
  /** @type {unknown[] | null} */
  let shownParts = null;
  const update = (/** @type {any} */ it) => {
    const n = asText(it?.name);
    if (name.textContent !== n) name.textContent = n;
    const status = asText(it?.status);
    node.dataset.status = status;
    badge.dataset.status = status;
    badge.textContent = TOOL_STATUS_TEXT[status] ?? status;
    const hasArgs = it?.args !== null && it?.args !== undefined;
    const key = hasArgs ? `j${safeJson(it.args)}` : `t${asText(it?.argsText)}`;
    if (key !== argsKey) {
      argsKey = key;
      if (hasArgs) args.replaceChildren(renderTree(it.args, tree));
      else if (asText(it?.argsText))
        args.replaceChildren(
          h("div", { cls: "agui-args-text agui-pre" }, [longText(asText(it.argsText), tree, "argsText")]),
        );
      else args.replaceChildren(h("span", { cls: "agui-hint", text: "(no arguments)" }));
    }
    sealed.hidden = it?.encrypted !== true;
    // Content parts, when the result is a list of them, replace the text and value forms.
    if (Array.isArray(it?.resultParts)) {
      // Compared, not serialised: an inline image is megabytes of base64, and this runs per delta.
      if (shownParts === null || !deepEqual(shownParts, it.resultParts)) {
        shownParts = it.resultParts;
        resultKey = undefined;
        result.hidden = false;
        resultBody.replaceChildren(renderParts(it.resultParts));
      }
      return;
    }
    shownParts = null;
    // A result the server sent as JSON text (resultValue parsed by Python) shows as a value tree.
    const value = it?.resultValue;
    const structured = value !== null && typeof value === "object";
    const r = it?.result === null || it?.result === undefined ? null : asText(it.result);
    const rKey = structured ? `j${safeJson(value)}` : r === null ? null : `t${r}`;
    if (rKey !== resultKey) {
      resultKey = rKey;
      result.hidden = rKey === null;
      if (structured) resultBody.replaceChildren(renderTree(value, tree));
      else resultBody.replaceChildren(r === null ? "" : h("div", { cls: "agui-pre" }, [longText(r, tree, "result")]));
    }
  };
  update(item);
  return { node, kind: "tool", update, destroy() {} };
}

/** @param {any} item @returns {Entry} */
export function errorEntry(item) {
  const node = itemShell("error", item, "agui-error-item");
  node.setAttribute("role", "alert");
  const title = h("strong", { cls: "agui-error-title" });
  const message = h("div", { cls: "agui-error agui-pre" });
  const hint = h("div", { cls: "agui-hint agui-pre" });
  node.append(title, message, hint);
  const update = (/** @type {any} */ it) => {
    title.textContent = asText(it?.title) || "Error";
    message.textContent = asText(it?.message);
    hint.textContent = asText(it?.hint);
    hint.hidden = !hint.textContent;
  };
  update(item);
  return { node, kind: "error", update, destroy() {} };
}

/** @param {any} item @returns {Entry} */
export function noticeEntry(item) {
  const node = itemShell("notice", item, "agui-notice");
  const update = (/** @type {any} */ it) => {
    node.textContent = asText(it?.text);
  };
  update(item);
  return { node, kind: "notice", update, destroy() {} };
}

/** @param {any} item @param {string} kind @returns {Entry} */
export function unknownEntry(item, kind) {
  const node = itemShell(kind, item, "agui-unknown");
  const body = h("div", { cls: "agui-pre" });
  node.append(h("div", { cls: "agui-hint", text: `Item of unknown kind "${kind}":` }), body);
  /** @type {TreeState} */
  const tree = { expanded: new Set() };
  const update = (/** @type {any} */ it) => {
    body.replaceChildren(longText(safeJson(it, 2), tree, "unknown"));
  };
  update(item);
  return { node, kind, update, destroy() {} };
}
