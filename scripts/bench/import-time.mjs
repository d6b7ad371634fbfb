// Section 5: cold import time. Each sample is a fresh `node` process that times one dynamic import of the
// module (module resolution, loading, evaluation), not Node's own start-up.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { median, root, shuffle } from "./lib.mjs";

const run = promisify(execFile);

async function importOnce(specifier) {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: root });
  return Number(stdout);
}

/** `targets`: [{ name, specifier }]; median ms over `runs` fresh processes each, interleaved. */
export async function measureImports(targets, runs) {
  const samples = new Map(targets.map((t) => [t.name, []]));
  for (const t of targets) await importOnce(t.specifier); // fill the OS file cache first
  for (let r = 0; r < runs; r++) {
    for (const t of shuffle(targets)) samples.get(t.name).push(await importOnce(t.specifier));
  }
  return targets.map((t) => ({ name: t.name, ms: median(samples.get(t.name)) }));
}
