// parseHookInput: the JSON a hook command reads on stdin, checked against the spec's rules for each known event
// (the examples of the spec's `hookInput` webhook are the inputs), with unknown events passed through when their
// name is all they carry, or their session_id and cwd are strings. test/contract/payloads.test.ts holds the same
// inputs against the spec's HookInput schema.
import { describe, expect, it } from "vitest";
import { hookInputs } from "../../generated/spec-tables.js";
import { ValidationError, isKnownHookInput, parseHookInput } from "../../src/index.js";
import { hookInputExamples } from "../support/spec.js";

const examples = hookInputExamples();
const KNOWN_EVENTS = Object.keys(hookInputs);

describe("the spec's hook input examples", () => {
  it("cover all five known events", () => {
    expect(KNOWN_EVENTS.sort()).toEqual(["Notification", "PostToolUse", "SessionEnd", "Stop", "SubagentStop"]);
    expect(examples.map((e) => e.value.hook_event_name).sort()).toEqual(KNOWN_EVENTS.sort());
  });

  it.each(examples.map((e) => [e.name, e.value] as const))("%s parses to itself, as a known event", (_, value) => {
    const input = parseHookInput(value);
    expect(input).toEqual(value);
    expect(isKnownHookInput(input)).toBe(true);
  });

  it("parses the JSON text a command reads from stdin", () => {
    const notification = examples.find((e) => e.value.hook_event_name === "Notification")!.value;
    const input = parseHookInput(JSON.parse(JSON.stringify(notification)));
    if (input.hook_event_name !== "Notification") throw new Error("expected a Notification");
    expect(input.message).toBe(notification.message);
  });
});

describe("rejections", () => {
  it.each([null, undefined, "Stop", 42, true, [], [{ hook_event_name: "Stop" }]])(
    "a non-object (%j) is a ValidationError naming the input and what it must be",
    (value) => {
      const error = catchError(() => parseHookInput(value));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ field: "hookInput", value, allowed: "a JSON object" });
      expect((error as Error).message).toMatch(/^hookInput: .* is not allowed; expected a JSON object$/);
    },
  );

  it.each([{}, { hook_event_name: "" }, { hook_event_name: 7, session_id: "s", cwd: "/" }])(
    "an object without a usable hook_event_name (%j) is a ValidationError",
    (value) => {
      const error = catchError(() => parseHookInput(value));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({
        field: "hookInput.hook_event_name",
        value: (value as { hook_event_name?: unknown }).hook_event_name,
        allowed: "a non-empty string naming the event",
      });
    },
  );

  // For each known event, drop each field its rule requires: the error names that field.
  const missing = examples.flatMap(({ value }) =>
    (hookInputs[value.hook_event_name as keyof typeof hookInputs].required as readonly string[])
      .filter((field) => field !== "hook_event_name")
      .map((field) => [value.hook_event_name as string, field, value] as const),
  );

  it.each(missing)("%s without %s is a ValidationError naming the field", (_, field, value) => {
    const { [field]: _dropped, ...rest } = value;
    const error = catchError(() => parseHookInput(rest));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(`hookInput.${field}`);
    expect((error as Error).message).toContain(field);
  });

  // JSON.parse reads arrays nested a million deep (it does not recurse); showing one in the message must not overflow
  // the stack. (5,000 deep, the depth first reported, overflows JSON.stringify only on the default stack size: under
  // a larger one, such as Stryker's runner, the value is shown cut short instead.)
  const DEEP = 1_000_000;
  it.each([
    ["the input", () => JSON.parse(`${"[".repeat(DEEP)}${"]".repeat(DEEP)}`), "hookInput", "an array"],
    [
      "a field",
      () => ({ hook_event_name: "Stop", session_id: JSON.parse(`${"[".repeat(DEEP)}${"]".repeat(DEEP)}`), cwd: "/" }),
      "hookInput.session_id",
      "an array",
    ],
    [
      "an object in a field",
      () => ({ hook_event_name: "Stop", session_id: "s", cwd: JSON.parse(`${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`) }),
      "hookInput.cwd",
      "an object",
    ],
  ] as const)("%s nested a million levels deep: a ValidationError that says what it is, not a RangeError", (_, input, field, shown) => {
    const error = catchError(() => parseHookInput(input()));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field, message: `${field}: ${shown} is not allowed; expected ${(error as ValidationError).allowed}` });
  });

  it("a known event with a field of the wrong type is a ValidationError", () => {
    const notification = examples.find((e) => e.value.hook_event_name === "Notification")!.value;
    const error = catchError(() => parseHookInput({ ...notification, message: 42 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe("hookInput.message");
  });
});

describe("unknown events", () => {
  it("pass through untouched as the unknown-event variant", () => {
    const value = { hook_event_name: "PreCompact", session_id: "sess_1", cwd: "/work", trigger: "auto", extra: [1, 2] };
    const input = parseHookInput(value);
    expect(input).toEqual(value);
    expect(isKnownHookInput(input)).toBe(false);
  });

  it("need no session_id or cwd (the spec's HookInputOtherEvent requires only the name)", () => {
    expect(parseHookInput({ hook_event_name: "SomethingNew" })).toEqual({ hook_event_name: "SomethingNew" });
    expect(parseHookInput({ hook_event_name: "SomethingNew", cwd: "/work" })).toEqual({ hook_event_name: "SomethingNew", cwd: "/work" });
  });

  it.each(["session_id", "cwd"])("with a %s that is not a string are a ValidationError naming it, as under the spec", (field) => {
    for (const value of [5, null, { id: "sess_1" }]) {
      const error = catchError(() => parseHookInput({ hook_event_name: "PreCompact", [field]: value }));
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(`hookInput.${field}`);
    }
  });

  it("do not match a known name by prototype tricks", () => {
    expect(isKnownHookInput(parseHookInput({ hook_event_name: "constructor" }))).toBe(false);
    expect(isKnownHookInput(parseHookInput({ hook_event_name: "__proto__" }))).toBe(false);
  });

  it("known fields beyond the rule are kept", () => {
    const stop = examples.find((e) => e.value.hook_event_name === "Stop")!.value;
    expect(parseHookInput({ ...stop, stop_hook_active: true })).toEqual({ ...stop, stop_hook_active: true });
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
