// A proxy on 127.0.0.1 in front of a real server (the emulator) that misbehaves on a plan: per request it forwards
// the request, answers 429 itself with a short retry-after-ms, resets the connection before forwarding, or forwards
// and then resets instead of answering (the server did the work; the client cannot know). It counts what it did.
import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ProxyFault = "forward" | "429" | "reset-before" | "reset-after";

export interface FaultProxy {
  url: string;
  counts: Record<ProxyFault, number>;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string, plan: (n: number) => ProxyFault): Promise<FaultProxy> {
  const counts: Record<ProxyFault, number> = { forward: 0, "429": 0, "reset-before": 0, "reset-after": 0 };
  const sockets = new Set<Socket>();
  let n = 0;
  const server = createServer(async (req, res) => {
    const fault = plan(++n);
    counts[fault]++;
    if (fault === "reset-before") return req.socket.resetAndDestroy();
    if (fault === "429") {
      res.writeHead(429, { "content-type": "application/json", "retry-after-ms": "5", "retry-after": "1" });
      return res.end(JSON.stringify({ title: "Too Many Requests", status: 429 }));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type", "accept"]) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const answer = await fetch(`${upstream}${req.url}`, {
      method: req.method ?? "GET",
      headers,
      body: chunks.length ? Buffer.concat(chunks) : null,
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (fault === "reset-after") return req.socket.resetAndDestroy();
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(body);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
