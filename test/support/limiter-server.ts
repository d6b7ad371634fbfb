// A rate-limited server on 127.0.0.1 in each style real services use (the emulator's limiter, src/emulator/network.ts,
// behind a bare node:http server that answers `{}`): a token bucket with a small burst and whole-second Retry-After,
// fixed windows with X-RateLimit-*, a sliding window, a 429 with no hint, 503 with Retry-After under overload, the IETF
// draft's RateLimit fields. It counts what it accepted and refused, and when, so a test can compare what a client got
// with what the limit allowed over the same time: the rate times the time, without any burst.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { rateLimiter, type EmulatorRateLimit } from "../../src/emulator/network.js";

export interface LimiterServer {
  readonly url: string;
  /** Requests accepted and refused (429 or 503), and when each arrived (performance.now()). */
  readonly accepted: number[];
  readonly refused: number[];
  /** What the limit allowed between the first request's arrival and the last accepted one's: rate × time, no burst. */
  allowed(): number;
  /** Accepted ÷ allowed. */
  fraction(): number;
  /**
   * The same over the second half of the accepted requests (from the middle one's arrival to the last one's): the
   * pace a client keeps once it has learned the limit.
   */
  steadyFraction(): number;
  close(): Promise<void>;
}

export interface LimiterServerOptions extends EmulatorRateLimit {
  /** Milliseconds before each answer leaves (the limit counts the request when it arrives). Default 10. */
  latency?: number;
  /** Every request is counted against this key, whatever it sends. Default: its Authorization header. */
  key?: (req: IncomingMessage) => string;
  /** The body of an accepted request's answer, from the request's JSON body (undefined for none). Default `{}`. */
  answer?: (body: unknown) => unknown;
}

export async function startLimiterServer(options: LimiterServerOptions): Promise<LimiterServer> {
  const { latency = 10, key = (req) => req.headers.authorization ?? "", answer = () => ({}), ...limit } = options;
  const take = rateLimiter(limit)!;
  const accepted: number[] = [];
  const refused: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const arrived = performance.now();
    const verdict = take(key(req));
    (verdict.refused ? refused : accepted).push(arrived);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const status = verdict.refused?.status ?? 200;
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json", ...verdict.headers });
      res.end(JSON.stringify(verdict.refused ? { status } : answer(text ? JSON.parse(text) : undefined)));
    }, latency);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const first = () => Math.min(accepted[0] ?? Infinity, refused[0] ?? Infinity);
  const allowed = () => (limit.requestsPerSecond * (accepted.at(-1)! - first())) / 1000;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted,
    refused,
    allowed,
    fraction: () => accepted.length / allowed(),
    steadyFraction: () => {
      const middle = Math.floor(accepted.length / 2);
      return (accepted.length - 1 - middle) / ((limit.requestsPerSecond * (accepted.at(-1)! - accepted[middle]!)) / 1000);
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
