// @ts-check
/**
 * Form fields generated from a JSON Schema (string, number, integer, boolean, enum, date, nested
 * object); anything else, or a value that does not fit its widget, becomes a JSON text box, so no
 * value is ever lost. Each field reads back {value, omit, problems}.
 */
import { h, nextId } from "./dom.js";
import { schemaType } from "./schema.js";
import { asText, deepEqual, hasOwn, isObj, joinPath, MAX_DEPTH, safeJson, setOwn } from "./util.js";

/** @typedef {import("./types.js").Field} Field */
/** @typedef {import("./types.js").Problem} Problem */
/** @typedef {import("./types.js").Reading} Reading */

/**
 * @typedef {{key: string | null, path: string, required: boolean, depth: number,
 *            registry: Map<string, HTMLElement>, label?: string, extra?: boolean}} FieldWhere
 */

/**
 * Build a form field for `schema` (string, number, integer, boolean, enum, date, nested object;
 * anything else, or a value that does not fit the widget, becomes a JSON text box, so no value
 * is ever lost).
 * @param {unknown} schemaIn
 * @param {unknown} initial  undefined when absent
 * @param {FieldWhere} where
 * @returns {Field}
 */
export function buildField(schemaIn, initial, where) {
  const schema = isObj(schemaIn) ? schemaIn : {};
  const type = schemaType(schema);
  const title = typeof schema.title === "string" && schema.title ? schema.title : "";
  const label = where.label ?? (title || where.key || "Value");
  const description = typeof schema.description === "string" ? schema.description : "";
  const start = initial !== undefined ? initial : schema.default;

  if (type === "object" && where.depth < MAX_DEPTH && (start === undefined || isObj(start)) && !where.extra) {
    return objectField(schema, initial, where, label, description);
  }

  const id = nextId("agui-field");
  const wrap = h("div", { cls: "agui-field", data: { path: where.path } });
  const err = h("div", { cls: "agui-field-error agui-error", attrs: { id: `${id}-err` } });
  err.hidden = true;
  where.registry.set(where.path, err);
  const labelEl = h("label", { attrs: { for: id }, cls: "agui-label-text" }, [
    label,
    where.extra ? h("span", { cls: "agui-hint", text: " (not in the schema)" }) : null,
    where.required ? h("span", { cls: "agui-required", text: " *", attrs: { "aria-hidden": "true" } }) : null,
  ]);
  const descEl = description ? h("div", { cls: "agui-hint", text: description, attrs: { id: `${id}-desc` } }) : null;
  /** @param {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} c */
  const wire = (c) => {
    c.id = id;
    if (where.required) c.setAttribute("aria-required", "true");
    c.setAttribute("aria-describedby", `${id}-err${descEl ? ` ${id}-desc` : ""}`);
  };

  /** @type {() => Reading} */
  let read;

  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const options = schema.enum;
    const select = h("select", { cls: "agui-input agui-select" });
    wire(select);
    const inEnum = start !== undefined && options.some((o) => deepEqual(o, start));
    if (!where.required || start === undefined) select.append(h("option", { text: "(not set)", attrs: { value: "" } }));
    if (start !== undefined && !inEnum) {
      select.append(
        h("option", { text: `(current: ${asText(start)}, not an allowed value)`, attrs: { value: "current" } }),
      );
    }
    options.forEach((o, i) => {
      select.append(h("option", { text: asText(o), attrs: { value: String(i) } }));
    });
    select.value =
      start === undefined ? "" : inEnum ? String(options.findIndex((o) => deepEqual(o, start))) : "current";
    wrap.append(labelEl, descEl ?? "", select);
    read = () => {
      if (select.value === "") return { value: undefined, omit: true, problems: [] };
      if (select.value === "current") return { value: start, omit: false, problems: [] };
      return { value: options[Number(select.value)], omit: false, problems: [] };
    };
  } else if (type === "boolean" && (start === undefined || typeof start === "boolean")) {
    const box = h("input", { cls: "agui-checkbox", attrs: { type: "checkbox" } });
    wire(box);
    box.checked = start === true;
    let touched = false;
    box.addEventListener("change", () => {
      touched = true;
    });
    wrap.classList.add("agui-field-boolean");
    wrap.append(box, " ", labelEl, descEl ?? "");
    read = () => {
      const omit = start === undefined && !where.required && !touched && !box.checked;
      return { value: box.checked, omit, problems: [] };
    };
  } else if ((type === "number" || type === "integer") && (start === undefined || typeof start === "number")) {
    // A text box (not type=number) so that a typo is reported instead of silently emptied.
    const input = h("input", {
      cls: "agui-input",
      attrs: { type: "text", inputmode: type === "integer" ? "numeric" : "decimal" },
    });
    wire(input);
    input.value = start === undefined ? "" : String(start);
    wrap.append(labelEl, descEl ?? "", input);
    read = () => {
      const s = input.value.trim();
      if (s === "") return { value: undefined, omit: true, problems: [] };
      const n = Number(s);
      if (!Number.isFinite(n)) {
        return { value: undefined, omit: true, problems: [{ path: where.path, message: `${label} must be a number` }] };
      }
      return { value: n, omit: false, problems: [] };
    };
  } else if (type === "string" && (start === undefined || typeof start === "string")) {
    const isDate = schema.format === "date";
    const long =
      !isDate &&
      ((typeof start === "string" && (start.length > 80 || start.includes("\n"))) ||
        (typeof schema.maxLength === "number" && schema.maxLength > 200) ||
        schema.format === "textarea");
    /** @type {HTMLInputElement | HTMLTextAreaElement} */
    const input = long
      ? h("textarea", { cls: "agui-input agui-textarea", attrs: { rows: "3" } })
      : h("input", { cls: "agui-input", attrs: { type: isDate ? "date" : "text" } });
    wire(input);
    input.value = typeof start === "string" ? start : "";
    wrap.append(labelEl, descEl ?? "", input);
    read = () => {
      const s = input.value;
      // Empty counts as missing when required (the parent then reports it) or when it was absent.
      if (s === "" && (initial === undefined || where.required)) return { value: undefined, omit: true, problems: [] };
      return { value: s, omit: false, problems: [] };
    };
  } else {
    const area = h("textarea", { cls: "agui-input agui-json", attrs: { rows: "4", spellcheck: "false" } });
    wire(area);
    area.value = start === undefined ? "" : safeJson(start, 2);
    wrap.append(labelEl, h("div", { cls: "agui-hint", text: "JSON" }), descEl ?? "", area);
    read = () => {
      const s = area.value.trim();
      if (s === "") return { value: undefined, omit: true, problems: [] };
      try {
        return { value: JSON.parse(s), omit: false, problems: [] };
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        return {
          value: undefined,
          omit: true,
          problems: [{ path: where.path, message: `${label}: not valid JSON (${why})` }],
        };
      }
    };
  }
  wrap.append(err);
  return { node: wrap, read };
}

/**
 * @param {Record<string, any>} schema
 * @param {unknown} initial
 * @param {FieldWhere} where
 * @param {string} label
 * @param {string} description
 * @returns {Field}
 */
export function objectField(schema, initial, where, label, description) {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [];
  const init = isObj(initial) ? initial : isObj(schema.default) ? schema.default : {};
  const box =
    where.depth === 0
      ? h("div", { cls: "agui-form" })
      : h("fieldset", { cls: "agui-field agui-fieldset", data: { path: where.path } }, [h("legend", { text: label })]);
  if (where.depth > 0 && description) box.append(h("div", { cls: "agui-hint", text: description }));
  /** @type {Array<[string, Field]>} */
  const children = [];
  for (const [k, sub] of Object.entries(props)) {
    const f = buildField(sub, hasOwn(init, k) ? init[k] : undefined, {
      key: k,
      path: joinPath(where.path, k),
      required: required.includes(k),
      depth: where.depth + 1,
      registry: where.registry,
    });
    children.push([k, f]);
    box.append(f.node);
  }
  // Keys the agent sent that the schema does not describe: editable as JSON, never dropped.
  for (const k of Object.keys(init)) {
    if (hasOwn(props, k)) continue;
    const f = buildField({}, init[k], {
      key: k,
      path: joinPath(where.path, k),
      required: false,
      depth: where.depth + 1,
      registry: where.registry,
      extra: true,
    });
    children.push([k, f]);
    box.append(f.node);
  }
  if (children.length === 0) box.append(h("div", { cls: "agui-hint", text: "(no fields)" }));
  return {
    node: box,
    read() {
      /** @type {Record<string, unknown>} */
      const value = {};
      /** @type {Problem[]} */
      const problems = [];
      for (const [k, f] of children) {
        const r = f.read();
        problems.push(...r.problems);
        if (!r.omit) setOwn(value, k, r.value);
      }
      const omit = where.depth > 0 && initial === undefined && !where.required && Object.keys(value).length === 0;
      return { value, omit, problems };
    },
  };
}
