// The consumer program type-checks against the packed declarations with every TypeScript a user may have:
// the oldest supported (5.4), the repo's own (5.9), 6.0, and 7.0 (the native compiler). Each extra compiler is
// installed once into node_modules/.cache/typescript-versions/<version>, never into package.json.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, test } from "vitest";
import {
  consumerConfigs,
  createConsumerProject,
  mustRun,
  repoTsc,
  root,
  type ConsumerConfig,
  type ConsumerProject,
} from "./consumer-project.js";

const cache = join(root, "node_modules", ".cache", "typescript-versions");
const repoVersion: string = (await import("typescript")).version;
/** The matrix; 5.9 is the repo's own compiler. */
const versions = ["5.4.5", repoVersion, "6.0.3", "7.0.2"];

/** The path of `tsc` of a TypeScript version, installed into the cache on first use. */
async function tscOf(version: string): Promise<string> {
  if (version === repoVersion) return repoTsc;
  const prefix = join(cache, version);
  const bin = join(prefix, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(bin)) {
    mkdirSync(prefix, { recursive: true });
    await mustRun("npm", ["install", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", `typescript@${version}`], {
      cwd: root,
      timeout: 300_000,
    });
  }
  return bin;
}

let project: ConsumerProject;
const compilers = new Map<string, string>();
beforeAll(async () => {
  project = await createConsumerProject();
  for (const version of versions) compilers.set(version, await tscOf(version));
});
afterAll(() => project?.remove());

// Concurrent: each check is one compiler process; two at a time use both cores.
describe.concurrent.each(versions)("TypeScript %s", (version) => {
  test("is the compiler that runs", async ({ expect }) => {
    const result = await mustRun(process.execPath, [compilers.get(version)!, "--version"], { cwd: project.dir });
    expect(result.stdout.trim()).toBe(`Version ${version}`);
  });

  test.for(Object.keys(consumerConfigs) as ConsumerConfig[])("type-checks the consumer: %s", async (config, { expect }) => {
    const result = await project.typecheck(config, compilers.get(version), ["--noEmit"]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
