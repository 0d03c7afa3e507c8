// @ts-check
/**
 * The view shell: `render({model, el})` builds the status header, the item list (list.js: entries
 * kept by key, in pages; subagent groups placed by subagents.js), the state and the audit; it
 * reads the items from the model's pages and routes acks to the card that sent.
 */
import { activityEntry } from "./activity.js";
import { renderAudit } from "./audit.js";
import { cardEntry } from "./card.js";
import { h } from "./dom.js";
import {
  assistantEntry,
  errorEntry,
  noticeEntry,
  reasoningEntry,
  toolEntry,
  unknownEntry,
  userEntry,
} from "./items.js";
import { createItemList } from "./list.js";
import { runEndEntry } from "./runend.js";
import { CSS } from "./styles.js";
import { subagentEntry } from "./subagents.js";
import { a2uiEntry } from "./surface.js";
import { followPageLook } from "./theme.js";
import { createTicker } from "./ticker.js";
import { renderTree } from "./tree.js";
import { asText, isObj } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").Env} Env */
/** @typedef {import("./types.js").Model} Model */
/** @typedef {import("./types.js").TreeState} TreeState */

export const RUN_STATUS_TEXT = /** @type {Record<string, string>} */ ({
  idle: "idle",
  running: "running…",
  waiting: "waiting for your decision",
  sending: "sending your decision…",
  error: "error",
});

/** How a turn ended (the `outcome` trait), shown once the view is idle; same words as the
 * static transcript (agui_notebook/_transcript.py). */
export const RUN_OUTCOME_TEXT = /** @type {Record<string, string>} */ ({
  success: "finished",
  cancelled: "finished: cancelled by the agent",
  interrupt: "stopped: questions left unanswered",
  error: "stopped: error",
  aborted: "stopped: aborted",
});

/** @param {string} status @param {string} outcome */
export function statusText(status, outcome) {
  if (status === "idle" && outcome) return RUN_OUTCOME_TEXT[outcome] ?? `finished: ${outcome}`;
  return RUN_STATUS_TEXT[status] ?? status;
}

/**
 * @param {{model: Model, el: HTMLElement}} props
 * @returns {() => void} cleanup
 */
export function render({ model, el }) {
  const root = h("div", { cls: "agui-chat" });
  const style = h("style");
  style.textContent = CSS;
  const statusSpinner = h("span", { cls: "agui-spinner", attrs: { "aria-hidden": "true" } });
  const statusLabel = h("span", {});
  const status = h("div", { cls: "agui-status", attrs: { role: "status" } }, [statusSpinner, statusLabel]);
  const list = h("div", { cls: "agui-items" });
  const stateBody = h("div", { cls: "agui-state-body" });
  const stateBox = h("details", { cls: "agui-state" }, [h("summary", { text: "State" }), stateBody]);
  const auditSummary = h("summary", { text: "Audit" });
  const auditBody = h("div", { cls: "agui-audit-body" });
  const auditBox = h("details", { cls: "agui-audit" }, [auditSummary, auditBody]);
  root.append(style, status, list, stateBox, auditBox);
  el.append(root);
  const stopLook = followPageLook(root);

  const ticker = createTicker();
  /** @type {Map<string, {handleAck(msg: any): void}>} */
  const requests = new Map();
  /** @type {Env} */
  const env = {
    ticker,
    send(msg, owner) {
      requests.set(msg.requestId, owner);
      model.send(msg);
    },
  };
  /** @type {TreeState} */
  const stateTree = { expanded: new Set() };
  /** @type {TreeState} */
  const auditTree = { expanded: new Set() };

  /** @param {string} kind @param {any} item @returns {Entry} */
  const createEntry = (kind, item) => {
    switch (kind) {
      case "user":
        return userEntry(item);
      case "assistant":
        return assistantEntry(item);
      case "reasoning":
        return reasoningEntry(item);
      case "tool":
        return toolEntry(item);
      case "card":
        return cardEntry(item, env);
      case "error":
        return errorEntry(item);
      case "notice":
        return noticeEntry(item);
      case "activity":
        return activityEntry(item);
      case "a2ui":
        return a2uiEntry(item, env);
      case "subagent":
        return subagentEntry(item);
      case "run-end":
        return runEndEntry(item);
      default:
        return unknownEntry(item, kind);
    }
  };

  // The items are held in pages, child models the `pages` trait refers to ("IPY_MODEL_<id>");
  // each page's own `items` change redraws. A model without `pages` (a notebook saved before
  // paging) carries its `items` itself.
  /** @type {Map<string, Model | null>} */
  const pageModels = new Map();
  let pagesAlive = true;

  const pageRefs = () => {
    const raw = model.get("pages");
    return Array.isArray(raw) ? raw.filter((r) => typeof r === "string") : null;
  };

  const currentItems = () => {
    const refs = pageRefs();
    if (refs === null) {
      const raw = model.get("items");
      return Array.isArray(raw) ? raw : [];
    }
    /** @type {any[]} */
    const items = [];
    for (const ref of refs) {
      const page = pageModels.get(ref);
      const raw = page ? page.get("items") : null;
      if (Array.isArray(raw)) items.push(...raw);
    }
    return items;
  };

  const syncPages = () => {
    const refs = pageRefs() ?? [];
    const manager = model.widget_manager;
    for (const ref of refs) {
      if (pageModels.has(ref) || !manager) continue;
      pageModels.set(ref, null);
      manager
        .get_model(ref.startsWith("IPY_MODEL_") ? ref.slice("IPY_MODEL_".length) : ref)
        .then((page) => {
          if (!pagesAlive || !pageModels.has(ref)) return;
          pageModels.set(ref, page);
          page.on("change:items", renderItems);
          renderItems();
        })
        .catch((e) => console.error("agui-chat: could not read a page of items", e));
    }
    const wanted = new Set(refs);
    for (const [ref, page] of pageModels) {
      if (wanted.has(ref)) continue;
      page?.off("change:items", renderItems);
      pageModels.delete(ref);
    }
    renderItems();
  };

  const itemList = createItemList(list, createEntry);
  const renderItems = () => itemList.draw(currentItems());

  const renderStatus = () => {
    const s = asText(model.get("status")) || "idle";
    status.dataset.status = s;
    statusSpinner.hidden = !(s === "running" || s === "sending");
    statusLabel.textContent = statusText(s, asText(model.get("outcome")));
  };

  const renderState = () => {
    const s = model.get("state");
    const empty = s === null || s === undefined || (isObj(s) && Object.keys(s).length === 0);
    stateBox.hidden = empty;
    stateBody.replaceChildren(empty ? "" : renderTree(s, stateTree));
  };

  const renderAuditBox = () => {
    const a = model.get("audit");
    const n = Array.isArray(a) ? a.length : 0;
    // The kernel sends the view's last decisions and how many there are in all (state saved
    // before audit_count existed has none: then the list is all of them).
    const count = model.get("audit_count");
    const total = typeof count === "number" && count > n ? count : n;
    auditBox.hidden = n === 0;
    auditSummary.textContent = total > n ? `Audit (${total}; the last ${n} shown, all in chat.audit)` : `Audit (${n})`;
    if (n > 0) renderAudit(a, auditBody, auditTree);
    else auditBody.replaceChildren();
  };

  /** @param {any} msg */
  const onMsg = (msg) => {
    if (!isObj(msg) || msg.type !== "ack" || typeof msg.requestId !== "string") return;
    const owner = requests.get(msg.requestId);
    if (!owner) return;
    requests.delete(msg.requestId);
    owner.handleAck(msg);
  };

  renderStatus();
  syncPages();
  renderState();
  renderAuditBox();
  model.on("change:items", renderItems);
  model.on("change:pages", syncPages);
  model.on("change:status", renderStatus);
  model.on("change:outcome", renderStatus);
  model.on("change:state", renderState);
  model.on("change:audit", renderAuditBox);
  model.on("change:audit_count", renderAuditBox);
  model.on("msg:custom", onMsg);

  return () => {
    model.off("change:items", renderItems);
    model.off("change:pages", syncPages);
    for (const page of pageModels.values()) page?.off("change:items", renderItems);
    pageModels.clear();
    pagesAlive = false;
    model.off("change:status", renderStatus);
    model.off("change:outcome", renderStatus);
    model.off("change:state", renderState);
    model.off("change:audit", renderAuditBox);
    model.off("change:audit_count", renderAuditBox);
    model.off("msg:custom", onMsg);
    ticker.stop();
    stopLook();
    itemList.destroy();
    requests.clear();
    root.remove();
  };
}
