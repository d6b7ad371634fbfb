// Day arithmetic in UTC, the one home for it: analytics dates are `YYYY-MM-DD` days in UTC, counted here as day
// numbers (days since 1970-01-01) so that a range is walked with `+ 1` and no time zone can shift a day.

export const DAY_MS = 86_400_000;

/** The day number of a `YYYY-MM-DD` date (NaN for anything else). */
export function dayOf(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / DAY_MS;
}

/** The `YYYY-MM-DD` date of a day number. */
export function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

// Yesterday depends only on today's UTC day number: formatted once per day, not for every date field of every call.
let cachedDay = Number.NaN;
let cachedYesterday = "";

/** Yesterday's date in UTC, by `now` (default: the clock). */
export function yesterdayUTC(now?: Date): string {
  const day = Math.floor((now ? now.getTime() : Date.now()) / DAY_MS);
  if (day !== cachedDay) {
    cachedYesterday = dateOf(day - 1);
    cachedDay = day;
  }
  return cachedYesterday;
}

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** How many days the month has (`month` 1 to 12), by the proleptic Gregorian calendar, for any year. */
export function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** `YYYY-MM-DD` naming a day that exists (no 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  if (!CALENDAR_DATE.test(value)) return false;
  // Stryker disable next-line UnaryOperator: a negated year leaves the same remainders by 4, 100 and 400 (only their sign changes), so the same leap years
  const year = +value.slice(0, 4);
  const month = +value.slice(5, 7);
  const day = +value.slice(8);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}
