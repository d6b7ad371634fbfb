// Ready-made analytics date ranges in UTC, clamped to the days the spec says can be queried (`x-date-range`:
// the earliest data day, and yesterday as the latest), so a range never asks for today.
import { operations } from "../generated/spec-tables.js";
import { DAY_MS, dateOf, dayOf, yesterdayUTC } from "./core/days.js";
import { ValidationError } from "./core/errors.js";

/** The `startDate` and `endDate` of an analytics query, both `YYYY-MM-DD` (UTC, inclusive). */
export interface DateRange {
  startDate: string;
  endDate: string;
}

export interface DateRangeOptions {
  /** The current time (a Date or Unix milliseconds), for tests and scripts replaying a day. Default: now. */
  now?: Date | number | undefined;
}

const bounds = operations.getAnalyticsTokens.params.startDate.schema.dateRange;

/**
 * Analytics date ranges in UTC. Each returns `{ startDate, endDate }` to spread into an analytics query, clamped to
 * the queryable days: never before the earliest data day, never after yesterday (today's data is not ready).
 *
 *     await client.analytics.tokens({ ...dateRange.lastDays(7), group_by: "model" });
 */
export const dateRange = {
  /** Yesterday alone: the latest day with data. */
  yesterday(options?: DateRangeOptions): DateRange {
    const end = latest(options);
    return { startDate: end, endDate: end };
  },

  /** The `days` days ending yesterday (`lastDays(7)`: the past week, yesterday included). */
  lastDays(days: number, options?: DateRangeOptions): DateRange {
    if (!Number.isSafeInteger(days) || days < 1) throw new ValidationError("days", days, "a whole number of days, 1 or more");
    const end = latest(options);
    // Compared as day numbers first: a huge `days` would be past the range a Date can format.
    const start = dayOf(end) - (days - 1);
    return { startDate: dateOf(Math.max(start, dayOf(bounds.earliest))), endDate: end };
  },

  /** One calendar month, `"YYYY-MM"`: the current month runs to yesterday, the first month starts at the first data day. */
  month(month: string, options?: DateRangeOptions): DateRange {
    const end = latest(options);
    const match = typeof month === "string" ? /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month) : null;
    const allowed = `a month YYYY-MM from ${bounds.earliest.slice(0, 7)} to ${end.slice(0, 7)}`;
    if (!match) throw new ValidationError("month", month, allowed);
    const first = dayOf(`${month}-01`);
    // Day 0 of the next month is the last of this one.
    const last = Date.UTC(Number(match[1]), Number(match[2]), 0) / DAY_MS;
    const range = {
      startDate: dateOf(Math.max(first, dayOf(bounds.earliest))),
      endDate: dateOf(Math.min(last, dayOf(end))),
    };
    if (range.startDate > range.endDate) throw new ValidationError("month", month, allowed);
    return range;
  },
};

// The spec's latest day is "yesterday", by the clock: this stops compiling if the spec ever names a fixed day instead.
const LATEST: "yesterday" = bounds.latest;

/** Yesterday (UTC) by the given clock: the latest day with data. */
function latest(options?: DateRangeOptions): string {
  const given = options?.now;
  const now = given === undefined ? undefined : new Date(given);
  if (now && Number.isNaN(now.getTime())) throw new ValidationError("now", given, "a valid Date or Unix milliseconds");
  const end = yesterdayUTC(now);
  if (end < bounds.earliest) throw new ValidationError("now", given ?? Date.now(), `a time after ${bounds.earliest}, the first data day`);
  return end;
}
