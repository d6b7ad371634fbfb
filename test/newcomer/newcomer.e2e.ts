// A newcomer's first hour, scripted (`npm run test:newcomer`): README.md followed as written, from a fresh clone of
// the repository's HEAD commit (uncommitted changes are not in it).
// 1. In the clone: the set-up commands (`npm ci`, `npm start`; `npm test` too with NEWCOMER_NPM_TEST=1, since CI
//    runs it on a fresh clone already), then every TypeScript example of README.md saved as a file there and run
//    with `npx tsx`, before anything is built: `orgagent` is the source.
// 2. The install from a clone: `npm pack`, then a new project (`npm init -y`) that installs the tarball, with tsx,
//    TypeScript and @types/node beside it. There every TypeScript example type-checks under a strict tsconfig and
//    runs with `npx tsx`, and every shell example runs with the package's `orgagent` on the PATH (as `npx` finds it).
// Every example talks to the emulator `npm start` serves, configured by the `export` line it prints. The examples'
// own machinery is test/docs': which blocks are examples (markdown-examples.ts), how one runs (example-runner.ts).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnv, root, runProcess, type Run } from "../cli/support.js";
import { describeRun, runExample, writeOpeners } from "../docs/example-runner.js";
import { examplesOf, type MarkdownExample } from "../docs/markdown-examples.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const examples = examplesOf("README.md", readme).filter((example) => !example.skip);
const typeScript = examples.filter((example) => example.language === "typescript");
const shell = examples.filter((example) => example.language === "shell");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
const tarball = `orgagent-${manifest.version}.tgz`;
// What README.md tells a newcomer to type, which this run types too (in the same folders: orgagent/, my-project/).
const SETUP = ["git clone https://github.com/orgagent/orgagent.git && cd orgagent", "npm ci ", "npm test ", "npm start "];
const INSTALL = ["cd orgagent && npm pack ", `cd ../my-project && npm install ../orgagent/${tarball}`];
const NPM_START = { api: "http://127.0.0.1:4000", app: "http://127.0.0.1:4001" };

const work = mkdtempSync(join(tmpdir(), "orgagent-newcomer-"));
const clone = join(work, "orgagent");
const project = join(work, "my-project");
const bin = join(work, "bin");
const env = cleanEnv({});
// npx and npm keep their cache under the real HOME; an example that writes files gets a HOME of its own.
const home = process.env.HOME ?? tmpdir();
let emulator: NpmStart | undefined;

interface NpmStart {
  /** The variables of the `export` line `npm start` printed. */
  variables: Record<string, string>;
  stop(): Promise<void>;
}

/** `npm start` in the clone on free ports (`PORT=0`, as README.md offers); resolves when the tour is done. */
async function npmStart(): Promise<NpmStart> {
  // Its own process group: npm does not pass a signal sent to it alone on to the emulator it started.
  const child = spawn("npm", ["start"], { cwd: clone, env: { ...env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGINT");
    } catch {
      // already gone
    }
    await exited;
  };
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk) => (err += chunk));
  const done = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 120_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("Tour done")) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    void exited.then(() => resolve(false));
  });
  if (!done) {
    await stop();
    throw new Error(`npm start did not finish its tour:\n${out}\n${err}`);
  }
  const line = /^\s*export (.+)$/m.exec(out)?.[1] ?? "";
  const variables = Object.fromEntries(line.split(/\s+/).map((pair) => pair.split("=", 2) as [string, string]));
  return { variables, stop };
}

/** A shell command line, typed as README.md shows it, in `cwd`. */
const type = (command: string, cwd: string, timeoutSeconds = 600) =>
  runExample(["bash", "-c", command], { cwd, env, home, timeoutSeconds });

/** An example's code with `npm start`'s usual addresses replaced by those of the running emulator. */
const withAddresses = (example: MarkdownExample) =>
  example.code
    .replaceAll(NPM_START.api, emulator!.variables.ORGAGENT_BASE_URL!)
    .replaceAll(NPM_START.app, emulator!.variables.ORGAGENT_APP_URL!);
const fileName = (example: MarkdownExample) => `readme-${example.where.split(":")[1]}.mts`;
const expectOk = (run: Run, what: string) => expect(run.code, `${what}: ${describeRun(run)}`).toBe(0);

beforeAll(() => {
  mkdirSync(bin);
  writeOpeners(bin);
});

afterAll(async () => {
  await emulator?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe.sequential("a newcomer follows README.md", () => {
  test("README.md shows the commands this run types, and examples of both kinds", () => {
    const commands = readme.split("\n");
    for (const start of [...SETUP, ...INSTALL])
      expect(
        commands.some((line) => line.startsWith(start)),
        start,
      ).toBe(true);
    expect(typeScript.length).toBeGreaterThanOrEqual(5);
    expect(shell.length).toBeGreaterThanOrEqual(2);
    expect(examples.filter((example) => example.error)).toEqual([]);
  });

  test("a fresh clone of the HEAD commit, and npm ci in it", async () => {
    const head = (await runProcess("git", ["rev-parse", "HEAD"], env)).stdout.trim();
    expectOk(await type(`git clone --quiet "${root}" orgagent && git -C orgagent checkout --quiet --detach ${head}`, work), "git clone");
    expectOk(await type("npm ci", clone), "npm ci");
  });

  test.runIf(process.env.NEWCOMER_NPM_TEST === "1")(
    "npm test in the clone",
    async () => {
      expectOk(await type("npm test", clone, 1_800), "npm test");
    },
    1_800_000,
  );

  test("npm start: the emulator and its tour, and the export line to configure the examples", async () => {
    emulator = await npmStart();
    expect(Object.keys(emulator.variables).sort()).toEqual(["ORGAGENT_API_KEY", "ORGAGENT_APP_URL", "ORGAGENT_BASE_URL"]);
  });

  for (const example of typeScript) {
    test(`${example.where}, saved in the clone, runs with npx tsx before any build`, async () => {
      expect(existsSync(join(clone, "dist"))).toBe(false);
      writeFileSync(join(clone, fileName(example)), withAddresses(example));
      const run = await runExample(["npx", "tsx", fileName(example)], {
        cwd: clone,
        env: { ...env, ...emulator!.variables },
        home,
        stdin: example.stdin,
      });
      expectOk(run, example.where);
    });
  }

  test("npm pack in the clone; a new project installs the tarball", async () => {
    expectOk(await type("npm pack", clone), "npm pack");
    expect(existsSync(join(clone, tarball))).toBe(true);
    mkdirSync(project);
    expectOk(await type("npm init -y", project), "npm init");
    const install = INSTALL[1]!.replace(/^cd \.\.\/my-project && /, "");
    expectOk(await type(install, project), install);
    // What the project brings of its own to run and check TypeScript: the versions the repository uses.
    const tools = ["tsx", "typescript", "@types/node"].map((name) => `${name}@${manifest.devDependencies[name]}`);
    expectOk(await type(`npm install --save-dev --prefer-offline --no-audit --no-fund ${tools.join(" ")}`, project), "npm install tools");
    expect(existsSync(join(project, "node_modules", ".bin", "orgagent"))).toBe(true);
  });

  test("README.md's TypeScript examples type-check in the project under a strict tsconfig", async () => {
    const compilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      types: ["node"],
      noEmit: true,
    };
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.mts"] }, null, 2));
    for (const example of typeScript) writeFileSync(join(project, fileName(example)), example.code);
    expectOk(await type("npx tsc -p .", project), "tsc");
  });

  test("a fresh npm start for the project's runs (the clone's runs changed the emulator's state)", async () => {
    await emulator!.stop();
    emulator = await npmStart();
  });

  for (const example of typeScript) {
    test(`${example.where} runs in the project with npx tsx, against the installed package`, async () => {
      writeFileSync(join(project, fileName(example)), withAddresses(example));
      const run = await runExample(["npx", "tsx", fileName(example)], {
        cwd: project,
        env: { ...env, ...emulator!.variables },
        home,
        stdin: example.stdin,
      });
      expectOk(run, example.where);
    });
  }

  for (const example of shell) {
    test(`${example.where} runs in the project, with the package's orgagent on the PATH`, async () => {
      const cwd = mkdtempSync(join(project, "shell-"));
      writeFileSync(join(cwd, "example.sh"), withAddresses(example));
      const path = `${join(project, "node_modules", ".bin")}:${bin}:${process.env.PATH}`;
      const run = await runExample(["bash", "-euo", "pipefail", "example.sh"], {
        cwd,
        env: { ...env, ...emulator!.variables, PATH: path },
        stdin: example.stdin,
      });
      expectOk(run, example.where);
    });
  }
});
