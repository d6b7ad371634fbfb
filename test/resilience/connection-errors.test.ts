// What an APIConnectionError says, and whether it counts as "not sent" (then even a write is tried again): read off
// the error fetch rejects with and its chain of causes. A real refused connection first; then the shapes fetch
// implementations reject with that a loopback cannot provoke on demand (an AggregateError of every address tried, as
// happy-eyeballs connects give, causes without a message, chains that go deep or loop), from a caller's `fetch`.
import { describe, expect, it } from "vitest";
import { APIConnectionError, OrgAgent } from "../../src/index.js";
import { successExample } from "../support/spec.js";
import { rejection, unusedPort } from "./support.js";

const BASE = "http://127.0.0.1:9";
const SESSION = `[createSession: POST ${BASE}/api/v0/sessions]`;

/** A client whose fetch always rejects with `error`, counting its calls; backoff of 1 ms, two retries. */
function failingWith(error: unknown) {
  let calls = 0;
  const client = new OrgAgent({
    apiKey: "test-key",
    baseUrl: BASE,
    fetch: async () => {
      calls++;
      throw error;
    },
    maxRetries: 2,
    backoff: { initial: 1, max: 1 },
    logLevel: "off",
  });
  return {
    /** The error of a write (createSession), and how many times fetch was called for it. */
    async write(): Promise<{ error: any; attempts: number }> {
      const error = await rejection(client.sessions.create({ computerId: "cmp_1" }));
      expect(error).toBeInstanceOf(APIConnectionError);
      return { error, attempts: calls };
    },
  };
}

const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
const refused = (address: string) => coded(`connect ECONNREFUSED ${address}`, "ECONNREFUSED");
/** `fetch failed` caused by `cause`, as Node's fetch throws it. */
const fetchFailed = (cause?: unknown) => new TypeError("fetch failed", { cause });
/** Errors each caused by the next, the first outermost. */
function chain(...errors: Error[]): Error {
  errors.reduceRight((cause: Error | undefined, error) => (cause && Object.assign(error, { cause }), error), undefined);
  return errors[0]!;
}

describe("a refused connection (a real one)", () => {
  it("says every level of what fetch said, joined by colons, with the code; not sent", async () => {
    const base = `http://127.0.0.1:${await unusedPort()}`;
    const client = new OrgAgent({ apiKey: "test-key", baseUrl: base, maxRetries: 0, logLevel: "off" });
    const error = await rejection(client.computers.get("cmp_1"));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.name).toBe("APIConnectionError");
    expect(error.message).toMatch(
      /^Connection error: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(ECONNREFUSED\) \[getComputer: GET http:\/\/127\.0\.0\.1:\d+\/api\/v0\/computers\/cmp_1\]$/,
    );
    expect(error.notSent).toBe(true);
  });
});

describe("every address tried refused (an AggregateError without a code of its own)", () => {
  it("not sent: a write is tried again, each time", async () => {
    const { error, attempts } = await failingWith(
      fetchFailed(new AggregateError([refused("10.0.0.1:443"), refused("10.0.0.2:443")], "")),
    ).write();
    expect(error.notSent).toBe(true);
    expect(attempts).toBe(3);
    expect(error.message).toBe(`Connection error: fetch failed ${SESSION}`);
  });

  it("the code they all share is the error's code", async () => {
    const { error } = await failingWith(fetchFailed(new AggregateError([refused("10.0.0.1:443"), refused("10.0.0.2:443")], ""))).write();
    expect(error.code).toBe("ECONNREFUSED");
  });

  it("addresses that failed in different ways give no code; errors without a code let a code further down the chain give it", async () => {
    const mixed = new AggregateError([refused("10.0.0.1:443"), coded("read ECONNRESET", "ECONNRESET")], "");
    expect((await failingWith(fetchFailed(mixed)).write()).error.code).toBeUndefined();
    const uncoded = new AggregateError([new Error("a"), new Error("b")], "", { cause: coded("getaddrinfo EAI_AGAIN api", "EAI_AGAIN") });
    expect((await failingWith(fetchFailed(uncoded)).write()).error.code).toBe("EAI_AGAIN");
  });

  it("but one address reset, or timed out: the request may have gone out there, so a write is not repeated", async () => {
    for (const other of [coded("read ECONNRESET", "ECONNRESET"), coded("connect ETIMEDOUT 10.0.0.2:443", "ETIMEDOUT")]) {
      const { error, attempts } = await failingWith(fetchFailed(new AggregateError([refused("10.0.0.1:443"), other], ""))).write();
      expect(error.notSent).toBe(false);
      expect(attempts).toBe(1);
    }
  });

  it("an AggregateError of nothing, or of things that are not errors, proves nothing: sent", async () => {
    for (const errors of [[], [null], [undefined, refused("10.0.0.1:443")]]) {
      const { error, attempts } = await failingWith(fetchFailed(new AggregateError(errors, ""))).write();
      expect(error.notSent).toBe(false);
      expect(error.code).toBeUndefined();
      expect(attempts).toBe(1);
    }
  });
});

describe("the chain of causes", () => {
  it("a cause with a code but no message shows as the code alone", async () => {
    const { error } = await failingWith(fetchFailed({ code: "UND_ERR_SOCKET" })).write();
    expect(error.message).toBe(`Connection error: fetch failed: (UND_ERR_SOCKET) ${SESSION}`);
  });

  it("a fetch that rejects with nothing to say (no message, not an error) is a connection error that says fetch failed", async () => {
    for (const thrown of [new Error(""), "down", null]) {
      const { error } = await failingWith(thrown).write();
      expect(error.message).toBe(`Connection error: fetch failed ${SESSION}`);
      expect(error.notSent).toBe(false);
    }
  });

  it("the message shows four levels of causes, no more", async () => {
    const levels = ["one", "two", "three", "four", "five", "six"].map((word) => new Error(word));
    const { error } = await failingWith(chain(...levels)).write();
    expect(error.message).toBe(`Connection error: one: two: three: four ${SESSION}`);
  });

  it("a refused code counts within five levels of causes: at the fifth it is not sent, deeper it proves nothing", async () => {
    const wrapped = (depth: number) =>
      chain(...Array.from({ length: depth - 1 }, (_, i) => new Error(`layer ${i + 1}`)), refused("10.0.0.1:443"));
    const fifth = await failingWith(wrapped(5)).write();
    expect([fifth.error.notSent, fifth.attempts]).toEqual([true, 3]);
    const sixth = await failingWith(wrapped(6)).write();
    expect([sixth.error.notSent, sixth.attempts]).toEqual([false, 1]);
  });

  it("a chain of causes that loops back on itself still ends: the call rejects at once", async () => {
    const outer = new Error("outer");
    const inner = new Error("inner", { cause: outer });
    Object.assign(outer, { cause: inner });
    const started = performance.now();
    const { error, attempts } = await failingWith(outer).write();
    expect(error.message).toBe(`Connection error: outer: inner: outer: inner ${SESSION}`);
    expect([error.notSent, attempts]).toEqual([false, 1]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("a fetch that resolves to something that is not a Response", () => {
  it.each([
    ["null", null],
    ["an empty object", {}],
    ["a number", 42],
    // A status alone is not a Response: the headers are read from it too.
    ["a status with no headers", { status: 200 }],
  ])("%s: the call rejects with an APIConnectionError that says so, and nothing is left to reject unhandled", async (_, answer) => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const client = new OrgAgent({
        apiKey: "test-key",
        baseUrl: BASE,
        fetch: async () => answer as never,
        maxRetries: 0,
        logLevel: "off",
      });
      const error = await rejection(client.computers.get("cmp_1"));
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error.message).toBe(
        "Connection error: fetch did not resolve to a Response [getComputer: GET http://127.0.0.1:9/api/v0/computers/cmp_1]",
      );
      // Unhandled rejections are reported after the microtasks of the turn that made them.
      await new Promise((tick) => setTimeout(tick, 50));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});

describe("the signal a failed attempt gave the caller's fetch", () => {
  it.each([
    ["rejects", () => Promise.reject(new TypeError("fetch failed"))],
    ["resolves to something that is not a Response", () => Promise.resolve({} as Response)],
  ])("is aborted once the call has failed, when that fetch %s: whatever it started with the signal stops", async (_, answer) => {
    const signals: AbortSignal[] = [];
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: BASE,
      fetch: (_input, init) => {
        signals.push(init!.signal!);
        return answer();
      },
      maxRetries: 0,
      logLevel: "off",
    });
    expect(await rejection(client.computers.get("cmp_1"))).toBeInstanceOf(APIConnectionError);
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });
});

describe("the signal of an attempt whose answer was read", () => {
  /** A client whose fetch answers `respond()` and records the signal it was given. */
  function answering(respond: () => Response) {
    const signals: AbortSignal[] = [];
    const client = new OrgAgent({
      apiKey: "test-key",
      baseUrl: BASE,
      fetch: async (_input, init) => {
        signals.push(init!.signal!);
        return respond();
      },
      maxRetries: 0,
      logLevel: "off",
    });
    return { client, signals };
  }

  it("is left alone after a body read to its end: its connection goes back to the pool", async () => {
    const body = JSON.stringify(successExample("getComputer"));
    const { client, signals } = answering(() => new Response(body, { headers: { "Content-Type": "application/json" } }));
    await client.computers.get("cmp_1");
    expect(signals.map((signal) => signal.aborted)).toEqual([false]);
  });

  it("is aborted after a body cut off midway, so its connection is closed", async () => {
    const cutOff = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"id":'));
            controller.error(new Error("socket hang up"));
          },
        }),
        { headers: { "Content-Type": "application/json" } },
      );
    const { client, signals } = answering(cutOff);
    await expect(client.computers.get("cmp_1")).rejects.toThrow("cut off");
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });
});
