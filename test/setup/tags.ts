// The tags a test may carry (vitest refuses any other). `real-time` marks a test that runs a whole rate-limited job
// against a loopback server for seconds of wall time: `npm test` runs it, the mutation suite leaves it out
// (test/mutation/vitest.config.ts), since Stryker would run those seconds again for every mutant of the request
// pipeline; the rules such a job relies on are each pinned by a test on a moved clock, which the mutation suite runs.
import type { TestTagDefinition } from "vitest/config";

export const REAL_TIME = "real-time";

export const TAGS: TestTagDefinition[] = [{ name: REAL_TIME, description: "a whole rate-limited job in wall time (seconds)" }];
