// Typed parsing of the JSON a hook command receives on standard input. The rules of each known event come from
// the spec (generated/spec-tables.ts); an event the spec does not know yet passes through as UnknownHookInput.
import type * as api from "../generated/openapi.js";
import { hookInputs } from "../generated/spec-tables.js";
import { ValidationError, isRecord } from "./core/errors.js";
import { checkField, type FieldRule } from "./core/validate.js";

export type { HookCommand, HookEventName, HookMatcherEntry, HooksSettings } from "../generated/openapi.js";

/**
 * The name of an event this version does not know. A type-level brand: a string pattern no real name matches, so
 * `input.hook_event_name === "Notification"` narrows `HookInput` to the Notification input alone. (A brand by
 * intersection, `string & {…}`, stops TypeScript from treating `hook_event_name` as a discriminant at all.)
 * To test for a name this version does not know, compare it as a string: `String(input.hook_event_name) === "X"`.
 */
export type UnknownHookEventName = `${string}\u0000(unknown hook event)`;

/** An event this version of orgagent does not know; its fields are passed through untouched. */
export interface UnknownHookInput {
  readonly hook_event_name: UnknownHookEventName;
  readonly session_id?: string;
  readonly cwd?: string;
  readonly [field: string]: unknown;
}

/** An input of one of the events the spec names (`KnownHookInput`), told apart by `hook_event_name`. */
export type KnownHookInput = api.KnownHookInput;

/** Hook input narrowed by `hook_event_name`. */
export type HookInput = KnownHookInput | UnknownHookInput;

const rules: Readonly<Record<string, FieldRule>> = hookInputs;

/**
 * The rule of an event the spec does not name (its `HookInputOtherEvent`): the fields every known event carries
 * (`session_id`, `cwd`) keep their types when present, but none is required, since a new event may lack them.
 */
const otherEventRule: FieldRule = { type: "object", properties: sharedFields(Object.values(rules)) };

function sharedFields(known: readonly FieldRule[]): Record<string, FieldRule> {
  const shared: Record<string, FieldRule> = {};
  for (const [name, rule] of Object.entries(known[0]?.properties ?? {})) {
    if (name !== "hook_event_name" && known.every((event) => event.required?.includes(name))) shared[name] = rule;
  }
  return shared;
}

/**
 * Checks a hook command's input (already parsed from JSON) and types it by `hook_event_name`.
 * Throws ValidationError for a non-object, a missing or empty event name, a known event missing a required field,
 * or a field of the wrong type. An event the spec does not name needs only its name: `session_id` and `cwd` are
 * checked when present.
 */
export function parseHookInput(value: unknown): HookInput {
  if (!isRecord(value)) throw new ValidationError("hookInput", value, "a JSON object");
  const event = value.hook_event_name;
  if (typeof event !== "string" || !event) {
    throw new ValidationError("hookInput.hook_event_name", event, "a non-empty string naming the event");
  }
  checkField(Object.hasOwn(rules, event) ? rules[event]! : otherEventRule, value, "hookInput");
  return value as unknown as HookInput;
}

/** Whether a parsed hook input is of an event this version knows. */
export function isKnownHookInput(input: HookInput): input is KnownHookInput {
  return Object.hasOwn(rules, input.hook_event_name);
}
