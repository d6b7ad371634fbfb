// Checks a call's parameters and body against the bounds the spec states (generated/spec-tables.ts), so bad
// input fails fast with a ValidationError that names the field, the value and what is allowed. Nothing here
// knows a bound itself: every number comes from the spec.
import { isCalendarDate, yesterdayUTC } from "./days.js";
import { ValidationError, isRecord, type ValidationRule } from "./errors.js";

/** The validation-relevant subset of a JSON Schema, as emitted into generated/spec-tables.ts. */
export interface FieldRule {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly pattern?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly required?: readonly string[];
  readonly properties?: { readonly [name: string]: FieldRule };
  readonly items?: FieldRule;
  /** `x-date-range`: `earliest` and `latest` bound the date; `firstDataDay` only says where data starts. */
  readonly dateRange?: {
    readonly earliest?: string;
    readonly latest?: string;
    readonly notBefore?: string;
    readonly firstDataDay?: string;
  };
}

export interface ParamRule {
  readonly in: string;
  readonly required: boolean;
  readonly schema: FieldRule;
}

export interface OperationRules {
  readonly params: { readonly [name: string]: ParamRule };
  readonly body?: { readonly required: boolean; readonly schema: FieldRule };
}

export interface CallInput {
  path?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

const DOT_SEGMENT = /^\.{1,2}$/;
// With the `u` flag a surrogate pair is one code point, so only unpaired halves match.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Throws a ValidationError for the first parameter or body field that breaks the operation's rules. */
/** `now` (default: the time of the check) only matters for date bounds relative to today. */
export function validateCall(rules: OperationRules, input: CallInput, now?: Date): void {
  for (const name in rules.params) {
    const param = rules.params[name]!;
    const values = (param.in === "path" ? input.path : param.in === "query" ? input.query : undefined) ?? {};
    const value = values[name];
    const field = `${param.in}.${name}`;
    if (value === undefined || value === null) {
      if (param.required) throw new ValidationError(field, value, `${describe(param.schema)} (required)`, undefined, { rule: "required" });
      continue;
    }
    checkField(param.schema, value, field, values, now);
    // A lone UTF-16 surrogate cannot be percent-encoded (encodeURIComponent throws), so it cannot be sent.
    if (typeof value === "string" && LONE_SURROGATE.test(value)) {
      throw new ValidationError(field, value, `${describe(param.schema)} of well-formed Unicode (no lone surrogate)`, undefined, {
        rule: "format",
      });
    }
    // URL parsers (WHATWG, so every fetch) resolve a segment "." or ".." — encoded as %2E or not — against the
    // path: `sessions.get("..")` would reach another resource. Such a value cannot be sent as one segment.
    if (param.in === "path" && typeof value === "string" && DOT_SEGMENT.test(value)) {
      throw new ValidationError(field, value, `${describe(param.schema)}, other than "." or ".." (a URL dot segment)`, undefined, {
        rule: "format",
      });
    }
  }
  if (rules.body) {
    if (input.body === undefined) {
      if (rules.body.required) throw new ValidationError("body", undefined, "a request body (required)", undefined, { rule: "required" });
    } else {
      checkField(rules.body.schema, input.body, "body", {}, now);
    }
  }
}

/** Checks one value against its rule; `siblings` are the other fields of the same object (for `notBefore`). */
export function checkField(rule: FieldRule, value: unknown, field: string, siblings: Record<string, unknown> = {}, now?: Date): void {
  const fail = (broke: ValidationRule, bound?: unknown, allowed = describe(rule)): never => {
    throw new ValidationError(field, value, allowed, undefined, { rule: broke, bound });
  };
  if (value === null) {
    if (typesOf(rule).includes("null")) return;
    fail("type");
  }
  if (rule.const !== undefined && value !== rule.const) fail("const", rule.const, JSON.stringify(rule.const));
  if (rule.enum && !rule.enum.includes(value)) fail("enum", rule.enum, `one of ${rule.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  if (rule.type !== undefined && !hasSomeType(value, rule.type)) fail("type");

  // A bound the rule leaves out is NaN below: no comparison with NaN is true, so it never fails.
  if (typeof value === "string") {
    // Counting code points copies the string, so only a rule that bounds the length counts them (an image's
    // base64 data has no bound). JSON Schema counts code points, not UTF-16 units.
    if (rule.minLength !== undefined || rule.maxLength !== undefined) {
      const { minLength = NaN, maxLength = NaN } = rule;
      const length = [...value].length;
      if (length < minLength) fail("minLength", minLength);
      if (length > maxLength) fail("maxLength", maxLength);
    }
    // Dates first: their message states the allowed range, which a bare pattern failure would not.
    if (rule.format === "date") checkDate(rule, value, field, siblings, now);
    if (rule.pattern !== undefined && !compiled(rule.pattern).test(value)) fail("pattern", rule.pattern);
  }
  if (typeof value === "number") {
    const { minimum = NaN, maximum = NaN, exclusiveMinimum = NaN, exclusiveMaximum = NaN } = rule;
    if (value < minimum) fail("minimum", minimum);
    if (value > maximum) fail("maximum", maximum);
    if (value <= exclusiveMinimum) fail("exclusiveMinimum", exclusiveMinimum);
    if (value >= exclusiveMaximum) fail("exclusiveMaximum", exclusiveMaximum);
  }
  if (Array.isArray(value)) {
    const { minItems = NaN, maxItems = NaN } = rule;
    if (value.length < minItems) fail("minItems", minItems);
    if (value.length > maxItems) fail("maxItems", maxItems);
    if (rule.items)
      value.forEach((item, i) => {
        checkField(rule.items!, item, `${field}[${i}]`, {}, now);
      });
  }
  if (isRecord(value)) {
    for (const name of rule.required ?? []) {
      if (value[name] === undefined) {
        throw new ValidationError(`${field}.${name}`, undefined, `${describe(rule.properties?.[name] ?? {})} (required)`, undefined, {
          rule: "required",
        });
      }
    }
    for (const name in rule.properties) {
      if (value[name] !== undefined) checkField(rule.properties[name]!, value[name], `${field}.${name}`, value, now);
    }
  }
}

// The patterns come from the fixed spec tables: each is compiled once, not on every call.
const patterns = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  return patterns.get(pattern) ?? compile(pattern);
}
function compile(pattern: string): RegExp {
  const regex = new RegExp(pattern, "u");
  patterns.set(pattern, regex);
  return regex;
}

function checkDate(rule: FieldRule, value: string, field: string, siblings: Record<string, unknown>, now?: Date) {
  const range = rule.dateRange ?? {};
  const earliest = range.earliest;
  const latest = range.latest === "yesterday" ? yesterdayUTC(now) : range.latest;
  // The wording is built only for a failure: this runs for every date of every call.
  const span = () => {
    const to = `${latest ?? "any date"}${range.latest === "yesterday" ? " (yesterday, UTC)" : ""}`;
    return earliest ? `from ${earliest} to ${to}` : `up to ${to}`;
  };
  const fail = (broke: ValidationRule, allowed: string, bound?: unknown): never => {
    throw new ValidationError(field, value, allowed, undefined, { rule: broke, bound });
  };
  if (!isCalendarDate(value)) fail("format", `a real calendar date YYYY-MM-DD ${span()}`);
  if (earliest && value < earliest) fail("earliest", `a date ${span()}`, earliest);
  if (latest && value > latest) fail("latest", `a date ${span()}`, latest);
  const other = range.notBefore;
  const otherValue = other ? siblings[other] : undefined;
  if (typeof otherValue === "string" && value < otherValue && isCalendarDate(otherValue)) {
    fail("notBefore", `a date not before ${other} (${otherValue})`, other);
  }
}

function typesOf(rule: FieldRule): readonly string[] {
  // Stryker disable next-line ArrayDeclaration: a made-up type name here matches no case of describe() and is not "null": the same as none
  if (rule.type === undefined) return [];
  return typeof rule.type === "string" ? [rule.type] : rule.type;
}

function hasSomeType(value: unknown, type: string | readonly string[]): boolean {
  if (typeof type === "string") return type === "null" || hasType(value, type);
  // A list naming only "null" has no other type to check (null itself was handled before).
  return type.every((t) => t === "null") || type.some((t) => hasType(value, t));
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return Number.isFinite(value); // true for finite numbers only: no coercion
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return typeof value === type;
  }
}

/** Human wording of a rule: "an integer from 1 to 100", "a string of 1 to 63 characters". */
export function describe(rule: FieldRule): string {
  const type = typesOf(rule).find((t) => t !== "null");
  const range = (min: number | undefined, max: number | undefined, unit: string) =>
    min !== undefined && max !== undefined
      ? ` of ${min} to ${max}${unit}`
      : min !== undefined
        ? ` of at least ${min}${unit}`
        : max !== undefined
          ? ` of at most ${max}${unit}`
          : "";
  if (rule.enum) return `one of ${rule.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (type === "integer" || type === "number") {
    const noun = type === "integer" ? "an integer" : "a number";
    const { minimum: min, maximum: max } = rule;
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} >= ${min}`;
    if (max !== undefined) return `${noun} <= ${max}`;
    return noun;
  }
  if (type === "string") {
    if (rule.format === "date") return "a date YYYY-MM-DD";
    return `a string${range(rule.minLength, rule.maxLength, " characters")}`;
  }
  if (type === "array") return `an array${range(rule.minItems, rule.maxItems, " items")}`;
  if (type === "object") return "an object";
  if (type === "boolean") return "a boolean";
  return "a value";
}
