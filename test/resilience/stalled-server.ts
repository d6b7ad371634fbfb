// A loopback server that holds what it is sent: each request gets `answer` (by default nothing at all, ever), and
// every connection is counted from the server's side, so a test sees exactly which sockets a client left open.
//
// Node's fetch (undici 6 and 7) has a known fault (nodejs/undici#5845): when a request is aborted, undici closes its
// socket at once but then opens a fresh connection to the same origin for the aborted request, drops the request,
// and keeps that connection idle in its pool (reused by the next request; closed after undici's 4 s keep-alive
// timeout; it never keeps the process alive). So the server counts the sockets that hold a request it has not
// answered (what a client must let go of) apart from the rest.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface StalledServer {
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Requests received so far. */
  readonly requests: number;
  /** Connections open now; with `holding`, only those holding a request the server has not answered. */
  open(which?: "holding"): number;
  /** Resolves once no connection (of `which`) is open, or after `ms`; gives the number still open. */
  drained(ms?: number, which?: "holding"): Promise<number>;
  close(): Promise<void>;
}

export type Answer = (res: ServerResponse, req: IncomingMessage, n: number) => void;

/** Never answers: the request is read and held until the client lets go (or the server closes). */
export const never: Answer = () => {};

/** Headers and the start of a JSON body, then nothing more: the body never ends. */
export const headersThenStall =
  (status = 200): Answer =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": "1000" });
    res.write('{"id":"cmp_1",');
  };

/** An error status whose body is `bytes` long so far and never ends. */
export const endlessErrorBody =
  (status: number, bytes: number): Answer =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.write(`{"title":"Service Unavailable","detail":"${"x".repeat(Math.max(0, bytes - 40))}`);
  };

export async function stalledServer(answer: Answer = never): Promise<StalledServer> {
  const sockets = new Set<Socket>();
  const holding = new Set<Socket>();
  let connections = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    const socket = req.socket;
    holding.add(socket);
    res.on("finish", () => holding.delete(socket));
    answer(res, req, ++requests);
  });
  const open = (which?: "holding") => (which ? holding.size : sockets.size);
  server.on("connection", (socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      holding.delete(socket);
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get connections() {
      return connections;
    },
    get requests() {
      return requests;
    },
    open,
    async drained(ms = 1_000, which) {
      for (const started = performance.now(); open(which) > 0 && performance.now() - started < ms; ) {
        await new Promise((tick) => setTimeout(tick, 10));
      }
      return open(which);
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
