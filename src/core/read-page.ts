// One page of a list read by the list's paging rule (`x-pagination`), for a program that walks a list one page per
// call and hands the cursor on (a tool answering an assistant, a job that resumes): the page's items, and the query
// of the page after it. The rule and its checks are cursor.ts's, the same as every PagePromise follows.
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { itemsOf, nextQuery } from "./cursor.js";
import { ValidationError } from "./errors.js";
import { closest } from "./keys.js";
import type { PageItem, PagedOperationId, QueryParams, ResponseBody } from "./operation-types.js";

/** What `readPage` finds in a page. */
export interface PageReading<O extends PagedOperationId> {
  /** The page's items. */
  items: Array<PageItem<O>>;
  /** The query of the next page (the query given, with the next cursor), or undefined when this page is the last. */
  next: QueryParams<O> | undefined;
}

/**
 * The items of `page`, a page of the list `operationId` fetched with `query`, and the query of the page after it.
 * `client.request(operationId, { query })` fetches one page; `readPage` says how to ask for the next without fetching
 * it. Throws PaginationError when a page says there is more but has no cursor to continue from, and ValidationError
 * for an operationId that is not a list of the spec.
 *
 *     const page = await client.request("listAnalyticsUsers", { query });
 *     const { items, next } = readPage("listAnalyticsUsers", query, page);
 */
export function readPage<O extends PagedOperationId>(
  operationId: O,
  query: QueryParams<O> | undefined,
  page: ResponseBody<O>,
): PageReading<O> {
  const op = Object.hasOwn(operations, operationId) ? operations[operationId as OperationId] : undefined;
  if (!op || !("pagination" in op)) {
    const lists = Object.keys(operations).filter((id) => "pagination" in operations[id as OperationId]);
    const suggestion = closest(String(operationId), lists);
    throw new ValidationError(
      "operationId",
      operationId,
      `the operationId of a list of the spec (${lists.join(", ")})${suggestion ? `; did you mean \`${suggestion}\`?` : ""}`,
      undefined,
      {
        rule: "enum",
      },
    );
  }
  return {
    items: itemsOf<PageItem<O>>(page, op.pagination),
    next: nextQuery(op.pagination, page, (query ?? {}) as Record<string, unknown>) as QueryParams<O> | undefined,
  };
}
