// @ts-check
/**
 * The A2UI v0.9 basic catalog drawn with plain DOM: layout (Row, Column, List, Card, Tabs, Modal,
 * Divider), content (Text, Image, Icon, Video, AudioPlayer) and input (Button, TextField, CheckBox,
 * ChoicePicker, Slider, DateTimeInput), with two-way data binding and checks.
 *
 * Security, as for the cards: text only ever goes through textContent; no HTML from data (Text's
 * Markdown is shown as plain text); no URL from data is ever loaded or opened (Video, AudioPlayer
 * and openUrl show their URL as text; an Image is drawn only from an inline `data:` URL of an
 * allow-listed raster type, checked by `inlineImage`, else its description is shown); no style
 * from data (theme colours are ignored, `weight` maps to one of a few classes).
 */

import { absolute, boolOf, failedChecks, numberOf, resolve, textOf } from "./a2ui.js";
import { button, h, nextId } from "./dom.js";
import { IMAGE_TYPES } from "./image.js";
import { isObj } from "./util.js";

/** @typedef {import("./a2ui.js").SurfaceModel} SurfaceModel */
/** @typedef {import("./a2ui.js").Component} Component */
/** @typedef {import("./a2ui.js").Scope} Scope */
/**
 * @typedef {{
 *   surface: SurfaceModel,
 *   data(): any,
 *   write(pointer: string, value: unknown): void,
 *   act(componentId: string, event: Record<string, any>, scope: Scope): void,
 *   note(text: string): void,
 *   locked(): boolean,
 *   ui: {tabs: Map<string, number>, open: Set<string>, touched: Set<string>},
 * }} RenderCtx
 */
/** @typedef {{ctx: RenderCtx, updaters: Array<() => void>, count: number, live: boolean}} Run */

export const MAX_DEPTH = 48;
export const MAX_NODES = 3000;
const INLINE_IMAGE = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/;
/** Largest inline image drawn (characters of base64). */
export const MAX_IMAGE_CHARS = 2_000_000;

const ICONS = /** @type {Record<string, string>} */ ({
  check: "✓",
  close: "✕",
  add: "+",
  delete: "🗑",
  edit: "✎",
  mail: "✉",
  call: "☎",
  phone: "☎",
  event: "📅",
  calendarToday: "📅",
  error: "⚠",
  warning: "⚠",
  info: "ℹ",
  help: "?",
  favorite: "♥",
  search: "🔍",
  settings: "⚙",
  home: "⌂",
  arrowBack: "←",
  arrowForward: "→",
  accountCircle: "👤",
  person: "👤",
  star: "★",
  send: "➤",
  lock: "🔒",
  payment: "💳",
  shoppingCart: "🛒",
  locationOn: "📍",
  download: "⬇",
});

/**
 * An inline image URL this renderer may load, or null (anything else is shown as text).
 * @param {unknown} url
 */
export function inlineImage(url) {
  if (typeof url !== "string" || url.length > MAX_IMAGE_CHARS) return null;
  const m = INLINE_IMAGE.exec(url);
  return m && IMAGE_TYPES.includes(m[1]) ? url : null;
}

/** Markdown shown as plain text: heading marks and emphasis markers dropped, nothing parsed. @param {string} s */
export function plainMarkdown(s) {
  // Only heading marks, **bold** and `code` markers: underscores stay (identifiers have them).
  return s
    .replace(/^#{1,6}\s+/gm, "")
    .replace(/\*\*([^*\n]+)\*\*/g, "$1")
    .replace(/`([^`\n]*)`/g, "$1");
}

/**
 * Draw the surface from its `root` component. Returns the node and `refresh()`, which brings
 * every bound value up to date with the data model without rebuilding anything.
 * @param {RenderCtx} ctx
 */
export function renderSurface(ctx) {
  /** @type {Run} */
  const run = { ctx, updaters: [], count: 0, live: false };
  const root = ctx.surface.components.has("root")
    ? renderComponent(run, "root", { data: ctx.data, scope: "/" }, new Set(), 0)
    : h("div", { cls: "agui-hint", text: "(waiting for the surface's root component…)" });
  const refresh = () => {
    for (const u of run.updaters) u();
  };
  refresh();
  run.live = true;
  return { node: root, refresh };
}

/**
 * @param {Run} run @param {unknown} id @param {Scope} scope @param {Set<string>} ancestors @param {number} depth
 * @returns {HTMLElement}
 */
function renderComponent(run, id, scope, ancestors, depth) {
  const c = typeof id === "string" ? run.ctx.surface.components.get(id) : undefined;
  if (typeof id !== "string" || !c)
    return h("span", { cls: "agui-a2-missing agui-hint", text: `(component ${textOf(id)} not defined yet)` });
  if (ancestors.has(id) || depth > MAX_DEPTH)
    return h("span", { cls: "agui-a2-missing agui-hint", text: `(component ${id} refers to itself; not drawn again)` });
  run.count += 1;
  if (run.count > MAX_NODES)
    return h("span", { cls: "agui-hint", text: "(too many components; the rest are not drawn)" });
  const inner = new Set(ancestors).add(id);
  const firstUpdater = run.updaters.length;
  const child = (/** @type {unknown} */ cid, /** @type {Scope} */ sc = scope) =>
    renderComponent(run, cid, sc, inner, depth + 1);
  const draw = DRAW[c.component];
  const node = draw ? draw(run, c, scope, child) : unknownComponent(c);
  node.classList.add("agui-a2");
  node.dataset.component = c.component;
  node.dataset.componentId = c.id;
  if (typeof c.weight === "number" && c.weight > 0) node.classList.add(`agui-a2-w${Math.min(5, Math.round(c.weight))}`);
  const label = isObj(c.accessibility) ? textOf(resolve(c.accessibility.label, scope)) : "";
  if (label) node.setAttribute("aria-label", label);
  // Drawn after the first pass (a tab chosen, a list grown): bring its values up to date now.
  if (run.live) for (const u of run.updaters.slice(firstUpdater)) u();
  return node;
}

/** @param {Component} c */
function unknownComponent(c) {
  return h("div", {
    cls: "agui-a2-unknown agui-hint",
    text: `(component type "${c.component}" is not in the basic catalog; not drawn)`,
  });
}

/** @typedef {(run: Run, c: Component, scope: Scope, child: (id: unknown, scope?: Scope) => HTMLElement) => HTMLElement} Draw */

/** @param {string} cls @returns {Draw} */
const container = (cls) => (run, c, scope, child) => {
  const node = h("div", { cls });
  if (typeof c.justify === "string") node.dataset.justify = c.justify;
  if (typeof c.align === "string") node.dataset.align = c.align;
  if (c.direction === "horizontal") node.dataset.direction = "horizontal";
  const kids = c.children;
  if (Array.isArray(kids)) {
    for (const k of kids) node.append(child(k));
  } else if (isObj(kids) && typeof kids.path === "string" && typeof kids.componentId === "string") {
    // A template: one child per item of the bound list, each in its own scope.
    const base = absolute(scope.scope, kids.path);
    let shown = "";
    run.updaters.push(() => {
      const list = resolve({ path: kids.path }, scope);
      const keys = Array.isArray(list) ? list.map((_, i) => String(i)) : isObj(list) ? Object.keys(list) : [];
      const sig = keys.join("\u0000");
      if (sig === shown) return;
      shown = sig;
      node.replaceChildren(
        ...keys.map((k) =>
          child(kids.componentId, {
            data: scope.data,
            scope: `${base === "/" ? "" : base}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`,
          }),
        ),
      );
    });
  }
  return node;
};

/** @type {Record<string, Draw>} */
const DRAW = {
  Row: container("agui-a2-row"),
  Column: container("agui-a2-column"),
  List: container("agui-a2-list"),
  Card(_run, c, _scope, child) {
    return h("div", { cls: "agui-a2-card" }, [child(c.child)]);
  },
  Divider(_run, c) {
    return h("hr", { cls: c.axis === "vertical" ? "agui-a2-divider agui-a2-vertical" : "agui-a2-divider" });
  },
  Text(run, c, scope) {
    const variant = typeof c.variant === "string" && /^(h[1-5]|caption|body)$/.test(c.variant) ? c.variant : "body";
    const node = h("div", { cls: `agui-a2-text agui-pre`, data: { variant } });
    if (variant.startsWith("h")) {
      node.setAttribute("role", "heading");
      node.setAttribute("aria-level", variant.slice(1));
    }
    run.updaters.push(() => setText(node, plainMarkdown(textOf(resolve(c.text, scope)))));
    return node;
  },
  Image(run, c, scope) {
    const node = h("span", { cls: "agui-a2-image" });
    let shown = "";
    run.updaters.push(() => {
      const url = resolve(c.url, scope);
      const alt = textOf(resolve(c.description, scope));
      const key = `${textOf(url)}\u0000${alt}`;
      if (key === shown) return;
      shown = key;
      const safe = inlineImage(url);
      if (safe) {
        const img = h("img", { attrs: { alt } });
        img.src = safe; // an inline raster image checked by inlineImage(): nothing is fetched
        node.replaceChildren(img);
      } else {
        node.replaceChildren(
          h("span", {
            cls: "agui-a2-media agui-hint",
            text: `[image${alt ? `: ${alt}` : ""}] not loaded (only inline images are shown)`,
          }),
        );
      }
    });
    return node;
  },
  Icon(run, c, scope) {
    const node = h("span", { cls: "agui-a2-icon", attrs: { role: "img" } });
    run.updaters.push(() => {
      const name = textOf(resolve(c.name, scope));
      setText(node, ICONS[name] ?? `[${name}]`);
      node.setAttribute("aria-label", name);
    });
    return node;
  },
  Video: media("video"),
  AudioPlayer: media("audio"),
  Tabs(run, c, scope, child) {
    const tabs = Array.isArray(c.tabs) ? c.tabs.filter(isObj) : [];
    const bar = h("div", { cls: "agui-a2-tabbar", attrs: { role: "tablist" } });
    const panel = h("div", { cls: "agui-a2-tabpanel", attrs: { role: "tabpanel" } });
    const node = h("div", { cls: "agui-a2-tabs" }, [bar, panel]);
    const ui = run.ctx.ui.tabs;
    const select = (/** @type {number} */ i) => {
      ui.set(c.id, i);
      [...bar.children].forEach((b, j) => {
        b.setAttribute("aria-selected", String(j === i));
      });
      panel.replaceChildren(tabs[i] ? child(tabs[i].child) : "");
    };
    tabs.forEach((t, i) => {
      const b = button("", null, undefined, "agui-a2-tab");
      b.setAttribute("role", "tab");
      run.updaters.push(() => setText(b, textOf(resolve(t.title, scope)) || `Tab ${i + 1}`));
      b.addEventListener("click", () => select(i));
      bar.append(b);
    });
    select(Math.min(ui.get(c.id) ?? 0, Math.max(0, tabs.length - 1)));
    return node;
  },
  Modal(run, c, scope, child) {
    // Drawn inline: the trigger toggles the content below it (no overlay on the notebook).
    const content = h("div", { cls: "agui-a2-modal-content", attrs: { role: "dialog" } }, [child(c.content)]);
    const trigger = h("div", { cls: "agui-a2-modal-trigger" }, [child(c.trigger)]);
    const key = `${c.id}@${scope.scope}`;
    content.hidden = !run.ctx.ui.open.has(key);
    trigger.addEventListener(
      "click",
      () => {
        if (run.ctx.ui.open.has(key)) run.ctx.ui.open.delete(key);
        else run.ctx.ui.open.add(key);
        content.hidden = !run.ctx.ui.open.has(key);
      },
      true,
    );
    return h("div", { cls: "agui-a2-modal" }, [trigger, content]);
  },
  Button(run, c, scope, child) {
    const b = h(
      "button",
      {
        cls: `agui-btn agui-a2-button${c.variant === "primary" ? " agui-primary" : c.variant === "borderless" ? " agui-link" : ""}`,
        attrs: { type: "button" },
      },
      [child(c.child)],
    );
    const why = h("div", { cls: "agui-a2-checks agui-hint" });
    const action = isObj(c.action) ? c.action : {};
    const event = isObj(action.event) && typeof action.event.name === "string" ? action.event : null;
    if (event) b.dataset.action = event.name;
    run.updaters.push(() => {
      const failed = failedChecks(c.checks, scope);
      b.disabled = run.ctx.locked() || failed.length > 0 || (!event && !isObj(action.functionCall));
      setText(why, failed.join(" "));
      why.hidden = failed.length === 0;
    });
    b.addEventListener("click", () => {
      if (b.disabled) return;
      if (event) run.ctx.act(c.id, event, scope);
      else if (isObj(action.functionCall) && action.functionCall.call === "openUrl") {
        const url = textOf(resolve(isObj(action.functionCall.args) ? action.functionCall.args.url : "", scope));
        run.ctx.note(
          `This button asks to open ${url}. Links from an agent are not opened here; copy it if you trust it.`,
        );
      }
    });
    return h("div", { cls: "agui-a2-buttonbox" }, [b, why]);
  },
  TextField(run, c, scope) {
    const variant = typeof c.variant === "string" ? c.variant : "shortText";
    const input =
      variant === "longText"
        ? h("textarea", { cls: "agui-input agui-a2-input", attrs: { rows: "3" } })
        : h("input", {
            cls: "agui-input agui-a2-input",
            attrs: { type: variant === "obscured" ? "password" : variant === "number" ? "number" : "text" },
          });
    const checks = Array.isArray(c.checks) ? [...c.checks] : [];
    if (typeof c.validationRegexp === "string")
      checks.push({
        condition: { call: "regex", args: { value: c.value, pattern: c.validationRegexp } },
        message: "This value does not have the expected format.",
      });
    return field(
      run,
      c,
      scope,
      input,
      checks,
      () => input.value,
      (v) => textOf(v),
      "input",
    );
  },
  CheckBox(run, c, scope) {
    const box = h("input", { cls: "agui-checkbox agui-a2-input", attrs: { type: "checkbox" } });
    const id = nextId("agui-a2");
    box.id = id;
    const label = h("label", { attrs: { for: id } });
    run.updaters.push(() => setText(label, textOf(resolve(c.label, scope))));
    const wrap = h("div", { cls: "agui-a2-field agui-a2-checkbox" }, [box, " ", label]);
    bindInput(
      run,
      c,
      scope,
      box,
      () => box.checked,
      (v) => (box.checked = boolOf(v)),
      "change",
    );
    return wrap;
  },
  ChoicePicker(run, c, scope) {
    const multi = c.variant === "multipleSelection";
    const options = Array.isArray(c.options) ? c.options.filter(isObj) : [];
    const legend = h("legend");
    const group = h(
      "fieldset",
      { cls: `agui-a2-field agui-a2-choices${c.displayStyle === "chips" ? " agui-a2-chips" : ""}` },
      [legend],
    );
    run.updaters.push(() => setText(legend, textOf(resolve(c.label, scope))));
    const name = nextId("agui-a2-choice");
    const filter =
      c.filterable === true
        ? h("input", {
            cls: "agui-input agui-a2-filter",
            attrs: { type: "search", "aria-label": "Filter the options" },
          })
        : null;
    if (filter) group.append(filter);
    /** @type {Array<{input: HTMLInputElement, row: HTMLElement, value: string, text: HTMLElement}>} */
    const rows = options.map((o) => {
      const input = h("input", { cls: "agui-a2-input", attrs: { type: multi ? "checkbox" : "radio", name } });
      const text = h("span");
      const row = h("label", { cls: "agui-a2-option" }, [input, " ", text]);
      group.append(row);
      return { input, row, value: textOf(o.value), text };
    });
    run.updaters.push(() => {
      rows.forEach((r, i) => {
        setText(r.text, textOf(resolve(options[i].label, scope)));
      });
    });
    filter?.addEventListener("input", () => {
      const q = filter.value.toLowerCase();
      for (const r of rows) r.row.hidden = q !== "" && !(r.text.textContent ?? "").toLowerCase().includes(q);
    });
    const read = () => rows.filter((r) => r.input.checked).map((r) => r.value);
    const show = (/** @type {unknown} */ v) => {
      const chosen = Array.isArray(v) ? v.map(textOf) : typeof v === "string" ? [v] : [];
      for (const r of rows) r.input.checked = chosen.includes(r.value);
    };
    for (const r of rows) bindInput(run, c, scope, r.input, read, show, "change", group);
    return group;
  },
  Slider(run, c, scope) {
    const input = h("input", {
      cls: "agui-a2-input agui-a2-slider",
      attrs: { type: "range", min: String(numberOf(c.min ?? 0)), max: String(numberOf(c.max ?? 100)) },
    });
    const out = h("output", { cls: "agui-a2-slider-value" });
    const wrap = field(
      run,
      c,
      scope,
      input,
      c.checks,
      () => Number(input.value),
      (v) => String(numberOf(v)),
      "input",
    );
    run.updaters.push(() => setText(out, input.value));
    wrap.append(out);
    return wrap;
  },
  DateTimeInput(run, c, scope) {
    const type =
      c.enableDate === true && c.enableTime === true ? "datetime-local" : c.enableTime === true ? "time" : "date";
    const input = h("input", { cls: "agui-input agui-a2-input", attrs: { type } });
    for (const k of ["min", "max"]) {
      const v = textOf(resolve(c[k], scope));
      if (v) input.setAttribute(k, v);
    }
    return field(
      run,
      c,
      scope,
      input,
      c.checks,
      () => input.value,
      (v) => textOf(v),
      "input",
    );
  },
};

/** @param {"video" | "audio"} what @returns {Draw} */
function media(what) {
  return (run, c, scope) => {
    const node = h("div", { cls: "agui-a2-media agui-hint" });
    run.updaters.push(() => {
      const desc = textOf(resolve(c.description, scope));
      setText(
        node,
        `[${what}${desc ? `: ${desc}` : ""}] not played here (media from an agent is not loaded): ${textOf(resolve(c.url, scope))}`,
      );
    });
    return node;
  };
}

/**
 * A labelled input bound to the component's `value`, with its checks shown once it was touched.
 * @param {Run} run @param {Component} c @param {Scope} scope
 * @param {HTMLInputElement | HTMLTextAreaElement} input @param {unknown} checks
 * @param {() => unknown} read @param {(v: unknown) => string} toInput @param {string} eventName
 */
function field(run, c, scope, input, checks, read, toInput, eventName) {
  const id = nextId("agui-a2");
  input.id = id;
  const label = h("label", { cls: "agui-label-text", attrs: { for: id } });
  const errors = h("div", { cls: "agui-a2-checks agui-error", attrs: { id: `${id}-err` } });
  input.setAttribute("aria-describedby", `${id}-err`);
  run.updaters.push(() => setText(label, textOf(resolve(c.label, scope))));
  const key = `${c.id}@${scope.scope}`;
  run.updaters.push(() => {
    const failed = failedChecks(checks, scope);
    const show = run.ctx.ui.touched.has(key) ? failed : [];
    setText(errors, show.join(" "));
    errors.hidden = show.length === 0;
    input.setAttribute("aria-invalid", String(show.length > 0));
  });
  input.addEventListener("blur", () => {
    run.ctx.ui.touched.add(key);
    for (const u of run.updaters) u();
  });
  bindInput(
    run,
    c,
    scope,
    input,
    read,
    (v) => {
      const text = toInput(v);
      if (input.value !== text) input.value = text;
    },
    eventName,
  );
  return h("div", { cls: "agui-a2-field" }, [label, input, errors]);
}

/**
 * Two-way binding of `value`: a `{path}` is read on every refresh and written on input; a
 * literal is shown and kept local.
 * @param {Run} run @param {Component} c @param {Scope} scope @param {HTMLInputElement | HTMLTextAreaElement} input
 * @param {() => unknown} read @param {(v: unknown) => void} show @param {string} eventName @param {HTMLElement} [focusRoot]
 */
function bindInput(run, c, scope, input, read, show, eventName, focusRoot) {
  const bound = isObj(c.value) && typeof c.value.path === "string" ? absolute(scope.scope, c.value.path) : null;
  run.updaters.push(() => {
    input.disabled = run.ctx.locked();
    const root = focusRoot ?? input;
    // Never overwrite what the person is typing in: the field with focus keeps its text.
    if (root.contains(document.activeElement) && document.activeElement !== document.body && eventName === "input")
      return;
    show(bound ? resolve({ path: bound }, scope) : resolve(c.value, scope));
  });
  input.addEventListener(eventName, () => {
    if (bound) run.ctx.write(bound, read());
  });
}

/** @param {HTMLElement} node @param {string} text */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
