// Starts server.mjs as a child process and resolves to its base URL and a stop function.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export function startServer() {
  const child = spawn(process.execPath, [fileURLToPath(new URL("server.mjs", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`bench server exited early (${code})`)));
    child.stdout.once("data", (line) => {
      const { port } = JSON.parse(String(line));
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners("exit");
            child.once("exit", done);
            child.stdin.end();
          }),
      });
    });
  });
}
