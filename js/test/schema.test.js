// schema.js: the JSON Schema subset the forms validate, with messages a person can act on.
import { describe, expect, it } from "vitest";
import { schemaType, validate } from "../src/schema.js";

/** @param {unknown} value @param {unknown} schema */
const problems = (value, schema) => {
  /** @type {Array<{path: string, message: string}>} */
  const out = [];
  validate(value, schema, "", out);
  return out;
};

describe("schemaType", () => {
  it("is the first non-null type, or object when there are properties", () => {
    expect(schemaType({ type: "string" })).toBe("string");
    expect(schemaType({ type: ["null", "integer"] })).toBe("integer");
    expect(schemaType({ properties: {} })).toBe("object");
    expect(schemaType({})).toBeUndefined();
    expect(schemaType(null)).toBeUndefined();
  });
});

describe("validate", () => {
  it("accepts a valid value", () => {
    const schema = {
      type: "object",
      properties: {
        n: { type: "integer", minimum: 1 },
        s: { type: "string", pattern: "^a" },
        d: { type: "string", format: "date" },
      },
      required: ["n"],
      additionalProperties: false,
    };
    expect(problems({ n: 2, s: "abc", d: "2024-02-29" }, schema)).toEqual([]);
  });

  it("says what is wrong and where", () => {
    expect(problems(3, { enum: [1, 2] })).toEqual([{ path: "", message: "the value must be one of 1, 2" }]);
    expect(problems("x", { const: "y" })[0].message).toBe('the value must be "y"');
    expect(problems(1.5, { type: "integer" })[0].message).toBe("the value must be an integer (it is a number)");
    expect(problems([], { type: ["object", "null"] })[0].message).toBe(
      "the value must be an object or a null (it is an array)",
    );
    expect(problems("😀😀", { minLength: 3 })[0].message).toBe("the value must have at least 3 characters"); // code points
    expect(problems("2023-02-29", { format: "date" })[0].message).toBe("the value must be a date (YYYY-MM-DD)");
    expect(problems("b", { pattern: "^a" })[0].message).toBe("the value must match the pattern ^a");
    expect(problems("b", { pattern: "(" })).toEqual([]); // a pattern that does not compile checks nothing
    expect(problems(0, { exclusiveMinimum: 0 })[0].message).toBe("the value must be more than 0");
    expect(problems([1, 2, 3], { maxItems: 2 })[0].message).toBe("the value must have at most 2 items");
  });

  it("follows properties, additionalProperties and items with key paths", () => {
    const schema = {
      type: "object",
      properties: {
        bank: { type: "object", properties: { iban: { type: "string" } }, required: ["iban"] },
        tags: { items: { type: "string" } },
      },
      additionalProperties: false,
    };
    expect(problems({ bank: {}, tags: ["a", 1], extra: true }, schema)).toEqual([
      { path: "bank.iban", message: "bank.iban is required" },
      { path: "tags[1]", message: "tags[1] must be a string (it is an integer)" },
      { path: "extra", message: "extra is not an allowed field" },
    ]);
    expect(problems({ a: 1 }, { additionalProperties: { type: "string" } })).toEqual([
      { path: "a", message: "a must be a string (it is an integer)" },
    ]);
  });
});
