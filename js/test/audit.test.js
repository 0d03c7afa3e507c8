// audit.js: the audit log as a table with one column per key any row has.
import { describe, expect, it } from "vitest";
import { renderAudit } from "../src/audit.js";

describe("renderAudit", () => {
  it("unites the rows' keys into columns and shows non-object rows as records", () => {
    const body = document.createElement("div");
    renderAudit(
      [{ time: "12:00", tool: "t" }, { tool: "u", decision: { action: "approve" } }, "plain <b>row</b>"],
      body,
      { expanded: new Set() },
    );
    const head = [...body.querySelectorAll("thead th")].map((n) => n.textContent);
    expect(head).toEqual(["time", "tool", "decision", "record"]);
    const rows = [...body.querySelectorAll("tbody tr")].map((tr) =>
      [...tr.querySelectorAll("td")].map((td) => td.textContent),
    );
    expect(rows).toEqual([
      ["12:00", "t", "", ""],
      ["", "u", '{"action":"approve"}', ""],
      ["", "", "", "plain <b>row</b>"],
    ]);
    expect(body.querySelectorAll("b").length).toBe(0);
  });

  it("anything but a list is an empty table", () => {
    const body = document.createElement("div");
    renderAudit({ not: "a list" }, body, { expanded: new Set() });
    expect(body.querySelectorAll("tbody tr").length).toBe(0);
  });
});
