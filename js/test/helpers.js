// Shared by the tests of the front end: a fake anywidget model, mounting a view, item builders
// and DOM shortcuts. Each test file that imports it gets its own copy (vitest isolates files),
// with the afterEach below cleaning up after every test of that file.
import { afterEach, vi } from "vitest";
import srcWidget from "../src/index.js";

/** A fake anywidget model: get/on/off/send, plus helpers to change traits and emit custom messages. */
function fakeModel(initial = {}) {
  /** @type {Record<string, any>} */
  const data = { items: [], status: "idle", state: null, audit: [], ...initial };
  /** @type {Map<string, Set<Function>>} */
  const handlers = new Map();
  /** @type {any[]} */
  const sent = [];
  return {
    sent,
    handlers,
    get: (/** @type {string} */ k) => data[k],
    on(/** @type {string} */ evt, /** @type {Function} */ cb) {
      if (!handlers.has(evt)) handlers.set(evt, new Set());
      handlers.get(evt)?.add(cb);
    },
    off(/** @type {string} */ evt, /** @type {Function} */ cb) {
      handlers.get(evt)?.delete(cb);
    },
    send(/** @type {any} */ msg) {
      sent.push(structuredClone(msg));
    },
    set(/** @type {string} */ k, /** @type {any} */ v) {
      data[k] = structuredClone(v);
      for (const cb of handlers.get(`change:${k}`) ?? []) cb();
    },
    emitCustom(/** @type {any} */ msg) {
      for (const cb of handlers.get("msg:custom") ?? []) cb(msg, []);
    },
    listenerCount() {
      let n = 0;
      for (const s of handlers.values()) n += s.size;
      return n;
    },
  };
}

/** @type {Array<() => void>} */
let cleanups = [];

/**
 * Render a view into a fresh element (the sources by default; the bundle test passes the bundle).
 * @param {Record<string, any>} [initial]
 * @param {{render(props: any): () => void}} [widget]
 */
function mount(initial = {}, widget = srcWidget) {
  const model = fakeModel(initial);
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = widget.render({ model, el });
  cleanups.push(cleanup);
  return { model, el, cleanup };
}

afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
  document.body.replaceChildren();
  vi.useRealTimers();
});

const toolInterrupt = (over = {}) => ({
  id: "int-1",
  reason: "tool_call",
  toolName: "transfer_money",
  toolCallId: "tc-1",
  message: "Transfer 100 EUR to Alice?",
  args: { amount: 100, to: "Alice", meta: { note: "rent", tags: ["a", "b"] } },
  argsSchema: null,
  responseSchema: null,
  expiresAt: null,
  mode: "tool",
  canEdit: true,
  canGiveReason: true,
  reissued: false,
  ...over,
});

const card = (over = {}) => ({
  kind: "card",
  id: "card-1",
  status: "pending",
  interrupts: [toolInterrupt()],
  decisions: null,
  decidedBy: null,
  error: null,
  note: null,
  timeoutAt: null,
  timeoutDefault: null,
  ...over,
});

/** @param {ParentNode} root @param {string} action */
const btn = (root, action) => /** @type {HTMLButtonElement} */ (root.querySelector(`button[data-action="${action}"]`));
/** @param {ParentNode} root @param {string} action */
const btns = (root, action) =>
  /** @type {HTMLButtonElement[]} */ ([...root.querySelectorAll(`button[data-action="${action}"]`)]);
/** @param {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} input @param {string} value */
function type(input, value) {
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
}
/** @param {ParentNode} root @param {string} path */
const fieldInput = (root, path) =>
  /** @type {HTMLInputElement} */ (
    root.querySelector(`.agui-field[data-path="${path}"] .agui-input, .agui-field[data-path="${path}"] .agui-checkbox`)
  );
/** @param {HTMLElement} el */
const visibleText = (el) => el.textContent ?? "";

/** @param {ParentNode} root */
function fieldInputOrJson(root) {
  return /** @type {HTMLTextAreaElement} */ (root.querySelector(".agui-edit textarea.agui-json"));
}

/** A 1x1 PNG, base64. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export { btn, btns, card, fakeModel, fieldInput, fieldInputOrJson, mount, PNG, toolInterrupt, type, visibleText };
