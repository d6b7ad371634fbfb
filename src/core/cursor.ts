// One cursor chain of a list, by its `x-pagination` rule from the spec: the items of a page, the cursor of the next,
// and the checks that stop a list that cannot end. Used by PagePromise (one chain from the query) and by the date
// windows (one chain per window); it calls neither.
import { APIUserAbortError, OrgAgentError, isRecord } from "./errors.js";
import type { WithResponse } from "./response.js";

/** The `x-pagination` extension of a list operation, as emitted into generated/spec-tables.ts. */
export interface PaginationRule {
  /** Property of the page that holds the items. */
  readonly items: string;
  /** Query parameter that takes the cursor of the next page. */
  readonly cursorParam: string;
  /** Query parameter that sets the page size. */
  readonly limitParam?: string;
  /** Dotted path of the next cursor in the page (cursor style). */
  readonly nextCursor?: string;
  /** Dotted path of the "more pages exist" flag in the page (cursor style). */
  readonly hasMore?: string;
  /** Field of the last item that is the next cursor (no cursor field in the page). */
  readonly cursorFromLastItem?: string;
}

/** The list ended in a way that would loop or that cannot be continued. */
export class PaginationError extends OrgAgentError {
  override name = "PaginationError";
}

/**
 * Consecutive pages without items that still say there is more, after which the list is taken to be broken: a
 * server handing out ever-new cursors on empty pages would otherwise be asked forever.
 */
export const MAX_EMPTY_PAGES = 3;

/** Fetches one page of a chain, with the response it came in. */
export type FetchAnswer<Page> = (query: Record<string, unknown>) => Promise<WithResponse<Page>>;

/**
 * The pages of one cursor chain from `query`, each with its response, until the list ends. Throws PaginationError for
 * a cursor given twice or MAX_EMPTY_PAGES empty pages in a row that say there is more, and APIUserAbortError when
 * `signal` aborts between pages.
 */
export async function* cursorChain<Page>(
  rule: PaginationRule,
  query: Record<string, unknown>,
  fetch: FetchAnswer<Page>,
  signal?: AbortSignal,
): AsyncGenerator<WithResponse<Page>, void, undefined> {
  const seen = new Set<string>();
  const initial = query[rule.cursorParam];
  // Stryker disable next-line ConditionalExpression: only a next cursor is looked up in the set, always a non-empty string, so a non-string added here is never matched
  if (typeof initial === "string") seen.add(initial);
  let empty = 0;
  for (;;) {
    const answer = await fetch(query);
    yield answer;
    const next = nextCursor(rule, answer.data, query);
    if (next === undefined) return;
    empty = itemsOf(answer.data, rule).length ? 0 : empty + 1;
    if (empty >= MAX_EMPTY_PAGES) {
      throw new PaginationError(`${empty} pages in a row had no items but said there was more; stopping to avoid an endless list.`);
    }
    if (seen.has(next)) {
      throw new PaginationError(`The server returned cursor ${JSON.stringify(next)} twice; stopping to avoid a loop.`);
    }
    seen.add(next);
    // Stryker disable next-line ConditionalExpression: the next page's call checks the same signal before anything is sent (send.ts; InFlightCap for date windows) and throws the same error
    if (signal?.aborted) throw APIUserAbortError.of(signal);
    query = { ...query, [rule.cursorParam]: next };
  }
}

/** The items of a page. */
export function itemsOf<Item>(page: unknown, rule: PaginationRule): Item[] {
  const items = at(page, rule.items);
  // Stryker disable next-line ArrayDeclaration: every page passed the response check, which holds the spec's required list property to an array, so the fallback is never reached
  return Array.isArray(items) ? (items as Item[]) : [];
}

/**
 * The query of the page after `page`, fetched with `query`: the same query with the next cursor, or undefined when
 * `page` is the last. Throws PaginationError for a page that says there is more but has nothing to continue from.
 */
export function nextQuery(rule: PaginationRule, page: unknown, query: Record<string, unknown>): Record<string, unknown> | undefined {
  const next = nextCursor(rule, page, query);
  return next === undefined ? undefined : { ...query, [rule.cursorParam]: next };
}

/** The cursor of the page after `page`, or undefined when `page` is the last. */
function nextCursor(rule: PaginationRule, page: unknown, query: Record<string, unknown>): string | undefined {
  const items = itemsOf<unknown>(page, rule);
  if (rule.cursorFromLastItem) {
    // No "more" flag: an empty page, or one shorter than the requested size, is the last.
    // The query passed validation: the page size is an integer or absent, and no length is less than undefined.
    const limit = (rule.limitParam ? query[rule.limitParam] : undefined) as number;
    if (items.length === 0 || items.length < limit) return undefined;
    const cursor = (items[items.length - 1] as Record<string, unknown>)?.[rule.cursorFromLastItem];
    if (typeof cursor !== "string" || !cursor) {
      throw new PaginationError(`The last item has no \`${rule.cursorFromLastItem}\` to continue from.`);
    }
    return cursor;
  }
  if (!at(page, rule.hasMore)) return undefined;
  const cursor = at(page, rule.nextCursor);
  if (typeof cursor !== "string" || !cursor) {
    throw new PaginationError(`The page says there is more but has no \`${rule.nextCursor}\` to continue from.`);
  }
  return cursor;
}

function at(value: unknown, path: string | undefined): unknown {
  if (!path) return undefined;
  for (const key of path.split(".")) value = isRecord(value) ? value[key] : undefined;
  return value;
}
