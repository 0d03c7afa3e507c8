// @ts-check
/**
 * The approval card: one or more interrupts (sections), the card's status as Python reports it
 * (pending, sending, done, failed) and the local "sending" state after a click, the one decide or
 * retry message per click, acks matched by requestId, and the card's timeout line.
 */
import { button, h, newRequestId } from "./dom.js";
import { sectionKey } from "./informed.js";
import { itemShell } from "./items.js";
import { buildSection } from "./section.js";
import { fmtClock, fmtRemaining, parseTime } from "./ticker.js";
import { asText, hasOwn, isObj, setOwn } from "./util.js";

/** @typedef {import("./section.js").CardCtx} CardCtx */
/** @typedef {import("./types.js").Decision} Decision */
/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").Env} Env */
/** @typedef {import("./section.js").Section} Section */

/**
 * @param {any} item
 * @param {Env} env
 * @returns {Entry & {handleAck(msg: any): void}}
 */
export function cardEntry(item, env) {
  const node = itemShell("card", item, "agui-card");
  node.setAttribute("role", "group");
  node.dataset.cardId = asText(item?.id);
  const title = h("span", { cls: "agui-card-title" });
  const spinner = h("span", { cls: "agui-spinner", attrs: { "aria-hidden": "true" } });
  const statusText = h("span", {});
  const statusLine = h("span", { cls: "agui-card-status", attrs: { "aria-live": "polite" } }, [spinner, statusText]);
  const interruptsBox = h("div", { cls: "agui-interrupts" });
  const timeoutLine = h("div", { cls: "agui-countdown agui-timeout", attrs: { "aria-live": "polite" } });
  const sendAll = button("Send decisions", "send", "Send decisions", "agui-primary");
  const actions = h("div", { cls: "agui-card-actions" }, [sendAll]);
  const cardError = h("div", { cls: "agui-error agui-card-error", attrs: { role: "alert" } });
  const ackError = h("div", { cls: "agui-error agui-ack-error", attrs: { role: "alert" } });
  // A click that came after the card was decided: what happened, said once, not as an error.
  const lateNote = h("div", { cls: "agui-late", attrs: { role: "status" } });
  const retry = button("Retry", "retry", "Retry sending the decision", "agui-primary");
  const note = h("div", { cls: "agui-note agui-pre" });
  node.append(
    h("div", { cls: "agui-card-head" }, [title, statusLine]),
    interruptsBox,
    timeoutLine,
    actions,
    cardError,
    ackError,
    lateNote,
    h("div", { cls: "agui-buttons" }, [retry]),
    note,
  );

  /** @type {any} */
  let card = item;
  let localSending = false;
  /** @type {string | null} */
  let sentFromStatus = null;
  /** @type {string | null} */
  let pendingRequest = null;
  /** @type {string | null} */
  let ackProblem = null;
  /** @type {string | null} */
  let lateText = null;
  /** @type {Map<string, Decision>} */
  const drafts = new Map();
  /** @type {Map<string, {key: string, section: Section}>} */
  const sections = new Map();
  /** @type {Section[]} */
  let ordered = [];

  const pyStatus = () => asText(card?.status) || "pending";
  const isPending = () => pyStatus() === "pending" && !localSending;
  /** Number of interrupts (set before sections are built, so their labels know it). */
  let count = 0;
  const isMulti = () => count > 1;

  /**
   * @param {Section} s
   * @param {string} action
   */
  const canAct = (s, action) => isPending() && (action === "cancel" || !s.expired());

  /** @param {{type: string, [k: string]: unknown}} body */
  const send = (body) => {
    const requestId = newRequestId();
    pendingRequest = requestId;
    sentFromStatus = pyStatus();
    localSending = true;
    ackProblem = null;
    env.send({ ...body, requestId, card: asText(card?.id) }, api);
  };

  /** @param {Map<string, Decision>} chosen */
  const sendDecisions = (chosen) => {
    if (!isPending()) return;
    /** @type {Record<string, unknown>} */
    const decisions = {};
    /** @type {string[]} */
    const alwaysAllow = [];
    for (const s of ordered) {
      const d = chosen.get(s.id);
      if (!d || !canAct(s, d.action)) return;
      /** @type {Record<string, unknown>} */
      const out = { action: d.action };
      if (d.action === "reject") {
        const r = s.reason();
        if (r !== undefined) out.reason = r;
      }
      if (d.action === "edit") out.args = d.args;
      if (d.action === "answer") out.payload = d.payload;
      if (d.override) out.override = d.override; // "Approve anyway": why, despite a failed check
      setOwn(decisions, s.id, out);
      if (
        s.toolName &&
        s.alwaysAllowed() &&
        (d.action === "approve" || d.action === "edit") &&
        !alwaysAllow.includes(s.toolName)
      ) {
        alwaysAllow.push(s.toolName);
      }
    }
    /** @type {{type: string, decisions: Record<string, unknown>, alwaysAllow?: string[]}} */
    const msg = { type: "decide", decisions };
    if (alwaysAllow.length > 0) msg.alwaysAllow = alwaysAllow;
    send(msg);
    refresh();
  };

  /** @type {CardCtx} */
  const ctx = {
    isMulti,
    refresh: () => refresh(),
    preview(s, args) {
      // A person's edit, to preview and check in the notebook (its ack needs no answer here).
      if (!isPending()) return;
      env.send({ type: "preview", requestId: newRequestId(), card: asText(card?.id), interrupt: s.id, args }, api);
    },
    choose(s, d) {
      if (!canAct(s, d.action)) return;
      if (!isMulti()) {
        sendDecisions(new Map([[s.id, d]]));
        return;
      }
      drafts.set(s.id, d);
      refresh();
    },
  };

  sendAll.addEventListener("click", () => sendDecisions(drafts));
  retry.addEventListener("click", () => {
    if (pyStatus() !== "failed" || localSending) return;
    send({ type: "retry" });
    refresh();
  });

  const hasClocks = () => ordered.some((s) => s.expiresAt !== null) || parseTime(card?.timeoutAt) !== null;

  const updateClocks = () => {
    const now = Date.now();
    const live = pyStatus() === "pending";
    for (const s of ordered) s.updateClock(now, live);
    const timeoutAt = parseTime(card?.timeoutAt);
    timeoutLine.hidden = timeoutAt === null || !live;
    if (timeoutAt !== null) {
      const dflt = asText(card?.timeoutDefault) || "the default";
      const left = timeoutAt > now ? `in ${fmtRemaining(timeoutAt - now)}` : "time is up";
      const text = `No answer by ${fmtClock(timeoutAt)} → ${dflt} (${left})`;
      if (timeoutLine.textContent !== text) timeoutLine.textContent = text;
    }
  };

  const tick = () => {
    if (ordered.some((s) => s.expired() !== s.wasExpired)) refresh();
    else updateClocks();
  };

  function refresh() {
    const status = pyStatus();
    const effective = localSending ? "sending" : status;
    node.dataset.status = effective;
    const pending = isPending();
    const multi = isMulti();
    const allTools = ordered.length > 0 && ordered.every((s) => s.mode === "tool");
    title.textContent = allTools ? "Approval needed" : "Your input is needed";
    const names = ordered.map((s) => s.subject).join(", ");
    node.setAttribute("aria-label", `${title.textContent}: ${names}`);

    for (const s of ordered) {
      s.wasExpired = s.expired();
      const locked = !pending || s.wasExpired;
      for (const c of s.lockables) c.disabled = locked;
      s.afterLock(locked);
      s.cancelButton.disabled = !pending;
      s.showChoice(drafts.get(s.id), multi && (status === "pending" || localSending));
      const decided = status === "done" || status === "failed";
      s.showRecorded(
        isObj(card?.decisions) && hasOwn(card.decisions, s.id) ? card.decisions[s.id] : undefined,
        card?.decidedBy ? asText(card.decidedBy) : null,
        decided,
      );
      const controls = /** @type {HTMLElement | null} */ (s.node.querySelector(".agui-controls"));
      if (controls) controls.hidden = decided;
    }
    const decidedCount = ordered.filter((s) => drafts.has(s.id)).length;
    actions.hidden = !multi || !(status === "pending" || localSending);
    const draftsOk = ordered.every((s) => {
      const d = drafts.get(s.id);
      return d !== undefined && (d.action === "cancel" || !s.expired());
    });
    sendAll.disabled = !pending || !draftsOk;

    spinner.hidden = effective !== "sending";
    // Python writes who decided and the approvals count as text (one truth): shown as given.
    const verdict = asText(card?.verdict);
    const count = isObj(card?.approvals)
      ? [asText(card.approvals.text), asText(card.approvals.missing)].filter(Boolean).join("; ")
      : "";
    const waiting = [multi ? `${decidedCount} of ${ordered.length} decided` : "", count].filter(Boolean).join(" · ");
    statusText.textContent =
      effective === "sending"
        ? "sending…"
        : effective === "pending"
          ? waiting
          : effective === "done"
            ? verdict || `done${card?.decidedBy ? ` (decided by ${asText(card.decidedBy)})` : ""}`
            : effective === "failed"
              ? "failed"
              : effective;

    const err = card?.error;
    cardError.hidden = !(status === "failed" && err);
    cardError.replaceChildren();
    if (status === "failed" && err) {
      cardError.append(
        h("strong", {
          cls: "agui-error-title",
          text: asText(isObj(err) ? err.title : "") || "Sending the decision failed",
        }),
      );
      if (isObj(err) && err.message) cardError.append(h("div", { cls: "agui-pre", text: asText(err.message) }));
      if (!isObj(err)) cardError.append(h("div", { cls: "agui-pre", text: asText(err) }));
    }
    ackError.hidden = !ackProblem;
    ackError.textContent = ackProblem ?? "";
    lateNote.hidden = !lateText;
    lateNote.textContent = lateText ?? "";
    retry.hidden = status !== "failed";
    retry.disabled = status !== "failed" || localSending;
    const n = asText(card?.note);
    note.hidden = !n;
    note.textContent = n;

    updateClocks();
    if (status === "pending" && hasClocks()) env.ticker.add(tick);
    else env.ticker.remove(tick);
  }

  const reconcile = () => {
    const list = Array.isArray(card?.interrupts) ? card.interrupts : [];
    count = list.length;
    /** @type {Section[]} */
    const next = [];
    const seen = new Set();
    for (const it of list) {
      let id = asText(it?.id);
      while (seen.has(id)) id += "\u0000";
      seen.add(id);
      const key = sectionKey(it); // its preview, checks and verdict are redrawn in place
      const existing = sections.get(id);
      if (existing && existing.key === key) {
        existing.section.update(it);
        next.push(existing.section);
        continue;
      }
      if (existing) existing.section.node.remove();
      drafts.delete(id);
      const section = buildSection(it, ctx);
      sections.set(id, { key, section });
      next.push(section);
    }
    for (const [id, { section }] of sections) {
      if (!seen.has(id)) {
        section.node.remove();
        sections.delete(id);
        drafts.delete(id);
      }
    }
    ordered = next;
    let ref = interruptsBox.firstChild;
    for (const s of ordered) {
      if (s.node === ref) ref = s.node.nextSibling;
      else interruptsBox.insertBefore(s.node, ref);
    }
    if (ordered.length === 0)
      interruptsBox.replaceChildren(h("div", { cls: "agui-hint", text: "(no questions in this card)" }));
    else interruptsBox.querySelector(":scope > .agui-hint")?.remove();
  };

  const api = {
    node,
    kind: "card",
    /** @param {any} newItem */
    update(newItem) {
      const before = pyStatus();
      card = newItem;
      node.dataset.cardId = asText(card?.id);
      const now = pyStatus();
      if (localSending && now !== sentFromStatus) localSending = false;
      // A refusal ("already sending") is about the moment it came; once Python moves the card
      // on (sending, done, failed, pending again) it no longer applies.
      if (now !== before) ackProblem = null;
      if (now === "pending" && before !== "pending") {
        drafts.clear();
        lateText = null; // asked again (re-issued): the earlier late click is history
      }
      reconcile();
      refresh();
    },
    /** @param {any} msg */
    handleAck(msg) {
      if (msg.requestId !== pendingRequest) return;
      pendingRequest = null;
      if (msg.accepted === true) {
        // Counted, and more approvers are needed: the card stays pending for the others.
        if (msg.waiting === true) {
          localSending = false;
          refresh();
        }
        return; // Python now owns the status
      }
      localSending = false;
      const said = asText(msg.error);
      const now = pyStatus();
      if (msg.late === true) {
        // Python says what happened ("Your Approve arrived after the timeout had cancelled;
        // nothing was sent."): shown in this view only, the one whose click it was.
        lateText = said || "Your click arrived after this card was decided; nothing was sent.";
      } else if (now === "pending" || now === "failed") {
        ackProblem = said || "The kernel did not accept this.";
      } else {
        // The card has moved on (another view's click or a policy won) and the kernel did not
        // say why: still never silent.
        lateText = `Your click arrived after this card was decided${said ? ` (${said})` : ""}; nothing was sent.`;
      }
      refresh();
    },
    destroy() {
      env.ticker.remove(tick);
    },
  };
  reconcile();
  refresh();
  return api;
}
