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
    expect(verdict(rule, "2026-02-30")).toContain("a real calendar date YYYY-MM-DD up to any date");
    expect(verdict(rule, "2026-02-28")).toBeUndefined();
  });
});

group("each keyword on its own", () => {
  it("minLength alone and maxLength alone, each counting code points and taking its bound itself", () => {
    const atLeast2: FieldRule = { type: "string", minLength: 2 };
    expect(["ab", "🖥🖥", "abcdef"].map((value) => verdict(atLeast2, value))).toEqual([undefined, undefined, undefined]);
    expect(verdict(atLeast2, "a")).toBe('x: "a" is not allowed; expected a string of at least 2 characters');
    expect(verdict(atLeast2, "🖥")).toContain("at least 2 characters"); // two UTF-16 units, one character
    const atMost2: FieldRule = { type: "string", maxLength: 2 };
    expect(["", "ab", "🖥🖥"].map((value) => verdict(atMost2, value))).toEqual([undefined, undefined, undefined]);
    expect(verdict(atMost2, "abc")).toBe('x: "abc" is not allowed; expected a string of at most 2 characters');
  });

  it("minItems alone and maxItems alone take their bound itself", () => {
    expect(verdict({ type: "array", minItems: 2 }, [1, 2])).toBeUndefined();
    expect(verdict({ type: "array", minItems: 2 }, [1])).toBe("x: [1] is not allowed; expected an array of at least 2 items");
    expect(verdict({ type: "array", maxItems: 2 }, [])).toBeUndefined();
    expect(verdict({ type: "array", maxItems: 2 }, [1, 2])).toBeUndefined();
    expect(verdict({ type: "array", maxItems: 2 }, [1, 2, 3])).toContain("an array of at most 2 items");
  });

  it("an array rule without items takes any items; with items, each is checked and named by its position", () => {
    expect(verdict({ type: "array" }, [1, "a", null, {}])).toBeUndefined();
    expect(refusal(() => checkField({ type: "array", items: { type: "integer" } }, [1, 2, "3"], "x"))).toEqual({
      field: "x[2]",
      message: 'x[2]: "3" is not allowed; expected an integer',
    });
  });

  it("a pattern refuses what it does not match; it is read as Unicode (code points, property escapes)", () => {
    const lowercase: FieldRule = { type: "string", pattern: "^[a-z]+$" };
    expect(verdict(lowercase, "abc")).toBeUndefined();
    expect(verdict(lowercase, "aBc")).toBe('x: "aBc" is not allowed; expected a string');
    expect(verdict({ type: "string", pattern: "^.$" }, "🖥")).toBeUndefined();
    expect(verdict({ type: "string", pattern: "^\\p{Lu}" }, "Ärger")).toBeUndefined();
    expect(verdict({ type: "string", pattern: "^\\p{Lu}" }, "ärger")).toBeDefined();
    // The same pattern again, on other values: each verdict is its own.
    expect(["xyz", "XYZ", "q"].map((value) => verdict(lowercase, value) === undefined)).toEqual([true, false, true]);
  });

  it("bounds apply to their own kind of value only: a number's to numbers, a length to strings, an item count to arrays", () => {
    expect(verdict({ minimum: 10 }, "5")).toBeUndefined();
    expect(verdict({ maximum: 1 }, [5])).toBeUndefined();
    expect(verdict({ exclusiveMaximum: 1 }, "9")).toBeUndefined();
    expect(verdict({ minItems: 3 }, "ab")).toBeUndefined();
    expect(verdict({ maxItems: 1 }, "abc")).toBeUndefined();
    expect(verdict({ items: { type: "integer" } }, "abc")).toBeUndefined();
    expect(verdict({ minLength: 5 }, [1])).toBeUndefined();
    expect(verdict({ minimum: 10 }, 5)).toContain("x: 5 is not allowed");
  });

  it("a required property that is missing is described by its own rule, or as a value when it has none", () => {
    const rule: FieldRule = { type: "object", required: ["name", "id"], properties: { name: { type: "string", minLength: 1 } } };
    expect(refusal(() => checkField(rule, { id: 1 }, "body"))).toEqual({
      field: "body.name",
      message: "body.name: a missing value is not allowed; expected a string of at least 1 characters (required)",
    });
    expect(refusal(() => checkField(rule, { name: "n" }, "body"))?.message).toBe(
      "body.id: a missing value is not allowed; expected a value (required)",
    );
    expect(refusal(() => checkField({ type: "object", required: ["id"] }, {}, "body"))?.message).toBe(
      "body.id: a missing value is not allowed; expected a value (required)",
    );
  });

  it("a type list is described by its first type other than null, wherever null stands in it", () => {
    expect(describe({ type: ["null", "integer"], minimum: 1 })).toBe("an integer >= 1");
    expect(verdict({ type: ["null", "string"] }, 5)).toBe("x: 5 is not allowed; expected a string");
    expect(verdict({ type: ["null", "string"] }, "a")).toBeUndefined();
    expect(verdict({ type: ["null", "integer", "string"] }, "a")).toBeUndefined();
  });

  it("a type naming only null puts no type on other values: there is nothing else to check", () => {
    for (const value of ["a", 1, [], {}]) {
      expect(verdict({ type: "null" }, value)).toBeUndefined();
      expect(verdict({ type: ["null"] }, value)).toBeUndefined();
    }
  });

  it("describe: a type without bounds is named alone", () => {
    expect(describe({ type: "string" })).toBe("a string");
    expect(describe({ type: "array" })).toBe("an array");
    expect(describe({ type: "string", minLength: 1, maxLength: 3 })).toBe("a string of 1 to 3 characters");
    expect(describe({ type: ["null"] })).toBe("a value");
    expect(describe({ type: "integer", minimum: 0, maximum: 5 })).toBe("an integer from 0 to 5");
  });
});

group("dates", () => {
  const now = new Date(Date.UTC(2026, 10, 25, 12)); // yesterday: 2026-11-24
  const dateRule = (dateRange: NonNullable<FieldRule["dateRange"]>): FieldRule => ({ type: "string", format: "date", dateRange });
  const dateVerdict = (rule: FieldRule, value: string, siblings: Record<string, unknown> = {}) =>
    refusal(() => checkField(rule, value, "x", siblings, now))?.message;

  it('a latest of "yesterday" is named as the day, marked as yesterday in UTC', () => {
    const rule = dateRule({ earliest: "2026-01-14", latest: "yesterday" });
    expect(dateVerdict(rule, "2026-11-24")).toBeUndefined();
    expect(dateVerdict(rule, "2026-11-25")).toBe(
      'x: "2026-11-25" is not allowed; expected a date from 2026-01-14 to 2026-11-24 (yesterday, UTC)',
    );
    expect(dateVerdict(rule, "2026-11-31")).toBe(
      'x: "2026-11-31" is not allowed; expected a real calendar date YYYY-MM-DD from 2026-01-14 to 2026-11-24 (yesterday, UTC)',
    );
  });

  it("firstDataDay says where data starts and bounds nothing: an earlier date passes", () => {
    const rule = dateRule({ firstDataDay: "2026-01-14", latest: "yesterday" });
    expect([dateVerdict(rule, "2026-01-13"), dateVerdict(rule, "1999-12-31")]).toEqual([undefined, undefined]);
    expect(dateVerdict(rule, "2026-11-25")).toBe('x: "2026-11-25" is not allowed; expected a date up to 2026-11-24 (yesterday, UTC)');
  });

  it("a fixed latest day is named as it is, with nothing after it", () => {
    const rule = dateRule({ earliest: "2026-01-01", latest: "2026-06-30" });
    expect(dateVerdict(rule, "2026-06-30")).toBeUndefined();
    expect(dateVerdict(rule, "2026-07-01")).toBe('x: "2026-07-01" is not allowed; expected a date from 2026-01-01 to 2026-06-30');
    expect(dateVerdict(dateRule({ latest: "2026-06-30" }), "2026-07-01")).toMatch(/expected a date up to 2026-06-30$/);
  });

  it("a date is written YYYY-MM-DD exactly: other separators, or a space after the day, are refused", () => {
    const rule = dateRule({});
    for (const value of ["2026/11/20", "2026.11.20", "2026-11-2 "]) {
      expect(dateVerdict(rule, value)).toBe(
        `x: ${JSON.stringify(value)} is not allowed; expected a real calendar date YYYY-MM-DD up to any date`,
      );
    }
  });

  it("an earliest day is a bound: the day before it is refused, naming the span, with the rule and the day", () => {
    const rule = dateRule({ earliest: "2026-01-14", latest: "yesterday" });
    expect(dateVerdict(rule, "2026-01-14")).toBeUndefined();
    expect(dateVerdict(rule, "2026-01-13")).toBe(
      'x: "2026-01-13" is not allowed; expected a date from 2026-01-14 to 2026-11-24 (yesterday, UTC)',
    );
    let error: unknown;
    try {
      checkField(rule, "2026-01-13", "x", {}, now);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ rule: "earliest", bound: "2026-01-14" });
  });

  it("notBefore compares with the sibling it names, when that sibling is a real date", () => {
    const rule = dateRule({ notBefore: "startDate" });
    expect(dateVerdict(rule, "2026-03-01", { startDate: "2026-03-02" })).toBe(
      'x: "2026-03-01" is not allowed; expected a date not before startDate (2026-03-02)',
    );
    expect(dateVerdict(rule, "2026-03-02", { startDate: "2026-03-02" })).toBeUndefined();
    expect(dateVerdict(rule, "2026-03-01", { startDate: "2026-99-99" })).toBeUndefined(); // its own check names it
    expect(dateVerdict(rule, "2026-03-01", {})).toBeUndefined();
    expect(dateVerdict(dateRule({}), "2026-03-01", { startDate: "2026-03-02" })).toBeUndefined();
  });

  it("notBefore compares only with a sibling that is a string: anything else is left to the sibling's own check", () => {
    const rule = dateRule({ notBefore: "startDate" });
    // A String object reads as a later real date (`<` and the date pattern both convert it), yet it is not a string.
    const boxed = Object("2026-03-02") as object;
    expect(dateVerdict(rule, "2026-03-01", { startDate: boxed })).toBeUndefined();
    const rules: OperationRules = {
      params: {},
      body: {
        required: true,
        schema: { type: "object", properties: { endDate: rule, startDate: { type: "string", format: "date" } } },
      },
    };
    let error: unknown;
    try {
      validateCall(rules, { body: { endDate: "2026-03-01", startDate: boxed } }, now);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ field: "body.startDate", rule: "type" });
  });
});

group("validateCall", () => {
  const rules: OperationRules = {
    params: { id: { in: "path", required: true, schema: { type: "string", minLength: 1 } } },
    body: { required: true, schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
  };

  it("each refusal names the rule it broke, for a program to read", () => {
    const ruleOf = (check: () => void) => {
      try {
        check();
      } catch (error) {
        return (error as ValidationError).rule;
      }
      return undefined;
    };
    const query: OperationRules = { params: { q: { in: "query", required: false, schema: { type: "string" } } } };
    expect(ruleOf(() => validateCall(query, { query: { q: "a\uD800" } }))).toBe("format");
    expect(ruleOf(() => validateCall(rules, { path: { id: ".." }, body: { name: "a" } }))).toBe("format");
    expect(ruleOf(() => validateCall(rules, { path: { id: "a" } }))).toBe("required");
    expect(ruleOf(() => checkField({ type: "string" }, null, "x"))).toBe("type");
    expect(ruleOf(() => checkField({ const: "command" }, "prompt", "x"))).toBe("const");
    expect(ruleOf(() => checkField({ type: "string", minLength: 2 }, "a", "x"))).toBe("minLength");
    expect(ruleOf(() => checkField({ type: "string", pattern: "^a+$" }, "b", "x"))).toBe("pattern");
    expect(ruleOf(() => checkField({ type: "array", minItems: 2 }, [1], "x"))).toBe("minItems");
    expect(ruleOf(() => checkField({ type: "array", maxItems: 1 }, [1, 2], "x"))).toBe("maxItems");
    expect(ruleOf(() => checkField({ type: "object", required: ["name"] }, {}, "x"))).toBe("required");
  });

  it("a required parameter missing, or null, names it", () => {
    for (const id of [undefined, null]) {
      expect(refusal(() => validateCall(rules, { path: { id }, body: { name: "a" } }))).toEqual({
        field: "path.id",
        message: expect.stringContaining("a string of at least 1 characters (required)"),
      });
    }
  });

  it("a lone UTF-16 surrogate is refused in any parameter, saying why: it cannot be percent-encoded", () => {
    const query: OperationRules = { params: { q: { in: "query", required: false, schema: { type: "string", minLength: 1 } } } };
    expect(refusal(() => validateCall(query, { query: { q: "a\uD800" } }))).toEqual({
      field: "query.q",
      message: expect.stringMatching(/expected a string of at least 1 characters of well-formed Unicode \(no lone surrogate\)$/),
    });
    expect(refusal(() => validateCall(query, { query: { q: "a🖥" } }))).toBeUndefined(); // a pair is one character
    const untyped: OperationRules = { params: { q: { in: "query", required: false, schema: {} } } };
    expect(refusal(() => validateCall(untyped, { query: { q: 55296 } }))).toBeUndefined(); // 0xD800 as a number is no text
  });

  it('"." and ".." are refused as path values only: in a query they are plain text', () => {
    const rules: OperationRules = {
      params: {
        id: { in: "path", required: true, schema: { type: "string" } },
        q: { in: "query", required: false, schema: { type: "string" } },
      },
    };
    for (const dots of [".", ".."]) {
      expect(refusal(() => validateCall(rules, { path: { id: dots } }))).toEqual({
        field: "path.id",
        message: `path.id: ${JSON.stringify(dots)} is not allowed; expected a string, other than "." or ".." (a URL dot segment)`,
      });
      expect(refusal(() => validateCall(rules, { path: { id: "a" }, query: { q: dots } }))).toBeUndefined();
    }
    // Only a string can be a dot segment: a value of another type is left to its type rule.
    const untyped: OperationRules = { params: { id: { in: "path", required: true, schema: {} } } };
    expect(refusal(() => validateCall(untyped, { path: { id: [".."] } }))).toBeUndefined();
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

group("object keywords on other values", () => {
  it("required and properties constrain only an object: a rule with no type lets a string, a number or an array pass", () => {
    // JSON Schema applies `required` and `properties` to objects alone; a string has a `length` but no properties.
    const rule: FieldRule = { required: ["length"], properties: { length: { type: "integer", maximum: 1 } } };
    expect(["abc", 42, [1, 2, 3]].map((value) => verdict(rule, value))).toEqual([undefined, undefined, undefined]);
    expect(verdict(rule, {})).toContain("(required)");
    expect(verdict(rule, { length: 3 })).toContain("an integer <= 1");
  });
});
