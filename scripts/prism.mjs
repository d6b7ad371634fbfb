// Starts Prism's mock server on the bundled spec. Used by `npm run mock` and by the tests' global setup.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts `prism mock --errors` (a response that violates the spec becomes a 500) on 127.0.0.1.
 * Resolves once Prism says it is listening; `close()` stops it.
 */
export async function startPrism({ port, spec = join(root, "generated", "openapi.json"), mode = "mock", upstream, stdio } = {}) {
  port ??= await freePort();
  const args = mode === "proxy" ? ["proxy", spec, upstream] : ["mock", spec];
  args.push("--errors", "--host", "127.0.0.1", "--port", String(port));
  const child = spawn(join(root, "node_modules", ".bin", "prism"), args, {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  await new Promise((ready, fail) => {
    // A Prism that never says it is listening is stopped, not left running after the caller gives up.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`Prism did not start within 30 s:\n${log}`));
    }, 30_000);
    const onData = (chunk) => {
      log += chunk;
      if (stdio === "inherit") process.stdout.write(chunk);
      if (log.includes("Prism is listening")) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`Prism exited with ${code}:\n${log}`));
    });
  });
  if (stdio === "inherit") {
    child.stdout.pipe(process.stdout);
    child.stderr.pipe(process.stderr);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}
