// A caller's AbortSignal stops a call at once wherever it is (before sending, mid-request, during a backoff wait,
// while a rotating key is fetched), and nothing of a call outlives it: 10,000 calls sharing one signal leave no
// listener and no timer, and print no MaxListenersExceededWarning.
import { getEventListeners } from "node:events";
import { afterAll, expect, it } from "vitest";
import { APIUserAbortError } from "../../src/index.js";
import { captureLogger, leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted, serve } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

const elapsedSince = (started: number) => performance.now() - started;

it("an already aborted signal sends nothing", async () => {
  const server = await scripted();
  const error = await rejection(clientOf(server).computers.get("cmp_1", { signal: AbortSignal.abort() }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(server.requests).toHaveLength(0);
});

it("aborts a request in flight at once", async () => {
  const controller = new AbortController();
  // Aborted once the server holds the request, which it never answers.
  const server = await serve(() => (setTimeout(() => controller.abort(), 10), { kind: "stall" }));
  const started = performance.now();
  const error = await rejection(clientOf(server).computers.get("cmp_1", { signal: controller.signal }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(elapsedSince(started)).toBeLessThan(2_000);
  expect(server.requests).toHaveLength(1);
});

it("aborts during a backoff wait at once, without another attempt", async () => {
  const server = await scripted({ kind: "status", status: 503 });
  const controller = new AbortController();
  // The client logs "retrying in …" just before it starts waiting: abort then.
  const logger = captureLogger();
  logger.info = () => setTimeout(() => controller.abort(), 10);
  const client = clientOf(server, { backoff: { initial: 10_000, max: 10_000 }, logger, logLevel: "info" });
  const started = performance.now();
  const error = await rejection(client.computers.get("cmp_1", { signal: controller.signal }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(elapsedSince(started)).toBeLessThan(2_000);
  expect(server.requests).toHaveLength(1);
});

it("an abort while a rotating key is being fetched stops the call before anything is sent", async () => {
  const server = await scripted({ kind: "stall" });
  const apiKey = () => new Promise<string>((resolve) => setTimeout(() => resolve("rotated-token"), 100));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const started = performance.now();
  const error = await rejection(clientOf(server, { apiKey, timeout: 5_000 }).computers.get("cmp_1", { signal: controller.signal }));
  expect(error).toBeInstanceOf(APIUserAbortError);
  expect(elapsedSince(started)).toBeLessThan(2_000);
  expect(server.requests).toHaveLength(0);
});

it("aborts a page promise through its options (the last argument)", async () => {
  const server = await scripted({ kind: "stall" });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  const page = clientOf(server).enterpriseControls.history({}, { signal: controller.signal });
  expect(await rejection(Promise.resolve(page))).toBeInstanceOf(APIUserAbortError);
});

it("10,000 sequential calls sharing one signal: no listener, timer or warning left behind", async () => {
  const server = await scripted();
  const client = clientOf(server);
  const signal = new AbortController().signal;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  const timers = () => process.getActiveResourcesInfo().filter((type) => type === "Timeout").length;
  const timersBefore = timers();
  const started = performance.now();
  try {
    for (let i = 0; i < 10_000; i++) await client.computers.get("cmp_1", { signal, timeout: 5_000 });
  } finally {
    process.off("warning", onWarning);
  }
  console.log(`10000 sequential calls with one signal: ${Math.round(elapsedSince(started))} ms`);
  await new Promise((tick) => setImmediate(tick)); // a warning is emitted on the next tick
  expect(warnings.map((w) => w.name)).toEqual([]);
  expect(getEventListeners(signal, "abort")).toHaveLength(0);
  expect(timers()).toBeLessThanOrEqual(timersBefore);
  expect(server.requests).toHaveLength(10_000);
}, 30_000);
