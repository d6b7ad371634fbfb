// The loopback server of the throughput and pagination sections, run as its own process so it does not share
// the measuring process's event loop. Answers GET /users (listAnalyticsUsers) with the spec's example page; with
// an `x-bench-rows: N` header it serves N generated rows in cursor pages instead (`limit` per page).
// Prints `{"port":N}` once listening; exits when its parent closes stdin.
import { createServer } from "node:http";
import { fixtures } from "./lib.mjs";

const { path, page } = fixtures.users;
const examplePage = Buffer.from(JSON.stringify(page));
const template = page.data[0];
const userId = (index) => `user_bench_${String(index).padStart(8, "0")}`;

function generatedPage(total, cursor, limit) {
  const start = cursor ? Number(cursor.slice("user_bench_".length)) : 0;
  const end = Math.min(total, start + limit);
  const data = [];
  for (let i = start; i < end; i++) data.push({ ...template, user_id: userId(i) });
  const hasMore = end < total;
  return JSON.stringify({ data, meta: { ...page.meta, has_more: hasMore, next_cursor: hasMore ? userId(end) : null } });
}

const server = createServer((request, response) => {
  const url = new URL(request.url, "http://127.0.0.1");
  if (request.method !== "GET" || url.pathname !== path) {
    response.writeHead(404, { "content-type": "application/json" }).end('{"title":"Not Found"}');
    return;
  }
  const rows = request.headers["x-bench-rows"];
  const body = rows
    ? Buffer.from(generatedPage(Number(rows), url.searchParams.get("cursor"), Number(url.searchParams.get("limit") ?? 20)))
    : examplePage;
  response.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.stdin.on("end", () => process.exit(0)).resume();
