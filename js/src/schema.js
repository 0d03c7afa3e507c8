// @ts-check
/**
 * The JSON Schema subset the forms understand: a schema's widget type, and validation of a value
 * with messages a person can act on.
 */
import { deepEqual, hasOwn, isObj, joinPath, MAX_DEPTH, safeJson } from "./util.js";

/** @typedef {import("./types.js").Problem} Problem */

/**
 * The widget type of a schema (first non-null type).
 * @param {unknown} schema
 * @returns {string | undefined}
 */
export function schemaType(schema) {
  if (!isObj(schema)) return undefined;
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) {
    const first = t.find((x) => x !== "null");
    return typeof first === "string" ? first : undefined;
  }
  if (isObj(schema.properties)) return "object";
  return undefined;
}

/**
 * @param {unknown} v
 * @param {unknown} t
 */
export function typeMatches(v, t) {
  switch (t) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "object":
      return isObj(v);
    case "array":
      return Array.isArray(v);
    default:
      return true;
  }
}

/** @param {unknown} v */
export function describeType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a number";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

/** @param {unknown} t */
export function withArticle(t) {
  const s = String(t);
  return /^[aeiou]/.test(s) ? `an ${s}` : `a ${s}`;
}

/** @param {string} s */
export function isIsoDate(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/**
 * Validate `value` against the supported JSON Schema subset: type, enum, const, required,
 * properties, additionalProperties: false, items, min/max(Length|Items|imum), pattern, format date.
 * @param {unknown} value
 * @param {unknown} schema
 * @param {string} path
 * @param {Problem[]} out
 * @param {number} [depth]
 */
export function validate(value, schema, path, out, depth = 0) {
  if (!isObj(schema) || depth > MAX_DEPTH) return;
  const where = path || "the value";
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) {
    out.push({ path, message: `${where} must be one of ${schema.enum.map((e) => safeJson(e)).join(", ")}` });
    return;
  }
  if (hasOwn(schema, "const") && !deepEqual(schema.const, value)) {
    out.push({ path, message: `${where} must be ${safeJson(schema.const)}` });
    return;
  }
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : null;
  if (types && !types.some((t) => typeMatches(value, t))) {
    out.push({
      path,
      message: `${where} must be ${types.map(withArticle).join(" or ")} (it is ${describeType(value)})`,
    });
    return;
  }
  if (typeof value === "string") {
    const len = [...value].length;
    if (typeof schema.minLength === "number" && len < schema.minLength)
      out.push({ path, message: `${where} must have at least ${schema.minLength} characters` });
    if (typeof schema.maxLength === "number" && len > schema.maxLength)
      out.push({ path, message: `${where} must have at most ${schema.maxLength} characters` });
    if (schema.format === "date" && !isIsoDate(value))
      out.push({ path, message: `${where} must be a date (YYYY-MM-DD)` });
    if (typeof schema.pattern === "string") {
      /** @type {RegExp | null} */
      let re = null;
      try {
        re = new RegExp(schema.pattern, "u");
      } catch {
        re = null;
      }
      if (re && !re.test(value)) out.push({ path, message: `${where} must match the pattern ${schema.pattern}` });
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      out.push({ path, message: `${where} must be at least ${schema.minimum}` });
    if (typeof schema.maximum === "number" && value > schema.maximum)
      out.push({ path, message: `${where} must be at most ${schema.maximum}` });
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum)
      out.push({ path, message: `${where} must be more than ${schema.exclusiveMinimum}` });
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum)
      out.push({ path, message: `${where} must be less than ${schema.exclusiveMaximum}` });
  }
  if (isObj(value)) {
    const props = isObj(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const k of schema.required) {
        if (typeof k === "string" && (!hasOwn(value, k) || value[k] === undefined))
          out.push({ path: joinPath(path, k), message: `${joinPath(path, k)} is required` });
      }
    }
    for (const [k, v] of Object.entries(value)) {
      if (hasOwn(props, k)) validate(v, props[k], joinPath(path, k), out, depth + 1);
      else if (schema.additionalProperties === false)
        out.push({ path: joinPath(path, k), message: `${joinPath(path, k)} is not an allowed field` });
      else if (isObj(schema.additionalProperties))
        validate(v, schema.additionalProperties, joinPath(path, k), out, depth + 1);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      out.push({ path, message: `${where} must have at least ${schema.minItems} items` });
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      out.push({ path, message: `${where} must have at most ${schema.maxItems} items` });
    if (isObj(schema.items)) {
      value.forEach((v, i) => {
        validate(v, schema.items, `${path}[${i}]`, out, depth + 1);
      });
    }
  }
}
