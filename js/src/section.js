// @ts-check
/**
 * One interrupt inside an approval card: its question, its arguments, its controls (approve /
 * reject / edit / cancel for a tool call; a form or a free answer otherwise), its expiry clock,
 * the draft choice on multi-interrupt cards and the decision once it is recorded.
 */
import { button, h, nextId } from "./dom.js";
import { buildEditor } from "./editor.js";
import { buildInformed } from "./informed.js";
import { fmtRemaining, parseTime } from "./ticker.js";
import { longText, renderTree } from "./tree.js";
import { asText, isObj } from "./util.js";

/** @typedef {import("./types.js").Decision} Decision */
/** @typedef {import("./types.js").TreeState} TreeState */

/** @param {unknown} reason */
export function reasonLabel(reason) {
  switch (reason) {
    case "tool_call":
      return "tool call";
    case "input_required":
      return "input required";
    case "confirmation":
      return "confirmation";
    default:
      return asText(reason) || "question";
  }
}

/**
 * The subagent that raised an interrupt, as the card names it (its name, else its run id), or "".
 * @param {any} it
 */
export function subagentLabel(it) {
  if (typeof it?.subagentRunId !== "string" || !it.subagentRunId) return "";
  return typeof it.subagentName === "string" && it.subagentName ? it.subagentName : it.subagentRunId;
}

/** @param {any} it @returns {"tool" | "form" | "free"} */
export function resolveMode(it) {
  if (it?.mode === "tool" || it?.mode === "free") return it.mode;
  if (it?.mode === "form") return isObj(it.responseSchema) ? "form" : "free";
  if (isObj(it?.responseSchema)) return "form";
  if (typeof it?.toolName === "string" && it.toolName) return "tool";
  return "free";
}

export const DECISION_VERB = /** @type {Record<string, string>} */ ({
  approve: "approved",
  reject: "rejected",
  edit: "approved with edited arguments",
  cancel: "cancelled",
  answer: "answered",
});

/**
 * @typedef {{
 *   id: string, node: HTMLElement, toolName: string | null, subject: string, mode: string,
 *   expiresAt: number | null, wasExpired: boolean,
 *   expired(): boolean, lockables: Array<HTMLButtonElement | HTMLTextAreaElement | HTMLInputElement | HTMLFieldSetElement>,
 *   cancelButton: HTMLButtonElement, actionButtons: Map<string, HTMLButtonElement>,
 *   alwaysAllowed(): boolean, reason(): string | undefined,
 *   showChoice(d: Decision | undefined, multi: boolean): void,
 *   showRecorded(d: any, decidedBy: string | null, visible: boolean): void,
 *   updateClock(now: number, live: boolean): void,
 *   update(it: any): void,
 *   afterLock(locked: boolean): void,
 * }} Section
 */

/**
 * @typedef {{
 *   isMulti(): boolean,
 *   choose(section: Section, d: Decision): void,
 *   refresh(): void,
 *   preview(section: Section, args: unknown): void,
 * }} CardCtx
 */

/**
 * @param {any} it
 * @param {CardCtx} ctx
 * @returns {Section}
 */
export function buildSection(it, ctx) {
  const id = asText(it?.id);
  const mode = resolveMode(it);
  const toolName = typeof it?.toolName === "string" && it.toolName ? it.toolName : null;
  const subject = toolName ?? reasonLabel(it?.reason);
  const node = h("section", {
    cls: "agui-interrupt",
    data: { "interrupt-id": id, mode },
    attrs: { "aria-label": `Decision: ${subject}` },
  });
  /** @type {TreeState} */
  const tree = { expanded: new Set() };

  const head = h("div", { cls: "agui-interrupt-head" }, [
    h("span", { cls: "agui-label", text: mode === "tool" ? "Tool call " : `${reasonLabel(it?.reason)} ` }),
    toolName ? h("strong", { cls: "agui-tool-name", text: toolName }) : null,
    it?.reissued === true ? h("span", { cls: "agui-badge agui-reissued", text: "re-issued" }) : null,
  ]);
  node.append(head);
  const askedBy = subagentLabel(it);
  if (askedBy) node.append(h("div", { cls: "agui-asked-by", text: `Asked by subagent ${askedBy}` }));
  const message = asText(it?.message);
  if (message) node.append(h("div", { cls: "agui-message agui-pre" }, [longText(message, tree, "message")]));
  const hasArgs = it?.args !== null && it?.args !== undefined;
  // The preview and checks computed in the notebook, and the verdict after the decision.
  const informed = buildInformed(it, {
    approveAnyway: (reason) => ctx.choose(section, { action: "approve", override: reason }),
    requestPreview: (args) => ctx.preview(section, args),
  });
  if (mode === "tool") {
    node.append(
      h("div", { cls: "agui-args" }, [
        h("div", { cls: "agui-label", text: "Arguments" }),
        hasArgs ? renderTree(it.args, tree) : h("span", { cls: "agui-hint", text: "(no arguments)" }),
      ]),
      informed.previewSlot,
      informed.checksNode,
    );
  } else {
    // A form or a free answer about something (a CrewAI step's output, a call's arguments): show it.
    if (hasArgs)
      node.append(
        h("div", { cls: "agui-args" }, [
          h("div", { cls: "agui-label", text: toolName ? "Arguments" : "Under review" }),
          renderTree(it.args, tree),
        ]),
      );
    if (it?.review !== null && it?.review !== undefined) {
      node.append(
        h("div", { cls: "agui-review" }, [
          h("div", { cls: "agui-label", text: "Under review" }),
          renderTree(it.review, { expanded: new Set() }),
        ]),
      );
    }
  }
  const expiresAt = parseTime(it?.expiresAt);
  const clock = h("div", { cls: "agui-countdown agui-expiry", attrs: { "aria-live": "polite" } });
  clock.hidden = true;
  if (expiresAt !== null) node.append(clock);

  const controls = h("div", { cls: "agui-controls" });
  node.append(controls);
  /** @type {Array<HTMLButtonElement | HTMLTextAreaElement | HTMLInputElement | HTMLFieldSetElement>} */
  const lockables = [];
  /** @type {Map<string, HTMLButtonElement>} */
  const actionButtons = new Map();
  const buttons = h("div", { cls: "agui-buttons" });
  /** @type {HTMLTextAreaElement | null} */
  let reasonBox = null;
  /** @type {HTMLInputElement | null} */
  let allowBox = null;
  const cancelButton = button("Cancel", "cancel", `Cancel ${subject}`, "agui-cancel");
  cancelButton.addEventListener("click", () => ctx.choose(section, { action: "cancel" }));
  actionButtons.set("cancel", cancelButton);

  if (mode === "tool") {
    if (it?.canGiveReason === true) {
      const rid = nextId("agui-reason");
      reasonBox = h("textarea", {
        cls: "agui-input agui-reason",
        attrs: { id: rid, rows: "2", placeholder: "Why? (optional)" },
      });
      controls.append(
        h("div", { cls: "agui-field" }, [
          h("label", { attrs: { for: rid }, text: `Reason (optional, sent if you reject ${subject})` }),
          reasonBox,
        ]),
      );
      lockables.push(reasonBox);
    }
    if (toolName) {
      allowBox = h("input", { cls: "agui-always-allow", attrs: { type: "checkbox" } });
      controls.append(h("label", { cls: "agui-check" }, [allowBox, ` Always allow ${toolName} in this session`]));
      lockables.push(allowBox);
    }
    const approve = button("Approve", "approve", `Approve ${subject}`, "agui-primary");
    const reject = button("Reject", "reject", `Reject ${subject}`, "agui-danger");
    approve.addEventListener("click", () => ctx.choose(section, { action: "approve" }));
    reject.addEventListener("click", () => ctx.choose(section, { action: "reject" }));
    actionButtons.set("approve", approve);
    actionButtons.set("reject", reject);
    lockables.push(approve, reject, ...informed.lockables);
    buttons.append(approve, reject);
    /** @type {HTMLElement | null} */
    let editorSlot = null;
    if (it?.canEdit === true) {
      const edit = button("Edit", "edit", `Edit arguments of ${subject}`);
      edit.setAttribute("aria-expanded", "false");
      const slotId = nextId("agui-edit");
      edit.setAttribute("aria-controls", slotId);
      editorSlot = h("div", { cls: "agui-edit-slot", attrs: { id: slotId } });
      editorSlot.hidden = true;
      const slot = editorSlot;
      let built = false;
      edit.addEventListener("click", () => {
        if (!built) {
          built = true;
          const original = it.args ?? {};
          const editor = buildEditor(
            {
              schema: it.argsSchema,
              initial: original,
              original,
              showDiff: true,
              mustBeObject: true,
              submitLabel: ctx.isMulti() ? "Use edited arguments" : "Send edited arguments",
              submitAction: "edit-send",
              subject,
              jsonLabel: "Arguments (JSON)",
              cls: "agui-edit",
              onValid: (value) => informed.edited(value),
            },
            (value) => ctx.choose(section, { action: "edit", args: value, override: informed.override() }),
          );
          lockables.push(...editor.lockables);
          slot.append(
            h("div", {
              cls: "agui-label",
              text: `Edit the arguments of ${subject}; the changes are listed before you send.`,
            }),
            editor.node,
          );
          ctx.refresh(); // apply the card's lock state to the new controls
        }
        slot.hidden = !slot.hidden;
        edit.setAttribute("aria-expanded", String(!slot.hidden));
      });
      actionButtons.set("edit", edit);
      lockables.push(edit);
      buttons.append(edit);
    } else if (typeof it?.editNote === "string" && it.editNote) {
      // Said, not just left out: a server that would drop edited arguments must not look like
      // one whose card merely forgot the button.
      controls.append(h("div", { cls: "agui-hint agui-edit-unavailable", text: it.editNote }));
    }
    buttons.append(cancelButton);
    controls.append(buttons);
    if (editorSlot) controls.append(editorSlot);
  } else if (mode === "form") {
    const editor = buildEditor(
      {
        schema: it.responseSchema,
        initial: undefined,
        showDiff: false,
        mustBeObject: false,
        submitLabel: ctx.isMulti() ? "Use this answer" : "Send answer",
        submitAction: "answer",
        subject,
        jsonLabel: "Answer (JSON)",
        cls: "agui-answer-form",
      },
      (value) => ctx.choose(section, { action: "answer", payload: value }),
    );
    lockables.push(...editor.lockables);
    const submit = /** @type {HTMLButtonElement} */ (editor.node.querySelector("[data-action=answer]"));
    actionButtons.set("answer", submit);
    editor.node.querySelector(".agui-buttons")?.append(cancelButton);
    controls.append(editor.node);
  } else {
    const fid = nextId("agui-free");
    const area = h("textarea", { cls: "agui-input agui-free", attrs: { id: fid, rows: "3" } });
    const problem = h("div", { cls: "agui-error agui-field-error", attrs: { "aria-live": "polite" } });
    problem.hidden = true;
    const submit = button(
      ctx.isMulti() ? "Use this answer" : "Send answer",
      "answer",
      `Send answer: ${subject}`,
      "agui-primary",
    );
    submit.addEventListener("click", () => {
      if (area.value.trim() === "") {
        problem.textContent = "Type an answer first (or Cancel).";
        problem.hidden = false;
        area.focus();
        return;
      }
      problem.hidden = true;
      ctx.choose(section, { action: "answer", payload: area.value });
    });
    actionButtons.set("answer", submit);
    lockables.push(area, submit);
    controls.append(
      h("div", { cls: "agui-field" }, [h("label", { attrs: { for: fid }, text: "Your answer" }), area, problem]),
      h("div", { cls: "agui-buttons" }, [submit, cancelButton]),
    );
  }

  const choice = h("div", { cls: "agui-choice", attrs: { "aria-live": "polite" } });
  choice.hidden = true;
  const recorded = h("div", { cls: "agui-decision" });
  recorded.hidden = true;
  node.append(choice, recorded, informed.verdictSlot);

  /** @type {Section} */
  const section = {
    id,
    node,
    toolName,
    subject,
    mode,
    expiresAt,
    wasExpired: false,
    expired: () => expiresAt !== null && Date.now() >= expiresAt,
    lockables,
    cancelButton,
    actionButtons,
    alwaysAllowed: () => allowBox?.checked === true,
    reason() {
      const r = reasonBox?.value.trim();
      return r ? r : undefined;
    },
    showChoice(d, multi) {
      for (const [action, b] of actionButtons) {
        if (multi) b.setAttribute("aria-pressed", String(d?.action === action));
        else b.removeAttribute("aria-pressed");
      }
      choice.hidden = !multi || !d;
      if (multi && d) {
        const extra =
          d.action === "edit" ? " (edited arguments)" : d.action === "answer" ? `: ${asText(d.payload)}` : "";
        choice.replaceChildren(
          h("span", { cls: "agui-label", text: "Your choice: " }),
          h("span", { cls: "agui-pre", text: `${d.action}${extra}` }),
        );
      }
    },
    showRecorded(d, decidedBy, visible) {
      recorded.hidden = !visible;
      if (!visible) return;
      const by = decidedBy ? ` by ${decidedBy}` : "";
      if (!isObj(d)) {
        recorded.replaceChildren(decidedBy ? `decided${by}` : "no decision recorded");
        return;
      }
      const action = asText(d.action);
      /** @type {TreeState} */
      const st = { expanded: new Set() };
      recorded.replaceChildren(
        h("span", { cls: "agui-decision-text", text: `${DECISION_VERB[action] ?? action}${by}` }),
      );
      recorded.dataset.action = action;
      if (typeof d.reason === "string" && d.reason)
        recorded.append(h("div", { cls: "agui-pre" }, ["Reason: ", longText(d.reason, st, "r")]));
      if (d.args !== null && d.args !== undefined)
        recorded.append(
          h("div", {}, [h("div", { cls: "agui-label", text: "Arguments sent" }), renderTree(d.args, st)]),
        );
      if (d.payload !== null && d.payload !== undefined)
        recorded.append(h("div", {}, [h("div", { cls: "agui-label", text: "Answer" }), renderTree(d.payload, st)]));
    },
    update(item) {
      informed.update(item);
    },
    afterLock(locked) {
      // A running or failed check holds Approve back ("Approve anyway" asks for a reason).
      const approve = actionButtons.get("approve");
      if (approve && !locked) approve.disabled = informed.holdsApprove();
    },
    updateClock(now, live) {
      if (expiresAt === null) return;
      clock.hidden = !live;
      const expired = now >= expiresAt;
      node.classList.toggle("agui-expired", expired && live);
      const text = expired ? "Expired: only Cancel is still possible." : `Expires in ${fmtRemaining(expiresAt - now)}`;
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle("agui-expired-text", expired);
    },
  };
  return section;
}
