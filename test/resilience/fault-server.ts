// A loopback API server that misbehaves on purpose. It serves all operations of the spec (each answer is the
// spec's first example for that method and path template) and, per request, does what a plan says: answer
// normally, answer with an error status, reset the connection before or after acting, stall, truncate the body,
// or send arbitrary bytes. It records every write it applied, keyed by the `x-test-call-id` header that a test
// sets once per logical call (the SDK's retries reuse it), so a write applied twice for one call is visible.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { deref, specOperation } from "../support/spec.js";
import { Random } from "../../src/emulator/random.js";

export type Fault =
  /** Applies a write and answers the spec's success example. */
  | { kind: "ok" }
  /** Answers this status without acting (the spec's example body for it, if any). */
  | { kind: "status"; status: number; headers?: Record<string, string> | undefined }
  /** Resets the connection (TCP RST) after the headers arrived, before reading the body or acting. */
  | { kind: "reset-before-read" }
  /** Reads the body, applies the write, then resets the connection: the client cannot know it was applied. */
  | { kind: "reset-after-apply" }
  /** Applies the write and answers normally after `ms`. */
  | { kind: "slow"; ms: number }
  /** Applies the write and never answers (until the client gives up or the server closes). */
  | { kind: "stall" }
  /** Applies the write, promises a longer body in Content-Length than it sends, then closes. */
  | { kind: "truncate" }
  /** Applies the write and answers exactly these bytes. */
  | { kind: "raw"; status?: number; headers?: Record<string, string>; body: string };

export interface ReceivedRequest {
  /** 1-based arrival number on this server. */
  n: number;
  /** performance.now() when the request arrived. */
  at: number;
  method: string;
  pathname: string;
  operationId: OperationId | undefined;
  callId: string | undefined;
  /** 1-based attempt of this logical call (by `x-test-call-id`), else equal to `n`. */
  attempt: number;
  headers: IncomingHttpHeaders;
  /** The request body as received; undefined when the connection was reset before reading it. */
  body?: string;
  fault: Fault["kind"];
}

export interface AppliedWrite {
  /** Assigned by the server, never by the client. */
  writeId: number;
  operationId: OperationId;
  callId: string | undefined;
}

export interface FaultServer {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  writes: AppliedWrite[];
  /** Calls (by `x-test-call-id`) of non-idempotent operations whose write was applied more than once. */
  duplicateWrites(): string[];
  /** Connections open now, and how many of them hold a request the server has not answered (a stall, say). */
  sockets(): { open: number; holding: number };
  close(): Promise<void>;
}

export type Plan = (request: Omit<ReceivedRequest, "fault">) => Fault;

const WRITES = new Set((Object.keys(operations) as OperationId[]).filter((id) => operations[id].method !== "GET"));
const IDEMPOTENT = (id: OperationId) => ["GET", "PUT"].includes(operations[id].method);

const routes = (Object.keys(operations) as OperationId[]).map((operationId) => {
  const { method, path } = operations[operationId];
  const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
  return { operationId, method, pattern };
});

export function operationFor(method: string, pathname: string): OperationId | undefined {
  return routes.find((route) => route.method === method && route.pattern.test(pathname))?.operationId;
}

const examples = new Map<string, unknown>();
/** The spec's first example for an operation's response `status`, or undefined. */
function exampleBody(operationId: OperationId, status: number): unknown {
  const key = `${operationId} ${status}`;
  if (!examples.has(key)) examples.set(key, findExample(operationId, status));
  return examples.get(key);
}
function findExample(operationId: OperationId, status: number): unknown {
  const op = specOperation(operationId);
  const response = deref(op.responses[String(status)] ?? op.responses.default);
  const media = response?.content?.["application/json"];
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  return first === undefined ? undefined : deref(first).value;
}

/** Listens on 127.0.0.1, on `port` if given (a test that needs a port nobody listened on yet), else a free one. */
/** The spec's first success example of an operation: what a healthy server answers. */
export const success = (operationId: OperationId) => exampleBody(operationId, operations[operationId].successStatus);

export async function startFaultServer(plan: Plan, port = 0): Promise<FaultServer> {
  const requests: ReceivedRequest[] = [];
  const writes: AppliedWrite[] = [];
  const attemptsByCall = new Map<string, number>();
  const sockets = new Set<Socket>();
  const holding = new Set<Socket>();

  const server = createServer(async (req, res) => {
    const socket = req.socket;
    holding.add(socket);
    res.on("finish", () => holding.delete(socket));
    const n = requests.length + 1;
    const at = performance.now();
    const method = req.method ?? "";
    const pathname = new URL(req.url ?? "/", "http://x").pathname;
    const operationId = operationFor(method, pathname);
    const callId = typeof req.headers["x-test-call-id"] === "string" ? req.headers["x-test-call-id"] : undefined;
    const attempt = callId ? (attemptsByCall.get(callId) ?? 0) + 1 : n;
    if (callId) attemptsByCall.set(callId, attempt);
    const info = { n, at, method, pathname, operationId, callId, attempt, headers: req.headers };
    const fault: Fault = operationId ? plan(info) : { kind: "status", status: 404 };
    const received: ReceivedRequest = { ...info, fault: fault.kind };
    requests.push(received);

    if (fault.kind === "reset-before-read") return req.socket.resetAndDestroy();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer); // the whole body, before acting on it
    received.body = Buffer.concat(chunks).toString("utf8");
    const apply = () => {
      if (operationId && WRITES.has(operationId)) writes.push({ writeId: writes.length + 1, operationId, callId });
    };
    switch (fault.kind) {
      case "status":
        return json(res, fault.status, operationId && exampleBody(operationId, fault.status), fault.headers);
      case "reset-after-apply":
        apply();
        return req.socket.resetAndDestroy();
      case "stall":
        apply();
        return; // the socket is destroyed by the client's abort, or by close()
      case "slow": {
        apply();
        const timer = setTimeout(() => json(res, operations[operationId!].successStatus, success(operationId!)), fault.ms);
        return res.on("close", () => clearTimeout(timer));
      }
      case "truncate": {
        apply();
        const body = JSON.stringify(success(operationId!));
        res.writeHead(operations[operationId!].successStatus, {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
        });
        return res.write(body.slice(0, Math.floor(body.length / 2)), () => res.destroy());
      }
      case "raw":
        apply();
        res.writeHead(fault.status ?? 200, fault.headers);
        return res.end(fault.body);
      case "ok":
        apply();
        return json(res, operations[operationId!].successStatus, success(operationId!));
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      holding.delete(socket);
    });
  });
  await new Promise<void>((ready) => server.listen(port, "127.0.0.1", ready));
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    writes,
    duplicateWrites() {
      const applied = new Map<string, number>();
      for (const write of writes) {
        if (write.callId && !IDEMPOTENT(write.operationId)) applied.set(write.callId, (applied.get(write.callId) ?? 0) + 1);
      }
      return [...applied].filter(([, count]) => count > 1).map(([callId]) => callId);
    },
    sockets: () => ({ open: sockets.size, holding: holding.size }),
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

/** A deterministic generator (the emulator's mulberry32), enough to spread faults reproducibly. */
export function prng(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * Faults drawn from `seed`, the call id and the attempt number, so the same call meets the same faults
 * whatever the interleaving of concurrent calls. About half of all attempts misbehave.
 */
export function seededPlan(seed: number): Plan {
  return ({ callId, attempt, n }) => {
    const random = prng(seed ^ hash(`${callId ?? n}#${attempt}`));
    const roll = random();
    if (roll < 0.45) return { kind: "ok" };
    if (roll < 0.55) {
      // Small waits the client honours, an HTTP date, and a 1 s wait that is over a test's cap.
      const waits: Record<string, string>[] = [
        { "retry-after-ms": String(Math.floor(random() * 40)) },
        { "retry-after": "0" },
        { "retry-after": new Date().toUTCString() },
        { "retry-after": "1" },
      ];
      return { kind: "status", status: 429, headers: waits[Math.floor(random() * waits.length)]! };
    }
    if (roll < 0.67) return { kind: "status", status: [500, 502, 503][Math.floor(random() * 3)]! };
    if (roll < 0.75) return { kind: "reset-before-read" };
    if (roll < 0.83) return { kind: "reset-after-apply" };
    if (roll < 0.9) return { kind: "stall" };
    return { kind: "truncate" };
  };
}
