// Proof under faults: 1,000+ logical calls across every operation against a server that fails about half of all
// attempts in every way it can, and a stalled server that never answers. No write may be applied twice, every failure
// must be a typed OrgAgentError, no rejection may go unhandled, no error or log line may carry the API key, and
// nothing may stay open: no timer or handle in this process, no connection holding a request on either server 1 s
// after the last call (counted from the servers' side), and a child process making such calls exits at once.
// The clients do not pace their requests (`rateLimiting: false`): the server refuses a tenth of all attempts with 429
// whatever the rate, which a rate controller rightly answers by slowing down, as TCP does under loss. That every way
// an attempt ends gives its turn back to the controller is test/sdk/throttles.test.ts's to show.
import { expect, it } from "vitest";
import { operations } from "../../generated/spec-tables.js";
import { OrgAgent, OrgAgentError } from "../../src/index.js";
import { calls, operationIds } from "./calls.js";
import { bundle, runTimed } from "../support/child-process.js";
import { seededPlan, startFaultServer } from "./fault-server.js";
import { SECRET, captureLogger, leaks } from "./secret.js";
import { stalledServer } from "./stalled-server.js";
import { scaled } from "../support/scale.js";

const CALLS = scaled(1_050); // 70 per operation
const CONCURRENCY = 16;
const SEED = 20261121;
/** Every STALLED_EVERY-th call goes to the stalled server instead. */
const STALLED_EVERY = 14; // coprime with the 15 operations, so each of them meets the stalled server

/** A child process's calls, half against each server; it prints one line when all have settled, then must exit. */
const CHILD = `
  import { OrgAgent } from "./src/index.ts";
  const [faultUrl, stalledUrl] = process.argv.slice(2);
  const options = { apiKey: "sk-child-key-0000", timeout: 150, backoff: { initial: 5, max: 40 }, maxRetryAfter: 200, rateLimiting: false, logLevel: "off" };
  const clients = [faultUrl, stalledUrl].map((url) => new OrgAgent({ ...options, baseUrl: url, appUrl: url }));
  const settled = { succeeded: 0, failed: 0 };
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    for (let i = next++; i < 200; i = next++) {
      const client = clients[i % 2];
      const headers = { "x-test-call-id": "child-" + i };
      const call = [
        () => client.computers.get("cmp_3e9d0a4b7c2f4e61", { headers }),
        () => client.sessions.create({ computerId: "cmp_3e9d0a4b7c2f4e61" }, { headers }),
        async () => await client.readiness.list({ limit: 5 }, { headers }),
      ][i % 3];
      await call().then(() => settled.succeeded++, () => settled.failed++);
    }
  }));
  console.log(JSON.stringify(settled));
`;

/** Active handles and requests by type (timers that keep the process alive count; unref'd ones do not). */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}
function added(before: Map<string, number>, after = resources()): number {
  let total = 0;
  for (const [type, count] of after) total += Math.max(0, count - (before.get(type) ?? 0));
  return total;
}

it(`${CALLS} calls through injected faults: no duplicate write, every failure typed, nothing left open`, async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  const before = resources();

  const server = await startFaultServer(seededPlan(SEED));
  const stalled = await stalledServer();
  const logger = captureLogger();
  const clientOn = (url: string) =>
    new OrgAgent({
      apiKey: SECRET,
      baseUrl: url,
      appUrl: url,
      timeout: 150,
      backoff: { initial: 5, max: 40 },
      maxRetryAfter: 200, // the server's `Retry-After: 1` is over it: those calls give up at once
      rateLimiting: false,
      logLevel: "debug",
      logger,
    });
  const client = clientOn(server.url);
  const toStalled = clientOn(stalled.url);
  const withServer = resources();

  const started = performance.now();
  const failures: unknown[] = [];
  const succeededWrites: string[] = [];
  let succeeded = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < CALLS; i = next++) {
        const operationId = operationIds[i % operationIds.length]!;
        const stalls = i % STALLED_EVERY === STALLED_EVERY - 1;
        try {
          await calls[operationId](stalls ? toStalled : client, { headers: { "x-test-call-id": `call-${i}` } });
          succeeded++;
          if (stalls) throw new Error(`call-${i} to the stalled server succeeded`);
          if (operations[operationId].method === "POST") succeededWrites.push(`call-${i}`);
        } catch (error) {
          failures.push(error);
        }
      }
    }),
  );
  const elapsed = performance.now() - started;
  // Every attempt timer and backoff sleep must be gone the moment the calls have settled.
  const timersLeft = Math.max(0, (resources().get("Timeout") ?? 0) - (withServer.get("Timeout") ?? 0));
  // 1 s later, from the servers' side: no connection may still hold a request (a stall the client gave up on).
  await new Promise((tick) => setTimeout(tick, 1_000));
  const held = server.sockets().holding + stalled.open("holding");
  const openSockets = server.sockets().open + stalled.open();

  // A process making such calls exits the moment its last call has settled.
  const child = await runTimed(await bundle({ source: CHILD }), [server.url, stalled.url]);
  const childSettled = child.lines.find((line) => line.text.startsWith("{"));
  const exitMs = child.exitedAt !== undefined && childSettled ? Math.round(child.exitedAt - childSettled.at) : undefined;

  await Promise.all([server.close(), stalled.close()]);
  // Keep-alive sockets close when the server drops its side; give them a moment, then count what is left.
  let openHandles = added(before);
  for (let waited = 0; openHandles > 0 && waited < 2_000; waited += 20) {
    await new Promise((tick) => setTimeout(tick, 20));
    openHandles = added(before);
  }
  process.off("unhandledRejection", onUnhandled);

  const typed = failures.filter((error) => error instanceof OrgAgentError);
  const duplicates = server.duplicateWrites();
  console.log(
    `calls=${CALLS} succeeded=${succeeded} failed_typed=${typed.length} writes_applied_twice=${duplicates.length} ` +
      `unhandled_rejections=${unhandled.length} open_handles=${openHandles} held_sockets=${held} ` +
      `open_sockets=${openSockets} child_exit_ms=${exitMs ?? "never (killed)"}`,
  );
  const byKind = new Map<string, number>();
  for (const request of server.requests) byKind.set(request.fault, (byKind.get(request.fault) ?? 0) + 1);
  const byError = new Map<string, number>();
  for (const error of failures) byError.set((error as Error).name, (byError.get((error as Error).name) ?? 0) + 1);
  console.log(
    `attempts=${server.requests.length} ms=${Math.round(elapsed)} faults=${JSON.stringify(Object.fromEntries(byKind))} ` +
      `errors=${JSON.stringify(Object.fromEntries(byError))}`,
  );

  expect(succeeded + failures.length).toBe(CALLS);
  expect(failures.filter((error) => !(error instanceof OrgAgentError))).toEqual([]);
  expect(duplicates).toEqual([]);
  // A write that succeeded was applied exactly once.
  const applied = new Set(server.writes.map((write) => write.callId));
  expect(succeededWrites.filter((callId) => !applied.has(callId))).toEqual([]);
  expect(unhandled).toEqual([]);
  expect(timersLeft).toBe(0);
  expect(openHandles).toBe(0);
  expect(held).toBe(0);
  expect(child.stdout).toMatch(/^\{"succeeded":\d+,"failed":\d+\}\n$/);
  expect(exitMs).toBeLessThan(1_000);
  // The run is only a proof if the faults really happened and the retries really helped.
  expect(new Set(server.requests.map((r) => r.operationId)).size).toBe(operationIds.length);
  expect(stalled.requests).toBeGreaterThanOrEqual(CALLS / STALLED_EVERY);
  expect(succeeded).toBeGreaterThan(CALLS / 2);
  expect(failures.length).toBeGreaterThan(0);
  expect(leaks([...failures, client, ...logger.lines])).toEqual([]);
  // A debug log was written and still names no credential.
  expect(logger.lines.length).toBeGreaterThan(CALLS);
}, 60_000);
