// Parallel date windows for a list over a date range (`/users`): the range is cut into windows of whole days, each
// paged through by its own cursor chain, several at once, and the pages are handed on window by window in date
// order. Every row comes exactly once: the windows do not overlap and each chain is checked as `pages()` checks one.
//
// Memory: pages are handed on in window order, so the pages of later windows wait until their turn. At most
// PAGES_HELD pages are held at once, in flight or waiting, whatever the concurrency, the range or the organization's
// size; only the window being read may fetch past that (so the caller always gets its next page). With `maxItems`,
// the windows ahead fetch only while the pages fetched and in flight could hold fewer rows than that (each page in
// flight counted as full), and the window being read fetches no page once the rows up to it reach it.
// Window size: each window ends in a part-filled page, half a request more than its rows need, so windows are large;
// but a window is one chain, read one page per round trip, and while the window being read is fetched the others
// fill the pages held. So a window is sized to its share of the pages held, (PAGES_HELD - concurrency) / concurrency
// pages (7 at 8 at once, 3 at 16), from the rows per day of the windows done so far: one day each until a week is
// done. And none is longer than a worker's share of the days left, so no long chain runs alone at the end.
import { InFlightCap } from "./concurrency.js";
import { cursorChain, itemsOf, type PaginationRule } from "./cursor.js";
import { dateOf, dayOf } from "./days.js";
import { APIUserAbortError, ValidationError } from "./errors.js";
import { checkNumber } from "./options.js";
import type { PageSource } from "./pagination.js";
import type { APIPromise, WithResponse } from "./response.js";
import type { JobHooks } from "./send.js";
import { validateCall, type OperationRules } from "./validate.js";

/** The `concurrency` option of a list over a date range. */
export interface WindowOptions {
  /**
   * Date windows paged through at once (1-64). Default 1: one cursor chain. Above 1, iteration yields the rows window
   * by window in date order (within a window, in the API's order); `await` still gives the first page of the whole
   * range. Under a rate limit the requests go at the pace the service allows (shared with every call of the same
   * key and host), and a page refused with 429 or 503 is waited for and fetched again, without giving up. `timeout`
   * and `deadline` apply to each page's request, not to the export: bound it with `signal: AbortSignal.timeout(ms)`.
   */
  concurrency?: number | undefined;
}

/** Pages held at once: fetched and not yet handed on, or being fetched. */
export const PAGES_HELD = 64;
/** Days of finished windows before their rows per day decide the size of the next windows (one week's cycle). */
const CALIBRATION_DAYS = 7;

/** A paged operation, as the spec tables give it. */
export interface WindowedOperation extends OperationRules {
  readonly pagination?: PaginationRule;
}

/** The request options a job hands to each page's call: its own signal, and that it is a job's (send.ts). */
export interface JobCallOptions {
  readonly signal: AbortSignal;
  readonly job: JobHooks;
}

/** The export hears of nothing per call: that its calls are a job's makes them wait out every throttle. */
const EXPORT_JOB: JobHooks = {};

/** Fetches one page of one window, with the job's options for that call. */
export type FetchWindowPage<Page> = (query: Record<string, unknown>, options: JobCallOptions) => APIPromise<Page>;

/**
 * The operation's date range: its pair of query parameters where one is `notBefore` the other (`x-date-range`), or
 * undefined for a list that has none.
 */
export function dateRangeOf(operation: WindowedOperation): { startParam: string; endParam: string } | undefined {
  for (const name in operation.params) {
    const notBefore = operation.params[name]!.schema.dateRange?.notBefore;
    if (notBefore) return { startParam: notBefore, endParam: name };
  }
  return undefined;
}

/**
 * A PageSource over date windows for `query` of `operation`, or undefined for one chain (no `concurrency`, or 1).
 * `operation` must be paged and have a date range (dateRangeOf).
 */
export function inDateWindows<Page>(
  operation: WindowedOperation,
  query: Record<string, unknown>,
  concurrency: number | undefined,
  signal: AbortSignal | undefined,
  fetchPage: FetchWindowPage<Page>,
): PageSource<Page> | undefined {
  checkNumber("options.concurrency", concurrency);
  if (concurrency === undefined || concurrency === 1) return undefined;
  const rule = operation.pagination!;
  if (query[rule.cursorParam] !== undefined) {
    throw new ValidationError(
      "options.concurrency",
      concurrency,
      `1 when query.${rule.cursorParam} is given: a cursor continues one chain`,
    );
  }
  const { startParam, endParam } = dateRangeOf(operation)!;
  const limitParam = rule.limitParam ? operation.params[rule.limitParam] : undefined;
  // Stryker disable next-line OptionalChaining: every windowed list of the spec has its page-size parameter, with a schema
  const pageSize = Number(query[rule.limitParam!] ?? (limitParam?.schema as { default?: unknown } | undefined)?.default);
  return (maxItems) => {
    // Checked as the first page's call would be, before any window is cut from the range.
    validateCall(operation, { query });
    const range = { first: dayOf(query[startParam] as string), last: dayOf(query[endParam] as string), startParam, endParam };
    return windowPages(range, { query, concurrency, pageSize, rule, signal, maxItems }, fetchPage);
  };
}

interface Window<Page> {
  readonly from: number;
  readonly to: number;
  /** Fetched, not yet handed on. */
  readonly pages: WithResponse<Page>[];
  rows: number;
  chain?: AsyncGenerator<WithResponse<Page>, void, undefined>;
  busy: boolean;
  done: boolean;
}

async function* windowPages<Page>(
  range: { first: number; last: number; startParam: string; endParam: string },
  job: {
    query: Record<string, unknown>;
    concurrency: number;
    pageSize: number;
    rule: PaginationRule;
    signal: AbortSignal | undefined;
    maxItems: number;
  },
  fetchPage: FetchWindowPage<Page>,
): AsyncGenerator<WithResponse<Page>, void, undefined> {
  const { concurrency, signal, maxItems } = job;
  // Ends every call in flight, and every call waiting for its turn, when the caller stops, aborts or a window fails;
  // the caller's abort passes its reason on, so every call's APIUserAbortError has it as its cause.
  const controller = new AbortController();
  const stop = (reason?: unknown) => {
    controller.abort(reason);
    wake?.();
  };
  const onAbort = () => stop(signal!.reason);
  const cap = new InFlightCap(concurrency, controller.signal);
  const windows: Array<Window<Page> | undefined> = [];
  let nextDay = range.first;
  let head = 0; // the window being read
  let buffered = 0;
  let fetchedRows = 0; // in every page fetched, handed on or not
  let passedRows = 0; // in the windows before the one being read
  let pulling = 0;
  let doneRows = 0;
  let doneDays = 0;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const targetRows = Math.max(1, (PAGES_HELD - concurrency) / concurrency) * job.pageSize;
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) stop(signal.reason);

  const open = (): Window<Page> => {
    const left = range.last - nextDay + 1;
    let days = 1;
    if (doneDays >= CALIBRATION_DAYS) days = Math.round(targetRows / Math.max(doneRows / doneDays, 1));
    days = Math.max(1, Math.min(days, Math.ceil(left / concurrency)));
    const window: Window<Page> = { from: nextDay, to: nextDay + days - 1, pages: [], rows: 0, busy: false, done: false };
    nextDay += days;
    windows.push(window);
    return window;
  };

  const pull = async (window: Window<Page>, index: number) => {
    window.busy = true;
    pulling++;
    try {
      window.chain ??= cursorChain(
        job.rule,
        { ...job.query, [range.startParam]: dateOf(window.from), [range.endParam]: dateOf(window.to) },
        (query) => cap.run((callSignal) => fetchPage(query, { signal: callSignal, job: EXPORT_JOB }).withResponse(), index),
        controller.signal,
      );
      const next = await window.chain.next();
      if (next.done) {
        window.done = true;
        doneRows += window.rows;
        doneDays += window.to - window.from + 1;
      } else {
        window.pages.push(next.value);
        const rows = itemsOf(next.value.data, job.rule).length;
        window.rows += rows;
        fetchedRows += rows;
        buffered++;
      }
    } catch (error) {
      failure ??= { error };
      stop(error);
    } finally {
      window.busy = false;
      pulling--;
      wake?.();
      pump();
    }
  };

  /**
   * Starts the next page of the earliest windows that may fetch one: the head while the rows up to it are fewer than
   * maxItems (so whenever the caller waits for it: the caller asks for no page past maxItems rows); the others within
   * PAGES_HELD, and while the pages fetched and in flight could hold fewer than maxItems rows.
   */
  const pump = () => {
    if (controller.signal.aborted) return;
    for (let i = head; pulling < concurrency; i++) {
      const window = windows[i] ?? (nextDay <= range.last ? open() : undefined);
      if (!window) return;
      if (window.busy || window.done) continue;
      if (i === head) {
        if (passedRows + window.rows >= maxItems) return;
      } else if (buffered + pulling >= PAGES_HELD || fetchedRows + pulling * job.pageSize >= maxItems) return;
      void pull(window, i);
    }
  };

  try {
    pump();
    for (;;) {
      if (failure) throw failure.error;
      if (controller.signal.aborted) throw APIUserAbortError.of(controller.signal);
      // pump() opens the next window whenever the one before is read and days are left (nothing is in flight then).
      const window = windows[head];
      if (!window) return; // every window read
      if (window.pages.length) {
        const page = window.pages.shift()!;
        buffered--;
        pump();
        yield page;
      } else if (window.done) {
        passedRows += window.rows;
        windows[head++] = undefined;
        pump();
      } else {
        pump();
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stop();
    for (const window of windows) void window?.chain?.return().catch(() => {});
  }
}
