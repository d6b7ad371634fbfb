// The cap on the requests a bulk job has in flight (src/core/concurrency.ts), driven by tasks that take real time: it
// never runs more than its cap and runs that many when there is work, serves waiting tasks in order of priority, runs
// each task once (a throttled request waits inside its own call: test/sdk/throttles.test.ts), tells a job of a
// failure before the failed task's place goes to another, and ends everything on the job's abort.
import { describe, expect, it } from "vitest";
import { InFlightCap, type CappedTask } from "../../src/core/concurrency.js";
import { APIUserAbortError, RateLimitError } from "../../src/index.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `count` tasks through `cap`, recording how many ran at once. */
async function runMany(cap: InFlightCap, count: number, task: (i: number) => CappedTask<number>) {
  let running = 0;
  let most = 0;
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      cap.run(async (signal) => {
        running++;
        most = Math.max(most, running);
        try {
          return await task(i)(signal);
        } finally {
          running--;
        }
      }, i),
    ),
  );
  return { results, most };
}

describe("the cap", () => {
  it("never runs more tasks than `max`, and runs that many when there is work", async () => {
    const cap = new InFlightCap(4);
    const { results, most } = await runMany(cap, 30, (i) => async () => {
      await sleep(5);
      return i;
    });
    expect(most).toBe(4);
    expect(results).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("`running` counts the tasks in flight: up to `max` while there is work, 0 once all are done", async () => {
    const cap = new InFlightCap(3);
    const seen: number[] = [];
    expect(cap.running).toBe(0);
    await runMany(cap, 9, () => async () => {
      seen.push(cap.running);
      await sleep(5);
      return 0;
    });
    expect(Math.max(...seen)).toBe(3);
    expect(seen.every((running) => running >= 1 && running <= 3)).toBe(true);
    expect(cap.running).toBe(0);
  });

  it("a 429 does not lower the cap: how fast requests go is the rate controller's to say, not the job's", async () => {
    const cap = new InFlightCap(4);
    const refused = () => new RateLimitError(429, new Headers(), { title: "Too Many Requests" });
    await Promise.allSettled(Array.from({ length: 4 }, () => cap.run(async () => Promise.reject(refused()))));
    const { most } = await runMany(cap, 8, () => async () => {
      await sleep(5);
      return 0;
    });
    expect(most).toBe(4);
  });
});

describe("failures", () => {
  it("a task runs once: its failure is the caller's, heard by onFailure before its place goes to the next task", async () => {
    const cap = new InFlightCap(1);
    const events: string[] = [];
    let attempts = 0;
    const failing = cap.run(
      async () => {
        attempts++;
        throw new RateLimitError(429, new Headers({ "retry-after-ms": "0" }), { title: "Too Many Requests" });
      },
      0,
      () => events.push("failure heard"),
    );
    const next = cap.run(async () => void events.push("next started"), 1);
    await expect(failing).rejects.toBeInstanceOf(RateLimitError);
    await next;
    expect(attempts).toBe(1);
    expect(events).toEqual(["failure heard", "next started"]);
  });

  it("dropWaiting rejects the tasks still waiting for their place with its reason; the running ones go on", async () => {
    const cap = new InFlightCap(1);
    const stopped = Symbol("stopped");
    const running = cap.run(() => sleep(20).then(() => "done"));
    // Each outcome is taken as it settles: a rejection left unheard while `running` finishes would be unhandled.
    const waiting = [cap.run(async () => "never"), cap.run(async () => "never")].map((task) =>
      task.then(String, (error: unknown) => error),
    );
    cap.dropWaiting(stopped);
    expect(await running).toBe("done");
    expect(await Promise.all(waiting)).toEqual([stopped, stopped]);
  });
});

describe("order and abort", () => {
  it("waiting tasks start lowest priority first", async () => {
    const cap = new InFlightCap(1);
    const order: number[] = [];
    const blocker = cap.run(() => sleep(20));
    const waiting = [5, 1, 3, 0, 2].map((priority) => cap.run(async () => void order.push(priority), priority));
    await Promise.all([blocker, ...waiting]);
    expect(order).toEqual([0, 1, 2, 3, 5]);
  });

  it("waiting tasks of one priority start in the order they came", async () => {
    const cap = new InFlightCap(1);
    const order: string[] = [];
    const blocker = cap.run(() => sleep(20));
    const waiting = ["a", "b", "c"].map((name) => cap.run(async () => void order.push(name), 1));
    await Promise.all([blocker, ...waiting]);
    expect(order).toEqual(["a", "b", "c"]);
  });

  it("an abort rejects the waiting tasks and aborts the running ones through their own signal, with the job's reason", async () => {
    const controller = new AbortController();
    const cap = new InFlightCap(2, controller.signal);
    const signals: AbortSignal[] = [];
    const tasks = Array.from({ length: 5 }, () =>
      cap.run(
        (signal) =>
          new Promise((_, reject) => {
            signals.push(signal);
            signal.addEventListener("abort", () => reject(new APIUserAbortError("aborted", { cause: signal.reason })));
          }),
      ),
    );
    await sleep(5);
    const reason = new Error("stop the job");
    controller.abort(reason);
    const outcomes = await Promise.allSettled(tasks);
    expect(outcomes.every((o) => o.status === "rejected" && o.reason instanceof APIUserAbortError && o.reason.cause === reason)).toBe(true);
    expect(signals).toHaveLength(2);
    expect(signals.every((signal) => signal.aborted && signal.reason === reason)).toBe(true);
    await expect(cap.run(async () => 0)).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it("a task given its place just before the job's abort starts with its signal aborted, with the job's reason", async () => {
    const controller = new AbortController();
    const cap = new InFlightCap(1, controller.signal);
    let seen: AbortSignal | undefined;
    const task = cap.run(async (signal) => void (seen = signal));
    const reason = new Error("stop the job");
    controller.abort(reason);
    await task;
    expect([seen?.aborted, seen?.reason]).toEqual([true, reason]);
  });
});
