// The load tests' sizes. Under mutation testing (test/mutation/vitest.config.ts sets ORGAGENT_TEST_SCALE=0.1) each
// runs at a tenth of its size: the same checks on fewer calls, since Stryker reruns them for every mutant they reach.
const factor = Number(process.env.ORGAGENT_TEST_SCALE ?? 1);

export const scaled = (count: number): number => Math.max(1, Math.round(count * factor));
