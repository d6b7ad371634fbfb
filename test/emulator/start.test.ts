// `npm start`: it prints the two base URLs and a demo key, runs the tour through the SDK, keeps serving, and
// stops cleanly (exit 0) on SIGINT. The test runs the command the `start` script names (npm itself does not
// forward a SIGINT sent to it alone, and on Ctrl+C reports the interrupt with its own exit status).
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type AddressInfo, type Server } from "node:net";
import { expect, test } from "vitest";
import { operations } from "../../generated/spec-tables.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

const startScript = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;

test("npm start: URLs, demo key, the tour and its report, still serving afterwards, exit 0 on SIGINT", async () => {
  const started = Date.now();
  const [bin, ...args] = startScript.split(/\s+/);
  // A network's latency from flags (`npm start -- --latency 5 --jitter 3`), a rate limit from the environment and its
  // style from a flag: the tour still runs through, its calls waiting out any 429.
  const child = spawn(
    join(root, "node_modules", ".bin", bin!),
    [...args, "--latency", "5", "--jitter", "3", "--rate-limit-style", "bucket"],
    {
      cwd: root,
      env: { ...process.env, PORT: "0", RATE_LIMIT: "200", RATE_BURST: "50" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`The tour did not finish within 30 s:\n${stdout}\n${stderr}`)), 30_000);
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("Tour done")) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then((code) => reject(new Error(`npm start exited with ${code} before the tour ended:\n${stdout}\n${stderr}`)));
    });

    const baseUrl = /API host \(baseUrl\): (\S+)/.exec(stdout)?.[1];
    const appUrl = /app host \(appUrl\): +(\S+)/.exec(stdout)?.[1];
    const key = /demo key \(owner\): +(\S+)/.exec(stdout)?.[1];
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(appUrl).not.toBe(baseUrl);
    expect(stdout).toContain("  latency:            5 ms + up to 3 ms of jitter on every answer\n");
    expect(stdout).toContain(
      "  rate limit:         200 requests per second per key (a token bucket, bursts of 50; then 429 with Retry-After)\n",
    );
    expect(stdout).toMatch(/1\. Credits by model, last week[\s\S]*claude-sonnet-4-5/);
    expect(stdout).toMatch(/2\. Top users by credits[\s\S]*@acme-robotics\.com/);
    expect(stdout).toMatch(/3\. A session:\n {3}created sess_\w+ on build-box-eu-1: pending/);
    // What the API shows of the work, then the reply through the emulator's shortcut, labelled as the emulator's.
    expect(stdout).toMatch(
      /status: running\n {3}status: idle\n {3}idle: 2 messages, [\d,]+ tokens in, [\d,]+ out\. That is what the API tells: it lists no messages\.\n/,
    );
    expect(stdout).toMatch(
      /\n {3}The reply, read through the emulator's own shortcut, replyIdOf\(\) \(the real API has none\):\n {5}Done:/,
    );
    // The report of the last 30 days, in the OS temp dir.
    const report = /4\. An analytics report of the last 30 days \(\S+ to \S+\):\n {3}(\S+\.html) \(\d+ kB\)/.exec(stdout)?.[1];
    expect(report && dirname(report)).toBe(tmpdir());
    expect(statSync(report!).mtimeMs).toBeGreaterThanOrEqual(started - 1_000);
    expect(readFileSync(report!, "utf8")).toMatch(/<section id="credits">[\s\S]*<section id="hooks">/);

    // Still serving after the tour, with the printed key.
    const response = await fetch(`${appUrl}${operations.listReadinessReports.path}?limit=1`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(0);
  expect(stderr).toBe("");
});

test("npm start on a port another program holds: which port, for which host, and how to pick others; exit 1", async () => {
  const [bin, ...args] = startScript.split(/\s+/);
  const hold = async (port = 0): Promise<Server> => {
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
    return server;
  };
  const run = (port: number) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(join(root, "node_modules", ".bin", bin!), args, {
        cwd: root,
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  // The API host's port taken; then a free API port whose next port, the app host's, is taken.
  const api = await hold();
  const apiPort = (api.address() as AddressInfo).port;
  let app: Server | undefined;
  let appPort = 0;
  for (let tries = 0; !app && tries < 20; tries++) {
    const probe = await hold();
    appPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    app = await hold(appPort).catch(() => undefined);
    if (app) {
      // PORT = appPort - 1 must be free for this case: the app host's port is the one refused.
      const free = await hold(appPort - 1).catch(() => undefined);
      if (free) await new Promise((resolve) => free.close(resolve));
      else {
        await new Promise((resolve) => app!.close(resolve));
        app = undefined;
      }
    }
  }
  try {
    const [onApi, onApp] = await Promise.all([run(apiPort), run(appPort - 1)]);
    expect(onApi).toMatchObject({ code: 1, stdout: "" });
    expect(onApi.stderr).toBe(
      `Port ${apiPort} on 127.0.0.1, for the API host, is in use: is another \`npm start\` running?\n` +
        "The emulator listens on PORT (default 4000) and PORT+1. Pick others, `PORT=4100 npm start`, or free ones, `PORT=0 npm start`.\n",
    );
    expect(onApp.code).toBe(1);
    expect(onApp.stderr).toMatch(new RegExp(`^Port ${appPort} on 127\\.0\\.0\\.1, for the app host, is in use`));
    expect(onApi.stderr + onApp.stderr).not.toContain("EADDRINUSE");
  } finally {
    await Promise.all([api, app].map((server) => server && new Promise((resolve) => server.close(resolve))));
  }
}, 60_000);
