// @ts-check
/**
 * A2UI v0.9 (google/A2UI, specification/v0_9) without the DOM: the messages that build a surface
 * (createSurface, updateComponents, updateDataModel, deleteSurface), its data model with A2UI's
 * JSON Pointer rules (relative paths in list scopes, upserts that create what is missing), dynamic
 * values (literal, {path}, {call}) and the basic catalog's pure functions. Nothing here runs code
 * from data: a function is only ever one of the names below.
 */
import { hasOwn, isObj, safeJson, setOwn } from "./util.js";

export const A2UI_VERSION = "v0.9";
export const MESSAGE_KINDS = ["createSurface", "updateComponents", "updateDataModel", "deleteSurface"];

/** @typedef {{id: string, component: string, [k: string]: any}} Component */
/**
 * @typedef {{
 *   id: string, catalogId: string | null, created: boolean, deleted: boolean,
 *   sendDataModel: boolean, agentName: string, components: Map<string, Component>,
 *   data: any, problems: string[], structure: number,
 * }} SurfaceModel
 */
/** @typedef {{data: () => any, scope: string}} Scope */

/** @param {string} id @returns {SurfaceModel} */
export function newSurface(id) {
  return {
    id,
    catalogId: null,
    created: false,
    deleted: false,
    sendDataModel: false,
    agentName: "",
    components: new Map(),
    data: {},
    problems: [],
    structure: 0,
  };
}

/** @param {any} op @returns {string | null} the one message kind an envelope holds */
export function kindOf(op) {
  if (!isObj(op)) return null;
  const kinds = MESSAGE_KINDS.filter((k) => isObj(op[k]));
  return kinds.length === 1 ? kinds[0] : null;
}

/**
 * Apply one A2UI message to a surface. Returns what changed: "structure" (components or
 * lifecycle: re-render) or "data" (the data model: update bound values).
 * @param {SurfaceModel} s @param {any} op
 * @returns {"structure" | "data" | null}
 */
export function applyMessage(s, op) {
  const kind = kindOf(op);
  if (!kind) {
    s.problems.push(`ignored a message that is not exactly one of ${MESSAGE_KINDS.join(", ")}`);
    return null;
  }
  const body = op[kind];
  if (typeof op.version === "string" && op.version !== A2UI_VERSION && !s.problems.some((p) => p.includes("version"))) {
    s.problems.push(`a message says version ${op.version}; this renderer implements A2UI ${A2UI_VERSION}`);
  }
  if (kind === "createSurface") {
    if (s.created && !s.deleted) s.problems.push(`createSurface for "${s.id}", which already exists`);
    s.created = true;
    s.deleted = false;
    s.catalogId = typeof body.catalogId === "string" ? body.catalogId : null;
    s.sendDataModel = body.sendDataModel === true;
    s.agentName =
      isObj(body.theme) && typeof body.theme.agentDisplayName === "string" ? body.theme.agentDisplayName : "";
    s.structure += 1;
    return "structure";
  }
  if (kind === "updateComponents") {
    for (const c of Array.isArray(body.components) ? body.components : []) {
      if (isObj(c) && typeof c.id === "string" && typeof c.component === "string")
        s.components.set(c.id, /** @type {Component} */ (c));
      else s.problems.push(`ignored a component without a string id and component: ${safeJson(c).slice(0, 80)}`);
    }
    s.structure += 1;
    return "structure";
  }
  if (kind === "updateDataModel") {
    const path = typeof body.path === "string" ? body.path : "/";
    s.data = hasOwn(body, "value")
      ? setPointer(s.data, path, structuredClone(body.value))
      : setPointer(s.data, path, undefined, true);
    return "data";
  }
  s.deleted = true;
  s.structure += 1;
  return "structure";
}

// -- JSON Pointer (RFC 6901) with A2UI's relative paths and upserts ---------------------------

/** @param {string} pointer */
export function splitPointer(pointer) {
  if (pointer === "" || pointer === "/") return [];
  const body = pointer.startsWith("/") ? pointer.slice(1) : pointer;
  return body.split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** @param {string} scope @param {string} path absolute ("/a") or relative to the scope ("a") */
export function absolute(scope, path) {
  if (path.startsWith("/")) return path;
  if (path === "" || path === ".") return scope || "/";
  return `${scope === "/" ? "" : scope}/${path}`;
}

/** @param {any} doc @param {string} pointer */
export function getPointer(doc, pointer) {
  let node = doc;
  for (const part of splitPointer(pointer)) {
    if (Array.isArray(node) && /^\d+$/.test(part)) node = node[Number(part)];
    else if (isObj(node) && hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/**
 * A new document with `value` upserted at `pointer` (intermediate objects, or arrays before a
 * numeric segment, are created); `remove` deletes an object key or empties an array slot.
 * @param {any} doc @param {string} pointer @param {any} value @param {boolean} [remove]
 */
export function setPointer(doc, pointer, value, remove = false) {
  const parts = splitPointer(pointer);
  if (parts.length === 0) return remove ? {} : value;
  const root = isObj(doc) || Array.isArray(doc) ? structuredClone(doc) : {};
  let node = root;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(part) || Number(part) > 100000) return doc; // spec: non-numeric index is an error
      const index = Number(part);
      if (last) {
        if (remove) delete node[index];
        else node[index] = value;
        return root;
      }
      if (!isObj(node[index]) && !Array.isArray(node[index])) node[index] = /^\d+$/.test(parts[i + 1]) ? [] : {};
      node = node[index];
    } else {
      if (last) {
        if (remove) delete node[part];
        else setOwn(node, part, value);
        return root;
      }
      // Own properties only: "__proto__" from data must never reach Object.prototype.
      const current = hasOwn(node, part) ? node[part] : undefined;
      if (!isObj(current) && !Array.isArray(current)) setOwn(node, part, /^\d+$/.test(parts[i + 1]) ? [] : {});
      node = node[part];
    }
  }
  return root;
}

// -- dynamic values and functions --------------------------------------------------------------

/** A value as A2UI interpolates it: null -> "", objects -> JSON. @param {unknown} v */
export function textOf(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return safeJson(v);
}

/** @param {unknown} v */
export function boolOf(v) {
  if (typeof v === "string") return v.toLowerCase() === "true";
  if (typeof v === "number") return v !== 0;
  return v === true;
}

/** @param {unknown} v */
export function numberOf(v) {
  if (typeof v === "number") return Number.isFinite(v) ? v : 0;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return 0;
}

/**
 * Resolve a DynamicValue: a literal, `{path}` (absolute or relative to the scope), or
 * `{call, args}` naming one of the basic catalog's functions.
 * @param {unknown} v @param {Scope} scope @param {number} [depth]
 * @returns {any}
 */
export function resolve(v, scope, depth = 0) {
  if (depth > 32) return undefined;
  if (Array.isArray(v)) return v.map((x) => resolve(x, scope, depth + 1));
  if (!isObj(v)) return v;
  if (typeof v.path === "string" && Object.keys(v).length === 1)
    return getPointer(scope.data(), absolute(scope.scope, v.path));
  if (typeof v.call === "string") return callFunction(v.call, isObj(v.args) ? v.args : {}, scope, depth);
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, x] of Object.entries(v)) setOwn(out, k, resolve(x, scope, depth + 1));
  return out;
}

/** @param {string} n @param {number} d */
const pad = (n, d = 2) => n.padStart(d, "0");
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * @param {string} name @param {Record<string, any>} rawArgs @param {Scope} scope @param {number} depth
 * @returns {any}
 */
export function callFunction(name, rawArgs, scope, depth) {
  /** @type {Record<string, any>} */
  const a = {};
  for (const [k, x] of Object.entries(rawArgs)) setOwn(a, k, resolve(x, scope, depth + 1));
  const value = a.value;
  switch (name) {
    case "required":
      return !(value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0));
    case "email":
      return typeof value === "string" && EMAIL.test(value);
    case "regex":
      return safeRegex(textOf(a.pattern), textOf(value));
    case "length": {
      const n = textOf(value).length;
      return (typeof a.min !== "number" || n >= a.min) && (typeof a.max !== "number" || n <= a.max);
    }
    case "numeric": {
      if (value === "" || value === null || value === undefined || !Number.isFinite(Number(value))) return false;
      const n = Number(value);
      return (typeof a.min !== "number" || n >= a.min) && (typeof a.max !== "number" || n <= a.max);
    }
    case "and":
      return (Array.isArray(a.values) ? a.values : []).every(boolOf);
    case "or":
      return (Array.isArray(a.values) ? a.values : []).some(boolOf);
    case "not":
      return !boolOf(value);
    case "formatString":
      return formatString(textOf(value), scope, depth);
    case "formatNumber": {
      const d = typeof a.decimals === "number" ? Math.max(0, Math.min(20, a.decimals)) : undefined;
      return new Intl.NumberFormat("en-US", {
        minimumFractionDigits: d,
        maximumFractionDigits: d ?? 20,
        useGrouping: a.grouping !== false,
      }).format(numberOf(value));
    }
    case "formatCurrency":
      try {
        return new Intl.NumberFormat("en-US", { style: "currency", currency: textOf(a.currency) || "USD" }).format(
          numberOf(value),
        );
      } catch {
        return `${numberOf(value).toFixed(2)} ${textOf(a.currency)}`.trim();
      }
    case "formatDate":
      return formatDate(value, textOf(a.format) || "yyyy-MM-dd");
    case "pluralize": {
      const rule = new Intl.PluralRules("en-US").select(numberOf(value));
      return textOf(hasOwn(a, rule) ? a[rule] : a.other);
    }
    default:
      return undefined; // openUrl and unknown functions do nothing here (no URLs are opened)
  }
}

/** @param {string} pattern @param {string} text */
function safeRegex(pattern, text) {
  if (pattern.length > 500 || text.length > 10000) return false;
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return false;
  }
}

/**
 * `${/abs/path}` and `${relative}` interpolation; `\${` is a literal. Function calls inside
 * expressions are not evaluated (they show as empty text).
 * @param {string} template @param {Scope} scope @param {number} depth
 */
export function formatString(template, scope, depth) {
  let out = "";
  for (let i = 0; i < template.length; i++) {
    if (template[i] === "\\" && template.startsWith("${", i + 1)) {
      out += "${";
      i += 2;
      continue;
    }
    if (template.startsWith("${", i)) {
      const end = template.indexOf("}", i + 2);
      if (end < 0) return out + template.slice(i);
      const expr = template.slice(i + 2, end).trim();
      if (!expr.includes("(")) out += textOf(resolve({ path: expr }, scope, depth + 1));
      i = end;
      continue;
    }
    out += template[i];
  }
  return out;
}

/** @param {unknown} value @param {string} format */
export function formatDate(value, format) {
  const d = typeof value === "number" || typeof value === "string" ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return textOf(value);
  const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const h = d.getUTCHours();
  /** @type {Record<string, string>} */
  const parts = {
    yyyy: String(d.getUTCFullYear()),
    YYYY: String(d.getUTCFullYear()),
    MMM: MONTHS[d.getUTCMonth()],
    MM: pad(String(d.getUTCMonth() + 1)),
    dd: pad(String(d.getUTCDate())),
    d: String(d.getUTCDate()),
    E: DAYS[d.getUTCDay()],
    HH: pad(String(h)),
    h: String(h % 12 || 12),
    mm: pad(String(d.getUTCMinutes())),
    ss: pad(String(d.getUTCSeconds())),
    a: h < 12 ? "AM" : "PM",
  };
  return format.replace(/yyyy|YYYY|MMM|MM|dd|d|E|HH|h|mm|ss|a/g, (m) => parts[m]);
}

/**
 * The messages of the checks that fail. A check is `{condition, message}` (the schema) or
 * `{call, args, message}` (the protocol document's form).
 * @param {unknown} checks @param {Scope} scope
 * @returns {string[]}
 */
export function failedChecks(checks, scope) {
  if (!Array.isArray(checks)) return [];
  /** @type {string[]} */
  const failed = [];
  for (const c of checks) {
    if (!isObj(c)) continue;
    const cond = hasOwn(c, "condition") ? c.condition : { call: c.call, args: c.args };
    if (!boolOf(resolve(cond, scope))) failed.push(textOf(c.message) || "This value is not valid.");
  }
  return failed;
}
