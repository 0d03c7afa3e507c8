// The A2UI cases the view and the Python side share (tests/fixtures/a2ui/dynamic_values.json):
// the view is the reference, and this keeps it what the table says.
import { describe, expect, it } from "vitest";
import table from "../../tests/fixtures/a2ui/dynamic_values.json";
import { resolve } from "../src/a2ui.js";

describe("A2UI dynamic values, as the shared table says", () => {
  it("has cases", () => expect(table.cases.length).toBeGreaterThan(50));
  for (const c of table.cases) {
    it(c.name, () => {
      const got = resolve(c.value, { data: () => c.data, scope: "/" });
      expect(got === undefined ? null : got).toEqual(c.expect);
    });
  }
});
