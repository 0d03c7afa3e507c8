// GENERATED from js/src/*.js (entry js/src/index.js) by `cd js && npm run build` (esbuild 0.28.2); do not edit, edit js/src/ and rebuild.

// src/util.js
var MAX_DEPTH = 64;
function isObj(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function safeJson(v, indent) {
  try {
    const s = JSON.stringify(v, null, indent);
    return s === void 0 ? String(v) : s;
  } catch (e) {
    return `(cannot display this value: ${e instanceof Error ? e.message : String(e)})`;
  }
}
function asText(v) {
  if (typeof v === "string") return v;
  if (v === null || v === void 0) return "";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return safeJson(v);
}
function deepEqual(a, b, depth = 0) {
  if (a === b) return true;
  if (depth > 200 || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i], depth + 1));
  }
  const ao = (
    /** @type {Record<string, unknown>} */
    a
  );
  const bo = (
    /** @type {Record<string, unknown>} */
    b
  );
  const ak = Object.keys(ao);
  const bk = Object.keys(bo);
  return ak.length === bk.length && ak.every((k) => hasOwn(bo, k) && deepEqual(ao[k], bo[k], depth + 1));
}
function hasOwn(o, k) {
  return Object.prototype.hasOwnProperty.call(o, k);
}
function setOwn(o, k, v) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
function fmtInt(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
function joinPath(base, key) {
  return base ? `${base}.${key}` : key;
}

// src/a2ui.js
var A2UI_VERSION = "v0.9";
var MESSAGE_KINDS = ["createSurface", "updateComponents", "updateDataModel", "deleteSurface"];
function newSurface(id) {
  return { id, catalogId: null, created: false, deleted: false, sendDataModel: false, agentName: "", components: /* @__PURE__ */ new Map(), data: {}, problems: [], structure: 0 };
}
function kindOf(op) {
  if (!isObj(op)) return null;
  const kinds = MESSAGE_KINDS.filter((k) => isObj(op[k]));
  return kinds.length === 1 ? kinds[0] : null;
}
function applyMessage(s, op) {
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
    s.agentName = isObj(body.theme) && typeof body.theme.agentDisplayName === "string" ? body.theme.agentDisplayName : "";
    s.structure += 1;
    return "structure";
  }
  if (kind === "updateComponents") {
    for (const c of Array.isArray(body.components) ? body.components : []) {
      if (isObj(c) && typeof c.id === "string" && typeof c.component === "string") s.components.set(
        c.id,
        /** @type {Component} */
        c
      );
      else s.problems.push(`ignored a component without a string id and component: ${safeJson(c).slice(0, 80)}`);
    }
    s.structure += 1;
    return "structure";
  }
  if (kind === "updateDataModel") {
    const path = typeof body.path === "string" ? body.path : "/";
    s.data = hasOwn(body, "value") ? setPointer(s.data, path, structuredClone(body.value)) : setPointer(s.data, path, void 0, true);
    return "data";
  }
  s.deleted = true;
  s.structure += 1;
  return "structure";
}
function splitPointer(pointer) {
  if (pointer === "" || pointer === "/") return [];
  const body = pointer.startsWith("/") ? pointer.slice(1) : pointer;
  return body.split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}
function absolute(scope, path) {
  if (path.startsWith("/")) return path;
  if (path === "" || path === ".") return scope || "/";
  return `${scope === "/" ? "" : scope}/${path}`;
}
function getPointer(doc, pointer) {
  let node = doc;
  for (const part of splitPointer(pointer)) {
    if (Array.isArray(node) && /^\d+$/.test(part)) node = node[Number(part)];
    else if (isObj(node) && hasOwn(node, part)) node = node[part];
    else return void 0;
  }
  return node;
}
function setPointer(doc, pointer, value, remove = false) {
  const parts = splitPointer(pointer);
  if (parts.length === 0) return remove ? {} : value;
  const root = isObj(doc) || Array.isArray(doc) ? structuredClone(doc) : {};
  let node = root;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(part) || Number(part) > 1e5) return doc;
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
      const current = hasOwn(node, part) ? node[part] : void 0;
      if (!isObj(current) && !Array.isArray(current)) setOwn(node, part, /^\d+$/.test(parts[i + 1]) ? [] : {});
      node = node[part];
    }
  }
  return root;
}
function textOf(v) {
  if (v === null || v === void 0) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return safeJson(v);
}
function boolOf(v) {
  if (typeof v === "string") return v.toLowerCase() === "true";
  if (typeof v === "number") return v !== 0;
  return v === true;
}
function numberOf(v) {
  if (typeof v === "number") return Number.isFinite(v) ? v : 0;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return 0;
}
function resolve(v, scope, depth = 0) {
  if (depth > 32) return void 0;
  if (Array.isArray(v)) return v.map((x) => resolve(x, scope, depth + 1));
  if (!isObj(v)) return v;
  if (typeof v.path === "string" && Object.keys(v).length === 1) return getPointer(scope.data(), absolute(scope.scope, v.path));
  if (typeof v.call === "string") return callFunction(v.call, isObj(v.args) ? v.args : {}, scope, depth);
  const out = {};
  for (const [k, x] of Object.entries(v)) setOwn(out, k, resolve(x, scope, depth + 1));
  return out;
}
var pad = (n, d = 2) => n.padStart(d, "0");
var EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
function callFunction(name, rawArgs, scope, depth) {
  const a = {};
  for (const [k, x] of Object.entries(rawArgs)) setOwn(a, k, resolve(x, scope, depth + 1));
  const value = a.value;
  switch (name) {
    case "required":
      return !(value === null || value === void 0 || value === "" || Array.isArray(value) && value.length === 0);
    case "email":
      return typeof value === "string" && EMAIL.test(value);
    case "regex":
      return safeRegex(textOf(a.pattern), textOf(value));
    case "length": {
      const n = textOf(value).length;
      return (typeof a.min !== "number" || n >= a.min) && (typeof a.max !== "number" || n <= a.max);
    }
    case "numeric": {
      if (value === "" || value === null || value === void 0 || !Number.isFinite(Number(value))) return false;
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
      const d = typeof a.decimals === "number" ? Math.max(0, Math.min(20, a.decimals)) : void 0;
      return new Intl.NumberFormat("en-US", { minimumFractionDigits: d, maximumFractionDigits: d ?? 20, useGrouping: a.grouping !== false }).format(numberOf(value));
    }
    case "formatCurrency":
      try {
        return new Intl.NumberFormat("en-US", { style: "currency", currency: textOf(a.currency) || "USD" }).format(numberOf(value));
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
      return void 0;
  }
}
function safeRegex(pattern, text) {
  if (pattern.length > 500 || text.length > 1e4) return false;
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return false;
  }
}
function formatString(template, scope, depth) {
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
function formatDate(value, format) {
  const d = typeof value === "number" || typeof value === "string" ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return textOf(value);
  const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const h2 = d.getUTCHours();
  const parts = {
    yyyy: String(d.getUTCFullYear()),
    YYYY: String(d.getUTCFullYear()),
    MMM: MONTHS[d.getUTCMonth()],
    MM: pad(String(d.getUTCMonth() + 1)),
    dd: pad(String(d.getUTCDate())),
    d: String(d.getUTCDate()),
    E: DAYS[d.getUTCDay()],
    HH: pad(String(h2)),
    h: String(h2 % 12 || 12),
    mm: pad(String(d.getUTCMinutes())),
    ss: pad(String(d.getUTCSeconds())),
    a: h2 < 12 ? "AM" : "PM"
  };
  return format.replace(/yyyy|YYYY|MMM|MM|dd|d|E|HH|h|mm|ss|a/g, (m) => parts[m]);
}
function failedChecks(checks, scope) {
  if (!Array.isArray(checks)) return [];
  const failed = [];
  for (const c of checks) {
    if (!isObj(c)) continue;
    const cond = hasOwn(c, "condition") ? c.condition : { call: c.call, args: c.args };
    if (!boolOf(resolve(cond, scope))) failed.push(textOf(c.message) || "This value is not valid.");
  }
  return failed;
}

// src/dom.js
var FORBIDDEN_ATTR = /^(?:on|src|href$|style$|action$|formaction$|xlink:href$|background$|poster$)/i;
var uidCounter = 0;
function nextId(prefix) {
  uidCounter += 1;
  return `${prefix}-${uidCounter}`;
}
function newRequestId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  uidCounter += 1;
  return `req-${Date.now().toString(36)}-${uidCounter}-${Math.random().toString(36).slice(2)}`;
}
function h(tag, opts = {}, children = []) {
  const node = document.createElement(tag);
  if (opts.cls) node.className = opts.cls;
  if (opts.text !== void 0) node.textContent = opts.text;
  if (opts.attrs) for (const [k, v] of Object.entries(opts.attrs)) setAttr(node, k, v);
  if (opts.data) for (const [k, v] of Object.entries(opts.data)) node.setAttribute(`data-${k}`, v);
  for (const child of children) {
    if (child === null || child === void 0 || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}
function setAttr(node, name, value) {
  if (FORBIDDEN_ATTR.test(name)) throw new Error(`agui-chat: refusing to set the ${name} attribute`);
  node.setAttribute(name, value);
}
function button(label, action, aria, cls) {
  const b = h("button", { cls: `agui-btn${cls ? ` ${cls}` : ""}`, text: label, attrs: { type: "button" } });
  if (action) b.setAttribute("data-action", action);
  if (aria) b.setAttribute("aria-label", aria);
  return b;
}

// src/image.js
var IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
var MAX_IMAGE_BYTES = 2 * 1024 * 1024;
var MAX_IMAGE_CHARS = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;
var BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
var MAGIC = (
  /** @type {Record<string, Array<Array<number | null>>>} */
  {
    "image/png": [[137, 80, 78, 71, 13, 10, 26, 10]],
    "image/jpeg": [[255, 216, 255]],
    "image/gif": [
      [71, 73, 70, 56, 55, 97],
      [71, 73, 70, 56, 57, 97]
    ],
    "image/webp": [[82, 73, 70, 70, null, null, null, null, 87, 69, 66, 80]]
  }
);
function isStrictBase64(data) {
  return typeof data === "string" && data.length > 0 && data.length % 4 === 0 && BASE64.test(data);
}
function imageProblem(mimeType, data) {
  if (typeof mimeType !== "string" || !IMAGE_TYPES.includes(mimeType)) {
    return `${typeof mimeType === "string" && mimeType ? mimeType : "an image of unknown type"} is not drawn inline (PNG, JPEG, GIF and WebP are)`;
  }
  if (!isStrictBase64(data)) return "its data is not base64";
  if (data.length > MAX_IMAGE_CHARS) return `larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MB, not drawn inline`;
  if (!startsLike(mimeType, data)) return `its bytes are not ${mimeType}`;
  return null;
}
function startsLike(mimeType, data) {
  let head;
  try {
    head = atob(data.slice(0, 16));
  } catch {
    return false;
  }
  return MAGIC[mimeType].some((sig) => sig.length <= head.length && sig.every((b, i) => b === null || head.charCodeAt(i) === b));
}
function inlineImage(mimeType, data, alt) {
  if (imageProblem(mimeType, data) !== null) return null;
  const img = h("img", { cls: "agui-part-img", attrs: { alt } });
  img.src = `data:${mimeType};base64,${data}`;
  return img;
}

// src/tree.js
var CLIP_CHARS = 400;
var CLIP_LINES = 12;
var CLIP_ENTRIES = 50;
function clipPoint(text) {
  let cut = text.length > CLIP_CHARS ? CLIP_CHARS : -1;
  const scan = cut < 0 ? text.length : cut;
  let lines = 0;
  for (let i = 0; i < scan; i++) {
    if (text.charCodeAt(i) === 10) {
      lines += 1;
      if (lines >= CLIP_LINES) {
        cut = i;
        break;
      }
    }
  }
  if (cut <= 0 || cut >= text.length) return -1;
  const c = text.charCodeAt(cut - 1);
  if (c >= 55296 && c <= 56319) cut -= 1;
  return cut;
}
function longText(text, state, path, cls) {
  const wrap = h("span", { cls: `agui-longtext${cls ? ` ${cls}` : ""}` });
  const shown = h("span", { cls: "agui-text" });
  wrap.append(shown);
  const cut = clipPoint(text);
  if (cut < 0) {
    shown.textContent = text;
    return wrap;
  }
  const hiddenChars = text.length - cut;
  let hiddenLines = 0;
  for (let i = cut; i < text.length; i++) if (text.charCodeAt(i) === 10) hiddenLines += 1;
  const hiddenText = `${fmtInt(hiddenChars)} more characters` + (hiddenLines > 0 ? ` (${fmtInt(hiddenLines)} more lines)` : "");
  const note = h("span", { cls: "agui-clip-note" });
  const more = button("", null, void 0, "agui-more agui-link");
  wrap.append(note, " ", more);
  const apply = () => {
    const open = state.expanded.has(path);
    shown.textContent = open ? text : text.slice(0, cut);
    note.textContent = open ? "" : `… ${hiddenText} hidden`;
    more.textContent = open ? "show less" : "show more";
    more.setAttribute("aria-label", open ? "Show less" : `Show ${hiddenText}`);
    more.setAttribute("aria-expanded", String(open));
  };
  more.addEventListener("click", () => {
    if (state.expanded.has(path)) state.expanded.delete(path);
    else state.expanded.add(path);
    apply();
  });
  apply();
  return wrap;
}
function renderTree(value, state, cls) {
  const root = h("div", { cls: `agui-tree${cls ? ` ${cls}` : ""}` });
  root.append(renderValue(value, state, "$", 0));
  return root;
}
function renderValue(value, state, path, depth) {
  if (value === null) return h("span", { cls: "agui-v agui-v-null", text: "null" });
  switch (typeof value) {
    case "string":
      return longText(value, state, path, "agui-v agui-v-string");
    case "number":
    case "bigint":
      return h("span", { cls: "agui-v agui-v-number", text: String(value) });
    case "boolean":
      return h("span", { cls: "agui-v agui-v-boolean", text: String(value) });
    case "undefined":
      return h("span", { cls: "agui-v agui-v-null", text: "(none)" });
    case "object":
      break;
    default:
      return longText(String(value), state, path, "agui-v");
  }
  const obj = (
    /** @type {object} */
    value
  );
  if (depth >= MAX_DEPTH) {
    return h("span", { cls: "agui-v agui-v-deep" }, [
      h("span", { cls: "agui-clip-note", text: `(nested deeper than ${MAX_DEPTH} levels, shown as JSON) ` }),
      longText(safeJson(obj), state, path, "agui-v-json")
    ]);
  }
  const isArray = Array.isArray(obj);
  const entries = isArray ? (
    /** @type {unknown[]} */
    obj.map((v, i) => (
      /** @type {[string, unknown]} */
      [String(i), v]
    ))
  ) : Object.entries(obj);
  if (entries.length === 0) return h("span", { cls: "agui-v agui-v-empty", text: isArray ? "[ ]" : "{ }" });
  const body = h("tbody");
  const table = h("table", { cls: `agui-kv${isArray ? " agui-kv-array" : ""}` }, [body]);
  const addRows = (from, to) => {
    for (let i = from; i < to; i++) {
      const [k, v] = entries[i];
      const th = h("th", { attrs: { scope: "row" }, cls: isArray ? "agui-index" : "agui-key", text: k });
      body.append(h("tr", {}, [th, h("td", {}, [renderValue(v, state, `${path}/${JSON.stringify(k)}`, depth + 1)])]));
    }
  };
  const moreKey = `${path}#more`;
  if (entries.length <= CLIP_ENTRIES || state.expanded.has(moreKey)) {
    addRows(0, entries.length);
  } else {
    addRows(0, CLIP_ENTRIES);
    const rest = entries.length - CLIP_ENTRIES;
    const what = isArray ? "items" : "keys";
    const more = button(`show ${fmtInt(rest)} more ${what}`, null, void 0, "agui-more agui-link");
    const row = h("tr", { cls: "agui-more-row" }, [
      h("td", { attrs: { colspan: "2" } }, [h("span", { cls: "agui-clip-note", text: `… ${fmtInt(rest)} more ${what} hidden ` }), more])
    ]);
    more.addEventListener("click", () => {
      state.expanded.add(moreKey);
      row.remove();
      addRows(CLIP_ENTRIES, entries.length);
    });
    body.append(row);
  }
  return table;
}

// src/parts.js
var KINDS = ["text", "image", "audio", "video", "document", "file"];
var WHERE = (
  /** @type {Record<string, string>} */
  { data: "sent inline, not shown", url: "at", file: "file" }
);
function fmtBytes(n) {
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return "";
  if (n < 1024) return `${fmtInt(n)} ${n === 1 ? "byte" : "bytes"}`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
var capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);
function fileLine(part, problem = null) {
  const kind = asText(part.kind ?? part.type) || "file";
  const label = asText(part.label);
  const head = label && label !== kind ? `${capital(kind)}: ${label}` : capital(kind);
  const bits = [];
  if (typeof part.mimeType === "string" && part.mimeType) bits.push(part.mimeType);
  const size = fmtBytes(part.bytes);
  if (size) bits.push(size);
  const source = typeof part.source === "string" ? part.source : part.type === "image" ? "data" : null;
  const location = typeof part.location === "string" ? part.location : "";
  if (source === "url") bits.push(`at ${location} (not loaded)`);
  else if (source === "file") bits.push(`file ${location}${typeof part.provider === "string" && part.provider ? ` (${part.provider})` : ""}`);
  else if (source === "data") bits.push(problem === null ? WHERE.data : "sent inline");
  else if (source) bits.push(`from ${source}`);
  const note = problem ?? (typeof part.note === "string" ? part.note : "");
  if (note) bits.push(note);
  return [head, ...bits].join(" · ");
}
function metadataTree(metadata) {
  if (!isObj(metadata) || Object.keys(metadata).length === 0) return null;
  const tree = { expanded: /* @__PURE__ */ new Set() };
  return h("details", { cls: "agui-part-meta" }, [h("summary", { text: "Metadata" }), renderTree(metadata, tree)]);
}
function renderPart(part, index) {
  const tree = { expanded: /* @__PURE__ */ new Set() };
  if (!isObj(part)) return h("div", { cls: "agui-part agui-part-unknown agui-pre", data: { type: "unknown" } }, [longText(safeJson(part), tree, `p${index}`)]);
  const type = asText(part.type);
  if (type === "text") {
    return h("div", { cls: "agui-part agui-part-text agui-pre", data: { type } }, [longText(asText(part.text), tree, `p${index}`)]);
  }
  if (type === "image") {
    const label = asText(part.label) || "image";
    const img = inlineImage(part.mimeType, part.data, label);
    if (img) {
      const caption = h("figcaption", { cls: "agui-part-caption" }, [longText(label, tree, `p${index}`)]);
      const size = fmtBytes(part.bytes);
      if (size) caption.append(h("span", { cls: "agui-hint", text: ` · ${size}` }));
      return h("figure", { cls: "agui-part agui-part-image", data: { type } }, [img, caption, metadataTree(part.metadata)]);
    }
    const problem = imageProblem(part.mimeType, part.data) ?? "not drawn";
    return h("div", { cls: "agui-part agui-part-file", data: { type: "file", kind: "image" } }, [
      h("div", { cls: "agui-pre" }, [longText(fileLine(part, problem), tree, `p${index}`)]),
      metadataTree(part.metadata)
    ]);
  }
  if (type === "file") {
    const kind = KINDS.includes(asText(part.kind)) ? asText(part.kind) : "other";
    return h("div", { cls: "agui-part agui-part-file", data: { type, kind } }, [
      h("div", { cls: "agui-pre" }, [longText(fileLine(part), tree, `p${index}`)]),
      metadataTree(part.metadata)
    ]);
  }
  return h("div", { cls: "agui-part agui-part-unknown", data: { type: "unknown" } }, [
    h("div", { cls: "agui-hint", text: `A part of unknown type "${type}":` }),
    h("div", { cls: "agui-pre" }, [longText(safeJson(part, 2), tree, `p${index}`)])
  ]);
}
function renderParts(parts) {
  const box = h("div", { cls: "agui-parts" });
  parts.forEach((part, i) => box.append(renderPart(part, i)));
  if (parts.length === 0) box.append(h("span", { cls: "agui-hint", text: "(an empty list of parts)" }));
  return box;
}

// src/items.js
function itemShell(kind, item, cls) {
  const node = h("div", { cls: `agui-item ${cls}`, data: { kind } });
  if (isObj(item) && (typeof item.id === "string" || typeof item.id === "number")) node.dataset.itemId = String(item.id);
  return node;
}
function userEntry(item) {
  const node = itemShell("user", item, "agui-user");
  const text = document.createTextNode("");
  node.append(h("div", { cls: "agui-role", text: "You" }), h("div", { cls: "agui-text agui-pre" }, [text]));
  const update = (it) => {
    const t = asText(it?.text);
    if (text.data !== t) text.data = t;
  };
  update(item);
  return { node, kind: "user", update, destroy() {
  } };
}
function assistantEntry(item) {
  const node = itemShell("assistant", item, "agui-assistant");
  const text = document.createTextNode("");
  node.append(h("div", { cls: "agui-text agui-pre" }, [text]));
  const update = (it) => {
    const t = asText(it?.text);
    if (text.data !== t) text.data = t;
    node.classList.toggle("agui-streaming", it?.streaming === true);
  };
  update(item);
  return { node, kind: "assistant", update, destroy() {
  } };
}
function reasoningEntry(item) {
  const node = itemShell("reasoning", item, "agui-reasoning");
  const details = h("details", { cls: "agui-reasoning-details" });
  const live = h("span", { cls: "agui-hint" });
  const mark = h("span", { cls: "agui-hint agui-encrypted-mark" });
  const text = document.createTextNode("");
  const body = h("div", { cls: "agui-text agui-pre" }, [text]);
  const note = h("div", { cls: "agui-note agui-encrypted", text: ENCRYPTED_REASONING });
  details.append(h("summary", {}, ["Reasoning", live, mark]), body, note);
  node.append(details);
  const update = (it) => {
    const t = asText(it?.text);
    if (text.data !== t) text.data = t;
    live.textContent = it?.streaming === true ? " (thinking…)" : "";
    const encrypted = it?.encrypted === true;
    mark.textContent = encrypted ? t ? " · encrypted part kept" : " · encrypted, kept" : "";
    note.hidden = !encrypted;
    body.hidden = encrypted && !t;
  };
  update(item);
  return { node, kind: "reasoning", update, destroy() {
  } };
}
var ENCRYPTED_REASONING = "Part of this reasoning is encrypted: the client keeps it and sends it back to the agent unread; it cannot be shown.";
var ENCRYPTED_TOOL = "An encrypted value came with this call: it is kept for the agent and not shown.";
var TOOL_STATUS_TEXT = (
  /** @type {Record<string, string>} */
  {
    streaming: "receiving arguments…",
    called: "called",
    awaiting: "awaiting a decision",
    done: "done",
    rejected: "rejected",
    cancelled: "cancelled"
  }
);
function toolEntry(item) {
  const node = itemShell("tool", item, "agui-tool");
  const name = h("strong", { cls: "agui-tool-name" });
  const badge = h("span", { cls: "agui-badge" });
  const args = h("div", { cls: "agui-args" });
  const resultBody = h("div", { cls: "agui-result-body" });
  const result = h("div", { cls: "agui-result" }, [h("div", { cls: "agui-label", text: "Result" }), resultBody]);
  const sealed = h("div", { cls: "agui-note agui-encrypted", text: ENCRYPTED_TOOL });
  node.append(h("div", { cls: "agui-tool-head" }, [h("span", { cls: "agui-label", text: "Tool " }), name, " ", badge]), args, result, sealed);
  const tree = { expanded: /* @__PURE__ */ new Set() };
  let argsKey = "";
  let resultKey;
  let shownParts = null;
  const update = (it) => {
    const n = asText(it?.name);
    if (name.textContent !== n) name.textContent = n;
    const status = asText(it?.status);
    node.dataset.status = status;
    badge.dataset.status = status;
    badge.textContent = TOOL_STATUS_TEXT[status] ?? status;
    const hasArgs = it?.args !== null && it?.args !== void 0;
    const key = hasArgs ? `j${safeJson(it.args)}` : `t${asText(it?.argsText)}`;
    if (key !== argsKey) {
      argsKey = key;
      if (hasArgs) args.replaceChildren(renderTree(it.args, tree));
      else if (asText(it?.argsText)) args.replaceChildren(h("div", { cls: "agui-args-text agui-pre" }, [longText(asText(it.argsText), tree, "argsText")]));
      else args.replaceChildren(h("span", { cls: "agui-hint", text: "(no arguments)" }));
    }
    sealed.hidden = it?.encrypted !== true;
    if (Array.isArray(it?.resultParts)) {
      if (shownParts === null || !deepEqual(shownParts, it.resultParts)) {
        shownParts = it.resultParts;
        resultKey = void 0;
        result.hidden = false;
        resultBody.replaceChildren(renderParts(it.resultParts));
      }
      return;
    }
    shownParts = null;
    const value = it?.resultValue;
    const structured = value !== null && typeof value === "object";
    const r = it?.result === null || it?.result === void 0 ? null : asText(it.result);
    const rKey = structured ? `j${safeJson(value)}` : r === null ? null : `t${r}`;
    if (rKey !== resultKey) {
      resultKey = rKey;
      result.hidden = rKey === null;
      if (structured) resultBody.replaceChildren(renderTree(value, tree));
      else resultBody.replaceChildren(r === null ? "" : h("div", { cls: "agui-pre" }, [longText(r, tree, "result")]));
    }
  };
  update(item);
  return { node, kind: "tool", update, destroy() {
  } };
}
function errorEntry(item) {
  const node = itemShell("error", item, "agui-error-item");
  node.setAttribute("role", "alert");
  const title = h("strong", { cls: "agui-error-title" });
  const message = h("div", { cls: "agui-error agui-pre" });
  const hint = h("div", { cls: "agui-hint agui-pre" });
  node.append(title, message, hint);
  const update = (it) => {
    title.textContent = asText(it?.title) || "Error";
    message.textContent = asText(it?.message);
    hint.textContent = asText(it?.hint);
    hint.hidden = !hint.textContent;
  };
  update(item);
  return { node, kind: "error", update, destroy() {
  } };
}
function noticeEntry(item) {
  const node = itemShell("notice", item, "agui-notice");
  const update = (it) => {
    node.textContent = asText(it?.text);
  };
  update(item);
  return { node, kind: "notice", update, destroy() {
  } };
}
function unknownEntry(item, kind) {
  const node = itemShell(kind, item, "agui-unknown");
  const body = h("div", { cls: "agui-pre" });
  node.append(h("div", { cls: "agui-hint", text: `Item of unknown kind "${kind}":` }), body);
  const tree = { expanded: /* @__PURE__ */ new Set() };
  const update = (it) => {
    body.replaceChildren(longText(safeJson(it, 2), tree, "unknown"));
  };
  update(item);
  return { node, kind, update, destroy() {
  } };
}

// src/activity.js
var DONE = ["done", "completed", "complete", "finished", "success", "succeeded", "ok", true];
var ACTIVE = ["in_progress", "in-progress", "inprogress", "running", "active", "doing", "started", "working"];
var FAILED = ["failed", "error", "errored", "cancelled", "canceled", "skipped"];
var STATE_MARK = (
  /** @type {Record<string, string>} */
  { done: "✓", active: "▶", failed: "✕", pending: "○" }
);
function pick(doc, option, usual) {
  if (typeof option === "string") return option === "" ? doc : getPointer(doc, option);
  for (const p of usual) {
    const v = getPointer(doc, p);
    if (v !== void 0 && v !== null) return v;
  }
  return void 0;
}
function stateOf(item, o) {
  const raw = isObj(item) ? pick(item, o.status, ["/status", "/state", "/done", "/completed", "/complete"]) : void 0;
  const v = typeof raw === "string" ? raw.toLowerCase() : raw;
  const has = (list, dflt) => (Array.isArray(list) ? list : dflt).some((x) => (typeof x === "string" ? x.toLowerCase() : x) === v);
  if (has(o.doneValues, DONE)) return "done";
  if (has(o.failedValues, FAILED)) return "failed";
  if (has(o.activeValues, ACTIVE)) return "active";
  return "pending";
}
function labelOf(item, o) {
  if (!isObj(item)) return textOf(item);
  const v = pick(item, o.label, ["/title", "/label", "/text", "/name", "/description", "/step", "/task"]);
  return v === void 0 ? safeJson(item) : textOf(v);
}
function activityEntry(item) {
  const node = itemShell("activity", item, "agui-activity");
  const summary = h("summary", { cls: "agui-activity-title" });
  const body = h("div", { cls: "agui-activity-body" });
  const problem = h("div", { cls: "agui-hint agui-activity-problem" });
  const details = h("details", { cls: "agui-activity-details", attrs: { open: "" } }, [summary, body, problem]);
  node.append(details);
  const tree = { expanded: /* @__PURE__ */ new Set() };
  let shown = "";
  const update = (it) => {
    const o = isObj(it?.options) ? it.options : {};
    const content = it?.content;
    const renderer = asText(it?.renderer) || "tree";
    const key = `${renderer}\0${safeJson(o)}\0${safeJson(content)}`;
    problem.textContent = asText(it?.problem);
    problem.hidden = !problem.textContent;
    if (key === shown) return;
    shown = key;
    node.dataset.renderer = renderer;
    node.dataset.activityType = asText(it?.activityType);
    const title = textOf(pick(content, o.title, ["/title", "/name"]));
    const drawn = renderer === "checklist" ? checklist(content, o) : renderer === "search" ? search(content, o) : null;
    const type = asText(it?.activityType) || "activity";
    summary.replaceChildren(h("span", { cls: "agui-label", text: title ? `${type} · ` : type }), title, drawn?.badge ?? "");
    body.replaceChildren(drawn?.node ?? renderTree(content, tree));
  };
  update(item);
  return { node, kind: "activity", update, destroy() {
  } };
}
function checklist(content, o) {
  const items = Array.isArray(content) && o.items === void 0 ? content : pick(content, o.items, ["/steps", "/items", "/tasks", "/todos", "/plan", "/checklist"]);
  if (!Array.isArray(items)) return null;
  const states = items.map((it) => stateOf(it, o));
  const done = states.filter((s) => s === "done").length;
  const failed = states.filter((s) => s === "failed").length;
  const progress = h("progress", { cls: "agui-checklist-progress", attrs: { max: String(Math.max(1, items.length)), value: String(done) } });
  progress.setAttribute("aria-label", `${done} of ${items.length} done`);
  const list = h("ol", { cls: "agui-checklist" });
  items.forEach((it, i) => {
    list.append(h("li", { cls: "agui-checklist-item", data: { state: states[i] } }, [h("span", { cls: "agui-checklist-mark", text: STATE_MARK[states[i]], attrs: { "aria-hidden": "true" } }), " ", h("span", { text: labelOf(it, o) }), h("span", { cls: "agui-sr", text: ` (${states[i]})` })]));
  });
  const text = `${done} of ${items.length} done${failed ? `, ${failed} failed` : ""}`;
  return { node: h("div", { cls: "agui-checklist-box" }, [progress, list]), badge: h("span", { cls: "agui-badge agui-checklist-count", text: ` ${text}` }) };
}
function search(content, o) {
  if (!isObj(content)) return null;
  const query = pick(content, o.query, ["/query", "/q", "/search", "/term"]);
  const status = pick(content, o.status, ["/status", "/state"]);
  const results = pick(content, o.results, ["/results", "/items", "/hits", "/sources"]);
  const count = pick(content, o.count, ["/count", "/total", "/resultCount"]);
  const n = typeof count === "number" ? count : Array.isArray(results) ? results.length : null;
  const head = h("div", { cls: "agui-search-head" }, [
    h("span", { cls: "agui-label", text: "Query " }),
    h("q", { cls: "agui-search-query", text: textOf(query) }),
    status !== void 0 ? h("span", { cls: "agui-badge agui-search-status", text: ` ${textOf(status)}` }) : null
  ]);
  const list = h("ol", { cls: "agui-search-results" });
  if (Array.isArray(results)) {
    for (const r of results.slice(0, 100)) {
      const title = isObj(r) ? pick(r, o.resultTitle, ["/title", "/name", "/label"]) : r;
      const detail = isObj(r) ? pick(r, o.resultDetail, ["/snippet", "/summary", "/description", "/url"]) : void 0;
      list.append(h("li", {}, [h("span", { cls: "agui-search-title", text: textOf(title ?? safeJson(r)) }), detail !== void 0 ? h("div", { cls: "agui-hint agui-pre", text: textOf(detail) }) : null]));
    }
    if (results.length > 100) list.append(h("li", { cls: "agui-clip-note", text: `… ${results.length - 100} more results not shown` }));
  }
  const badge = h("span", { cls: "agui-badge agui-search-count", text: n === null ? "" : ` ${n} result${n === 1 ? "" : "s"}` });
  return { node: h("div", { cls: "agui-search" }, [head, list]), badge };
}

// src/audit.js
function renderAudit(audit, body, tree) {
  const rows = Array.isArray(audit) ? audit : [];
  const columns = [];
  for (const r of rows) if (isObj(r)) {
    for (const k of Object.keys(r)) if (!columns.includes(k)) columns.push(k);
  }
  const hasPlain = rows.some((r) => !isObj(r));
  const head = h("tr", {}, columns.map((c) => h("th", { attrs: { scope: "col" }, text: c })));
  if (hasPlain) head.append(h("th", { attrs: { scope: "col" }, text: "record" }));
  const tbody = h("tbody");
  rows.forEach((r, i) => {
    const tr = h("tr");
    for (const c of columns) {
      const v = isObj(r) && hasOwn(r, c) ? r[c] : void 0;
      tr.append(h("td", {}, [v === void 0 ? "" : longText(typeof v === "string" ? v : safeJson(v), tree, `${i}/${c}`)]));
    }
    if (hasPlain) tr.append(h("td", {}, [isObj(r) ? "" : longText(asText(r), tree, `${i}`)]));
    tbody.append(tr);
  });
  body.replaceChildren(h("table", { cls: "agui-audit-table" }, [h("thead", {}, [head]), tbody]));
}

// src/diff.js
function diffValues(before, after, path, out, depth = 0) {
  if (deepEqual(before, after)) return;
  if (isObj(before) && isObj(after) && depth < MAX_DEPTH) {
    const keys = [...Object.keys(before), ...Object.keys(after).filter((k) => !hasOwn(before, k))];
    for (const k of keys) {
      const p = joinPath(path, k);
      if (!hasOwn(after, k)) out.push({ path: p, kind: "removed", before: before[k], after: void 0 });
      else if (!hasOwn(before, k)) out.push({ path: p, kind: "added", before: void 0, after: after[k] });
      else diffValues(before[k], after[k], p, out, depth + 1);
    }
    return;
  }
  const kind = before === void 0 ? "added" : after === void 0 ? "removed" : "changed";
  out.push({ path, kind, before, after });
}
function renderDiff(before, after, target) {
  const changes = [];
  diffValues(before, after, "", changes);
  const state = { expanded: /* @__PURE__ */ new Set() };
  target.replaceChildren(h("div", { cls: "agui-diff-title", text: "Changes" }));
  if (changes.length === 0) {
    target.append(h("p", { cls: "agui-diff-none", text: "No changes: the same arguments as proposed." }));
    return;
  }
  const list = h("ul", { cls: "agui-diff-list" });
  changes.forEach((c, i) => {
    const show = (v, side) => v === void 0 ? h("span", { cls: "agui-hint", text: "(absent)" }) : longText(safeJson(v), state, `${i}${side}`);
    list.append(
      h("li", { cls: "agui-diff-row", data: { change: c.kind } }, [
        h("code", { cls: "agui-diff-path", text: c.path || "(whole value)" }),
        ": ",
        h("del", { cls: "agui-diff-old" }, [show(c.before, "old")]),
        " → ",
        h("ins", { cls: "agui-diff-new" }, [show(c.after, "new")])
      ])
    );
  });
  target.append(list);
}

// src/schema.js
function schemaType(schema) {
  if (!isObj(schema)) return void 0;
  const t = schema.type;
  if (typeof t === "string") return t;
  if (Array.isArray(t)) {
    const first = t.find((x) => x !== "null");
    return typeof first === "string" ? first : void 0;
  }
  if (isObj(schema.properties)) return "object";
  return void 0;
}
function typeMatches(v, t) {
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
function describeType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a number";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}
function withArticle(t) {
  const s = String(t);
  return /^[aeiou]/.test(s) ? `an ${s}` : `a ${s}`;
}
function isIsoDate(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
function validate(value, schema, path, out, depth = 0) {
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
    out.push({ path, message: `${where} must be ${types.map(withArticle).join(" or ")} (it is ${describeType(value)})` });
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
        if (typeof k === "string" && (!hasOwn(value, k) || value[k] === void 0))
          out.push({ path: joinPath(path, k), message: `${joinPath(path, k)} is required` });
      }
    }
    for (const [k, v] of Object.entries(value)) {
      if (hasOwn(props, k)) validate(v, props[k], joinPath(path, k), out, depth + 1);
      else if (schema.additionalProperties === false)
        out.push({ path: joinPath(path, k), message: `${joinPath(path, k)} is not an allowed field` });
      else if (isObj(schema.additionalProperties)) validate(v, schema.additionalProperties, joinPath(path, k), out, depth + 1);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      out.push({ path, message: `${where} must have at least ${schema.minItems} items` });
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      out.push({ path, message: `${where} must have at most ${schema.maxItems} items` });
    if (isObj(schema.items)) value.forEach((v, i) => validate(v, schema.items, `${path}[${i}]`, out, depth + 1));
  }
}

// src/forms.js
function buildField(schemaIn, initial, where) {
  const schema = isObj(schemaIn) ? schemaIn : {};
  const type = schemaType(schema);
  const title = typeof schema.title === "string" && schema.title ? schema.title : "";
  const label = where.label ?? (title || where.key || "Value");
  const description = typeof schema.description === "string" ? schema.description : "";
  const start = initial !== void 0 ? initial : schema.default;
  if (type === "object" && where.depth < MAX_DEPTH && (start === void 0 || isObj(start)) && !where.extra) {
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
    where.required ? h("span", { cls: "agui-required", text: " *", attrs: { "aria-hidden": "true" } }) : null
  ]);
  const descEl = description ? h("div", { cls: "agui-hint", text: description, attrs: { id: `${id}-desc` } }) : null;
  const wire = (c) => {
    c.id = id;
    if (where.required) c.setAttribute("aria-required", "true");
    c.setAttribute("aria-describedby", `${id}-err${descEl ? ` ${id}-desc` : ""}`);
  };
  let read;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const options = schema.enum;
    const select = h("select", { cls: "agui-input agui-select" });
    wire(select);
    const inEnum = start !== void 0 && options.some((o) => deepEqual(o, start));
    if (!where.required || start === void 0) select.append(h("option", { text: "(not set)", attrs: { value: "" } }));
    if (start !== void 0 && !inEnum) {
      select.append(h("option", { text: `(current: ${asText(start)}, not an allowed value)`, attrs: { value: "current" } }));
    }
    options.forEach((o, i) => select.append(h("option", { text: asText(o), attrs: { value: String(i) } })));
    select.value = start === void 0 ? "" : inEnum ? String(options.findIndex((o) => deepEqual(o, start))) : "current";
    wrap.append(labelEl, descEl ?? "", select);
    read = () => {
      if (select.value === "") return { value: void 0, omit: true, problems: [] };
      if (select.value === "current") return { value: start, omit: false, problems: [] };
      return { value: options[Number(select.value)], omit: false, problems: [] };
    };
  } else if (type === "boolean" && (start === void 0 || typeof start === "boolean")) {
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
      const omit = start === void 0 && !where.required && !touched && !box.checked;
      return { value: box.checked, omit, problems: [] };
    };
  } else if ((type === "number" || type === "integer") && (start === void 0 || typeof start === "number")) {
    const input = h("input", { cls: "agui-input", attrs: { type: "text", inputmode: type === "integer" ? "numeric" : "decimal" } });
    wire(input);
    input.value = start === void 0 ? "" : String(start);
    wrap.append(labelEl, descEl ?? "", input);
    read = () => {
      const s = input.value.trim();
      if (s === "") return { value: void 0, omit: true, problems: [] };
      const n = Number(s);
      if (!Number.isFinite(n)) {
        return { value: void 0, omit: true, problems: [{ path: where.path, message: `${label} must be a number` }] };
      }
      return { value: n, omit: false, problems: [] };
    };
  } else if (type === "string" && (start === void 0 || typeof start === "string")) {
    const isDate = schema.format === "date";
    const long = !isDate && (typeof start === "string" && (start.length > 80 || start.includes("\n")) || typeof schema.maxLength === "number" && schema.maxLength > 200 || schema.format === "textarea");
    const input = long ? h("textarea", { cls: "agui-input agui-textarea", attrs: { rows: "3" } }) : h("input", { cls: "agui-input", attrs: { type: isDate ? "date" : "text" } });
    wire(input);
    input.value = typeof start === "string" ? start : "";
    wrap.append(labelEl, descEl ?? "", input);
    read = () => {
      const s = input.value;
      if (s === "" && (initial === void 0 || where.required)) return { value: void 0, omit: true, problems: [] };
      return { value: s, omit: false, problems: [] };
    };
  } else {
    const area = h("textarea", { cls: "agui-input agui-json", attrs: { rows: "4", spellcheck: "false" } });
    wire(area);
    area.value = start === void 0 ? "" : safeJson(start, 2);
    wrap.append(labelEl, h("div", { cls: "agui-hint", text: "JSON" }), descEl ?? "", area);
    read = () => {
      const s = area.value.trim();
      if (s === "") return { value: void 0, omit: true, problems: [] };
      try {
        return { value: JSON.parse(s), omit: false, problems: [] };
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        return { value: void 0, omit: true, problems: [{ path: where.path, message: `${label}: not valid JSON (${why})` }] };
      }
    };
  }
  wrap.append(err);
  return { node: wrap, read };
}
function objectField(schema, initial, where, label, description) {
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === "string") : [];
  const init = isObj(initial) ? initial : isObj(schema.default) ? schema.default : {};
  const box = where.depth === 0 ? h("div", { cls: "agui-form" }) : h("fieldset", { cls: "agui-field agui-fieldset", data: { path: where.path } }, [h("legend", { text: label })]);
  if (where.depth > 0 && description) box.append(h("div", { cls: "agui-hint", text: description }));
  const children = [];
  for (const [k, sub] of Object.entries(props)) {
    const f = buildField(sub, hasOwn(init, k) ? init[k] : void 0, {
      key: k,
      path: joinPath(where.path, k),
      required: required.includes(k),
      depth: where.depth + 1,
      registry: where.registry
    });
    children.push([k, f]);
    box.append(f.node);
  }
  for (const k of Object.keys(init)) {
    if (hasOwn(props, k)) continue;
    const f = buildField({}, init[k], {
      key: k,
      path: joinPath(where.path, k),
      required: false,
      depth: where.depth + 1,
      registry: where.registry,
      extra: true
    });
    children.push([k, f]);
    box.append(f.node);
  }
  if (children.length === 0) box.append(h("div", { cls: "agui-hint", text: "(no fields)" }));
  return {
    node: box,
    read() {
      const value = {};
      const problems = [];
      for (const [k, f] of children) {
        const r = f.read();
        problems.push(...r.problems);
        if (!r.omit) setOwn(value, k, r.value);
      }
      const omit = where.depth > 0 && initial === void 0 && !where.required && Object.keys(value).length === 0;
      return { value, omit, problems };
    }
  };
}

// src/editor.js
function buildEditor(opts, onSubmit) {
  const node = h("div", { cls: opts.cls });
  const fieldset = h("fieldset", { cls: "agui-edit-fields" });
  const registry = /* @__PURE__ */ new Map();
  const useSchema = isObj(opts.schema) && Object.keys(opts.schema).length > 0;
  const field2 = useSchema ? buildField(opts.schema, opts.initial, { key: null, path: "", required: true, depth: 0, registry }) : buildField({}, opts.initial, { key: null, path: "", required: true, depth: 0, registry, label: opts.jsonLabel });
  fieldset.append(field2.node);
  const problemsEl = h("ul", { cls: "agui-error agui-form-errors", attrs: { "aria-live": "polite" } });
  problemsEl.hidden = true;
  const diffEl = opts.showDiff ? h("div", { cls: "agui-diff", attrs: { "aria-live": "polite" } }) : null;
  const submit = button(opts.submitLabel, opts.submitAction, `${opts.submitLabel}: ${opts.subject}`, "agui-primary");
  node.append(fieldset, problemsEl, diffEl ?? "", h("div", { cls: "agui-buttons" }, [submit]));
  let showProblems = false;
  const check = () => {
    const r = field2.read();
    const problems = [...r.problems];
    const value = r.omit ? void 0 : r.value;
    if (problems.length === 0) {
      if (value === void 0) problems.push({ path: "", message: "Fill in a value." });
      else {
        if (useSchema) validate(value, opts.schema, "", problems);
        if (opts.mustBeObject && !isObj(value)) problems.push({ path: "", message: "The arguments must be a JSON object." });
      }
    }
    for (const errEl of registry.values()) {
      errEl.hidden = true;
      errEl.textContent = "";
      errEl.parentElement?.querySelector(".agui-input, .agui-checkbox")?.removeAttribute("aria-invalid");
    }
    problemsEl.replaceChildren();
    problemsEl.hidden = !showProblems || problems.length === 0;
    if (showProblems) {
      for (const p of problems) {
        problemsEl.append(h("li", { text: p.message }));
        const errEl = registry.get(p.path);
        if (errEl) {
          errEl.hidden = false;
          errEl.textContent = errEl.textContent ? `${errEl.textContent}; ${p.message}` : p.message;
          errEl.parentElement?.querySelector(".agui-input, .agui-checkbox")?.setAttribute("aria-invalid", "true");
        }
      }
    }
    if (diffEl) {
      if (r.problems.length === 0 && value !== void 0) renderDiff(opts.original, value, diffEl);
      else diffEl.replaceChildren(h("p", { cls: "agui-hint", text: "Fix the errors to see the changes." }));
    }
    return { value, problems };
  };
  const onInput = () => {
    showProblems = true;
    check();
  };
  node.addEventListener("input", onInput);
  node.addEventListener("change", onInput);
  submit.addEventListener("click", () => {
    showProblems = true;
    const { value, problems } = check();
    if (problems.length > 0) {
      const bad = (
        /** @type {HTMLElement | null} */
        node.querySelector("[aria-invalid=true]")
      );
      bad?.focus();
      return;
    }
    onSubmit(value);
  });
  check();
  return { node, lockables: (
    /** @type {Array<HTMLButtonElement | HTMLFieldSetElement>} */
    [fieldset, submit]
  ) };
}

// src/ticker.js
function pad2(n) {
  return String(n).padStart(2, "0");
}
function fmtRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1e3));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total % 3600 / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad2(minutes)}:${pad2(seconds)}` : `${minutes}:${pad2(seconds)}`;
}
function fmtClock(ms) {
  const d = new Date(ms);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}
function parseTime(iso) {
  if (typeof iso !== "string" || !iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
}
function createTicker() {
  const fns = /* @__PURE__ */ new Set();
  let timer = null;
  const tick = () => {
    for (const fn of [...fns]) {
      try {
        fn();
      } catch (e) {
        console.error("agui-chat: countdown failed", e);
      }
    }
  };
  return {
    /** @param {() => void} fn */
    add(fn) {
      fns.add(fn);
      if (timer === null) timer = setInterval(tick, 1e3);
    },
    /** @param {() => void} fn */
    remove(fn) {
      fns.delete(fn);
      if (fns.size === 0 && timer !== null) {
        clearInterval(timer);
        timer = null;
      }
    },
    stop() {
      fns.clear();
      if (timer !== null) clearInterval(timer);
      timer = null;
    }
  };
}

// src/section.js
function reasonLabel(reason) {
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
function subagentLabel(it) {
  if (typeof it?.subagentRunId !== "string" || !it.subagentRunId) return "";
  return typeof it.subagentName === "string" && it.subagentName ? it.subagentName : it.subagentRunId;
}
function resolveMode(it) {
  if (it?.mode === "tool" || it?.mode === "free") return it.mode;
  if (it?.mode === "form") return isObj(it.responseSchema) ? "form" : "free";
  if (isObj(it?.responseSchema)) return "form";
  if (typeof it?.toolName === "string" && it.toolName) return "tool";
  return "free";
}
var DECISION_VERB = (
  /** @type {Record<string, string>} */
  {
    approve: "approved",
    reject: "rejected",
    edit: "approved with edited arguments",
    cancel: "cancelled",
    answer: "answered"
  }
);
function buildSection(it, ctx) {
  const id = asText(it?.id);
  const mode = resolveMode(it);
  const toolName = typeof it?.toolName === "string" && it.toolName ? it.toolName : null;
  const subject = toolName ?? reasonLabel(it?.reason);
  const node = h("section", { cls: "agui-interrupt", data: { "interrupt-id": id, mode }, attrs: { "aria-label": `Decision: ${subject}` } });
  const tree = { expanded: /* @__PURE__ */ new Set() };
  const head = h("div", { cls: "agui-interrupt-head" }, [
    h("span", { cls: "agui-label", text: mode === "tool" ? "Tool call " : `${reasonLabel(it?.reason)} ` }),
    toolName ? h("strong", { cls: "agui-tool-name", text: toolName }) : null,
    it?.reissued === true ? h("span", { cls: "agui-badge agui-reissued", text: "re-issued" }) : null
  ]);
  node.append(head);
  const askedBy = subagentLabel(it);
  if (askedBy) node.append(h("div", { cls: "agui-asked-by", text: `Asked by subagent ${askedBy}` }));
  const message = asText(it?.message);
  if (message) node.append(h("div", { cls: "agui-message agui-pre" }, [longText(message, tree, "message")]));
  const hasArgs = it?.args !== null && it?.args !== void 0;
  if (mode === "tool") {
    node.append(
      h("div", { cls: "agui-args" }, [
        h("div", { cls: "agui-label", text: "Arguments" }),
        hasArgs ? renderTree(it.args, tree) : h("span", { cls: "agui-hint", text: "(no arguments)" })
      ])
    );
  } else {
    if (hasArgs) node.append(h("div", { cls: "agui-args" }, [h("div", { cls: "agui-label", text: toolName ? "Arguments" : "Under review" }), renderTree(it.args, tree)]));
    if (it?.review !== null && it?.review !== void 0) {
      node.append(h("div", { cls: "agui-review" }, [h("div", { cls: "agui-label", text: "Under review" }), renderTree(it.review, { expanded: /* @__PURE__ */ new Set() })]));
    }
  }
  const expiresAt = parseTime(it?.expiresAt);
  const clock = h("div", { cls: "agui-countdown agui-expiry", attrs: { "aria-live": "polite" } });
  clock.hidden = true;
  if (expiresAt !== null) node.append(clock);
  const controls = h("div", { cls: "agui-controls" });
  node.append(controls);
  const lockables = [];
  const actionButtons = /* @__PURE__ */ new Map();
  const buttons = h("div", { cls: "agui-buttons" });
  let reasonBox = null;
  let allowBox = null;
  const cancelButton = button("Cancel", "cancel", `Cancel ${subject}`, "agui-cancel");
  cancelButton.addEventListener("click", () => ctx.choose(section, { action: "cancel" }));
  actionButtons.set("cancel", cancelButton);
  if (mode === "tool") {
    if (it?.canGiveReason === true) {
      const rid = nextId("agui-reason");
      reasonBox = h("textarea", { cls: "agui-input agui-reason", attrs: { id: rid, rows: "2", placeholder: "Why? (optional)" } });
      controls.append(
        h("div", { cls: "agui-field" }, [h("label", { attrs: { for: rid }, text: `Reason (optional, sent if you reject ${subject})` }), reasonBox])
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
    lockables.push(approve, reject);
    buttons.append(approve, reject);
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
              cls: "agui-edit"
            },
            (value) => ctx.choose(section, { action: "edit", args: value })
          );
          lockables.push(...editor.lockables);
          slot.append(h("div", { cls: "agui-label", text: `Edit the arguments of ${subject}; the changes are listed before you send.` }), editor.node);
          ctx.refresh();
        }
        slot.hidden = !slot.hidden;
        edit.setAttribute("aria-expanded", String(!slot.hidden));
      });
      actionButtons.set("edit", edit);
      lockables.push(edit);
      buttons.append(edit);
    }
    buttons.append(cancelButton);
    controls.append(buttons);
    if (editorSlot) controls.append(editorSlot);
  } else if (mode === "form") {
    const editor = buildEditor(
      {
        schema: it.responseSchema,
        initial: void 0,
        showDiff: false,
        mustBeObject: false,
        submitLabel: ctx.isMulti() ? "Use this answer" : "Send answer",
        submitAction: "answer",
        subject,
        jsonLabel: "Answer (JSON)",
        cls: "agui-answer-form"
      },
      (value) => ctx.choose(section, { action: "answer", payload: value })
    );
    lockables.push(...editor.lockables);
    const submit = (
      /** @type {HTMLButtonElement} */
      editor.node.querySelector("[data-action=answer]")
    );
    actionButtons.set("answer", submit);
    editor.node.querySelector(".agui-buttons")?.append(cancelButton);
    controls.append(editor.node);
  } else {
    const fid = nextId("agui-free");
    const area = h("textarea", { cls: "agui-input agui-free", attrs: { id: fid, rows: "3" } });
    const problem = h("div", { cls: "agui-error agui-field-error", attrs: { "aria-live": "polite" } });
    problem.hidden = true;
    const submit = button(ctx.isMulti() ? "Use this answer" : "Send answer", "answer", `Send answer: ${subject}`, "agui-primary");
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
      h("div", { cls: "agui-buttons" }, [submit, cancelButton])
    );
  }
  const choice = h("div", { cls: "agui-choice", attrs: { "aria-live": "polite" } });
  choice.hidden = true;
  const recorded = h("div", { cls: "agui-decision" });
  recorded.hidden = true;
  node.append(choice, recorded);
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
      return r ? r : void 0;
    },
    showChoice(d, multi) {
      for (const [action, b] of actionButtons) {
        if (multi) b.setAttribute("aria-pressed", String(d?.action === action));
        else b.removeAttribute("aria-pressed");
      }
      choice.hidden = !multi || !d;
      if (multi && d) {
        const extra = d.action === "edit" ? " (edited arguments)" : d.action === "answer" ? `: ${asText(d.payload)}` : "";
        choice.replaceChildren(h("span", { cls: "agui-label", text: "Your choice: " }), h("span", { cls: "agui-pre", text: `${d.action}${extra}` }));
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
      const st = { expanded: /* @__PURE__ */ new Set() };
      recorded.replaceChildren(h("span", { cls: "agui-decision-text", text: `${DECISION_VERB[action] ?? action}${by}` }));
      recorded.dataset.action = action;
      if (typeof d.reason === "string" && d.reason) recorded.append(h("div", { cls: "agui-pre" }, ["Reason: ", longText(d.reason, st, "r")]));
      if (d.args !== null && d.args !== void 0) recorded.append(h("div", {}, [h("div", { cls: "agui-label", text: "Arguments sent" }), renderTree(d.args, st)]));
      if (d.payload !== null && d.payload !== void 0) recorded.append(h("div", {}, [h("div", { cls: "agui-label", text: "Answer" }), renderTree(d.payload, st)]));
    },
    updateClock(now, live) {
      if (expiresAt === null) return;
      clock.hidden = !live;
      const expired = now >= expiresAt;
      node.classList.toggle("agui-expired", expired && live);
      const text = expired ? "Expired: only Cancel is still possible." : `Expires in ${fmtRemaining(expiresAt - now)}`;
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle("agui-expired-text", expired);
    }
  };
  return section;
}

// src/card.js
function cardEntry(item, env) {
  const node = itemShell("card", item, "agui-card");
  node.setAttribute("role", "group");
  node.dataset.cardId = asText(item?.id);
  const title = h("span", { cls: "agui-card-title" });
  const spinner = h("span", { cls: "agui-spinner", attrs: { "aria-hidden": "true" } });
  const statusText2 = h("span", {});
  const statusLine = h("span", { cls: "agui-card-status", attrs: { "aria-live": "polite" } }, [spinner, statusText2]);
  const interruptsBox = h("div", { cls: "agui-interrupts" });
  const timeoutLine = h("div", { cls: "agui-countdown agui-timeout", attrs: { "aria-live": "polite" } });
  const sendAll = button("Send decisions", "send", "Send decisions", "agui-primary");
  const actions = h("div", { cls: "agui-card-actions" }, [sendAll]);
  const cardError = h("div", { cls: "agui-error agui-card-error", attrs: { role: "alert" } });
  const ackError = h("div", { cls: "agui-error agui-ack-error", attrs: { role: "alert" } });
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
    note
  );
  let card = item;
  let localSending = false;
  let sentFromStatus = null;
  let pendingRequest = null;
  let ackProblem = null;
  let lateText = null;
  const drafts = /* @__PURE__ */ new Map();
  const sections = /* @__PURE__ */ new Map();
  let ordered = [];
  const pyStatus = () => asText(card?.status) || "pending";
  const isPending = () => pyStatus() === "pending" && !localSending;
  let count = 0;
  const isMulti = () => count > 1;
  const canAct = (s, action) => isPending() && (action === "cancel" || !s.expired());
  const send = (body) => {
    const requestId = newRequestId();
    pendingRequest = requestId;
    sentFromStatus = pyStatus();
    localSending = true;
    ackProblem = null;
    env.send({ ...body, requestId, card: asText(card?.id) }, api);
  };
  const sendDecisions = (chosen) => {
    if (!isPending()) return;
    const decisions = {};
    const alwaysAllow = [];
    for (const s of ordered) {
      const d = chosen.get(s.id);
      if (!d || !canAct(s, d.action)) return;
      const out = { action: d.action };
      if (d.action === "reject") {
        const r = s.reason();
        if (r !== void 0) out.reason = r;
      }
      if (d.action === "edit") out.args = d.args;
      if (d.action === "answer") out.payload = d.payload;
      setOwn(decisions, s.id, out);
      if (s.toolName && s.alwaysAllowed() && (d.action === "approve" || d.action === "edit") && !alwaysAllow.includes(s.toolName)) {
        alwaysAllow.push(s.toolName);
      }
    }
    const msg = { type: "decide", decisions };
    if (alwaysAllow.length > 0) msg.alwaysAllow = alwaysAllow;
    send(msg);
    refresh();
  };
  const ctx = {
    isMulti,
    refresh: () => refresh(),
    choose(s, d) {
      if (!canAct(s, d.action)) return;
      if (!isMulti()) {
        sendDecisions(/* @__PURE__ */ new Map([[s.id, d]]));
        return;
      }
      drafts.set(s.id, d);
      refresh();
    }
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
      s.cancelButton.disabled = !pending;
      s.showChoice(drafts.get(s.id), multi && (status === "pending" || localSending));
      const decided = status === "done" || status === "failed";
      s.showRecorded(isObj(card?.decisions) && hasOwn(card.decisions, s.id) ? card.decisions[s.id] : void 0, card?.decidedBy ? asText(card.decidedBy) : null, decided);
      const controls = (
        /** @type {HTMLElement | null} */
        s.node.querySelector(".agui-controls")
      );
      if (controls) controls.hidden = decided;
    }
    const decidedCount = ordered.filter((s) => drafts.has(s.id)).length;
    actions.hidden = !multi || !(status === "pending" || localSending);
    const draftsOk = ordered.every((s) => {
      const d = drafts.get(s.id);
      return d !== void 0 && (d.action === "cancel" || !s.expired());
    });
    sendAll.disabled = !pending || !draftsOk;
    spinner.hidden = effective !== "sending";
    statusText2.textContent = effective === "sending" ? "sending…" : effective === "pending" ? multi ? `${decidedCount} of ${ordered.length} decided` : "" : effective === "done" ? `done${card?.decidedBy ? ` (decided by ${asText(card.decidedBy)})` : ""}` : effective === "failed" ? "failed" : effective;
    const err = card?.error;
    cardError.hidden = !(status === "failed" && err);
    cardError.replaceChildren();
    if (status === "failed" && err) {
      cardError.append(h("strong", { cls: "agui-error-title", text: asText(isObj(err) ? err.title : "") || "Sending the decision failed" }));
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
    const next = [];
    const seen = /* @__PURE__ */ new Set();
    for (const it of list) {
      let id = asText(it?.id);
      while (seen.has(id)) id += "\0";
      seen.add(id);
      const key = safeJson(it);
      const existing = sections.get(id);
      if (existing && existing.key === key) {
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
    if (ordered.length === 0) interruptsBox.replaceChildren(h("div", { cls: "agui-hint", text: "(no questions in this card)" }));
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
      if (now !== before) ackProblem = null;
      if (now === "pending" && before !== "pending") {
        drafts.clear();
        lateText = null;
      }
      reconcile();
      refresh();
    },
    /** @param {any} msg */
    handleAck(msg) {
      if (msg.requestId !== pendingRequest) return;
      pendingRequest = null;
      if (msg.accepted === true) return;
      localSending = false;
      const said = asText(msg.error);
      const now = pyStatus();
      if (msg.late === true) {
        lateText = said || "Your click arrived after this card was decided; nothing was sent.";
      } else if (now === "pending" || now === "failed") {
        ackProblem = said || "The kernel did not accept this.";
      } else {
        lateText = `Your click arrived after this card was decided${said ? ` (${said})` : ""}; nothing was sent.`;
      }
      refresh();
    },
    destroy() {
      env.ticker.remove(tick);
    }
  };
  reconcile();
  refresh();
  return api;
}

// src/runend.js
var OUTCOME_TEXT = (
  /** @type {Record<string, string>} */
  {
    success: "Run finished",
    interrupt: "Run paused for a decision",
    cancelled: "Run cancelled by the agent",
    error: "Run failed"
  }
);
var COUNTS = (
  /** @type {Array<[string, string]>} */
  [
    ["inputTokens", "in"],
    ["outputTokens", "out"],
    ["totalTokens", "total"],
    ["reasoningTokens", "reasoning"],
    ["cachedInputTokens", "cached in"],
    ["cacheWriteInputTokens", "cache write"]
  ]
);
var TOTALS = /* @__PURE__ */ new Set(["inputTokens", "outputTokens", "totalTokens"]);
var isCount = (n) => typeof n === "number" && Number.isFinite(n);
function countsText(counts, only) {
  if (!isObj(counts)) return "";
  return COUNTS.filter(([key]) => (!only || only.has(key)) && isCount(counts[key])).map(([key, short]) => `${short} ${fmtInt(counts[key])}`).join(" · ");
}
function usageRows(usage) {
  const entries = Array.isArray(usage) ? usage.filter(isObj) : [];
  const tellsMore = entries.length > 1 || entries.some((e) => e.provider || e.model || COUNTS.some(([k]) => !TOTALS.has(k) && isCount(e[k])));
  if (!tellsMore) return [];
  return entries.map((e) => {
    const who = [e.provider, e.model].filter((x) => typeof x === "string" && x).join(" ");
    const counts = countsText(e);
    return `${who || "(unnamed)"}: ${counts || "no counts"}`;
  });
}
function collapsed(title, value) {
  const tree = { expanded: /* @__PURE__ */ new Set() };
  return h("details", { cls: "agui-run-end-value" }, [h("summary", { text: title }), renderTree(value, tree)]);
}
function runEndEntry(item) {
  const node = itemShell("run-end", item, "agui-run-end");
  node.setAttribute("role", "note");
  let key = "";
  const update = (it) => {
    const k = safeJson(it);
    if (k === key) return;
    key = k;
    const outcome = asText(it?.outcome);
    node.dataset.outcome = outcome;
    const tokens = countsText(it?.totals, TOTALS);
    const head = h("div", { cls: "agui-run-end-head" }, [h("span", { cls: "agui-label", text: OUTCOME_TEXT[outcome] ?? (outcome ? `Run ended (${outcome})` : "Run ended") })]);
    if (tokens) head.append(h("span", { cls: "agui-usage", text: ` · Tokens: ${tokens}` }));
    const rows = usageRows(it?.usage);
    node.replaceChildren(head);
    if (rows.length) node.append(h("ul", { cls: "agui-usage-entries" }, rows.map((r) => h("li", { cls: "agui-usage-entry", text: r }))));
    if (it?.metadata !== null && it?.metadata !== void 0) node.append(collapsed("Run metadata", it.metadata));
    if (it?.result !== null && it?.result !== void 0) node.append(collapsed("Run result", it.result));
  };
  update(item);
  return { node, kind: "run-end", update, destroy() {
  } };
}

// src/styles.js
var CSS2 = `
.agui-chat {
  --agui-fg: var(--jp-ui-font-color1, var(--vscode-editor-foreground, CanvasText));
  --agui-fg0: var(--jp-ui-font-color0, var(--agui-fg));
  --agui-muted: var(--jp-ui-font-color2, var(--vscode-descriptionForeground, color-mix(in srgb, var(--agui-fg) 75%, transparent)));
  --agui-bg: var(--jp-layout-color0, transparent);
  --agui-bg1: var(--jp-layout-color1, color-mix(in srgb, var(--agui-fg) 3%, transparent));
  --agui-bg2: var(--jp-layout-color2, color-mix(in srgb, var(--agui-fg) 8%, transparent));
  --agui-border: var(--jp-border-color2, var(--vscode-panel-border, color-mix(in srgb, var(--agui-fg) 20%, transparent)));
  --agui-border1: var(--jp-border-color1, color-mix(in srgb, var(--agui-fg) 35%, transparent));
  --agui-brand: var(--jp-brand-color1, var(--vscode-focusBorder, #1976d2));
  --agui-link: var(--jp-content-link-color, var(--vscode-textLink-foreground, var(--agui-brand)));
  /* Not VS Code's errorForeground here: Light Modern's (#f85149) is 3.4:1 on white. */
  --agui-error: var(--jp-error-color0, #b71c1c);
  --agui-success: var(--jp-success-color0, #1b5e20);
  --agui-warn: #a14000;
  --agui-primary-bg: var(--jp-brand-color0, var(--vscode-button-background, #0d47a1));
  --agui-primary-fg: var(--vscode-button-foreground, #fff);
  --agui-danger-fg: var(--agui-error);
  --agui-font: var(--jp-ui-font-family, var(--vscode-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif));
  --agui-code: var(--jp-code-font-family, var(--vscode-editor-font-family, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace));
  --agui-size: var(--jp-content-font-size1, 13px);
  font-family: var(--agui-font);
  font-size: var(--agui-size);
  line-height: 1.45;
  color: var(--agui-fg);
  background: var(--agui-bg);
  overflow-wrap: anywhere;
  display: flex;
  flex-direction: column;
  gap: 6px;
  max-width: 100%;
}
.agui-chat[data-agui-theme=dark] {
  --agui-error: var(--jp-error-color2, var(--vscode-errorForeground, #ef9a9a));
  --agui-success: var(--jp-success-color2, #81c784);
  --agui-warn: var(--jp-warn-color2, #ffb74d);
}
.agui-chat[data-agui-contrast=more] {
  --agui-muted: var(--agui-fg);
  --agui-border: var(--vscode-contrastBorder, var(--agui-fg));
  --agui-border1: var(--vscode-contrastBorder, var(--agui-fg));
}
.agui-chat[data-agui-contrast=more] .agui-btn.agui-primary { border-color: var(--agui-border1); }
.agui-chat *, .agui-chat *::before, .agui-chat *::after { box-sizing: border-box; }
.agui-chat [hidden] { display: none !important; }
.agui-chat .agui-pre, .agui-chat .agui-text { white-space: pre-wrap; }
.agui-chat .agui-hint, .agui-chat .agui-label, .agui-chat .agui-clip-note { color: var(--agui-muted); font-size: 0.9em; }
.agui-chat .agui-status { display: flex; align-items: center; gap: 6px; color: var(--agui-muted); font-size: 0.9em; }
.agui-chat .agui-status[data-status=waiting] { color: var(--agui-warn); }
.agui-chat .agui-status[data-status=error] { color: var(--agui-error); }
.agui-chat .agui-spinner {
  display: inline-block; width: 0.9em; height: 0.9em; border-radius: 50%;
  border: 2px solid currentColor; border-right-color: transparent;
  animation: agui-spin 0.8s linear infinite; vertical-align: -0.1em; margin-right: 4px;
}
@keyframes agui-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .agui-chat .agui-spinner { animation-duration: 3s; } }
.agui-chat .agui-items { display: flex; flex-direction: column; gap: 6px; }
.agui-chat .agui-item { padding: 6px 8px; border-radius: 4px; }
.agui-chat .agui-user { background: var(--agui-bg2); align-self: flex-end; max-width: 85%; }
.agui-chat .agui-role { font-size: 0.85em; color: var(--agui-muted); }
.agui-chat .agui-assistant { color: var(--agui-fg0); }
.agui-chat .agui-assistant.agui-streaming .agui-text::after { content: "▍"; opacity: 0.6; }
.agui-chat .agui-reasoning summary { cursor: pointer; color: var(--agui-muted); }
.agui-chat .agui-tool, .agui-chat .agui-card, .agui-chat .agui-unknown {
  border: 1px solid var(--agui-border); background: var(--agui-bg1);
}
.agui-chat .agui-tool-name { font-family: var(--agui-code); }
.agui-chat .agui-badge {
  display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 0.85em;
  border: 1px solid var(--agui-border1); color: var(--agui-muted);
}
.agui-chat .agui-badge[data-status=done] { color: var(--agui-success); border-color: var(--agui-success); }
.agui-chat .agui-badge[data-status=rejected], .agui-chat .agui-badge[data-status=cancelled] { color: var(--agui-error); border-color: var(--agui-error); }
.agui-chat .agui-badge[data-status=awaiting] { color: var(--agui-warn); border-color: var(--agui-warn); }
.agui-chat .agui-error, .agui-chat .agui-error-title { color: var(--agui-error); }
.agui-chat .agui-error-item { border: 1px solid var(--agui-error); }
.agui-chat .agui-notice { color: var(--agui-muted); font-style: italic; }
.agui-chat .agui-card { border-left: 3px solid var(--agui-warn); display: flex; flex-direction: column; gap: 6px; }
.agui-chat .agui-card[data-status=done] { border-left-color: var(--agui-success); }
.agui-chat .agui-card[data-status=failed] { border-left-color: var(--agui-error); }
.agui-chat .agui-card-head { display: flex; justify-content: space-between; gap: 8px; font-weight: 600; }
.agui-chat .agui-card-status { font-weight: normal; color: var(--agui-muted); }
.agui-chat .agui-interrupt { border-top: 1px dashed var(--agui-border); padding-top: 6px; display: flex; flex-direction: column; gap: 4px; }
.agui-chat .agui-interrupt:first-child { border-top: none; padding-top: 0; }
.agui-chat .agui-interrupt.agui-expired .agui-args { opacity: 0.6; }
.agui-chat .agui-countdown { font-variant-numeric: tabular-nums; color: var(--agui-warn); font-size: 0.9em; }
.agui-chat .agui-expired-text { color: var(--agui-error); }
.agui-chat .agui-decision { color: var(--agui-fg0); }
.agui-chat .agui-decision[data-action=approve], .agui-chat .agui-decision[data-action=edit], .agui-chat .agui-decision[data-action=answer] { color: var(--agui-success); }
.agui-chat .agui-decision[data-action=reject], .agui-chat .agui-decision[data-action=cancel] { color: var(--agui-error); }
.agui-chat .agui-note { color: var(--agui-muted); font-size: 0.9em; }
.agui-chat .agui-late { color: var(--agui-fg0); font-size: 0.9em; border-left: 3px solid var(--agui-warn); padding: 2px 6px; }
.agui-chat .agui-buttons { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 4px; }
.agui-chat .agui-btn {
  font: inherit; color: var(--agui-fg); background: var(--agui-bg2);
  border: 1px solid var(--agui-border1); border-radius: 3px; padding: 2px 10px; cursor: pointer;
}
.agui-chat .agui-btn:hover:not(:disabled) { border-color: var(--agui-brand); }
.agui-chat .agui-btn:disabled { opacity: 0.5; cursor: not-allowed; }
.agui-chat .agui-btn.agui-primary { background: var(--agui-primary-bg); border-color: var(--agui-primary-bg); color: var(--agui-primary-fg); }
.agui-chat .agui-btn.agui-danger { color: var(--agui-danger-fg); border-color: var(--agui-danger-fg); background: var(--agui-bg1); }
.agui-chat .agui-btn[aria-pressed=true] { box-shadow: inset 0 0 0 2px var(--agui-fg); }
.agui-chat .agui-btn.agui-link { background: none; border: none; padding: 0; color: var(--agui-link); text-decoration: underline; }
.agui-chat :is(button, input, select, textarea, summary):focus-visible { outline: 2px solid var(--agui-brand); outline-offset: 2px; }
.agui-chat .agui-field { display: flex; flex-direction: column; gap: 2px; margin: 2px 0; }
.agui-chat .agui-field-boolean { flex-direction: row; align-items: center; flex-wrap: wrap; }
.agui-chat .agui-fieldset, .agui-chat .agui-edit-fields { border: 1px solid var(--agui-border); border-radius: 3px; padding: 4px 8px; margin: 0; min-width: 0; }
.agui-chat .agui-edit-fields { border: none; padding: 0; }
.agui-chat .agui-input {
  font: inherit; color: var(--agui-fg); background: var(--agui-bg);
  border: 1px solid var(--agui-border1); border-radius: 3px; padding: 2px 4px; max-width: 100%;
}
.agui-chat .agui-json, .agui-chat textarea.agui-input { font-family: var(--agui-code); width: 100%; resize: vertical; }
.agui-chat .agui-input[aria-invalid=true] { border-color: var(--agui-error); }
.agui-chat .agui-required { color: var(--agui-error); }
.agui-chat .agui-form-errors { margin: 4px 0; padding-left: 1.2em; }
.agui-chat .agui-edit-slot { border: 1px solid var(--agui-border1); border-radius: 3px; padding: 6px 8px; margin-top: 4px; background: var(--agui-bg); }
.agui-chat .agui-diff { border: 1px solid var(--agui-border); border-radius: 3px; padding: 4px 8px; }
.agui-chat .agui-diff-title { font-weight: 600; }
.agui-chat .agui-diff-list { margin: 2px 0; padding-left: 1.2em; }
.agui-chat .agui-diff-old { color: var(--agui-error); }
.agui-chat .agui-diff-new { color: var(--agui-success); text-decoration: none; }
.agui-chat .agui-kv { border-collapse: collapse; font-size: 0.95em; }
.agui-chat .agui-kv th, .agui-chat .agui-kv td { text-align: left; vertical-align: top; padding: 1px 6px 1px 0; }
.agui-chat .agui-kv th { font-family: var(--agui-code); color: var(--agui-muted); font-weight: normal; white-space: nowrap; }
.agui-chat .agui-kv .agui-kv { border-left: 1px solid var(--agui-border); padding-left: 4px; }
.agui-chat .agui-v-number, .agui-chat .agui-v-boolean, .agui-chat .agui-v-null, .agui-chat .agui-v-json { font-family: var(--agui-code); }
.agui-chat .agui-v-string { white-space: pre-wrap; }
.agui-chat .agui-v-null, .agui-chat .agui-v-empty { color: var(--agui-muted); }
.agui-chat details > summary { cursor: pointer; }
.agui-chat .agui-state, .agui-chat .agui-audit { font-size: 0.9em; }
.agui-chat .agui-audit-table { border-collapse: collapse; }
.agui-chat .agui-audit-table th, .agui-chat .agui-audit-table td { border: 1px solid var(--agui-border); padding: 1px 4px; text-align: left; vertical-align: top; }
.agui-chat .agui-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
/* Content parts; encrypted values; subagent groups; run ends */
.agui-chat .agui-parts { display: flex; flex-direction: column; gap: 4px; }
.agui-chat .agui-part-image { margin: 0; }
.agui-chat .agui-part-img { display: block; max-width: 100%; max-height: 360px; border: 1px solid var(--agui-border); background: var(--agui-bg); }
.agui-chat .agui-part-caption { font-size: 0.9em; color: var(--agui-fg0); }
.agui-chat .agui-part-file { border-left: 2px solid var(--agui-border1); padding-left: 6px; }
.agui-chat .agui-part-meta, .agui-chat .agui-run-end-value { font-size: 0.9em; }
.agui-chat .agui-encrypted { font-style: italic; }
.agui-chat .agui-subagent { border: 1px solid var(--agui-border); border-left: 3px solid var(--agui-brand); padding: 4px 8px; }
.agui-chat .agui-subagent[data-status=error] { border-left-color: var(--agui-error); }
.agui-chat .agui-subagent[data-status=suspended] { border-left-color: var(--agui-warn); }
.agui-chat .agui-subagent-items { display: flex; flex-direction: column; gap: 6px; margin-top: 4px; }
.agui-chat .agui-badge[data-status=suspended] { color: var(--agui-warn); border-color: var(--agui-warn); }
.agui-chat .agui-badge[data-status=error] { color: var(--agui-error); border-color: var(--agui-error); }
.agui-chat .agui-asked-by { font-size: 0.9em; color: var(--agui-fg0); }
.agui-chat .agui-run-end { border-top: 1px dashed var(--agui-border); border-radius: 0; font-size: 0.9em; }
.agui-chat .agui-usage { color: var(--agui-fg0); font-variant-numeric: tabular-nums; }
.agui-chat .agui-usage-entries { margin: 2px 0; padding-left: 1.4em; color: var(--agui-muted); }
/* Activity messages */
.agui-chat .agui-activity { border: 1px solid var(--agui-border); background: var(--agui-bg1); }
.agui-chat .agui-activity-title { font-weight: 600; }
.agui-chat .agui-checklist-progress { width: 100%; max-width: 320px; height: 0.7em; }
.agui-chat .agui-checklist { margin: 4px 0; padding-left: 1.6em; }
.agui-chat .agui-checklist-item[data-state=done] .agui-checklist-mark { color: var(--agui-success); }
.agui-chat .agui-checklist-item[data-state=active] { font-weight: 600; }
.agui-chat .agui-checklist-item[data-state=active] .agui-checklist-mark { color: var(--agui-brand); }
.agui-chat .agui-checklist-item[data-state=failed] .agui-checklist-mark { color: var(--agui-error); }
.agui-chat .agui-checklist-item[data-state=pending] { color: var(--agui-muted); }
.agui-chat .agui-search-results { margin: 4px 0; padding-left: 1.6em; }
/* A2UI surfaces (no style comes from data: layout hints map to these classes) */
.agui-chat .agui-a2ui-surface { border: 1px solid var(--agui-border1); border-left: 3px solid var(--agui-brand); border-radius: 4px; padding: 6px 8px; background: var(--agui-bg1); display: flex; flex-direction: column; gap: 6px; }
.agui-chat .agui-a2ui-surface[data-action-status=done] { border-left-color: var(--agui-success); }
.agui-chat .agui-a2ui-surface[data-action-status=failed] { border-left-color: var(--agui-error); }
.agui-chat .agui-a2ui-head { font-size: 0.85em; }
.agui-chat .agui-a2-row, .agui-chat .agui-a2-list[data-direction=horizontal] { display: flex; flex-direction: row; flex-wrap: wrap; gap: 8px; align-items: stretch; }
.agui-chat .agui-a2-column, .agui-chat .agui-a2-list { display: flex; flex-direction: column; gap: 6px; }
.agui-chat [data-justify=center] { justify-content: center; }
.agui-chat [data-justify=end] { justify-content: flex-end; }
.agui-chat [data-justify=spaceBetween] { justify-content: space-between; }
.agui-chat [data-justify=spaceAround] { justify-content: space-around; }
.agui-chat [data-justify=spaceEvenly] { justify-content: space-evenly; }
.agui-chat [data-align=start] { align-items: flex-start; }
.agui-chat [data-align=center] { align-items: center; }
.agui-chat [data-align=end] { align-items: flex-end; }
.agui-chat .agui-a2-w1 { flex: 1 1 0; } .agui-chat .agui-a2-w2 { flex: 2 1 0; } .agui-chat .agui-a2-w3 { flex: 3 1 0; }
.agui-chat .agui-a2-w4 { flex: 4 1 0; } .agui-chat .agui-a2-w5 { flex: 5 1 0; }
.agui-chat .agui-a2-card { border: 1px solid var(--agui-border); border-radius: 4px; padding: 6px 8px; background: var(--agui-bg); }
.agui-chat .agui-a2-text[data-variant=h1] { font-size: 1.5em; font-weight: 600; }
.agui-chat .agui-a2-text[data-variant=h2] { font-size: 1.3em; font-weight: 600; }
.agui-chat .agui-a2-text[data-variant=h3] { font-size: 1.15em; font-weight: 600; }
.agui-chat .agui-a2-text:is([data-variant=h4], [data-variant=h5]) { font-weight: 600; }
.agui-chat .agui-a2-text[data-variant=caption] { font-size: 0.85em; color: var(--agui-muted); }
.agui-chat .agui-a2-divider { border: none; border-top: 1px solid var(--agui-border); margin: 4px 0; width: 100%; }
.agui-chat .agui-a2-divider.agui-a2-vertical { border-top: none; border-left: 1px solid var(--agui-border); width: auto; align-self: stretch; }
.agui-chat .agui-a2-image img { max-width: 100%; max-height: 320px; }
.agui-chat .agui-a2-tabbar { display: flex; gap: 4px; border-bottom: 1px solid var(--agui-border); }
.agui-chat .agui-a2-tab[aria-selected=true] { border-color: var(--agui-brand); font-weight: 600; }
.agui-chat .agui-a2-choices { border: 1px solid var(--agui-border); border-radius: 3px; padding: 4px 8px; margin: 0; display: flex; flex-direction: column; gap: 2px; }
.agui-chat .agui-a2-chips { flex-direction: row; flex-wrap: wrap; gap: 8px; }
.agui-chat .agui-a2-field { display: flex; flex-direction: column; gap: 2px; }
.agui-chat .agui-a2-checkbox { flex-direction: row; align-items: center; }
.agui-chat .agui-a2-modal-content { border: 1px solid var(--agui-border1); border-radius: 4px; padding: 6px 8px; margin-top: 4px; }
.agui-chat .agui-a2ui-action[data-status=failed], .agui-chat .agui-a2ui-action.agui-error { color: var(--agui-error); }
.agui-chat .agui-a2ui-problems { margin: 2px 0; padding-left: 1.2em; }
@media (forced-colors: active) {
  .agui-chat { --agui-error: CanvasText; --agui-success: CanvasText; --agui-warn: CanvasText; --agui-muted: CanvasText; --agui-border: CanvasText; --agui-border1: CanvasText; }
  .agui-chat .agui-btn, .agui-chat .agui-btn.agui-primary, .agui-chat .agui-btn.agui-danger { color: ButtonText; background: ButtonFace; border: 1px solid ButtonText; }
  .agui-chat .agui-btn:disabled { color: GrayText; border-color: GrayText; opacity: 1; }
  .agui-chat .agui-btn[aria-pressed=true] { outline: 2px solid Highlight; outline-offset: 1px; }
  .agui-chat .agui-card, .agui-chat .agui-tool, .agui-chat .agui-error-item { border-color: CanvasText; }
}
`;

// src/subagents.js
var SUBAGENT_STATUS_TEXT = (
  /** @type {Record<string, string>} */
  {
    running: "running…",
    done: "done",
    suspended: "suspended: waiting for an answer",
    error: "error"
  }
);
function subagentEntry(item) {
  const node = itemShell("subagent", item, "agui-subagent");
  node.setAttribute("role", "group");
  const details = h("details", { cls: "agui-subagent-details", attrs: { open: "" } });
  const name = h("strong", { cls: "agui-subagent-name" });
  const description = h("span", { cls: "agui-hint agui-subagent-description" });
  const badge = h("span", { cls: "agui-badge" });
  const count = h("span", { cls: "agui-hint agui-subagent-count" });
  const error = h("div", { cls: "agui-error agui-pre agui-subagent-error", attrs: { role: "alert" } });
  const parent = h("div", { cls: "agui-hint agui-subagent-parent" });
  const children = h("div", { cls: "agui-subagent-items" });
  details.append(h("summary", { cls: "agui-subagent-head" }, [h("span", { cls: "agui-label", text: "Subagent " }), name, " ", badge, description, count]), error, parent, children);
  node.append(details);
  let current = item;
  let toolName = null;
  const showParent = () => {
    const call = typeof current?.parentToolCallId === "string" && current.parentToolCallId ? current.parentToolCallId : null;
    parent.hidden = call === null;
    parent.textContent = call === null ? "" : `Started by the tool call ${toolName ? `${toolName} (${call})` : call}`;
  };
  const update = (it) => {
    current = it;
    const id = typeof it?.subagentRunId === "string" ? it.subagentRunId : "";
    const label = typeof it?.name === "string" && it.name ? it.name : id || "(unnamed)";
    if (name.textContent !== label) name.textContent = label;
    const status = typeof it?.status === "string" ? it.status : "";
    node.dataset.status = status || "unannounced";
    badge.dataset.status = status;
    badge.textContent = SUBAGENT_STATUS_TEXT[status] ?? status;
    badge.hidden = !status;
    const d = typeof it?.description === "string" ? it.description : "";
    description.textContent = d ? ` · ${d}` : "";
    const e = typeof it?.error === "string" ? it.error : "";
    error.textContent = e;
    error.hidden = !e;
    showParent();
  };
  update(item);
  return {
    node,
    kind: "subagent",
    update,
    destroy() {
    },
    children,
    setCount(n) {
      const text = ` · ${n === 1 ? "1 item" : `${fmtInt(n)} items`}`;
      if (count.textContent !== text) count.textContent = text;
    },
    setParentTool(n) {
      if (n !== toolName) {
        toolName = n;
        showParent();
      }
    }
  };
}
function placeEntries(rows, top) {
  const groups = /* @__PURE__ */ new Map();
  for (const row of rows) {
    if (row.entry.kind === "subagent" && "children" in row.entry && typeof row.item?.id === "string" && !groups.has(row.item.id)) {
      groups.set(
        row.item.id,
        /** @type {{item: any, entry: GroupEntry}} */
        row
      );
    }
  }
  const groupOf = (item) => isObj(item) && typeof item.subagent === "string" ? groups.get(`subagent:${item.subagent}`) : void 0;
  const nests = (group) => {
    const seen = /* @__PURE__ */ new Set([group.item.id]);
    for (let up = groupOf(group.item); up; up = groupOf(up.item)) {
      if (seen.has(up.item.id)) return false;
      seen.add(up.item.id);
    }
    return true;
  };
  const tools = /* @__PURE__ */ new Map();
  for (const { item } of rows) {
    if (isObj(item) && item.kind === "tool" && typeof item.id === "string" && typeof item.name === "string") tools.set(item.id, item.name);
  }
  const placed = /* @__PURE__ */ new Map([[top, []]]);
  for (const group of groups.values()) placed.set(group.entry.children, []);
  for (const row of rows) {
    const own = row.entry.kind === "subagent" && groups.get(row.item?.id) === row;
    const parent = own && !nests(
      /** @type {{item: any, entry: GroupEntry}} */
      row
    ) ? void 0 : groupOf(row.item);
    placed.get(parent ? parent.entry.children : top).push(row.entry.node);
  }
  for (const { item, entry } of groups.values()) {
    entry.setCount(placed.get(entry.children)?.length ?? 0);
    const call = typeof item.parentToolCallId === "string" ? tools.get(`tool:${item.parentToolCallId}`) : void 0;
    entry.setParentTool(call ?? null);
  }
  return placed;
}
function arrange(placed) {
  for (const [container2, nodes] of placed) {
    let ref = container2.firstChild;
    for (const node of nodes) {
      if (node === ref) ref = node.nextSibling;
      else container2.insertBefore(node, ref);
    }
  }
}

// src/a2ui-components.js
var MAX_DEPTH2 = 48;
var MAX_NODES = 3e3;
var INLINE_IMAGE = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/;
var MAX_IMAGE_CHARS2 = 2e6;
var ICONS = (
  /** @type {Record<string, string>} */
  {
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
    download: "⬇"
  }
);
function inlineImage2(url) {
  if (typeof url !== "string" || url.length > MAX_IMAGE_CHARS2) return null;
  const m = INLINE_IMAGE.exec(url);
  return m && IMAGE_TYPES.includes(m[1]) ? url : null;
}
function plainMarkdown(s) {
  return s.replace(/^#{1,6}\s+/gm, "").replace(/\*\*([^*\n]+)\*\*/g, "$1").replace(/`([^`\n]*)`/g, "$1");
}
function renderSurface(ctx) {
  const run = { ctx, updaters: [], count: 0, live: false };
  const root = ctx.surface.components.has("root") ? renderComponent(run, "root", { data: ctx.data, scope: "/" }, /* @__PURE__ */ new Set(), 0) : h("div", { cls: "agui-hint", text: "(waiting for the surface's root component…)" });
  const refresh = () => {
    for (const u of run.updaters) u();
  };
  refresh();
  run.live = true;
  return { node: root, refresh };
}
function renderComponent(run, id, scope, ancestors, depth) {
  const c = typeof id === "string" ? run.ctx.surface.components.get(id) : void 0;
  if (typeof id !== "string" || !c) return h("span", { cls: "agui-a2-missing agui-hint", text: `(component ${textOf(id)} not defined yet)` });
  if (ancestors.has(id) || depth > MAX_DEPTH2) return h("span", { cls: "agui-a2-missing agui-hint", text: `(component ${id} refers to itself; not drawn again)` });
  run.count += 1;
  if (run.count > MAX_NODES) return h("span", { cls: "agui-hint", text: "(too many components; the rest are not drawn)" });
  const inner = new Set(ancestors).add(id);
  const firstUpdater = run.updaters.length;
  const child = (cid, sc = scope) => renderComponent(run, cid, sc, inner, depth + 1);
  const draw = DRAW[c.component];
  const node = draw ? draw(run, c, scope, child) : unknownComponent(c);
  node.classList.add("agui-a2");
  node.dataset.component = c.component;
  node.dataset.componentId = c.id;
  if (typeof c.weight === "number" && c.weight > 0) node.classList.add(`agui-a2-w${Math.min(5, Math.round(c.weight))}`);
  const label = isObj(c.accessibility) ? textOf(resolve(c.accessibility.label, scope)) : "";
  if (label) node.setAttribute("aria-label", label);
  if (run.live) for (const u of run.updaters.slice(firstUpdater)) u();
  return node;
}
function unknownComponent(c) {
  return h("div", { cls: "agui-a2-unknown agui-hint", text: `(component type "${c.component}" is not in the basic catalog; not drawn)` });
}
var container = (cls) => (run, c, scope, child) => {
  const node = h("div", { cls });
  if (typeof c.justify === "string") node.dataset.justify = c.justify;
  if (typeof c.align === "string") node.dataset.align = c.align;
  if (c.direction === "horizontal") node.dataset.direction = "horizontal";
  const kids = c.children;
  if (Array.isArray(kids)) {
    for (const k of kids) node.append(child(k));
  } else if (isObj(kids) && typeof kids.path === "string" && typeof kids.componentId === "string") {
    const base = absolute(scope.scope, kids.path);
    let shown = "";
    run.updaters.push(() => {
      const list = resolve({ path: kids.path }, scope);
      const keys = Array.isArray(list) ? list.map((_, i) => String(i)) : isObj(list) ? Object.keys(list) : [];
      const sig = keys.join("\0");
      if (sig === shown) return;
      shown = sig;
      node.replaceChildren(...keys.map((k) => child(kids.componentId, { data: scope.data, scope: `${base === "/" ? "" : base}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}` })));
    });
  }
  return node;
};
var DRAW = {
  Row: container("agui-a2-row"),
  Column: container("agui-a2-column"),
  List: container("agui-a2-list"),
  Card(run, c, scope, child) {
    return h("div", { cls: "agui-a2-card" }, [child(c.child)]);
  },
  Divider(run, c) {
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
      const key = `${textOf(url)}\0${alt}`;
      if (key === shown) return;
      shown = key;
      const safe = inlineImage2(url);
      if (safe) {
        const img = h("img", { attrs: { alt } });
        img.src = safe;
        node.replaceChildren(img);
      } else {
        node.replaceChildren(h("span", { cls: "agui-a2-media agui-hint", text: `[image${alt ? `: ${alt}` : ""}] not loaded (only inline images are shown)` }));
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
    const select = (i) => {
      ui.set(c.id, i);
      [...bar.children].forEach((b, j) => b.setAttribute("aria-selected", String(j === i)));
      panel.replaceChildren(tabs[i] ? child(tabs[i].child) : "");
    };
    tabs.forEach((t, i) => {
      const b = button("", null, void 0, "agui-a2-tab");
      b.setAttribute("role", "tab");
      run.updaters.push(() => setText(b, textOf(resolve(t.title, scope)) || `Tab ${i + 1}`));
      b.addEventListener("click", () => select(i));
      bar.append(b);
    });
    select(Math.min(ui.get(c.id) ?? 0, Math.max(0, tabs.length - 1)));
    return node;
  },
  Modal(run, c, scope, child) {
    const content = h("div", { cls: "agui-a2-modal-content", attrs: { role: "dialog" } }, [child(c.content)]);
    const trigger = h("div", { cls: "agui-a2-modal-trigger" }, [child(c.trigger)]);
    const key = `${c.id}@${scope.scope}`;
    content.hidden = !run.ctx.ui.open.has(key);
    trigger.addEventListener("click", () => {
      if (run.ctx.ui.open.has(key)) run.ctx.ui.open.delete(key);
      else run.ctx.ui.open.add(key);
      content.hidden = !run.ctx.ui.open.has(key);
    }, true);
    return h("div", { cls: "agui-a2-modal" }, [trigger, content]);
  },
  Button(run, c, scope, child) {
    const b = h("button", { cls: `agui-btn agui-a2-button${c.variant === "primary" ? " agui-primary" : c.variant === "borderless" ? " agui-link" : ""}`, attrs: { type: "button" } }, [child(c.child)]);
    const why = h("div", { cls: "agui-a2-checks agui-hint" });
    const action = isObj(c.action) ? c.action : {};
    const event = isObj(action.event) && typeof action.event.name === "string" ? action.event : null;
    if (event) b.dataset.action = event.name;
    run.updaters.push(() => {
      const failed = failedChecks(c.checks, scope);
      b.disabled = run.ctx.locked() || failed.length > 0 || !event && !isObj(action.functionCall);
      setText(why, failed.join(" "));
      why.hidden = failed.length === 0;
    });
    b.addEventListener("click", () => {
      if (b.disabled) return;
      if (event) run.ctx.act(c.id, event, scope);
      else if (isObj(action.functionCall) && action.functionCall.call === "openUrl") {
        const url = textOf(resolve(isObj(action.functionCall.args) ? action.functionCall.args.url : "", scope));
        run.ctx.note(`This button asks to open ${url}. Links from an agent are not opened here; copy it if you trust it.`);
      }
    });
    return h("div", { cls: "agui-a2-buttonbox" }, [b, why]);
  },
  TextField(run, c, scope) {
    const variant = typeof c.variant === "string" ? c.variant : "shortText";
    const input = variant === "longText" ? h("textarea", { cls: "agui-input agui-a2-input", attrs: { rows: "3" } }) : h("input", { cls: "agui-input agui-a2-input", attrs: { type: variant === "obscured" ? "password" : variant === "number" ? "number" : "text" } });
    const checks = Array.isArray(c.checks) ? [...c.checks] : [];
    if (typeof c.validationRegexp === "string") checks.push({ condition: { call: "regex", args: { value: c.value, pattern: c.validationRegexp } }, message: "This value does not have the expected format." });
    return field(run, c, scope, input, checks, () => input.value, (v) => textOf(v), "input");
  },
  CheckBox(run, c, scope) {
    const box = h("input", { cls: "agui-checkbox agui-a2-input", attrs: { type: "checkbox" } });
    const id = nextId("agui-a2");
    box.id = id;
    const label = h("label", { attrs: { for: id } });
    run.updaters.push(() => setText(label, textOf(resolve(c.label, scope))));
    const wrap = h("div", { cls: "agui-a2-field agui-a2-checkbox" }, [box, " ", label]);
    bindInput(run, c, scope, box, () => box.checked, (v) => box.checked = boolOf(v), "change");
    return wrap;
  },
  ChoicePicker(run, c, scope) {
    const multi = c.variant === "multipleSelection";
    const options = Array.isArray(c.options) ? c.options.filter(isObj) : [];
    const legend = h("legend");
    const group = h("fieldset", { cls: `agui-a2-field agui-a2-choices${c.displayStyle === "chips" ? " agui-a2-chips" : ""}` }, [legend]);
    run.updaters.push(() => setText(legend, textOf(resolve(c.label, scope))));
    const name = nextId("agui-a2-choice");
    const filter = c.filterable === true ? h("input", { cls: "agui-input agui-a2-filter", attrs: { type: "search", "aria-label": "Filter the options" } }) : null;
    if (filter) group.append(filter);
    const rows = options.map((o) => {
      const input = h("input", { cls: "agui-a2-input", attrs: { type: multi ? "checkbox" : "radio", name } });
      const text = h("span");
      const row = h("label", { cls: "agui-a2-option" }, [input, " ", text]);
      group.append(row);
      return { input, row, value: textOf(o.value), text };
    });
    run.updaters.push(() => rows.forEach((r, i) => setText(r.text, textOf(resolve(options[i].label, scope)))));
    filter?.addEventListener("input", () => {
      const q = filter.value.toLowerCase();
      for (const r of rows) r.row.hidden = q !== "" && !(r.text.textContent ?? "").toLowerCase().includes(q);
    });
    const read = () => rows.filter((r) => r.input.checked).map((r) => r.value);
    const show = (v) => {
      const chosen = Array.isArray(v) ? v.map(textOf) : typeof v === "string" ? [v] : [];
      for (const r of rows) r.input.checked = chosen.includes(r.value);
    };
    for (const r of rows) bindInput(run, c, scope, r.input, read, show, "change", group);
    return group;
  },
  Slider(run, c, scope) {
    const input = h("input", { cls: "agui-a2-input agui-a2-slider", attrs: { type: "range", min: String(numberOf(c.min ?? 0)), max: String(numberOf(c.max ?? 100)) } });
    const out = h("output", { cls: "agui-a2-slider-value" });
    const wrap = field(run, c, scope, input, c.checks, () => Number(input.value), (v) => String(numberOf(v)), "input");
    run.updaters.push(() => setText(out, input.value));
    wrap.append(out);
    return wrap;
  },
  DateTimeInput(run, c, scope) {
    const type = c.enableDate === true && c.enableTime === true ? "datetime-local" : c.enableTime === true ? "time" : "date";
    const input = h("input", { cls: "agui-input agui-a2-input", attrs: { type } });
    for (const k of ["min", "max"]) {
      const v = textOf(resolve(c[k], scope));
      if (v) input.setAttribute(k, v);
    }
    return field(run, c, scope, input, c.checks, () => input.value, (v) => textOf(v), "input");
  }
};
function media(what) {
  return (run, c, scope) => {
    const node = h("div", { cls: "agui-a2-media agui-hint" });
    run.updaters.push(() => {
      const desc = textOf(resolve(c.description, scope));
      setText(node, `[${what}${desc ? `: ${desc}` : ""}] not played here (media from an agent is not loaded): ${textOf(resolve(c.url, scope))}`);
    });
    return node;
  };
}
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
  bindInput(run, c, scope, input, read, (v) => {
    const text = toInput(v);
    if (input.value !== text) input.value = text;
  }, eventName);
  return h("div", { cls: "agui-a2-field" }, [label, input, errors]);
}
function bindInput(run, c, scope, input, read, show, eventName, focusRoot) {
  const bound = isObj(c.value) && typeof c.value.path === "string" ? absolute(scope.scope, c.value.path) : null;
  run.updaters.push(() => {
    input.disabled = run.ctx.locked();
    const root = focusRoot ?? input;
    if (root.contains(document.activeElement) && document.activeElement !== document.body && eventName === "input") return;
    show(bound ? resolve({ path: bound }, scope) : resolve(c.value, scope));
  });
  input.addEventListener(eventName, () => {
    if (bound) run.ctx.write(bound, read());
  });
}
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// src/surface.js
var LIFECYCLE = (
  /** @type {Record<string, string>} */
  {
    building: "Building the interface…",
    retrying: "The agent is retrying the interface…",
    failed: "The agent could not build this interface."
  }
);
function a2uiEntry(item, env) {
  const node = itemShell("a2ui", item, "agui-a2ui");
  const lifecycle = h("div", { cls: "agui-a2ui-lifecycle agui-hint", attrs: { "aria-live": "polite" } });
  const problems = h("ul", { cls: "agui-a2ui-problems agui-hint" });
  const list = h("div", { cls: "agui-a2ui-surfaces" });
  node.append(lifecycle, list, problems);
  const boxes = /* @__PURE__ */ new Map();
  const byRequest = /* @__PURE__ */ new Map();
  const update = (it) => {
    const status = asText(it?.status);
    lifecycle.hidden = !LIFECYCLE[status];
    lifecycle.textContent = LIFECYCLE[status] ?? "";
    lifecycle.dataset.status = status;
    if (status === "failed" && it?.error !== void 0 && it?.error !== null) lifecycle.append(" ", h("span", { cls: "agui-pre", text: asText(it.error) }));
    const surfaces = Array.isArray(it?.surfaces) ? it.surfaces.filter(isObj) : [];
    const seen = /* @__PURE__ */ new Set();
    for (const s of surfaces) {
      const id = asText(s.surfaceId);
      seen.add(id);
      let box = boxes.get(id);
      if (!box) {
        box = surfaceBox(id, (msg) => {
          byRequest.set(
            msg.requestId,
            /** @type {any} */
            box
          );
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
    const msgs = [...Array.isArray(it?.problems) ? it.problems.map(asText) : [], ...[...boxes.values()].flatMap((b) => b.problems())];
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
    destroy() {
    }
  };
  update(item);
  return api;
}
function surfaceBox(surfaceId, send) {
  const header = h("div", { cls: "agui-a2ui-head agui-hint" });
  const body = h("div", { cls: "agui-a2ui-body" });
  const note = h("div", { cls: "agui-a2ui-note agui-hint", attrs: { "aria-live": "polite" } });
  const statusLine = h("div", { cls: "agui-a2ui-action", attrs: { "aria-live": "polite" } });
  const retry = button("Retry", "a2ui-retry", "Send the same action again", "agui-primary");
  const ackError = h("div", { cls: "agui-error agui-ack-error", attrs: { role: "alert" } });
  const node = h("section", { cls: "agui-a2ui-surface", data: { "surface-id": surfaceId } }, [header, body, note, statusLine, retry, ackError]);
  node.setAttribute("aria-label", `Agent interface ${surfaceId}`);
  ackError.hidden = true;
  note.hidden = true;
  let model = newSurface(surfaceId);
  let applied = [];
  const edits = /* @__PURE__ */ new Map();
  const ui = { tabs: /* @__PURE__ */ new Map(), open: /* @__PURE__ */ new Set(), touched: /* @__PURE__ */ new Set() };
  let drawnStructure = -1;
  let drawing = null;
  let action = { status: "idle", seq: 0 };
  let localSending = false;
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
      const userAction = { name: asText(event.name), surfaceId, sourceComponentId: componentId, timestamp: (/* @__PURE__ */ new Date()).toISOString(), context };
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
    ui
  };
  retry.addEventListener("click", () => {
    if (action.status !== "failed" || locked()) return;
    const requestId = newRequestId();
    pending = requestId;
    localSending = true;
    send({ type: "a2ui-retry", requestId, surfaceId, seq: Number(action.seq) || 0 });
    show();
  });
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
    const focused = document.activeElement instanceof HTMLElement && body.contains(document.activeElement) ? document.activeElement.closest("[data-component-id]") : null;
    const focusId = focused instanceof HTMLElement ? focused.dataset.componentId : null;
    const drawn = renderSurface(ctx);
    body.replaceChildren(drawn.node);
    drawing = drawn;
    if (focusId) body.querySelector(`[data-component-id="${CSS.escape(focusId)}"] .agui-a2-input, [data-component-id="${CSS.escape(focusId)}"] button`)?.focus();
  };
  const show = () => {
    node.dataset.actionStatus = localSending ? "sending" : asText(action.status);
    const status = localSending ? "sending" : asText(action.status);
    const name = asText(action.name);
    const by = action.decidedBy ? ` (by ${asText(action.decidedBy)})` : "";
    statusLine.textContent = status === "sending" ? `Sending ${name || "your action"}…` : status === "done" ? `Sent ${name}${by}${action.outcome ? ` → ${asText(action.outcome)}` : ""}` : status === "failed" ? `Sending ${name} failed${by}: ${asText(action.error)}` : "";
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
    problems: () => model.problems.slice(0, 20)
  };
}

// src/theme.js
function pageLook(el) {
  const body = el.ownerDocument?.body;
  const cls = body?.classList;
  const more = Boolean(cls?.contains("vscode-high-contrast") || cls?.contains("vscode-high-contrast-light") || media2("(prefers-contrast: more)"));
  const contrast = more ? "more" : "normal";
  if (cls?.contains("vscode-light") || cls?.contains("vscode-high-contrast-light")) return { theme: "light", contrast };
  if (cls?.contains("vscode-dark") || cls?.contains("vscode-high-contrast")) return { theme: "dark", contrast };
  const jp = body?.dataset.jpThemeLight;
  if (jp === "false" || jp === "true") return { theme: jp === "false" ? "dark" : "light", contrast };
  if (cls?.contains("dark") || cls?.contains("dark-mode") || body?.dataset.theme === "dark") return { theme: "dark", contrast };
  const bg = opaqueBackground(el);
  if (bg) return { theme: luminance(bg) < 0.3 ? "dark" : "light", contrast };
  return { theme: media2("(prefers-color-scheme: dark)") ? "dark" : "light", contrast };
}
function followPageLook(root) {
  const apply = () => {
    const look = pageLook(root);
    if (root.dataset.aguiTheme !== look.theme) root.dataset.aguiTheme = look.theme;
    if (root.dataset.aguiContrast !== look.contrast) root.dataset.aguiContrast = look.contrast;
  };
  apply();
  const doc = root.ownerDocument;
  let observer = null;
  if (typeof MutationObserver !== "undefined" && doc?.body) {
    observer = new MutationObserver(apply);
    for (const target of [doc.body, doc.documentElement]) {
      observer.observe(target, { attributes: true, attributeFilter: ["class", "data-jp-theme-light", "data-theme", "style"] });
    }
  }
  const queries = [];
  if (typeof matchMedia === "function") {
    for (const q of ["(prefers-color-scheme: dark)", "(prefers-contrast: more)"]) {
      const mq = matchMedia(q);
      mq.addEventListener?.("change", apply);
      queries.push(mq);
    }
  }
  const frame = !root.isConnected && typeof requestAnimationFrame === "function" ? requestAnimationFrame(apply) : null;
  return () => {
    observer?.disconnect();
    for (const mq of queries) mq.removeEventListener?.("change", apply);
    if (frame !== null) cancelAnimationFrame(frame);
  };
}
function media2(query) {
  return typeof matchMedia === "function" && matchMedia(query).matches;
}
function opaqueBackground(el) {
  const view = el.ownerDocument?.defaultView;
  if (!view) return null;
  let node = el;
  while (node) {
    const rgba = parseColor(view.getComputedStyle(node).backgroundColor);
    if (rgba && rgba[3] > 0.5) return rgba.slice(0, 3);
    const root = node.getRootNode();
    node = node.parentElement ?? (root instanceof ShadowRoot ? root.host : null);
  }
  return null;
}
function parseColor(text) {
  const s = (text ?? "").trim();
  const hex = /^#([0-9a-f]{6})$/i.exec(s);
  if (hex) return [0, 2, 4].map((i) => parseInt(hex[1].slice(i, i + 2), 16)).concat(1);
  const m = /^rgba?\(([^)]+)\)$/i.exec(s);
  if (!m) return null;
  const parts = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
  if (parts.length < 3 || parts.some((p) => Number.isNaN(p))) return null;
  return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
}
function luminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// src/view.js
var RUN_STATUS_TEXT = (
  /** @type {Record<string, string>} */
  {
    idle: "idle",
    running: "running…",
    waiting: "waiting for your decision",
    sending: "sending your decision…",
    error: "error"
  }
);
var RUN_OUTCOME_TEXT = (
  /** @type {Record<string, string>} */
  {
    success: "finished",
    cancelled: "finished: cancelled by the agent",
    interrupt: "stopped: questions left unanswered",
    error: "stopped: error",
    aborted: "stopped: aborted"
  }
);
function statusText(status, outcome) {
  if (status === "idle" && outcome) return RUN_OUTCOME_TEXT[outcome] ?? `finished: ${outcome}`;
  return RUN_STATUS_TEXT[status] ?? status;
}
function render({ model, el }) {
  const root = h("div", { cls: "agui-chat" });
  const style = h("style");
  style.textContent = CSS2;
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
  const entries = /* @__PURE__ */ new Map();
  const requests = /* @__PURE__ */ new Map();
  const env = {
    ticker,
    send(msg, owner) {
      requests.set(msg.requestId, owner);
      model.send(msg);
    }
  };
  const stateTree = { expanded: /* @__PURE__ */ new Set() };
  const auditTree = { expanded: /* @__PURE__ */ new Set() };
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
  const renderItems = () => {
    const raw = model.get("items");
    const items = Array.isArray(raw) ? raw : [];
    const seen = /* @__PURE__ */ new Set();
    const rows = [];
    items.forEach((item, i) => {
      const kind = isObj(item) && typeof item.kind === "string" ? item.kind : "unknown";
      const id = isObj(item) ? item.id : void 0;
      let key = typeof id === "string" || typeof id === "number" ? `${kind}\0${id}` : `${i}`;
      while (seen.has(key)) key += "\0";
      seen.add(key);
      let entry = entries.get(key);
      try {
        if (entry) entry.update(item);
        else {
          entry = createEntry(kind, item);
          entries.set(key, entry);
        }
      } catch (e) {
        console.error("agui-chat: could not render an item", e);
        entry?.destroy();
        entry = unknownEntry(item, kind);
        entries.set(key, entry);
      }
      rows.push({ item, entry });
    });
    for (const [key, entry] of entries) {
      if (!seen.has(key)) {
        entry.destroy();
        entry.node.remove();
        entries.delete(key);
      }
    }
    arrange(placeEntries(rows, list));
  };
  const renderStatus = () => {
    const s = asText(model.get("status")) || "idle";
    status.dataset.status = s;
    statusSpinner.hidden = !(s === "running" || s === "sending");
    statusLabel.textContent = statusText(s, asText(model.get("outcome")));
  };
  const renderState = () => {
    const s = model.get("state");
    const empty = s === null || s === void 0 || isObj(s) && Object.keys(s).length === 0;
    stateBox.hidden = empty;
    stateBody.replaceChildren(empty ? "" : renderTree(s, stateTree));
  };
  const renderAuditBox = () => {
    const a = model.get("audit");
    const n = Array.isArray(a) ? a.length : 0;
    auditBox.hidden = n === 0;
    auditSummary.textContent = `Audit (${n})`;
    if (n > 0) renderAudit(a, auditBody, auditTree);
    else auditBody.replaceChildren();
  };
  const onMsg = (msg) => {
    if (!isObj(msg) || msg.type !== "ack" || typeof msg.requestId !== "string") return;
    const owner = requests.get(msg.requestId);
    if (!owner) return;
    requests.delete(msg.requestId);
    owner.handleAck(msg);
  };
  renderStatus();
  renderItems();
  renderState();
  renderAuditBox();
  model.on("change:items", renderItems);
  model.on("change:status", renderStatus);
  model.on("change:outcome", renderStatus);
  model.on("change:state", renderState);
  model.on("change:audit", renderAuditBox);
  model.on("msg:custom", onMsg);
  return () => {
    model.off("change:items", renderItems);
    model.off("change:status", renderStatus);
    model.off("change:outcome", renderStatus);
    model.off("change:state", renderState);
    model.off("change:audit", renderAuditBox);
    model.off("msg:custom", onMsg);
    ticker.stop();
    stopLook();
    for (const entry of entries.values()) entry.destroy();
    entries.clear();
    requests.clear();
    root.remove();
  };
}

// src/index.js
var index_default = { render };
export default index_default;
