// The answer of an operation the emulator has no behaviour for: the spec's own example (generated/examples.ts, the
// first example of its success response, valid against its schema as lint checks), so that the emulator answers every
// operation of the spec, present and future, with no edit here. A list's example items are served page by page by its
// `x-pagination` rule (a limit, and a next cursor with `hasMore`, or the last item's id), so that paging ends and the
// SDK's checks pass. The answer says what it is: `X-Emulator-Answer: example`, and one line in the emulator's log the
// first time each such operation is called. Hand-written behaviour (handlers.ts) replaces this where state matters.
import { operationExamples } from "../../generated/examples.js";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import type { PaginationRule } from "../core/cursor.js";
import { HttpProblem, type Operation, type Operations, type RequestContext, type Role } from "./http.js";

/** The header that marks an answer taken from the spec's examples. */
export const EXAMPLE_ANSWER = { header: "X-Emulator-Answer", value: "example" } as const;

const EVERY_ROLE: readonly Role[] = ["owner", "manager", "member", "guest"];
const MEMBERS: readonly Role[] = ["owner", "manager", "member"];

/**
 * Every operation of the spec: the hand-written ones, and for each other one its answer from the spec's example.
 * Which roles may call an operation without behaviour is not known: every member of the organization may, and the
 * guest key gets 403 where the operation documents it, as everywhere in the emulator.
 */
export function withExampleAnswers(handled: Partial<Operations>, log: (line: string) => void = console.error): Operations {
  const all: Partial<Record<OperationId, Operation>> = { ...handled };
  for (const id of Object.keys(operations) as OperationId[]) all[id] ??= exampleOperation(id, log);
  return all as Operations;
}

function exampleOperation(operationId: OperationId, log: (line: string) => void): Operation {
  const spec = operations[operationId] as {
    method: string;
    path: string;
    pagination?: PaginationRule;
    params: Record<string, { schema: { default?: unknown } }>;
  };
  const entry = operationExamples[operationId];
  let logged = false;
  return {
    roles: entry?.forbids ? MEMBERS : EVERY_ROLE,
    handle: (ctx) => {
      if (!logged) {
        logged = true;
        log(
          `[orgagent emulator] ${spec.method} ${spec.path} (${operationId}) has no emulated behaviour: answered from the spec's example (${EXAMPLE_ANSWER.header}: ${EXAMPLE_ANSWER.value}).`,
        );
      }
      if (entry?.example === undefined)
        throw new HttpProblem(501, `${operationId} has no emulated behaviour, and the spec has no example of its answer.`);
      const body = spec.pagination
        ? examplePage(spec.pagination, entry.example, ctx, spec.params, entry.nextCursorNullable)
        : structuredClone(entry.example);
      return { status: entry.status, body, headers: { [EXAMPLE_ANSWER.header]: EXAMPLE_ANSWER.value } };
    },
  };
}

/** One page of the example's items: from the cursor, at most `limit` of them (default: the parameter's, else all). */
function examplePage(
  rule: PaginationRule,
  example: unknown,
  { query }: RequestContext,
  params: Record<string, { schema: { default?: unknown } }>,
  nullable = false,
): unknown {
  const items = (at(example, rule.items) as unknown[] | undefined) ?? [];
  const given = rule.limitParam === undefined ? undefined : (query[rule.limitParam] ?? params[rule.limitParam]?.schema.default);
  const limit = typeof given === "number" && given > 0 ? given : items.length;
  const cursor = query[rule.cursorParam];
  let start = 0;
  if (cursor !== undefined) {
    const text = String(cursor);
    if (rule.cursorFromLastItem) {
      start = items.findIndex((item) => String((item as Record<string, unknown>)?.[rule.cursorFromLastItem!]) === text) + 1;
      if (start === 0) throw new HttpProblem(400, `query.${rule.cursorParam}: ${JSON.stringify(text)} is not an item of this list.`);
    } else {
      start = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!(start <= items.length))
        throw new HttpProblem(400, `query.${rule.cursorParam}: ${JSON.stringify(text)} is not a cursor of this list.`);
    }
  }
  const end = Math.min(items.length, start + limit);
  const page = structuredClone(example);
  put(page, rule.items, items.slice(start, end));
  if (rule.hasMore) put(page, rule.hasMore, end < items.length);
  if (rule.nextCursor) put(page, rule.nextCursor, end < items.length ? String(end) : nullable ? null : undefined);
  return page;
}

/** The value at a dotted path (`meta.next_cursor`). */
function at(value: unknown, dotted: string): unknown {
  return dotted
    .split(".")
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined),
      value,
    );
}

/** Sets the value at a dotted path, making the objects on the way; `undefined` removes it. */
function put(target: unknown, dotted: string, value: unknown): void {
  const keys = dotted.split(".");
  let node = target as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
}
