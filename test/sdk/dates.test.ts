// dateRange: the usual analytics ranges in UTC, ending yesterday at the latest (x-date-range), never cut short at
// the first data day (earlier days are valid to ask for and have no rows), so that a range built from it is always
// accepted, by the SDK's checks and by the emulator.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { OrgAgent, ValidationError, dateRange } from "../../src/index.js";

const { firstDataDay } = operations.getAnalyticsTokens.params.startDate.schema.dateRange;
// 2026-11-22 at 00:30 UTC: half an hour into the day, when "yesterday" in a local time zone may still be the 20th.
const now = Date.UTC(2026, 10, 22, 0, 30);

describe("dateRange", () => {
  test("yesterday is the day before today in UTC", () => {
    expect(dateRange.yesterday({ now })).toEqual({ startDate: "2026-11-21", endDate: "2026-11-21" });
    expect(dateRange.yesterday({ now: new Date(Date.UTC(2026, 2, 1, 23, 59)) })).toEqual({
      startDate: "2026-02-28",
      endDate: "2026-02-28",
    });
  });

  test("lastDays(n) is the n days ending yesterday, also when they start before the first data day", () => {
    expect(dateRange.lastDays(1, { now })).toEqual(dateRange.yesterday({ now }));
    expect(dateRange.lastDays(7, { now })).toEqual({ startDate: "2026-11-15", endDate: "2026-11-21" });
    expect(dateRange.lastDays(30, { now })).toEqual({ startDate: "2026-10-23", endDate: "2026-11-21" });
    expect(dateRange.lastDays(400, { now })).toEqual({ startDate: "2025-10-18", endDate: "2026-11-21" });
    expect(dateRange.lastDays(10_000, { now })).toEqual({ startDate: "1999-07-07", endDate: "2026-11-21" });
    // The first day YYYY-MM-DD can write.
    expect(dateRange.lastDays(739_941, { now })).toEqual({ startDate: "0001-01-01", endDate: "2026-11-21" });
  });

  test("month(YYYY-MM) is the whole month, cut at yesterday for the current one; months before the data are months too", () => {
    expect(dateRange.month("2026-10", { now })).toEqual({ startDate: "2026-10-01", endDate: "2026-10-31" });
    expect(dateRange.month("2026-02", { now })).toEqual({ startDate: "2026-02-01", endDate: "2026-02-28" });
    expect(dateRange.month("2026-11", { now })).toEqual({ startDate: "2026-11-01", endDate: "2026-11-21" });
    expect(dateRange.month(firstDataDay.slice(0, 7), { now })).toEqual({ startDate: "2026-01-01", endDate: "2026-01-31" });
    expect(dateRange.month("2025-12", { now })).toEqual({ startDate: "2025-12-01", endDate: "2025-12-31" });
    expect(dateRange.month("0050-02", { now })).toEqual({ startDate: "0050-02-01", endDate: "0050-02-28" });
    // Years below 100 are not read as 19xx (as Date.UTC would), and keep their own leap years.
    expect(dateRange.month("0004-02", { now })).toEqual({ startDate: "0004-02-01", endDate: "0004-02-29" });
  });

  test("the first data day is there to say where data starts", () => {
    expect(dateRange.firstDataDay).toBe(firstDataDay);
    expect(firstDataDay).toBe("2026-01-14");
  });

  test("a month with no queryable day, a malformed month or a bad day count is a ValidationError naming what is allowed", () => {
    const cases: Array<[() => unknown, string, RegExp]> = [
      [() => dateRange.month("2026-12", { now }), "month", /^a month YYYY-MM up to 2026-11$/],
      [() => dateRange.month("2026-11", { now: Date.UTC(2026, 10, 1, 8) }), "month", /up to 2026-10/], // the 1st: nothing yet
      [() => dateRange.month("2026-1", { now }), "month", /YYYY-MM/],
      [() => dateRange.month("2026-13", { now }), "month", /YYYY-MM/],
      [() => dateRange.month("0000-12", { now }), "month", /YYYY-MM/],
      [() => dateRange.lastDays(0, { now }), "days", /1 or more/],
      [() => dateRange.lastDays(1.5, { now }), "days", /whole number/],
      [() => dateRange.lastDays(739_942, { now }), "days", /^a whole number of days from 1 to 739941 \(back to 0001-01-01\)$/],
      [() => dateRange.lastDays(Number.MAX_SAFE_INTEGER, { now }), "days", /from 1 to 739941/],
      [() => dateRange.yesterday({ now: Number.NaN }), "now", /valid Date/],
    ];
    for (const [call, field, allowed] of cases) {
      let error: unknown;
      try {
        call();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect((error as ValidationError).allowed).toMatch(allowed);
    }
  });

  test("its errors carry the rule broken and its bound, for a program to read", () => {
    const broke = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        return { rule: (error as ValidationError).rule, bound: (error as ValidationError).bound };
      }
      return undefined;
    };
    expect(broke(() => dateRange.lastDays(0, { now }))).toEqual({ rule: "minimum", bound: 1 });
    expect(broke(() => dateRange.lastDays(1.5, { now }))).toEqual({ rule: "type", bound: undefined });
    expect(broke(() => dateRange.lastDays(739_942, { now }))).toEqual({ rule: "maximum", bound: 739_941 });
    expect(broke(() => dateRange.month("2026-13", { now }))).toEqual({ rule: "format", bound: undefined });
    expect(broke(() => dateRange.month("2026-12", { now }))).toEqual({ rule: "latest", bound: "2026-11-21" });
    // A clock that is no date at all is of the wrong kind.
    expect(broke(() => dateRange.yesterday({ now: Number.NaN }))).toEqual({ rule: "type", bound: undefined });
    expect(broke(() => dateRange.lastDays(7, { now: new Date("not a date") }))).toEqual({ rule: "type", bound: undefined });
  });

  test("a month is refused unless it is a string of exactly YYYY-MM, naming the months allowed", () => {
    for (const month of ["x2026-10", "2026-10x", "2026-10-01", " 2026-10", ["2026-10"], 202610]) {
      let error: unknown;
      try {
        dateRange.month(month as string, { now });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ field: "month", value: month, allowed: "a month YYYY-MM up to 2026-11" });
    }
  });

  test("the first queryable day alone is a range: on the 2nd of a month", () => {
    expect(dateRange.month("2026-11", { now: Date.UTC(2026, 10, 2, 8) })).toEqual({ startDate: "2026-11-01", endDate: "2026-11-01" });
  });

  test("a `now` before the first data day is a clock like any other", () => {
    expect(dateRange.lastDays(2, { now: Date.UTC(2026, 0, 14, 12) })).toEqual({ startDate: "2026-01-12", endDate: "2026-01-13" });
  });

  test("without `now`, the range ends yesterday by the real clock", () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(dateRange.lastDays(3).endDate).toBe(yesterday);
  });
});

describe("dateRange against the emulator: every range is accepted", () => {
  let emulator: Emulator;
  let client: OrgAgent;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: "dates", users: 10 });
    client = new OrgAgent({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.owner });
  });
  afterAll(() => emulator?.close());

  test("yesterday, the last 7 and 400 days, this month and the first month: a row for each day from the first data day", async () => {
    const thisMonth = new Date().toISOString().slice(0, 7);
    const ranges = [dateRange.yesterday(), dateRange.lastDays(7), dateRange.lastDays(400), dateRange.month(firstDataDay.slice(0, 7))];
    // On the 1st of a month (UTC) the current month has no queryable day yet.
    if (new Date().getUTCDate() > 1) ranges.push(dateRange.month(thisMonth));
    for (const range of ranges) {
      const page = await client.analytics.activity(range);
      expect(page.data.map((row) => row.date)).toEqual(
        days(range.startDate < firstDataDay ? firstDataDay : range.startDate, range.endDate),
      );
    }
  });

  test("a month before the data: accepted, and no rows", async () => {
    const [activity, users] = await Promise.all([
      client.analytics.activity(dateRange.month("2025-12")),
      client.analytics.users(dateRange.month("2025-12")).toArray(),
    ]);
    expect([activity.data, users]).toEqual([[], []]);
  });
});

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(from); t <= Date.parse(to); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}
