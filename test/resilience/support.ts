// Shared by the focused resilience tests: scripted fault servers that close after each test, a client on them,
// and a corpus of every error the tests caught (scanned for the API key at the end of each file).
import { createServer } from "node:net";
import { afterAll, expect } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { OrgAgent, type ClientOptions } from "../../src/index.js";
import { startFaultServer, type Fault, type FaultServer, type Plan } from "./fault-server.js";
import { SECRET } from "./secret.js";

// Closed at the end of the file, not after each test: a port freed mid-file can be handed to the next server while
// fetch still pools a dead keep-alive socket to it, and a write sent on that socket fails before reaching anyone.
const open: FaultServer[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A fault server following `plan`, closed at the end of the file. */
export async function serve(plan: Plan): Promise<FaultServer> {
  const server = await startFaultServer(plan);
  open.push(server);
  return server;
}

/** A server that meets its n-th request with the n-th fault, and answers normally after the script ends. */
export const scripted = (...faults: Fault[]) => serve(({ n }) => faults[n - 1] ?? { kind: "ok" });

/** A client on `server` with instant backoff and no logging unless the test says otherwise. */
export function clientOf(server: { url: string }, options: ClientOptions = {}): OrgAgent {
  return new OrgAgent({
    apiKey: SECRET,
    baseUrl: server.url,
    appUrl: server.url,
    backoff: { initial: 1, max: 1 },
    logLevel: "off",
    ...options,
  });
}

/** Every error the tests of this file caught. */
export const corpus: unknown[] = [];

/** The error `promise` rejects with (kept in the corpus); fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    corpus.push(error);
    return error;
  }
  expect.fail("expected the call to fail");
}

/** Milliseconds between the arrivals of consecutive requests at `server`. */
export function gaps(server: FaultServer): number[] {
  return server.requests.slice(1).map((request, i) => request.at - server.requests[i]!.at);
}

export const isIdempotent = (id: OperationId) => operations[id].method === "GET" || operations[id].method === "PUT";

/** A loopback port with nothing listening on it: a connection there is refused. */
export async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ready) => probe.listen(0, "127.0.0.1", ready));
  const { port } = probe.address() as { port: number };
  await new Promise((closed) => probe.close(closed));
  return port;
}
