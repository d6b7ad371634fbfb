// The emulator-load benchmark's server process: one emulator (the esbuild build of orgagent/emulator) and a watch on
// its event loop. Prints `{ baseUrl, key }`, then answers lines on stdin: `reset` clears the figures, `stats` prints
// `{ longestBlockMs, blockedOver50Ms }`: the longest time the loop could not run a 1 ms timer, and the total of
// blocks over 50 ms. Exits when its parent closes stdin.
import { createInterface } from "node:readline";

const [bundle] = process.argv.slice(2);
const { startEmulator } = await import(bundle);
const emulator = await startEmulator({ seed: 1 });

let longest = 0;
let over50 = 0;
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const blocked = now - last - 1;
  if (blocked > longest) longest = blocked;
  if (blocked > 50) over50 += blocked;
  last = now;
}, 1);

process.stdout.write(`${JSON.stringify({ baseUrl: emulator.baseUrl, key: emulator.keys.owner })}\n`);
createInterface({ input: process.stdin })
  .on("line", (line) => {
    if (line === "reset") (longest = 0), (over50 = 0);
    if (line === "stats")
      process.stdout.write(`${JSON.stringify({ longestBlockMs: Math.round(longest), blockedOver50Ms: Math.round(over50) })}\n`);
  })
  .on("close", async () => {
    await emulator.close();
    process.exit(0);
  });
