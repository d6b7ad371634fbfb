// A small in-memory implementation of the three paginated operations, with real multi-page data, served by a
// loopback server. Each follows its own paging rule from the API: `/users` meta.has_more/next_cursor, history
// pagination.hasMore/nextCursor, readiness `startAfter` = the last reportId (no cursor field at all).
// Switches make it misbehave the ways a real server might: empty pages that say "more", a repeated cursor, delays.
import { operations } from "../../../generated/spec-tables.js";
import type { OrgAgent, PagePromise, PageOptions, RequestOptions } from "../../../src/index.js";
import type { Handler, RecordedRequest } from "./loopback.js";
import { analyticsRange, operationFor, successExample } from "../../support/spec.js";

export type Kind = "users" | "history" | "readiness";
export const KINDS: readonly Kind[] = ["users", "history", "readiness"];

const OPERATION = {
  users: "listAnalyticsUsers",
  history: "listEnterpriseControlsHistory",
  readiness: "listReadinessReports",
} as const;

/** The identity of an item, by kind. */
export const idOf = (kind: Kind, item: any): string =>
  kind === "users" ? item.user_id : kind === "history" ? `rev_${item.revision}` : item.reportId;

/** `count` distinct items of a kind, built from the spec example's first item. */
export function makeItems(kind: Kind, count: number): any[] {
  const example = successExample(OPERATION[kind]);
  const template = kind === "users" ? example.data[0] : kind === "history" ? example.changes[0] : example.reports[0];
  return Array.from({ length: count }, (_, i) =>
    kind === "users"
      ? { ...template, user_id: `user_${i}` }
      : kind === "history"
        ? { ...template, revision: count - i } // newest revision first, as the API orders them
        : { ...template, reportId: `rep_${i}` },
  );
}

export interface PagedApiOptions {
  /** Page size when the request has no `limit`. */
  defaultLimit?: number;
  /** Request numbers (0-based, per kind) answered with an empty page that still says there is more. */
  emptyPages?: readonly number[];
  /** Always answer with the first page and this next cursor (users/history), or ignore `startAfter` (readiness). */
  stuck?: boolean;
  /** Milliseconds to wait before answering request number `n` (0-based). */
  delay?: (n: number) => number;
}

export interface PagedApi {
  handler: Handler;
  /** The bodies sent, per kind, in order. */
  sent: Record<Kind, any[]>;
  requests: Record<Kind, RecordedRequest[]>;
}

export function pagedApi(data: Partial<Record<Kind, any[]>>, options: PagedApiOptions = {}): PagedApi {
  const defaultLimit = options.defaultLimit ?? 10;
  const sent: Record<Kind, any[]> = { users: [], history: [], readiness: [] };
  const requests: Record<Kind, RecordedRequest[]> = { users: [], history: [], readiness: [] };

  const handler: Handler = async (request) => {
    const operationId = operationFor(request.method, request.pathname);
    const kind = (Object.keys(OPERATION) as Kind[]).find((k) => OPERATION[k] === operationId);
    if (!kind) return { status: 404, body: { title: "Not Found" } };
    const n = requests[kind].push(request) - 1;
    const wait = options.delay?.(n) ?? 0;
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));

    const items = data[kind] ?? [];
    const query = request.query;
    const limit = query.has("limit") ? Number(query.get("limit")) : defaultLimit;
    const body = kind === "readiness" ? readinessPage(items, query, limit) : cursorPage(kind, items, query, limit, n);
    sent[kind].push(body);
    return { status: operations[OPERATION[kind]].successStatus, body };
  };

  function cursorPage(kind: "users" | "history", items: any[], query: URLSearchParams, limit: number, n: number) {
    const cursor = query.get(operations[OPERATION[kind]].pagination.cursorParam);
    // A cursor names the first item of the page it starts; an "empty:<n>:" cursor wraps the cursor to resume from.
    // Each empty page gets a cursor of its own, so consecutive empty pages are not a repeated cursor.
    const resumeFrom = cursor?.replace(/^empty:\d+:/, "");
    let page: any[];
    let next: string | null;
    if (options.stuck) {
      page = items.slice(0, limit);
      next = "cur_stuck";
    } else if (options.emptyPages?.includes(n)) {
      page = [];
      next = `empty:${n}:${resumeFrom ?? ""}`;
    } else {
      const start = resumeFrom ? items.findIndex((item) => `cur_${idOf(kind, item)}` === resumeFrom) : 0;
      if (start < 0) throw new Error(`unknown cursor ${cursor}`);
      page = items.slice(start, start + limit);
      const following = items[start + limit];
      next = following ? `cur_${idOf(kind, following)}` : null;
    }
    const hasMore = next !== null;
    return kind === "users"
      ? {
          data: page,
          meta: {
            org_id: "org_test",
            start_date: query.get("startDate"),
            end_date: query.get("endDate"),
            has_more: hasMore,
            next_cursor: next,
          },
        }
      : { changes: page, pagination: { hasMore, nextCursor: next } };
  }

  function readinessPage(items: any[], query: URLSearchParams, limit: number) {
    const after = query.get(operations.listReadinessReports.pagination.cursorParam);
    const key = operations.listReadinessReports.pagination.cursorFromLastItem;
    const start = after && !options.stuck ? items.findIndex((item) => item[key] === after) + 1 : 0;
    if (after && !options.stuck && start === 0) throw new Error(`unknown startAfter ${after}`);
    return { reports: items.slice(start, start + limit) };
  }

  return { handler, sent, requests };
}

/** The SDK call that lists a kind, with a page size and paging options. */
export function list(
  client: OrgAgent,
  kind: Kind,
  limit: number | undefined,
  options?: RequestOptions & PageOptions,
): PagePromise<any, any> {
  const sized = limit === undefined ? {} : { limit };
  switch (kind) {
    case "users":
      return client.analytics.users({ ...analyticsRange(), ...sized }, options);
    case "history":
      return client.enterpriseControls.history(sized, options);
    case "readiness":
      return client.readiness.list(sized, options);
  }
}
