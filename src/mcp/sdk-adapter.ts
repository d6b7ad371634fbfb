// The one place the MCP server reaches into the SDK, through its public surface only: `client.request` calls any
// operation by its operationId (checked against the spec before sending, retried by the SDK's rules, a list as a
// PagePromise with its checks against lists that never end), and `readPage` tells a page's items and the query of the
// next. Everything of the SDK that src/mcp/ uses is imported here, from the package's one entry, so that `instanceof`
// holds for the errors it throws.
import { scrubText } from "../core/scrub.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  OrgAgent,
  OrgAgentError,
  RateLimitError,
  ValidationError,
  dateRange,
  readPage,
  type ClientOptions,
  type PagedOperationId,
  type QueryParams,
  type ResponseBody,
} from "../index.js";

export { APIConnectionError, APIConnectionTimeoutError, APIError, OrgAgent, OrgAgentError, RateLimitError, ValidationError, dateRange };
export type { ClientOptions };

/** `text` with every occurrence of `secret` replaced by `***` (the SDK's rule: a secret is 8 characters or more). */
export function scrubSecret(text: string, secret: string | undefined): string {
  return secret === undefined ? text : scrubText(text, [secret]);
}

export interface OperationInput {
  path?: Record<string, unknown> | undefined;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
}

/** `client.request` for an operationId known only at run time: the SDK checks it, and every argument, itself. */
type Request = (
  operationId: string,
  params: OperationInput,
  options: { signal?: AbortSignal | undefined },
) => PromiseLike<unknown> & {
  pages(): AsyncIterable<unknown>;
};

function request(client: OrgAgent): Request {
  return client.request.bind(client) as Request;
}

/** Calls an operation; resolves to its parsed body. Bad input is a ValidationError before anything is sent. */
export async function callOperation(client: OrgAgent, operationId: string, input: OperationInput, signal?: AbortSignal): Promise<unknown> {
  return await request(client)(operationId, input, { signal });
}

/**
 * Walks a list operation's pages through the SDK's pagination (its `x-pagination` rule, and its checks against
 * loops and endless empty pages). `onPage` gets each page's items with the query that fetched the page, and says
 * whether it wants the next one. Resolves to the query of the next page when the consumer stopped before the list
 * ended (nothing is fetched for it), or undefined when the list ended.
 */
export async function walkPages(
  client: OrgAgent,
  operationId: string,
  query: Record<string, unknown>,
  onPage: (items: unknown[], query: Record<string, unknown>) => boolean,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const list = operationId as PagedOperationId;
  let current: Record<string, unknown> | undefined = query;
  // The SDK's page iterator fetches a page only when the loop asks for it: leaving the loop fetches nothing more.
  for await (const page of request(client)(operationId, { query }, { signal }).pages()) {
    const { items, next } = readPage(list, current as QueryParams<PagedOperationId>, page as ResponseBody<PagedOperationId>);
    const fetchedWith: Record<string, unknown> = current!;
    current = next as Record<string, unknown> | undefined;
    if (!onPage(items, fetchedWith)) return current;
  }
  return undefined;
}
