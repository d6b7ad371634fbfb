// The tools generated from the spec, one per operation: the arguments split into path, query and body as
// generated/mcp-tools.ts says, the call made through the SDK (which checks them against the spec's bounds before
// sending), lists paged with a bound on items, and every answer kept within the byte budget.
import type { McpToolSpec } from "../../generated/mcp-tools.js";
import { compactJson } from "./compact.js";
import type { Policy } from "./options.js";
import { callOperation, walkPages, type OperationInput, type OrgAgent } from "./sdk-adapter.js";
import { textResult, ToolInputError, type ToolResult } from "./results.js";

/** The MCP description of an operation's tool. */
export function operationTool(spec: McpToolSpec) {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.inputSchema,
    annotations: spec.annotations,
  };
}

/** The tool's arguments as the operation's path, query and body; an argument the operation does not take is refused. */
export function operationInput(spec: McpToolSpec, args: Record<string, unknown>): OperationInput {
  const input: { path: Record<string, unknown>; query: Record<string, unknown>; body?: unknown } = { path: {}, query: {} };
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const place = Object.hasOwn(spec.arguments, name) ? spec.arguments[name] : undefined;
    if (!place) {
      const known = Object.keys(spec.arguments);
      throw new ToolInputError(
        name,
        `${spec.name} takes no argument ${JSON.stringify(name)}; its arguments are ${known.length ? known.join(", ") : "none"}.`,
      );
    }
    if (value === undefined) continue;
    if (place === "body") {
      if (spec.body === "whole") input.body = value;
      else fields[name] = value;
    } else input[place][name] = value;
  }
  if (
    spec.body === "fields" &&
    (Object.keys(fields).length || spec.inputSchema.required?.some((name) => spec.arguments[name] === "body"))
  ) {
    input.body = fields;
  }
  return input;
}

/** The argument a field of the SDK's ValidationError names: `query.limit` is `limit`; a flattened body field its own name. */
export function argumentOf(spec: McpToolSpec, field: string): string {
  const match = /^(path|query|body)(?:\.(.*))?$/s.exec(field);
  if (!match) return field;
  const [, place, rest] = match;
  if (place === "body") return spec.body === "whole" || !rest ? `body${rest ? `.${rest}` : ""}` : rest;
  return rest ?? field;
}

/** Calls the operation of `spec` with `args`; a list walks its pages within the policy's bounds. */
export async function runOperationTool(
  client: OrgAgent,
  spec: McpToolSpec,
  args: Record<string, unknown>,
  policy: Policy,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const input = operationInput(spec, args);
  if (!spec.pagination) {
    const body = await callOperation(client, spec.name, input, signal);
    return answer(body === undefined ? { status: "done: the API answered without a body" } : body, policy.maxResultBytes);
  }
  return runList(client, spec, input, policy, signal);
}

/**
 * A list: whole pages, as many as fit within `maxItems` items and the byte budget; the rest is a cursor away. The page
 * size is the caller's `limit` or the largest the spec allows, at most `maxItems`; when one page is larger than the
 * budget, it is asked for again with a page size that fits (cutting a page would lose the items past the cut: a
 * cursor continues after the whole page). A page that would take the answer past the budget is left for the next
 * call, its cursor given.
 */
async function runList(
  client: OrgAgent,
  spec: McpToolSpec,
  input: OperationInput,
  policy: Policy,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const rule = spec.pagination!;
  const query = { ...input.query };
  let pageSize: number | undefined;
  if (rule.limitParam) {
    const maximum = (spec.inputSchema.properties[rule.limitParam] as { maximum?: number }).maximum ?? policy.maxItems;
    const asked = query[rule.limitParam];
    pageSize = Math.min(typeof asked === "number" ? asked : maximum, policy.maxItems);
    // A limit the spec refuses is left as given, for the SDK's ValidationError to name.
    if (typeof asked !== "number" || (Number.isInteger(asked) && asked >= 1 && asked <= maximum)) query[rule.limitParam] = pageSize;
  }
  const notes: string[] = [];
  for (;;) {
    const items: unknown[] = [];
    let bytes = 0;
    let pages = 0;
    let left: Record<string, unknown> | undefined;
    let smaller: number | undefined;
    const rest = await walkPages(
      client,
      spec.name,
      query,
      (pageItems, pageQuery) => {
        const size = Buffer.byteLength(JSON.stringify(pageItems));
        if (pages === 0 && size > policy.maxResultBytes && pageSize !== undefined && pageItems.length > 1) {
          // Items of this size, with room for the envelope: the page size that fits.
          smaller = Math.max(1, Math.min(pageItems.length - 1, Math.floor((policy.maxResultBytes * 0.9) / (size / pageItems.length))));
          return false;
        }
        if (pages > 0 && bytes + size > policy.maxResultBytes) {
          left = pageQuery; // fetched, but left for the next call: it would not fit
          return false;
        }
        items.push(...pageItems);
        bytes += size;
        pages++;
        return items.length + (pageSize ?? 1) <= policy.maxItems && bytes < policy.maxResultBytes;
      },
      signal,
    );
    if (smaller !== undefined) {
      notes.push(
        `A page of ${pageSize} items was larger than ${policy.maxResultBytes} bytes: pages of ${smaller} were asked for instead; pass ${rule.limitParam}=${smaller} to continue.`,
      );
      pageSize = smaller;
      query[rule.limitParam!] = smaller;
      continue;
    }
    return listAnswer(spec, items, pages, left ?? rest, notes, policy);
  }
}

function listAnswer(
  spec: McpToolSpec,
  items: unknown[],
  pages: number,
  next: Record<string, unknown> | undefined,
  notes: string[],
  policy: Policy,
): ToolResult {
  const rule = spec.pagination!;
  const cursor = next?.[rule.cursorParam];
  const result = { items, count: items.length, has_more: next !== undefined, ...(next !== undefined ? { next_cursor: cursor } : {}) };
  const note = [
    next === undefined
      ? `${items.length} item${items.length === 1 ? "" : "s"}, ${pages} page${pages === 1 ? "" : "s"}: the end of the list.`
      : `${items.length} items from ${pages} page${pages === 1 ? "" : "s"}; more exist: call ${spec.name} again with the same arguments and ${rule.cursorParam}=${JSON.stringify(cursor)}.`,
    ...notes,
  ].join(" ");
  return answer(result, policy.maxResultBytes, note);
}

/** The value as JSON within the budget; what was cut, and `note`, said in a second text block. */
export function answer(value: unknown, budget: number, note?: string): ToolResult {
  const { text, cuts } = compactJson(value, budget);
  const notes = [
    ...(note ? [note] : []),
    ...(cuts.length
      ? [
          `The answer was cut to fit ${budget} bytes: ${cuts.join("; ")}. Ask for less (a shorter date range, a grouping, a ` +
            `smaller page), or use run_code to compute over the whole answer and return only the result.`,
        ]
      : []),
  ];
  return textResult(text, ...notes);
}
