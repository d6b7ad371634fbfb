// What each operation does, keyed by operationId, where state matters; an operation of the spec without a handler
// here is answered from its example (examples.ts). Input arrives validated against the spec's bounds (http.ts); the
// rules here are the documented behaviour plus the emulator's decisions where the API description says "not shown".
import type {
  CreateSessionRequest,
  EnterpriseControlsHistoryPage,
  ReadinessReportList,
  SendMessageRequest,
  UsageLimitsUpdateRequest,
  UsageLimitsUpdateResponse,
} from "../../generated/openapi.js";
import { operations } from "../../generated/spec-tables.js";
import { isCalendarDate, yesterdayUTC } from "../core/days.js";
import {
  activityByClientRows,
  activityRows,
  creditsByModelRows,
  creditsRows,
  productivityRows,
  toolsByNameRows,
  toolsRows,
  userRow,
  userRowKeys,
  type DayRange,
  type UserRowKey,
} from "./analytics.js";
import type { Computers } from "./computers.js";
import type { Facts } from "./facts.js";
import { DayRows, type RowsOf } from "./day-rows.js";
import { HttpProblem, JsonPieces, type Operation, type Operations, type RequestContext, type Role } from "./http.js";
import { repoIdOf, type Organization } from "./org.js";
import type { Sessions } from "./sessions.js";

export interface State {
  readonly org: Organization;
  readonly facts: Facts;
  readonly sessions: Sessions;
  readonly computers: Computers;
  /** Credit limits set through the API, by lower-cased e-mail. */
  readonly limits: Map<string, number>;
}

const ADMINS: readonly Role[] = ["owner", "manager"];
/** Sessions and computers: every member of the organization; a guest gets 403. */
const MEMBERS: readonly Role[] = ["owner", "manager", "member"];
/** Readiness reports document no 403: every key reads them. */
const EVERYONE: readonly Role[] = ["owner", "manager", "member", "guest"];
/** Page size of readiness reports and enterprise-control history when `limit` is not sent (the API does not say). */
export const DEFAULT_PAGE_SIZE = 20;

const usersDefaultLimit = operations.listAnalyticsUsers.params.limit.schema.default;

/** Today's date is the one bad analytics date with its own documented detail: data lags 24 hours. */
function rejectToday({ query, now }: RequestContext) {
  const today = new Date(now).toISOString().slice(0, 10);
  for (const name of ["startDate", "endDate"]) {
    if (query[name] === today) {
      throw new HttpProblem(
        400,
        `query.${name}: ${today} is today (UTC). Analytics data lags 24 hours: the latest queryable date is yesterday, ${yesterdayUTC(new Date(now))}.`,
      );
    }
  }
}

/**
 * An analytics operation: `view` names the rows asked for (the operation and its grouping) and builds them for a
 * range of days; each day's rows are computed once (day-rows.ts) and the answer is assembled from their text.
 */
function analytics(state: State, dayRows: DayRows, view: (ctx: RequestContext) => readonly [name: string, rows: RowsOf]): Operation {
  return {
    roles: ADMINS,
    precheck: rejectToday,
    handle: async (ctx) => {
      const [name, rows] = view(ctx);
      const data = await dayRows.json(name, dayRange(state, ctx), rows);
      return { body: new JsonPieces([Buffer.from('{"data":'), ...data, Buffer.from(`,"meta":${JSON.stringify(meta(state, ctx))}}`)]) };
    },
  };
}

/** The days of a query's range that have data: days before the first data day are valid, and have no rows. */
function dayRange(state: State, { query }: RequestContext): DayRange {
  return { from: Math.max(0, state.facts.dayIndex(query.startDate as string)), to: state.facts.dayIndex(query.endDate as string) };
}

function meta(state: State, { query }: RequestContext) {
  return { org_id: state.org.id, start_date: query.startDate as string, end_date: query.endDate as string };
}

/** The operations with emulated behaviour; every other operation of the spec is answered from its example (examples.ts). */
export function buildOperations(state: State): Partial<Operations> {
  const { facts, sessions, computers, org } = state;
  const dayRows = new DayRows();
  const rowKeys = memoizeKeys((range: DayRange) => userRowKeys(facts, org.users.length, range));
  /** The session, if it exists and, when `?computerId=` is given, runs on that computer; else 404. */
  const visibleSession = (sessionId: string, askedComputer: unknown, now: number) => {
    const session = sessions.get(sessionId, now);
    if (!session) throw new HttpProblem(404, `No session ${JSON.stringify(sessionId)}.`);
    checkOnComputer(computers, session.computerId, askedComputer as string | undefined, sessionId, now);
    return session;
  };

  return {
    getAnalyticsTokens: analytics(state, dayRows, (ctx) =>
      ctx.query.group_by === "model"
        ? ["tokens by model", (range) => creditsByModelRows(facts, range)]
        : ["tokens", (range) => creditsRows(facts, range)],
    ),
    getAnalyticsTools: analytics(state, dayRows, (ctx) =>
      ctx.query.group_by === "tool_name"
        ? ["tools by name", (range) => toolsByNameRows(facts, range)]
        : ["tools", (range) => toolsRows(facts, range)],
    ),
    getAnalyticsActivity: analytics(state, dayRows, (ctx) =>
      ctx.query.group_by === "client"
        ? ["activity by client", (range) => activityByClientRows(facts, range)]
        : ["activity", (range) => activityRows(facts, range)],
    ),
    getAnalyticsProductivity: analytics(state, dayRows, () => ["productivity", (range) => productivityRows(facts, range)]),

    listAnalyticsUsers: {
      roles: ADMINS,
      precheck: rejectToday,
      // Rows are ordered by user id, then date. The cursor is the user id the next page starts at; when a page
      // ends part-way through a user's days it is `<user id>@<date>`.
      handle: (ctx) => {
        const keys = rowKeys(dayRange(state, ctx));
        const limit = (ctx.query.limit as number | undefined) ?? usersDefaultLimit;
        const start = ctx.query.cursor === undefined ? 0 : cursorIndex(keys, org, facts, ctx.query.cursor as string);
        const page = keys.slice(start, start + limit);
        const next = keys[start + limit];
        const last = page.at(-1);
        const nextCursor = !next
          ? null
          : last && last.userIndex === next.userIndex
            ? `${org.users[next.userIndex]!.id}@${facts.dateOf(next.day)}`
            : org.users[next.userIndex]!.id;
        return {
          body: {
            data: page.map((key) => userRow(facts.userDay(org.users[key.userIndex]!, key.day))),
            meta: { ...meta(state, ctx), has_more: next !== undefined, next_cursor: nextCursor },
          },
        };
      },
    },

    listReadinessReports: {
      roles: EVERYONE,
      // Newest report first. `repoId` is the repository's `owner/name` (the full repository URL is accepted too).
      handle: ({ query }) => {
        const repoId = query.repoId as string | undefined;
        const reports = repoId ? org.readinessReports.filter((r) => repoIdOf(r) === repoId || r.repoUrl === repoId) : org.readinessReports;
        let start = 0;
        if (query.startAfter !== undefined) {
          const index = reports.findIndex((r) => r.reportId === query.startAfter);
          if (index < 0) throw new HttpProblem(400, `query.startAfter: no report ${JSON.stringify(query.startAfter)} in this list.`);
          start = index + 1;
        }
        const limit = (query.limit as number | undefined) ?? DEFAULT_PAGE_SIZE;
        const body: ReadinessReportList = { reports: reports.slice(start, start + limit) };
        return { body };
      },
    },

    listEnterpriseControlsHistory: {
      roles: ADMINS,
      // Highest revision first; the cursor `rev_<n>` is the revision the next page starts at.
      handle: ({ query }) => {
        let start = 0;
        if (query.cursor !== undefined) {
          const revision = /^rev_(\d+)$/.exec(query.cursor as string);
          if (!revision)
            throw new HttpProblem(400, `query.cursor: ${JSON.stringify(query.cursor)} is not a cursor from pagination.nextCursor.`);
          start = org.history.findIndex((change) => change.revision <= Number(revision[1]));
          if (start < 0) start = org.history.length;
        }
        const limit = (query.limit as number | undefined) ?? DEFAULT_PAGE_SIZE;
        const changes = org.history.slice(start, start + limit);
        const next = org.history[start + limit];
        const body: EnterpriseControlsHistoryPage = {
          changes,
          pagination: { hasMore: next !== undefined, nextCursor: next ? `rev_${next.revision}` : null },
        };
        return { body };
      },
    },

    setUserLimits: {
      roles: ADMINS,
      // Each entry stands alone: an unknown e-mail is reported in `errors`, the rest apply. (A negative limit breaks
      // the spec's minimum, so the whole request is a 400 before it gets here.)
      handle: ({ body }) => {
        const result: UsageLimitsUpdateResponse = { updated: [], errors: [] };
        for (const { email, limit } of (body as UsageLimitsUpdateRequest).users) {
          const user = org.usersByEmail.get(email.trim().toLowerCase());
          if (!user) result.errors.push({ email, error: "No user with this e-mail in the organization." });
          else {
            state.limits.set(user.email.toLowerCase(), limit);
            result.updated.push({ email, limit });
          }
        }
        return { body: result };
      },
    },

    createSession: {
      roles: MEMBERS,
      handle: ({ body, now }) => {
        const request = body as CreateSessionRequest;
        requireActiveComputer(computers, request.computerId, now);
        return { body: sessions.create(request, now) };
      },
    },

    getSession: {
      roles: MEMBERS,
      handle: ({ path, query, now }) => ({ body: visibleSession(path.sessionId!, query.computerId, now) }),
    },

    sendSessionMessage: {
      roles: MEMBERS,
      handle: ({ path, body, now }) => {
        const request = body as SendMessageRequest;
        const computerId = sessions.computerOf(path.sessionId!);
        if (computerId === undefined) throw new HttpProblem(404, `No session ${JSON.stringify(path.sessionId)}.`);
        requireActiveComputer(computers, request.computerId ?? computerId, now);
        return { body: sessions.send(path.sessionId!, request, now)! };
      },
    },

    getSessionMessage: {
      roles: MEMBERS,
      handle: ({ path, query, now }) => {
        visibleSession(path.sessionId!, query.computerId, now);
        const message = sessions.message(path.sessionId!, path.messageId!, now);
        if (!message) {
          throw new HttpProblem(
            404,
            `No message ${JSON.stringify(path.messageId)} in session ${path.sessionId} (an assistant reply exists once the work on its message has finished).`,
          );
        }
        return { body: message };
      },
    },

    getComputer: {
      roles: MEMBERS,
      handle: ({ path, now }) => {
        const computer = computers.get(path.computerId!, now);
        if (!computer) throw new HttpProblem(404, `No computer ${JSON.stringify(path.computerId)}.`);
        return { body: computer };
      },
    },

    getComputerByName: {
      roles: MEMBERS,
      handle: ({ path, now }) => {
        const computer = computers.byName(path.name!, now);
        if (!computer) throw new HttpProblem(404, `No computer named ${JSON.stringify(path.name)}.`);
        return { body: computer };
      },
    },

    retryComputerInstallDeps: {
      roles: MEMBERS,
      handle: ({ path, now }) => {
        const computer = computers.retryInstall(path.computerId!, now, () => sessions.newSessionId());
        if (!computer) throw new HttpProblem(404, `No computer ${JSON.stringify(path.computerId)}.`);
        if (computer === "busy") throw new HttpProblem(409, `The install-dependencies step of ${path.computerId} is still running.`);
        return { body: computer };
      },
    },
  };
}

function requireActiveComputer(computers: Computers, computerId: string, now: number) {
  const status = computers.status(computerId, now);
  if (status === undefined) throw new HttpProblem(404, `No computer ${JSON.stringify(computerId)}.`);
  if (status !== "active") throw new HttpProblem(409, `Computer ${computerId} is ${status}; sessions run only on an active computer.`);
}

function checkOnComputer(
  computers: Computers,
  sessionComputer: string | undefined,
  asked: string | undefined,
  sessionId: string,
  now: number,
) {
  if (asked === undefined || asked === sessionComputer) return;
  if (!computers.get(asked, now)) throw new HttpProblem(404, `No computer ${JSON.stringify(asked)}.`);
  throw new HttpProblem(404, `Session ${sessionId} is not on computer ${asked}.`);
}

/** Index of the first /users row at or after a cursor (`<user id>` or `<user id>@<date>`). */
function cursorIndex(keys: readonly UserRowKey[], org: Organization, facts: Facts, cursor: string): number {
  const parsed = /^(user_[0-9A-Za-z]+)(?:@(\d{4}-\d{2}-\d{2}))?$/.exec(cursor);
  if (!parsed || (parsed[2] !== undefined && !isCalendarDate(parsed[2]))) {
    throw new HttpProblem(400, `query.cursor: ${JSON.stringify(cursor)} is not a cursor from meta.next_cursor.`);
  }
  const userId = parsed[1]!;
  const day = parsed[2] === undefined ? -Infinity : facts.dayIndex(parsed[2]);
  // Keys are sorted by user (users are sorted by id) and then day: binary search for the first one at or after.
  const atOrAfter = (key: UserRowKey) => {
    const id = org.users[key.userIndex]!.id;
    return id > userId || (id === userId && key.day >= day);
  };
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (atOrAfter(keys[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

// How many /users row keys are remembered across ranges: a year of a few hundred people, or dozens of the date windows
// a client pages through at once, without letting a caller asking for ever-new long ranges grow the emulator's memory.
const MEMOIZED_KEYS = 200_000;

/** Remembers the row keys of recent date ranges (paging asks for the same range repeatedly), oldest dropped first. */
function memoizeKeys(compute: (range: DayRange) => UserRowKey[]): (range: DayRange) => UserRowKey[] {
  const cache = new Map<string, UserRowKey[]>();
  let size = 0;
  return (range) => {
    const key = `${range.from}:${range.to}`;
    let value = cache.get(key);
    if (value === undefined) {
      value = compute(range);
      cache.set(key, value);
      size += value.length;
      for (const [oldest, keys] of cache) {
        if (size <= MEMOIZED_KEYS || cache.size === 1) break;
        cache.delete(oldest);
        size -= keys.length;
      }
    }
    return value;
  };
}
