// What a check costs, measured against the same check made to do the expensive work: the validator runs on every
// parameter and body field of every call, so work it can skip must stay skipped. A timing test compares two timings
// taken side by side (the faster of several rounds each), so a loaded machine slows both alike.
import { describe, expect, it, vi } from "vitest";
import { yesterdayUTC } from "../../src/core/days.js";
import { checkField, type FieldRule } from "../../src/core/validate.js";

/** The fastest of `rounds` runs of `run`, in ms. */
function fastest(run: () => void, rounds = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe("the validator's cost", () => {
  it("a string without a length bound is not copied to count its characters (a 4 MB image's base64 data)", () => {
    const data = "QUJD".repeat(1_000_000);
    const unbounded: FieldRule = { type: "string" };
    const bounded: FieldRule = { type: "string", maxLength: 10_000_000 };
    const counted = fastest(() => checkField(bounded, data, "body.images[0].data"));
    const skipped = fastest(() => checkField(unbounded, data, "body.images[0].data"));
    expect(skipped).toBeLessThan(counted / 10);
  });

  it("yesterday is worked out once per UTC day, not for every date checked", () => {
    // Counted, not timed: under Stryker's instrumentation the timings of so small a function are its overhead.
    const day = 86_400_000;
    const base = Date.UTC(2026, 10, 25, 12);
    const formatted = vi.spyOn(Date.prototype, "toISOString");
    try {
      for (let i = 0; i < 1000; i++) expect(yesterdayUTC(new Date(base + i))).toBe("2026-11-24");
      expect(formatted).toHaveBeenCalledTimes(1);
      // Alternating days: the first is the day held, each of the other nine a change of day.
      for (let i = 0; i < 10; i++) yesterdayUTC(new Date(base + (i % 2) * day));
      expect(formatted).toHaveBeenCalledTimes(10);
      expect(yesterdayUTC(new Date(base + day))).toBe("2026-11-25");
    } finally {
      formatted.mockRestore();
    }
  });
});
