// activity.js: activity messages in place: the generic tree, checklists, searches, registry options.
import { describe, expect, it } from "vitest";
// The one table of renderer defaults, as Python sends each item its row (`defaults`).
import DEFAULTS from "../../agui_notebook/_state/renderers.json";
import { activityEntry, stateOf } from "../src/activity.js";
import { mount } from "./helpers.js";

const CHECKLIST = { o: {}, d: DEFAULTS.checklist };

const plan = (states) => ({
  kind: "activity",
  id: "activity:a1",
  activityType: "PLAN",
  renderer: "checklist",
  options: {},
  defaults: DEFAULTS.checklist,
  problem: null,
  content: { title: "Month-end", steps: states.map((s, i) => ({ title: `Step ${i + 1}`, status: s })) },
});

describe("activity entries", () => {
  it("a checklist shows each step's state and the progress, updated in place", () => {
    const entry = activityEntry(plan(["done", "in_progress", "pending"]));
    const node = entry.node;
    const rows = () =>
      [...node.querySelectorAll(".agui-checklist-item")].map((li) => /** @type {HTMLElement} */ (li).dataset.state);
    expect(rows()).toEqual(["done", "active", "pending"]);
    expect(node.querySelector(".agui-checklist-count")?.textContent).toBe(" 1 of 3 done");
    expect(node.querySelector("summary")?.textContent).toContain("Month-end");
    entry.update(plan(["done", "done", "failed"]));
    expect(entry.node).toBe(node);
    expect(rows()).toEqual(["done", "done", "failed"]);
    expect(node.querySelector(".agui-checklist-count")?.textContent).toBe(" 2 of 3 done, 1 failed");
    expect(/** @type {HTMLProgressElement} */ (node.querySelector("progress")).value).toBe(2);
  });

  it("registry options point at other fields and other status values", () => {
    const item = {
      kind: "activity",
      id: "x",
      activityType: "deploy",
      renderer: "checklist",
      defaults: DEFAULTS.checklist,
      problem: null,
      options: {
        title: "/name",
        items: "/stages",
        label: "/stage",
        status: "/state",
        doneValues: ["ok"],
        failedValues: ["broken"],
      },
      content: {
        name: "Deploy",
        stages: [
          { stage: "build", state: "ok" },
          { stage: "ship", state: "broken" },
          { stage: "tell", state: "later" },
        ],
      },
    };
    const node = activityEntry(item).node;
    expect([...node.querySelectorAll(".agui-checklist-item")].map((li) => li.textContent)).toEqual([
      "✓ build (done)",
      "✕ ship (failed)",
      "○ tell (pending)",
    ]);
    expect(node.querySelector("summary")?.textContent).toContain("Deploy");
    expect(stateOf({ done: true }, CHECKLIST)).toBe("done");
    expect(stateOf({ complete: "yes" }, CHECKLIST)).toBe("pending");
    expect(stateOf({ complete: true }, CHECKLIST)).toBe("done");
    expect(stateOf("plain", CHECKLIST)).toBe("pending");
  });

  it("holds no defaults of its own: without the item's, only given options are read", () => {
    const bare = { ...plan(["done"]), defaults: undefined };
    const node = activityEntry(bare).node;
    expect(node.querySelector(".agui-checklist")).toBeNull(); // no usual "/steps": the tree
    expect(node.querySelector(".agui-tree")?.textContent).toContain("Month-end");
  });

  it("a search shows its query, status, count and results", () => {
    const entry = activityEntry({
      kind: "activity",
      id: "s",
      activityType: "SEARCH",
      renderer: "search",
      options: {},
      defaults: DEFAULTS.search,
      problem: null,
      content: { query: "fees 2030", status: "searching", results: [{ title: "Fee table", snippet: "0.5%" }] },
    });
    expect(entry.node.querySelector(".agui-search-query")?.textContent).toBe("fees 2030");
    expect(entry.node.querySelector(".agui-search-status")?.textContent).toBe(" searching");
    expect(entry.node.querySelector(".agui-search-count")?.textContent).toBe(" 1 result");
    expect(entry.node.querySelector(".agui-search-results")?.textContent).toContain("Fee table0.5%");
  });

  it("anything else, or content that does not fit, is a value tree; problems are shown", () => {
    const entry = activityEntry({
      kind: "activity",
      id: "t",
      activityType: "mcp-apps",
      renderer: "tree",
      options: {},
      defaults: DEFAULTS.tree,
      content: { a: 1 },
      problem: "an update could not be applied",
    });
    expect(entry.node.querySelector(".agui-tree")?.textContent).toContain("a1");
    expect(entry.node.querySelector(".agui-activity-problem")?.textContent).toContain("could not be applied");
    const misfit = activityEntry({
      kind: "activity",
      id: "m",
      activityType: "PLAN",
      renderer: "checklist",
      options: {},
      defaults: DEFAULTS.checklist,
      content: { nothing: "here" },
    });
    expect(misfit.node.querySelector(".agui-tree")?.textContent).toContain("nothinghere");
  });

  it("the view draws activity items and keeps the node across updates", () => {
    const { el, model } = mount({ items: [plan(["pending"])] });
    const node = el.querySelector(".agui-activity");
    model.set("items", [plan(["done"])]);
    expect(el.querySelector(".agui-activity")).toBe(node);
    expect(el.querySelector(".agui-checklist-item")?.getAttribute("data-state")).toBe("done");
  });
});
