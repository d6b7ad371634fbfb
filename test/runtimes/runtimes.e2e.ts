// One smoke program (test/runtimes/.smoke/smoke.ts, compiled once in a consumer project with the packed tarball)
// runs against Prism on every runtime users have: Node 20 (this machine), Node 22 and 24, Bun and Deno (each
// fetched from the npm registry by npx), and headless Chromium, where it loads the package's own ESM files
// through an import map and calls Prism cross-origin (CORS). Every runtime must report exactly what the spec's
// examples say. Each also calls a real server that stalls: every attempt must end on time, no connection may still
// hold its request 1 s later (counted by the server), and each process must exit at once when the smoke is done.
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPrism } from "../../scripts/prism.mjs";
import { createConsumerProject, mustRun, type ConsumerProject } from "../package/consumer-project.js";
import { runTimed } from "../support/child-process.js";
import type { StalledServer } from "../resilience/stalled-server.js";
import { launchChromium } from "./chromium.js";
import { expectedSummary, smokeConfig, startSmokeStalledServer } from "./smoke-expectations.js";

let project: ConsumerProject;
let prism: { url: string; close(): Promise<void> };
let stalled: StalledServer;

beforeAll(async () => {
  project = await createConsumerProject();
  const compiled = await project.typecheck("node16");
  if (compiled.code !== 0) throw new Error(`the smoke does not compile:\n${compiled.stdout}${compiled.stderr}`);
  prism = await startPrism({ spec: join(project.dir, "node_modules", "orgagent", "dist", "openapi.json") });
  stalled = await startSmokeStalledServer(prism.url);
});
afterAll(async () => {
  await Promise.all([prism?.close(), stalled?.close()]);
  project?.remove();
});

/** How each runtime is started: the command before the script, and its expected version. */
const runtimes: { name: string; command: string[]; version: RegExp; permissions?: (prismUrl: string, stalledUrl: string) => string[] }[] = [
  { name: "Node 20", command: [process.execPath], version: /^v20\./ },
  { name: "Node 22", command: ["npx", "-y", "node@22"], version: /^v22\./ },
  { name: "Node 24", command: ["npx", "-y", "node@24"], version: /^v24\./ },
  { name: "Bun", command: ["npx", "-y", "bun@1"], version: /^1\./ },
  {
    name: "Deno",
    command: ["npx", "-y", "deno"],
    version: /^deno \d+\./,
    // Least privilege: read the project, talk to Prism, read the ORGAGENT_* variables the client looks up.
    permissions: (prismUrl, stalledUrl) => [
      "run",
      `--allow-read=.`,
      `--allow-net=${new URL(prismUrl).host},${new URL(stalledUrl).host}`,
      "--allow-env=ORGAGENT_API_KEY,ORGAGENT_BASE_URL,ORGAGENT_APP_URL,ORGAGENT_LOG",
    ],
  },
];

describe.each(runtimes)("$name", ({ command, version, permissions }) => {
  const [file, ...prefix] = command as [string, ...string[]];

  test("is the runtime that runs", async () => {
    const result = await mustRun(file, [...prefix, "--version"], { cwd: project.dir, timeout: 300_000 });
    expect(result.stdout.trim()).toMatch(version);
  });

  test("runs the smoke against Prism and a stalled server, then exits at once", async () => {
    const run = await runTimed(join("out", "run.mjs"), [JSON.stringify(smokeConfig(prism.url, stalled.url))], {
      command: [file, ...prefix, ...(permissions?.(prism.url, stalled.url) ?? [])],
      cwd: project.dir,
      killAfter: 300_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const summary = run.lines.find((line) => line.stream === "stdout" && line.text.startsWith("{"))!;
    expect(JSON.parse(summary.text)).toEqual(expectedSummary);
    expect(run.exitedAt! - summary.at).toBeLessThan(1_000);
  });
});

describe("headless Chromium", () => {
  let server: Server;
  let origin: string;
  const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript" };

  beforeAll(async () => {
    // Serves the consumer project (its index.html, out/ and node_modules/) from its own origin.
    server = createServer(async (request, response) => {
      const path = normalize(join(project.dir, decodeURIComponent(new URL(request.url!, "http://x").pathname)));
      if (!path.startsWith(project.dir + sep)) return void response.writeHead(403).end();
      try {
        const body = await readFile(path);
        response.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((closed) => (server ? server.close(() => closed()) : closed())));

  test("runs the smoke from the package's ESM files against Prism, cross-origin", async () => {
    expect(new URL(origin).origin).not.toBe(new URL(prism.url).origin);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`${message.text()} ${message.location().url}`);
      });
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`${origin}/index.html`);
      await page.waitForFunction(() => document.title === "ready");
      const summary = await page.evaluate(
        (config) => (window as unknown as { runSmoke(config: unknown): Promise<unknown> }).runSmoke(config),
        smokeConfig(prism.url, stalled.url),
      );
      expect(summary).toEqual({ ...expectedSummary, browserRefused: true });
      // The browser logs every failed response: the 404 the smoke provokes on purpose, and Prism's 401 at the end of
      // the cross-origin redirect (the browser dropped the key, as the Fetch standard says).
      expect(problems).toEqual([
        expect.stringMatching(/status of 404 \(Not Found\) http:\/\/\S+\/cmp_missing$/),
        expect.stringMatching(new RegExp(`status of 401 \\(Unauthorized\\) ${prism.url}/api/v0/computers/cmp_3e9d0a4b7c2f4e61$`)),
      ]);
    } finally {
      await browser.close();
    }
  });
});
