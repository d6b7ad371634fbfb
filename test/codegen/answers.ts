// The real-world payloads the generated models must decode: the emulator's answers to every operation (both the
// daily and the grouped form where there is a `group_by`), payloads as they occur in the field that the emulator
// does not produce (./real-world.ts: activity of an unlisted client type, hooks settings as settings files hold
// them), the hook-input examples of the spec, and hook inputs of events the spec does not name. Each carries the
// schema names its body is typed by in the spec.
import { operations, type OperationId } from "../../generated/spec-tables.js";
import type { Emulator } from "../../src/emulator/index.js";
import { OrgAgent } from "../../src/index.js";
import { deref, hookInputExamples, operationObject } from "../support/spec.js";
import { realWorldPayloads } from "./real-world.js";

export interface Payload {
  /** Unique, file-name safe. */
  id: string;
  /** The operation it answers, or the hook payload it is (`hookInput`, `hooksSettings`). */
  source: OperationId | HookPayloadKind;
  /** Schema names (components.schemas) the body may be: one, or the variants of an `anyOf`/`oneOf`. */
  types: string[];
  body: unknown;
}

/** The hook payloads: not HTTP, described as the spec's webhooks. */
export type HookPayloadKind = "hookInput" | "hooksSettings";
export const isHookPayload = (payload: Payload) => payload.source === "hookInput" || payload.source === "hooksSettings";

const DAY = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

/** The schema names of an operation's success body, read from the spec. */
function successTypes(operationId: OperationId): string[] {
  const status = String(operations[operationId].successStatus);
  const schema = deref(operationObject(operationId).responses[status]).content["application/json"].schema;
  const refs: Array<{ $ref: string }> = schema.$ref ? [schema] : (schema.anyOf ?? schema.oneOf);
  return refs.map((ref) => ref.$ref.split("/").pop()!);
}

/** Inputs for every operation, shared by the payload collection and the generated clients' drivers. */
export function callContext(emulator: Emulator) {
  const computer = emulator.org.computers[0]!;
  return {
    apiKey: emulator.keys.owner,
    startDate: day(3),
    endDate: day(1),
    computerId: computer.id,
    computerName: computer.name,
    email: emulator.org.users[0]!.email,
  };
}

/** Calls every operation through the SDK and keeps each answer's parsed body. */
export async function collectPayloads(emulator: Emulator): Promise<Payload[]> {
  const sdk = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner, maxRetries: 0 });
  const c = callContext(emulator);
  const dates = { startDate: c.startDate, endDate: c.endDate };
  const session = await sdk.sessions.create({ computerId: c.computerId, cwd: "/srv/app" });
  const sent = await sdk.sessions.sendMessage(session.sessionId, { text: "Summarise the README" });
  const answers: Array<[OperationId, string, unknown]> = [
    ["getAnalyticsTokens", "daily", await sdk.analytics.tokens(dates)],
    ["getAnalyticsTokens", "grouped", await sdk.analytics.tokens({ ...dates, group_by: "model" })],
    ["getAnalyticsTools", "daily", await sdk.analytics.tools(dates)],
    ["getAnalyticsTools", "grouped", await sdk.analytics.tools({ ...dates, group_by: "tool_name" })],
    ["getAnalyticsActivity", "daily", await sdk.analytics.activity(dates)],
    ["getAnalyticsActivity", "grouped", await sdk.analytics.activity({ ...dates, group_by: "client" })],
    ["getAnalyticsProductivity", "", await sdk.analytics.productivity(dates)],
    ["listAnalyticsUsers", "", await sdk.analytics.users({ ...dates, limit: 20 })],
    ["listReadinessReports", "", await sdk.readiness.list({ limit: 5 })],
    ["listEnterpriseControlsHistory", "", await sdk.enterpriseControls.history({ limit: 5 })],
    // The API's own answer: usageLimits.setUserLimits adds each error's position in the input, which the API has not.
    [
      "setUserLimits",
      "",
      await sdk.request("setUserLimits", {
        body: {
          users: [
            { email: c.email, limit: 5_000 },
            { email: "nobody@example.org", limit: 5 },
          ],
        },
      }),
    ],
    ["createSession", "", session],
    ["getSession", "", await sdk.sessions.get(session.sessionId)],
    ["sendSessionMessage", "", sent],
    ["getSessionMessage", "", await sdk.sessions.getMessage(session.sessionId, sent.messageId)],
    ["getComputer", "", await sdk.computers.get(c.computerId)],
    ["getComputerByName", "", await sdk.computers.getByName(c.computerName)],
    ["retryComputerInstallDeps", "", await sdk.computers.retryInstallDeps(c.computerId)],
  ];
  const payloads: Payload[] = answers.map(([operationId, label, body]) => ({
    id: label ? `${operationId}-${label}` : operationId,
    source: operationId,
    types: successTypes(operationId),
    body: JSON.parse(JSON.stringify(body)),
  }));
  const hookInputs = [
    ...hookInputExamples().map(({ name, value }) => ({ name, value })),
    // Events the spec does not name: the agent client has more, and adds others.
    {
      name: "PreToolUse",
      value: { hook_event_name: "PreToolUse", session_id: "ses_01", cwd: "/srv/app", tool_name: "Bash", tool_input: { command: "ls" } },
    },
    { name: "UserPromptSubmit", value: { hook_event_name: "UserPromptSubmit", session_id: "ses_01", cwd: "/srv/app", prompt: "hi" } },
  ];
  for (const { name, value } of hookInputs) payloads.push({ id: `hook-${name}`, source: "hookInput", types: ["HookInput"], body: value });
  payloads.push(...realWorldPayloads);
  return payloads;
}

/** The operations whose payloads all decoded, and the hook payloads (inputs and settings) that did, given the ids that did. */
export function decodedOperations(payloads: Payload[], decoded: ReadonlySet<string>): { operations: number; hooks: number } {
  const byOperation = new Map<string, boolean>();
  let hooks = 0;
  for (const payload of payloads) {
    if (isHookPayload(payload)) hooks += decoded.has(payload.id) ? 1 : 0;
    else byOperation.set(payload.source, (byOperation.get(payload.source) ?? true) && decoded.has(payload.id));
  }
  return { operations: [...byOperation.values()].filter(Boolean).length, hooks };
}
