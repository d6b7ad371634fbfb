// A rate-limited job in simulated time: the emulator's rate limiter (src/emulator/network.ts) in process, a seeded
// latency on every request, and the job loop of test/sdk/rate-controller.test.ts (acquire, the service's verdict,
// observe, wait what the throttle says), all on vitest's fake clock. The caller fakes setTimeout, clearTimeout,
// performance and Date; the job then runs the same way on every machine, however loaded, in a few ms of real time.
import { vi } from "vitest";
import type { RateController } from "../../src/core/rate-controller.js";
import { type EmulatorRateLimit, rateLimiter } from "../../src/emulator/network.js";
import { Random } from "../../src/emulator/random.js";

export interface SimulationOptions extends EmulatorRateLimit {
  /** Requests the job makes, each sent again until it is accepted. */
  count: number;
  /** Requests in flight at most. Default 8. */
  concurrency?: number;
  /**
   * The latency of each request, `ms` plus up to `jitter` more (whole ms, seeded): it reaches the service after half of
   * it, and its answer comes back after the rest. Default 10 ms, jitter 4.
   */
  latency?: { ms: number; jitter: number };
}

export interface SimulatedJob {
  /** When the service counted each request it accepted and refused (performance.now()). */
  readonly accepted: number[];
  readonly refused: number[];
  /** The wait each refusal's throttle told. */
  readonly waits: number[];
  /** Accepted ÷ what the limit allowed over the second half of the accepted requests (as limiter-server.ts counts it). */
  readonly steadyFraction: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function simulateJob(controller: RateController, options: SimulationOptions): Promise<SimulatedJob> {
  const { count, concurrency = 8, latency = { ms: 10, jitter: 4 }, ...limit } = options;
  const take = rateLimiter(limit, () => Date.now())!;
  const random = Random.of("rate-simulation", limit.style ?? "bucket");
  const accepted: number[] = [];
  const refused: number[] = [];
  const waits: number[] = [];
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      for (let retry = false; ; retry = true) {
        const permit = await controller.acquire({ retry });
        // Whole milliseconds, as real timers keep them.
        const trip = latency.ms + Math.floor(random.next() * (latency.jitter + 1));
        await sleep(Math.floor(trip / 2));
        const verdict = take("k");
        (verdict.refused ? refused : accepted).push(performance.now());
        await sleep(trip - Math.floor(trip / 2));
        const throttle = permit.observe(verdict.refused?.status ?? 200, new Headers(verdict.headers));
        if (!throttle) break;
        waits.push(throttle.wait);
        if (throttle.wait > 0) await sleep(throttle.wait);
      }
    }
  };
  let finished = false;
  const job = Promise.all(Array.from({ length: concurrency }, worker)).then(() => (finished = true));
  // Simulated time goes on until the job ends; a controller that never lets a request go again fails here, not by a hang.
  const give = 60_000;
  while (!finished && performance.now() - started < give) await vi.advanceTimersByTimeAsync(100);
  if (!finished) throw new Error(`the job did not end within ${give} ms of simulated time: ${accepted.length} accepted`);
  await job;
  const middle = Math.floor(accepted.length / 2);
  const steadyFraction = (accepted.length - 1 - middle) / ((limit.requestsPerSecond * (accepted.at(-1)! - accepted[middle]!)) / 1000);
  return { accepted, refused, waits, steadyFraction };
}
