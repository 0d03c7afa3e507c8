// @ts-check
/**
 * The entry of an `a2ui-surface` activity: its surfaces, drawn live as A2UI messages arrive, and
 * the person's action on each, sent to Python once per click and shown until Python reports how
 * it ended.
 *
 * A surface replays its A2UI messages into a model. When an update only appends messages (the
 * usual case), just the new ones are applied, so what the person typed stays; when the list was
 * restated differently, the model is rebuilt and the person's own edits are put back on top
 * (a later `updateDataModel` of the same path wins over them). Data changes refresh bound values
 * in place; only a change of components redraws the surface.
 *
 * An action: the button builds A2UI's `userAction` ({name, surfaceId, sourceComponentId,
 * timestamp, context with bound values resolved}) and sends
 * `{type: "a2ui-action", requestId, surfaceId, seq, action}`; `seq` is the number of actions
 * Python has taken on that surface, so a click made before another view's click landed is
 * refused instead of sent twice. While sending, the surface's inputs and buttons are locked.
 */
import { applyMessage, newSurface, resolve, setPointer } from "./a2ui.js";
import { renderSurface } from "./a2ui-components.js";
import { button, h, newRequestId } from "./dom.js";
import { itemShell } from "./items.js";
import { asText, isObj, safeJson } from "./util.js";

/** @typedef {import("./types.js").Entry} Entry */
/** @typedef {import("./types.js").Env} Env */
/** @typedef {import("./a2ui.js").SurfaceModel} SurfaceModel */

const LIFECYCLE = /** @type {Record<string, string>} */ ({
  building: "Building the interface…",
  retrying: "The agent is retrying the interface…",
  failed: "The agent could not build this interface.",
});

/**
 * @param {any} item
 * @param {Env} env
 * @returns {Entry & {handleAck(msg: any): void}}
 */
export function a2uiEntry(item, env) {
  const node = itemShell("a2ui", item, "agui-a2ui");
  const lifecycle = h("div", { cls: "agui-a2ui-lifecycle agui-hint", attrs: { "aria-live": "polite" } });
  const problems = h("ul", { cls: "agui-a2ui-problems agui-hint" });
  const list = h("div", { cls: "agui-a2ui-surfaces" });
  node.append(lifecycle, list, problems);
  /** @type {Map<string, ReturnType<typeof surfaceBox>>} */
  const boxes = new Map();
  /** @type {Map<string, ReturnType<typeof surfaceBox>>} */
  const byRequest = new Map();

  const update = (/** @type {any} */ it) => {
    const status = asText(it?.status);
    lifecycle.hidden = !LIFECYCLE[status];
    lifecycle.textContent = LIFECYCLE[status] ?? "";
    lifecycle.dataset.status = status;
    if (status === "failed" && it?.error !== undefined && it?.error !== null)
      lifecycle.append(" ", h("span", { cls: "agui-pre", text: asText(it.error) }));
    const surfaces = Array.isArray(it?.surfaces) ? it.surfaces.filter(isObj) : [];
    const seen = new Set();
    for (const s of surfaces) {
      const id = asText(s.surfaceId);
      seen.add(id);
      let box = boxes.get(id);
      if (!box) {
        box = surfaceBox(id, (msg) => {
          byRequest.set(msg.requestId, /** @type {any} */ (box));
          env.send(msg, api);
        });
        boxes.set(id, box);
      }
      box.update(s);
      if (box.node.parentNode !== list || list.lastChild !== box.node) list.append(box.node);
    }
    for (const [id, box] of boxes) {
      if (seen.has(id)) continue;
      box.node.remove();
      boxes.delete(id);
    }
    const msgs = [
      ...(Array.isArray(it?.problems) ? it.problems.map(asText) : []),
      ...[...boxes.values()].flatMap((b) => b.problems()),
    ];
    problems.replaceChildren(...msgs.map((m) => h("li", { text: m })));
    problems.hidden = msgs.length === 0;
    node.hidden = boxes.size === 0 && lifecycle.hidden && msgs.length === 0;
  };

  const api = {
    node,
    kind: "a2ui",
    update,
    /** @param {any} msg */
    handleAck(msg) {
      const box = byRequest.get(msg.requestId);
      byRequest.delete(msg.requestId);
      box?.handleAck(msg);
    },
    destroy() {},
  };
  update(item);
  return api;
}

/**
 * One surface: its model, its drawing, its action line.
 * @param {string} surfaceId
 * @param {(msg: {type: string, requestId: string, [k: string]: unknown}) => void} send
 */
function surfaceBox(surfaceId, send) {
  const header = h("div", { cls: "agui-a2ui-head agui-hint" });
  const body = h("div", { cls: "agui-a2ui-body" });
  const note = h("div", { cls: "agui-a2ui-note agui-hint", attrs: { "aria-live": "polite" } });
  const statusLine = h("div", { cls: "agui-a2ui-action", attrs: { "aria-live": "polite" } });
  const retry = button("Retry", "a2ui-retry", "Send the same action again", "agui-primary");
  const ackError = h("div", { cls: "agui-error agui-ack-error", attrs: { role: "alert" } });
  const node = h("section", { cls: "agui-a2ui-surface", data: { "surface-id": surfaceId } }, [
    header,
    body,
    note,
    statusLine,
    retry,
    ackError,
  ]);
  node.setAttribute("aria-label", `Agent interface ${surfaceId}`);
  ackError.hidden = true;
  note.hidden = true;

  /** @type {SurfaceModel} */
  let model = newSurface(surfaceId);
  /** @type {string[]} JSON of the messages applied, in order */
  let applied = [];
  /** @type {Map<string, unknown>} what the person typed, by pointer */
  const edits = new Map();
  const ui = { tabs: new Map(), open: new Set(), touched: new Set() };
  let drawnStructure = -1;
  /** @type {{refresh(): void} | null} */
  let drawing = null;
  /** @type {Record<string, any>} the action state Python reports */
  let action = { status: "idle", seq: 0 };
  let localSending = false;
  /** @type {string | null} */
  let pending = null;
  let lastRequestStatus = "idle";

  const locked = () => localSending || action.status === "sending";

  const ctx = {
    get surface() {
      return model;
    },
    data: () => model.data,
    /** @param {string} pointer @param {unknown} value */
    write(pointer, value) {
      edits.set(pointer, value);
      model.data = setPointer(model.data, pointer, value);
      drawing?.refresh();
    },
    /** @param {string} componentId @param {Record<string, any>} event @param {import("./a2ui.js").Scope} scope */
    act(componentId, event, scope) {
      if (locked()) return;
      const context = isObj(event.context) ? resolve(event.context, scope) : {};
      const userAction = {
        name: asText(event.name),
        surfaceId,
        sourceComponentId: componentId,
        timestamp: new Date().toISOString(),
        context,
      };
      const requestId = newRequestId();
      pending = requestId;
      localSending = true;
      ackError.hidden = true;
      send({ type: "a2ui-action", requestId, surfaceId, seq: Number(action.seq) || 0, action: userAction });
      show();
    },
    /** @param {string} text */
    note(text) {
      note.textContent = text;
      note.hidden = !text;
    },
    locked,
    ui,
  };

  retry.addEventListener("click", () => {
    if (action.status !== "failed" || locked()) return;
    const requestId = newRequestId();
    pending = requestId;
    localSending = true;
    send({ type: "a2ui-retry", requestId, surfaceId, seq: Number(action.seq) || 0 });
    show();
  });

  /** @param {any[]} ops */
  const replay = (ops) => {
    const texts = ops.map((op) => safeJson(op));
    const prefix = applied.length <= texts.length && applied.every((t, i) => t === texts[i]);
    let changed = "";
    if (!prefix) {
      model = newSurface(surfaceId);
      applied = [];
      changed = "structure";
    }
    for (let i = applied.length; i < ops.length; i++) {
      const what = applyMessage(model, ops[i]);
      const op = ops[i];
      if (prefix && isObj(op?.updateDataModel)) {
        const path = typeof op.updateDataModel.path === "string" ? op.updateDataModel.path : "/";
        for (const k of [...edits.keys()]) if (path === "/" || k === path || k.startsWith(`${path}/`)) edits.delete(k);
      }
      if (what) changed = changed === "structure" ? changed : what;
    }
    if (!prefix) for (const [k, v] of edits) model.data = setPointer(model.data, k, v);
    applied = texts;
    return changed;
  };

  const draw = () => {
    drawnStructure = model.structure;
    if (model.deleted) {
      body.replaceChildren(h("div", { cls: "agui-hint", text: "(the agent closed this interface)" }));
      drawing = null;
      return;
    }
    const focused =
      document.activeElement instanceof HTMLElement && body.contains(document.activeElement)
        ? document.activeElement.closest("[data-component-id]")
        : null;
    const focusId = focused instanceof HTMLElement ? focused.dataset.componentId : null;
    const drawn = renderSurface(ctx);
    body.replaceChildren(drawn.node);
    drawing = drawn;
    if (focusId)
      /** @type {HTMLElement | null} */ (
        body.querySelector(
          `[data-component-id="${CSS.escape(focusId)}"] .agui-a2-input, [data-component-id="${CSS.escape(focusId)}"] button`,
        )
      )?.focus();
  };

  const show = () => {
    node.dataset.actionStatus = localSending ? "sending" : asText(action.status);
    const status = localSending ? "sending" : asText(action.status);
    const name = asText(action.name);
    const by = action.decidedBy ? ` (by ${asText(action.decidedBy)})` : "";
    statusLine.textContent =
      status === "sending"
        ? `Sending ${name || "your action"}…`
        : status === "done"
          ? `Sent ${name}${by}${action.outcome ? ` → ${asText(action.outcome)}` : ""}`
          : status === "failed"
            ? `Sending ${name} failed${by}: ${asText(action.error)}`
            : "";
    statusLine.hidden = !statusLine.textContent;
    statusLine.classList.toggle("agui-error", status === "failed");
    retry.hidden = status !== "failed";
    retry.disabled = locked();
    drawing?.refresh();
  };

  return {
    node,
    /** @param {any} s */
    update(s) {
      const changed = replay(Array.isArray(s.operations) ? s.operations : []);
      const title = model.agentName ? `${model.agentName} · ${surfaceId}` : surfaceId;
      header.textContent = title;
      const next = isObj(s.action) ? s.action : { status: "idle", seq: 0 };
      if (localSending && (next.status !== lastRequestStatus || next.seq !== action.seq)) localSending = false;
      action = next;
      lastRequestStatus = asText(next.status);
      if (changed === "structure" || drawnStructure !== model.structure || !drawing) draw();
      else if (changed === "data") drawing.refresh();
      show();
    },
    /** @param {any} msg */
    handleAck(msg) {
      if (msg.requestId !== pending) return;
      pending = null;
      if (msg.accepted === true) return;
      localSending = false;
      ackError.textContent = asText(msg.error) || "The kernel did not accept this action.";
      ackError.hidden = false;
      show();
    },
    problems: () => model.problems.slice(0, 20),
  };
}
