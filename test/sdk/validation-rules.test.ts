// The rule a value broke, and its bound, as a program reads them from a ValidationError (`rule`, `bound`): one case
// per keyword of the validator, on rules written here (the spec uses only some of them).
import { describe, expect, it } from "vitest";
import { checkField, type FieldRule } from "../../src/core/validate.js";
import { ValidationError } from "../../src/index.js";

function broken(rule: FieldRule, value: unknown): ValidationError {
  try {
    checkField(rule, value, "field");
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(value)} passed ${JSON.stringify(rule)}`);
}

describe("each keyword names itself as the rule broken", () => {
  it.each([
    ["type", { type: "integer" }, "7", undefined],
    ["minimum", { type: "integer", minimum: 1 }, 0, 1],
    ["maximum", { type: "integer", maximum: 10 }, 11, 10],
    ["exclusiveMinimum", { type: "number", exclusiveMinimum: 0 }, 0, 0],
    ["exclusiveMaximum", { type: "number", exclusiveMaximum: 1 }, 1, 1],
  ] as Array<[string, FieldRule, unknown, unknown]>)("%s", (name, rule, value, bound) => {
    const error = broken(rule, value);
    expect(error.rule).toBe(name);
    expect(error.bound).toBe(bound);
  });

  it("a value just inside an exclusive bound passes", () => {
    expect(() => checkField({ type: "number", exclusiveMaximum: 1 }, 0.99, "field")).not.toThrow();
    expect(() => checkField({ type: "number", exclusiveMinimum: 0 }, 0.01, "field")).not.toThrow();
  });
});
