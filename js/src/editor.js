// @ts-check
/**
 * A validated editor: a form from a schema (or a JSON text box), inline problems, an optional diff
 * against the original, and a submit button that only submits a valid value.
 */
import { renderDiff } from "./diff.js";
import { button, h } from "./dom.js";
import { buildField } from "./forms.js";
import { validate } from "./schema.js";
import { isObj } from "./util.js";

/** @typedef {import("./types.js").Problem} Problem */

/**
 * A validated form: generated from `schema` when there is one, else a JSON text box.
 * `onValid` hears each valid value as the person types (a live preview of an edit).
 * @param {{schema: unknown, initial: unknown, original?: unknown, showDiff: boolean,
 *          mustBeObject: boolean, submitLabel: string, submitAction: string, subject: string,
 *          jsonLabel: string, cls: string, onValid?: (value: unknown) => void}} opts
 * @param {(value: unknown) => void} onSubmit
 */
export function buildEditor(opts, onSubmit) {
  const node = h("div", { cls: opts.cls });
  const fieldset = h("fieldset", { cls: "agui-edit-fields" });
  /** @type {Map<string, HTMLElement>} */
  const registry = new Map();
  const useSchema = isObj(opts.schema) && Object.keys(opts.schema).length > 0;
  const field = useSchema
    ? buildField(opts.schema, opts.initial, { key: null, path: "", required: true, depth: 0, registry })
    : buildField({}, opts.initial, { key: null, path: "", required: true, depth: 0, registry, label: opts.jsonLabel });
  fieldset.append(field.node);
  const problemsEl = h("ul", { cls: "agui-error agui-form-errors", attrs: { "aria-live": "polite" } });
  problemsEl.hidden = true;
  const diffEl = opts.showDiff ? h("div", { cls: "agui-diff", attrs: { "aria-live": "polite" } }) : null;
  const submit = button(opts.submitLabel, opts.submitAction, `${opts.submitLabel}: ${opts.subject}`, "agui-primary");
  node.append(fieldset, problemsEl, diffEl ?? "", h("div", { cls: "agui-buttons" }, [submit]));
  let showProblems = false;

  const check = () => {
    const r = field.read();
    /** @type {Problem[]} */
    const problems = [...r.problems];
    const value = r.omit ? undefined : r.value;
    if (problems.length === 0) {
      if (value === undefined) problems.push({ path: "", message: "Fill in a value." });
      else {
        if (useSchema) validate(value, opts.schema, "", problems);
        if (opts.mustBeObject && !isObj(value))
          problems.push({ path: "", message: "The arguments must be a JSON object." });
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
      if (r.problems.length === 0 && value !== undefined) renderDiff(opts.original, value, diffEl);
      else diffEl.replaceChildren(h("p", { cls: "agui-hint", text: "Fix the errors to see the changes." }));
    }
    return { value, problems };
  };
  const onInput = () => {
    showProblems = true;
    const { value, problems } = check();
    if (problems.length === 0 && opts.onValid) opts.onValid(value);
  };
  node.addEventListener("input", onInput);
  node.addEventListener("change", onInput);
  submit.addEventListener("click", () => {
    showProblems = true;
    const { value, problems } = check();
    if (problems.length > 0) {
      const bad = /** @type {HTMLElement | null} */ (node.querySelector("[aria-invalid=true]"));
      bad?.focus();
      return;
    }
    onSubmit(value);
  });
  check();
  return { node, lockables: /** @type {Array<HTMLButtonElement | HTMLFieldSetElement>} */ ([fieldset, submit]) };
}
