// The one place the MCP server reaches into the SDK: calling an operation by its operationId and walking a list's
// pages. It goes through the SDK's internal ResourceClient (validate → send with the retry policy → typed result or
// error) until the SDK exports a public generic entry; swapping this file for that entry is all the MCP server needs.
// Everything of the SDK that src/mcp/ uses is imported here, from one copy of it, so that `instanceof` holds.
import { OrgAgent, resourceClientOf, type ClientOptions } from "../client.js";
import { APIConnectionError, APIConnectionTimeoutError, APIError, OrgAgentError, RateLimitError, ValidationError } from "../core/errors.js";
import { scrubSecret } from "../core/log.js";
import { dateRange } from "../dates.js";
import { itemsOf, type PageSource, type PaginationRule } from "../core/pagination.js";
import { operations } from "../../generated/spec-tables.js";

export { APIConnectionError, APIConnectionTimeoutError, APIError, OrgAgent, OrgAgentError, RateLimitError, ValidationError, dateRange, scrubSecret };
export type { ClientOptions };

export interface OperationInput {
  path?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

/** Calls an operation; resolves to its parsed body. Bad input is a ValidationError before anything is sent. */
export function callOperation(client: OrgAgent, operationId: string, input: OperationInput, signal?: AbortSignal): Promise<unknown> {
  const call = resourceClientOf(client).call as (id: string, params: OperationInput, body?: unknown, options?: { signal?: AbortSignal | undefined }) => Promise<unknown>;
  return call(operationId, { path: input.path, query: input.query }, input.body, { signal });
}

/** Said by the page walk when the consumer wants no more: carries the query of the page that was not fetched. */
class NoMorePages {
  constructor(readonly query: Record<string, unknown>) {}
}

/**
 * Walks a list operation's pages through the SDK's pagination (its `x-pagination` rule, and its checks against
 * loops and endless empty pages). `onPage` gets each page's items with the query that fetched the page, and says
 * whether it wants the next one. Resolves to the query of the next page when the consumer stopped before the list ended (nothing is
 * fetched for it), or undefined when the list ended.
 */
export async function walkPages(
  client: OrgAgent,
  operationId: string,
  query: Record<string, unknown>,
  onPage: (items: unknown[], query: Record<string, unknown>) => boolean,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const rule = (operations as Record<string, { pagination?: PaginationRule }>)[operationId]!.pagination!;
  let wantMore = true;
  let current = query;
  const source: PageSource<unknown> = (fetchPage, chain) =>
    chain(query, (pageQuery) => {
      if (!wantMore) return Promise.reject(new NoMorePages(pageQuery));
      current = pageQuery;
      return fetchPage(pageQuery).withResponse();
    });
  const paginate = resourceClientOf(client).paginate as unknown as (id: string, q: Record<string, unknown>, o: { signal?: AbortSignal | undefined }, s: PageSource<unknown>) => {
    pages(): AsyncIterable<unknown>;
  };
  try {
    for await (const page of paginate(operationId, query, { signal }, source).pages()) wantMore = onPage(itemsOf(page, rule), current);
  } catch (error) {
    if (error instanceof NoMorePages) return error.query;
    throw error;
  }
  return undefined;
}
