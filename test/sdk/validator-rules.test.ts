// The validator on rules the spec may state but does not use today (enum, const, exclusive bounds, nullable types,
// required bodies and parameters). The spec tables are generated, so a new keyword reaches validateCall the day the
// spec gains it: each is checked here on a synthetic rule, with the wording a caller reads.
import { describe as group, expect, it } from "vitest";
import { ValidationError } from "../../src/index.js";
import { checkField, describe, validateCall, type FieldRule, type OperationRules } from "../../src/core/validate.js";

/** The ValidationError `check` throws (field and wording), or undefined when it passes. */
function refusal(check: () => void): { field: string; message: string } | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { field: (error as ValidationError).field, message: (error as Error).message };
  }
}
const verdict = (rule: FieldRule, value: unknown) => refusal(() => checkField(rule, value, "x"))?.message;

group("keywords", () => {
  it("enum: only the listed values, named in the message", () => {
    const rule: FieldRule = { type: "string", enum: ["day", "week"] };
    expect(verdict(rule, "week")).toBeUndefined();
    expect(verdict(rule, "month")).toContain('one of "day", "week"');
    expect(describe(rule)).toBe('one of "day", "week"');
  });

  it("const: only that value", () => {
    expect(verdict({ const: "command" }, "command")).toBeUndefined();
    expect(verdict({ const: "command" }, "prompt")).toContain('"command"');
  });

  it("exclusive bounds exclude the bound itself", () => {
    const rule: FieldRule = { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 };
    expect([0.5, 0.000001, 0.999999].map((value) => verdict(rule, value))).toEqual([undefined, undefined, undefined]);
    expect(verdict(rule, 0)).toBeDefined();
    expect(verdict(rule, 1)).toBeDefined();
    expect(verdict(rule, -1)).toBeDefined();
    expect(verdict(rule, 2)).toBeDefined();
  });

  it("inclusive bounds include it, and say so", () => {
    expect(verdict({ type: "integer", minimum: 1, maximum: 3 }, 1)).toBeUndefined();
    expect(verdict({ type: "integer", minimum: 1, maximum: 3 }, 3)).toBeUndefined();
    expect(describe({ type: "integer", minimum: 1 })).toBe("an integer >= 1");
    expect(describe({ type: "number", maximum: 9 })).toBe("a number <= 9");
    expect(describe({ type: "number" })).toBe("a number");
  });

  it("null passes only where the type lists it", () => {
    expect(verdict({ type: ["string", "null"] }, null)).toBeUndefined();
    expect(verdict({ type: ["string", "null"] }, "a")).toBeUndefined();
    expect(verdict({ type: ["string", "null"] }, 1)).toContain("a string");
    expect(verdict({ type: "string" }, null)).toContain("a string");
    expect(verdict({ type: ["null"] }, null)).toBeUndefined();
    expect(verdict({ type: "null" }, null)).toBeUndefined();
  });

  it("types: integer, number (finite), boolean, array, object", () => {
    expect(verdict({ type: "integer" }, 1.5)).toContain("an integer");
    expect(verdict({ type: "number" }, Number.POSITIVE_INFINITY)).toContain("a number");
    expect(verdict({ type: "number" }, "1")).toContain("a number");
    expect(verdict({ type: "boolean" }, "true")).toBe('x: "true" is not allowed; expected a boolean');
    expect(verdict({ type: "array" }, {})).toContain("an array");
    expect(verdict({ type: "object" }, [])).toContain("an object");
    expect(verdict({ type: ["integer", "string"] }, true)).toContain("an integer");
    expect(verdict({}, Symbol.iterator)).toBeUndefined(); // no type: anything
  });

  it("the wording of lengths and item counts", () => {
    expect(describe({ type: "string", minLength: 2 })).toBe("a string of at least 2 characters");
    expect(describe({ type: "string", maxLength: 5 })).toBe("a string of at most 5 characters");
    expect(describe({ type: "array", minItems: 1, maxItems: 2 })).toBe("an array of 1 to 2 items");
    expect(describe({ type: "string", format: "date" })).toBe("a date YYYY-MM-DD");
    expect(describe({})).toBe("a value");
  });

  it("a date rule without bounds says so", () => {
    const rule: FieldRule = { type: "string", format: "date", dateRange: {} };
    expect(verdict(rule, "2026-02-30")).toContain("a real calendar date YYYY-MM-DD from any date to any date");
    expect(verdict(rule, "2026-02-28")).toBeUndefined();
  });
});

group("validateCall", () => {
  const rules: OperationRules = {
    params: { id: { in: "path", required: true, schema: { type: "string", minLength: 1 } } },
    body: { required: true, schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
  };

  it("a required parameter missing, or null, names it", () => {
    for (const id of [undefined, null]) {
      expect(refusal(() => validateCall(rules, { path: { id }, body: { name: "a" } }))).toEqual({
        field: "path.id",
        message: expect.stringContaining("a string of at least 1 characters (required)"),
      });
    }
  });

  it("a required body missing says so; an optional one may be left out", () => {
    expect(refusal(() => validateCall(rules, { path: { id: "1" } }))).toEqual({
      field: "body",
      message: expect.stringContaining("a request body (required)"),
    });
    expect(refusal(() => validateCall({ ...rules, body: { ...rules.body!, required: false } }, { path: { id: "1" } }))).toBeUndefined();
    expect(refusal(() => validateCall(rules, { path: { id: "1" }, body: {} }))?.field).toBe("body.name");
  });
});
