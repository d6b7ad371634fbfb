// A real HTTP server on 127.0.0.1 that records every request it receives and answers through a handler.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  /** The request target exactly as it arrived on the wire (path and query, still percent-encoded). */
  target: string;
  /** `target` without the query string. */
  pathname: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none. */
  body: any;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless it is a string. */
  body?: unknown;
}

export type Handler = (request: RecordedRequest) => Reply | Promise<Reply>;

export interface Loopback {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a recorder on a free loopback port; the default handler answers 200 `{}`. */
export async function startLoopback(handler: Handler = () => ({ body: {} })): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const target = req.url ?? "";
    const queryAt = target.indexOf("?");
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      target,
      pathname: queryAt === -1 ? target : target.slice(0, queryAt),
      query: new URLSearchParams(queryAt === -1 ? "" : target.slice(queryAt + 1)),
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(recorded);
    try {
      write(res, await handler(recorded));
    } catch (error) {
      write(res, { status: 599, body: { title: "test handler failed", detail: String(error) } });
    }
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function write(res: ServerResponse, reply: Reply) {
  const isText = typeof reply.body === "string";
  const payload = reply.body === undefined ? "" : isText ? (reply.body as string) : JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, {
    "content-type": isText ? "text/plain" : "application/json",
    ...reply.headers,
  });
  res.end(payload);
}
