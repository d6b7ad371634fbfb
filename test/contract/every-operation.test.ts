// Generated per-operation tests: every operation of the spec (read from the bundle at test time, so a new operation is
// covered without a line here) is called with its required parameters only and with every parameter, values from
// the spec's examples, through `client.request` by operationId and through the resource method its `x-sdk` names,
// against the Prism mock of the spec and against the emulator; each answer must have the operation's success status
// and be valid against the spec's schema for it (Ajv, JSON Schema 2020-12).
//
// Against the emulator the examples name things it may not have. The fixtures replace them by parameter (or body
// field) name, never by operation: `computerId` is the emulator's computer named as the spec's `name` example is,
// `sessionId` and `messageId` a session on it and a message in that session, `repoId` a repository of its readiness
// reports; a page cursor comes from the first page, by the operation's `x-pagination`.
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent } from "../../src/index.js";
import { callByMethod, callByRequest, exampleInput, sdkOf, type CallInput, type Fixtures } from "../support/operation-calls.js";
import { exampleValue, specOperation } from "../support/spec.js";
import { validateResponse } from "./schema-validator.js";

const ids = Object.keys(operations) as OperationId[];
const cases = ids.flatMap((operationId) =>
  [false, true].flatMap((optional) =>
    (["client.request", "resource method"] as const).map((via) => ({
      operationId,
      optional,
      via,
      what: optional ? "every parameter" : "required parameters",
    })),
  ),
);

interface Server {
  client: OrgAgent;
  fixtures: Fixtures;
  /** Called after every call: lets the emulator's simulated work (a session's reply, an install step) finish. */
  after(): void;
}

async function check(server: Server, { operationId, optional, via }: (typeof cases)[number], emulator: boolean) {
  let input = exampleInput(operationId, { optional, fixtures: server.fixtures });
  if (emulator && optional) input = await withLiveCursor(server, operationId, input);
  const call =
    via === "client.request" ? callByRequest(server.client, operationId, input) : callByMethod(server.client, operationId, input);
  if (!call) {
    expect(sdkOf(operationId).custom, `${operationId} has no generated method`).toBe(true);
    return;
  }
  const { data, response } = await call.withResponse();
  server.after();
  const { path, method, successStatus } = operations[operationId];
  expect(response.status).toBe(successStatus);
  expect(validateResponse(path, method.toLowerCase(), String(successStatus), data)).toEqual({ valid: true, errors: [] });
}

/** A list's cursor parameter set to the next cursor of its first page (by its x-pagination rule), or left out when there is none. */
async function withLiveCursor(server: Server, operationId: OperationId, input: CallInput): Promise<CallInput> {
  type Rule = { cursorParam: string; items: string; nextCursor?: string; cursorFromLastItem?: string };
  const rule = (operations[operationId] as { pagination?: Rule }).pagination;
  if (!rule) return input;
  const { [rule.cursorParam]: _, ...query } = input.query ?? {};
  const first = (await callByRequest(server.client, operationId, { ...input, query })) as Record<string, unknown>;
  server.after();
  const at = (value: unknown, dotted: string) =>
    dotted.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown> | null)?.[key], value);
  const items = first[rule.items] as Record<string, unknown>[];
  const next = rule.nextCursor ? at(first, rule.nextCursor) : items.at(-1)?.[rule.cursorFromLastItem!];
  return { ...input, query: next == null ? query : { ...query, [rule.cursorParam]: next } };
}

describe("against the Prism mock of the spec", () => {
  let server: Server;
  beforeAll(() => {
    const url = inject("prismUrl");
    server = {
      client: new OrgAgent({ apiKey: "test-key", baseUrl: url, appUrl: url, maxRetries: 0, logLevel: "off" }),
      fixtures: new Map(),
      after: () => {},
    };
  });

  test.each(cases)("$operationId with $what through $via", (c) => check(server, c, false));
});

describe("against the emulator", () => {
  let emulator: Emulator;
  let server: Server;
  let offset = 0;

  beforeAll(async () => {
    emulator = await startEmulator({ seed: "every-operation", now: () => Date.now() + offset });
    const client = new OrgAgent({
      apiKey: emulator.keys.owner,
      baseUrl: emulator.baseUrl,
      appUrl: emulator.appUrl,
      maxRetries: 0,
      logLevel: "off",
    });
    const name = exampleValue(specOperation("getComputerByName").parameters.find((p) => p.name === "name")!);
    const computerId = emulator.org.computers.find((computer) => computer.name === name)!.id;
    const { sessionId } = await client.sessions.create({ computerId });
    const { messageId } = await client.sessions.sendMessage(sessionId, { text: "Why is the encoder test flaky?" });
    const fixtures = new Map<string, unknown>([
      ["computerId", computerId],
      ["sessionId", sessionId],
      ["messageId", messageId],
      ["repoId", "acme-robotics/fleet-control"],
    ]);
    // Two minutes of emulator time after each call: replies written, install steps done, computers active again.
    server = { client, fixtures, after: () => void (offset += 120_000) };
  });
  afterAll(() => emulator?.close());

  test.each(cases)("$operationId with $what through $via", (c) => check(server, c, true));
});
