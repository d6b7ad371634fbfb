// Ready-made analytics date ranges in UTC, ending yesterday at the latest (the spec's `x-date-range`: today's data is
// not ready). Days before the first data day are valid to ask for (the API answers them with no rows), so a range
// is never cut short: `dateRange.firstDataDay` says where data starts, for a caller that wants to say so.
import { operations } from "../generated/spec-tables.js";
import { ValidationError } from "./core/errors.js";
import { yesterdayUTC } from "./core/validate.js";

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
const DAY_MS = 86_400_000;
// The first day `YYYY-MM-DD` can write.
const FIRST_DATE_MS = Date.parse("0001-01-01");

/**
 * Analytics date ranges in UTC. Each returns `{ startDate, endDate }` to spread into an analytics query, never
 * after yesterday (today's data is not ready).
 *
 *     await client.analytics.tokens({ ...dateRange.lastDays(7), group_by: "model" });
 */
export const dateRange = {
  /** The first day with analytics data (`YYYY-MM-DD`): earlier days may be asked for, and have no rows. */
  firstDataDay: bounds.firstDataDay as string,

  /** Yesterday alone: the latest day with data. */
  yesterday(options?: DateRangeOptions): DateRange {
    const end = latest(options);
    return { startDate: end, endDate: end };
  },

  /** The `days` days ending yesterday (`lastDays(7)`: the past week, yesterday included). */
  lastDays(days: number, options?: DateRangeOptions): DateRange {
    if (!Number.isSafeInteger(days) || days < 1) throw new ValidationError("days", days, "a whole number of days, 1 or more");
    const end = latest(options);
    // Compared in milliseconds first: a huge `days` would be past the range a Date can format.
    const start = Date.parse(end) - (days - 1) * DAY_MS;
    if (start < FIRST_DATE_MS) {
      throw new ValidationError("days", days, `a whole number of days from 1 to ${(Date.parse(end) - FIRST_DATE_MS) / DAY_MS + 1} (back to 0001-01-01)`);
    }
    return { startDate: isoDay(start), endDate: end };
  },

  /** One calendar month, `"YYYY-MM"`: the current month runs to yesterday. */
  month(month: string, options?: DateRangeOptions): DateRange {
    const end = latest(options);
    const match = typeof month === "string" ? /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month) : null;
    const allowed = `a month YYYY-MM up to ${end.slice(0, 7)}`;
    if (!match || match[1] === "0000") throw new ValidationError("month", month, allowed);
    const next = new Date(`${month}-01T00:00:00Z`);
    next.setUTCMonth(next.getUTCMonth() + 1);
    const range = { startDate: `${month}-01`, endDate: isoDay(Math.min(next.getTime() - DAY_MS, Date.parse(end))) };
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
  return yesterdayUTC(now);
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
