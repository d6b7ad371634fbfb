// Ready-made analytics date ranges in UTC, ending yesterday at the latest (the spec's `x-date-range`: today's data is
// not ready). Days before the first data day are valid to ask for (the API answers them with no rows), so a range
// is never cut short: `dateRange.firstDataDay` says where data starts, for a caller that wants to say so.
import { operations } from "../generated/spec-tables.js";
import { dateOf, dayOf, daysInMonth, yesterdayUTC } from "./core/days.js";
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
// The first day `YYYY-MM-DD` can write.
const FIRST_DAY = dayOf("0001-01-01");

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
    if (!Number.isSafeInteger(days))
      throw new ValidationError("days", days, "a whole number of days, 1 or more", undefined, { rule: "type" });
    if (days < 1) throw new ValidationError("days", days, "a whole number of days, 1 or more", undefined, { rule: "minimum", bound: 1 });
    const end = latest(options);
    // Compared as day numbers first: a huge `days` would be past the range a Date can format.
    const start = dayOf(end) - (days - 1);
    if (start < FIRST_DAY) {
      const most = dayOf(end) - FIRST_DAY + 1;
      throw new ValidationError("days", days, `a whole number of days from 1 to ${most} (back to 0001-01-01)`, undefined, {
        rule: "maximum",
        bound: most,
      });
    }
    return { startDate: dateOf(start), endDate: end };
  },

  /** One calendar month, `"YYYY-MM"`: the current month runs to yesterday. */
  month(month: string, options?: DateRangeOptions): DateRange {
    const end = latest(options);
    const match = typeof month === "string" ? /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month) : null;
    const allowed = `a month YYYY-MM up to ${end.slice(0, 7)}`;
    if (!match || match[1] === "0000") throw new ValidationError("month", month, allowed, undefined, { rule: "format" });
    const first = dayOf(`${month}-01`);
    const last = first + daysInMonth(Number(match[1]), Number(match[2])) - 1;
    const range = { startDate: `${month}-01`, endDate: dateOf(Math.min(last, dayOf(end))) };
    if (range.startDate > range.endDate) throw new ValidationError("month", month, allowed, undefined, { rule: "latest", bound: end });
    return range;
  },
};

// The spec's latest day is "yesterday", by the clock: this stops compiling if the spec ever names a fixed day instead.
// biome-ignore lint/correctness/noUnusedVariables: a compile-time check, never read
const LATEST: "yesterday" = bounds.latest;

/** Yesterday (UTC) by the given clock: the latest day with data. */
function latest(options?: DateRangeOptions): string {
  const given = options?.now;
  const now = given === undefined ? undefined : new Date(given);
  if (now && Number.isNaN(now.getTime()))
    throw new ValidationError("now", given, "a valid Date or Unix milliseconds", undefined, { rule: "type" });
  return yesterdayUTC(now);
}
