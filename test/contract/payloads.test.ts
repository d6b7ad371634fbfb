// Payloads as they occur in the field, held against the spec's schemas, and the SDK's hook-input parser held
// against `HookInput`: whatever the SDK accepts, a model generated from the spec must accept too, and the reverse.
import { describe, expect, it } from "vitest";
import { hookInputs } from "../../generated/spec-tables.js";
import { parseHookInput } from "../../src/index.js";
import {
  activityDailyWithUnlistedClient,
  activityGroupedWithUnlistedClient,
  hooksSettingsAsWritten,
  realWorldPayloads,
  UNLISTED_CLIENT,
} from "../codegen/real-world.js";
import { hookInputExamples, spec } from "../support/spec.js";
import { validateResponse, validateSchema } from "./schema-validator.js";

describe("the validator", () => {
  it("rejects what the schemas forbid, so a pass means something", () => {
    expect(validateSchema("HookCommand", { type: "command" }).valid).toBe(false); // no command
    expect(validateSchema("HookCommand", { type: "script", command: "ls" }).valid).toBe(false);
    expect(validateSchema("HookCommand", { type: "command", command: "ls", timeout: "5" }).valid).toBe(false);
    expect(validateSchema("ActivityGroupedRow", { date: "2026-03-02", group_key: 7, daily_active_users: 1 }).valid).toBe(false);
    expect(validateSchema("ActivityGroupedRow", { date: "2026-02-30", group_key: "web", daily_active_users: 1 }).valid).toBe(false);
    expect(validateSchema("ActivityRowClientCounts", { web: "1" }).valid).toBe(false);
    expect(validateSchema("HookInput", { hook_event_name: "Stop" }).valid).toBe(false);
  });
});

describe("payloads as they occur in the field are valid against the spec", () => {
  it("the hooks settings are as settings files have them: matchers, commands without timeout, an unnamed event", () => {
    const entries = Object.values(hooksSettingsAsWritten.hooks).flat();
    const commands = entries.flatMap((entry) => entry.hooks);
    expect(entries.some((entry) => "matcher" in entry)).toBe(true);
    expect(commands.some((command) => !("timeout" in command))).toBe(true);
    expect(Object.keys(hooksSettingsAsWritten.hooks).some((event) => !(event in hookInputs))).toBe(true);
  });

  it("the activity payloads carry a client type the spec does not list, as a key and as a group_key", () => {
    expect(spec.components.schemas.ClientType.enum).not.toContain(UNLISTED_CLIENT);
    expect(Object.keys(activityDailyWithUnlistedClient.data[0]!.daily_active_users_by_client)).toContain(UNLISTED_CLIENT);
    expect(activityGroupedWithUnlistedClient.data.map((row) => row.group_key)).toContain(UNLISTED_CLIENT);
  });

  it.each(realWorldPayloads.map((payload) => [payload.id, payload.types.join(" | "), payload] as const))(
    "%s is a valid %s",
    (_, __, payload) => {
      for (const type of payload.types) expect(validateSchema(type, payload.body), type).toEqual({ valid: true, errors: [] });
    },
  );

  it("HooksSettings and HookCommand accept a command without timeout, and an entry with a matcher", () => {
    expect(validateSchema("HookCommand", { type: "command", command: "say done" }).valid).toBe(true);
    expect(validateSchema("HookMatcherEntry", { matcher: "Bash", hooks: [{ type: "command", command: "ls" }] }).valid).toBe(true);
    expect(validateSchema("HooksSettings", hooksSettingsAsWritten)).toEqual({ valid: true, errors: [] });
  });

  it("/activity answers with the unlisted client type are valid answers of the operation, with and without group_by", () => {
    for (const body of [activityDailyWithUnlistedClient, activityGroupedWithUnlistedClient]) {
      expect(validateResponse("/api/v1/analytics/activity", "get", "200", body)).toEqual({ valid: true, errors: [] });
    }
    expect(validateSchema("ActivityRowClientCounts", { [UNLISTED_CLIENT]: 1 }).valid).toBe(true);
    expect(validateSchema("ActivityGroupedRow", activityGroupedWithUnlistedClient.data.at(-1)).valid).toBe(true);
  });
});

describe("parseHookInput and the HookInput schema agree", () => {
  const examples = hookInputExamples();
  const notification = examples.find((example) => example.value.hook_event_name === "Notification")!.value;
  const sessionEnd = examples.find((example) => example.value.hook_event_name === "SessionEnd")!.value;
  const stop = examples.find((example) => example.value.hook_event_name === "Stop")!.value;
  const { session_id: _sessionId, ...stopWithoutSession } = stop;
  const { message: _message, ...notificationWithoutMessage } = notification;

  // [what, input, whether both must accept it]
  const cases: Array<readonly [string, unknown, boolean]> = [
    ...examples.map(({ name, value }) => [`the spec's example ${name}`, value, true] as const),
    ["a known event with an extra field", { ...stop, stop_hook_active: true }, true],
    ["SessionEnd with a reason the spec does not list", { ...sessionEnd, reason: "logout" }, true],
    ["a known event without session_id", stopWithoutSession, false],
    ["Notification without message", notificationWithoutMessage, false],
    ["Notification with a numeric message", { ...notification, message: 42 }, false],
    ["SessionEnd with a numeric reason", { ...sessionEnd, reason: 1 }, false],
    ["a known event with a null cwd", { ...stop, cwd: null }, false],
    ["an unknown event with its name alone", { hook_event_name: "SomethingNew" }, true],
    ["an unknown event with session_id and cwd", { hook_event_name: "PreCompact", session_id: "sess_1", cwd: "/work" }, true],
    ["an unknown event with session_id only", { hook_event_name: "PreCompact", session_id: "sess_1" }, true],
    ["an unknown event with its own fields", { hook_event_name: "UserPromptSubmit", prompt: "hi", extra: [1, 2] }, true],
    ["an unknown event named like an Object property", { hook_event_name: "constructor" }, true],
    ["an unknown event named __proto__", JSON.parse('{"hook_event_name":"__proto__"}'), true],
    ["an unknown event with a numeric session_id", { hook_event_name: "PreCompact", session_id: 5 }, false],
    ["an unknown event with a null cwd", { hook_event_name: "PreCompact", cwd: null }, false],
    ["an empty event name", { hook_event_name: "", session_id: "sess_1", cwd: "/work" }, false],
    ["a numeric event name", { hook_event_name: 7, session_id: "sess_1", cwd: "/work" }, false],
    ["no event name", { session_id: "sess_1", cwd: "/work" }, false],
    ["an array", [stop], false],
    ["a string", "Stop", false],
    ["null", null, false],
  ];

  const sdkAccepts = (value: unknown) => {
    try {
      parseHookInput(value);
      return true;
    } catch {
      return false;
    }
  };

  it.each(cases.map(([what, input, accepted]) => [what, accepted ? "accept" : "reject", input, accepted] as const))(
    "%s: both %s",
    (_, __, input, accepted) => {
      const schema = validateSchema("HookInput", input);
      expect({ sdk: sdkAccepts(input), schema: schema.valid }, schema.errors.join("; ")).toEqual({ sdk: accepted, schema: accepted });
    },
  );
});
