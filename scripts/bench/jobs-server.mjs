// The jobs benchmark's server process: emulators of the whole API (the esbuild build of orgagent/emulator), in a
// process of their own so their work does not share the measuring process's event loop. One per configuration given
// as JSON in argv: `{ name: options }`. Prints one line, `{ name: { baseUrl, key, emails? } }` (`emails`, the
// organization's people, when asked with `emails: true`). Then answers lines on stdin:
//   limits <name> <first> <count>   → `{ applied, matching }`: limits set, and how many equal first + i for the
//                                      i-th person (each run of the limits job sets its own values)
// and exits when its parent closes stdin.
import { createInterface } from "node:readline";

const [bundle, configs] = process.argv.slice(2);
const { startEmulator } = await import(bundle);
const emulators = {};
const info = {};
for (const [name, { emails, ...options }] of Object.entries(JSON.parse(configs))) {
  const emulator = await startEmulator(options);
  emulators[name] = emulator;
  info[name] = { baseUrl: emulator.baseUrl, key: emulator.keys.owner, ...(emails ? { emails: emulator.org.users.map((u) => u.email) } : {}) };
}
process.stdout.write(`${JSON.stringify(info)}\n`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const [command, name, first, count] = line.trim().split(/\s+/);
  if (command !== "limits") return;
  const emulator = emulators[name];
  const limits = emulator.limits();
  let matching = 0;
  emulator.org.users.slice(0, Number(count)).forEach((user, i) => {
    if (limits.get(user.email.toLowerCase()) === Number(first) + i) matching++;
  });
  process.stdout.write(`${JSON.stringify({ applied: limits.size, matching })}\n`);
});
lines.on("close", async () => {
  await Promise.all(Object.values(emulators).map((emulator) => emulator.close()));
  process.exit(0);
});
