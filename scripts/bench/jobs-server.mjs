// The jobs benchmark's server process: emulators of the whole API (the esbuild build of orgagent/emulator), in a
// process of their own so their work does not share the measuring process's event loop. One per configuration given
// as JSON in argv: `{ name: options }`. Prints one line, `{ name: { baseUrl, key, emails? } }` (`emails`, the
// organization's people, when asked with `emails: true`). Then answers lines on stdin, one line of JSON each:
//   start <name> <options JSON>     → `{ baseUrl, key, emails? }`: one more emulator (a rate-limit style's, say)
//   stop <name>                     → `{}`: closes it
//   limits <name> <first> <count>   → `{ applied, matching }`: limits set, and how many equal first + i for the
//                                      i-th person (each run of the limits job sets its own values)
//   limits <name>                   → `{ limits: [[email, limit], …] }`: every limit set so far
// and exits when its parent closes stdin.
import { createInterface } from "node:readline";

const [bundle, configs] = process.argv.slice(2);
const { startEmulator } = await import(bundle);
const emulators = {};

async function start(name, { emails, ...options }) {
  const emulator = await startEmulator(options);
  emulators[name] = emulator;
  return { baseUrl: emulator.baseUrl, key: emulator.keys.owner, ...(emails ? { emails: emulator.org.users.map((u) => u.email) } : {}) };
}

const info = {};
for (const [name, options] of Object.entries(JSON.parse(configs))) info[name] = await start(name, options);
process.stdout.write(`${JSON.stringify(info)}\n`);

async function answer(line) {
  const [command, name, ...rest] = line.trim().split(/\s+/);
  const emulator = emulators[name];
  if (command === "start") return start(name, JSON.parse(rest.join(" ")));
  if (command === "stop") {
    delete emulators[name];
    await emulator?.close();
    return {};
  }
  if (command !== "limits") return { error: `unknown command ${command}` };
  const limits = emulator.limits();
  if (!rest.length) return { limits: [...limits] };
  const [first, count] = rest.map(Number);
  let matching = 0;
  emulator.org.users.slice(0, count).forEach((user, i) => {
    if (limits.get(user.email.toLowerCase()) === first + i) matching++;
  });
  return { applied: limits.size, matching };
}

// One command at a time, answered in order.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  queue = queue.then(async () => process.stdout.write(`${JSON.stringify(await answer(line))}\n`));
});
lines.on("close", async () => {
  await queue;
  await Promise.all(Object.values(emulators).map((emulator) => emulator.close()));
  process.exit(0);
});
