// The captures of README.md replay as they read. Each `$ command` of a console block runs in a pseudo-terminal
// 100 columns wide (test/cli/terminal.py), with the built `orgagent` on the PATH, against the emulator with seed 1,
// as `npm start` serves it, and must show the lines the capture shows. `npm start` itself, run for real (on free
// ports), must print what README.md's text blocks show of it. Both compare after making neutral what moves with the
// clock and the machine: times and dates (the emulator's data follow today's date), ports, temporary directories,
// request ids and the report's size.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanEnv, root } from "../cli/support.js";
import { describeRun, startExampleWorld, type ExampleWorld } from "./example-runner.js";
import { blocksOf, capturesOf } from "./markdown-examples.js";

const COLUMNS = 100;
const readme = readFileSync(join(root, "README.md"), "utf8");
const captures = capturesOf("README.md", readme);
const NPM_START = { api: "http://127.0.0.1:4000", app: "http://127.0.0.1:4001" };

/** Times, dates, request ids and report sizes made neutral; the terminal's line ends and trailing blanks dropped. */
function neutral(text: string): string[] {
  return text
    .replace(/\r\n/g, "\n")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "<time>")
    .replace(/\d{4}-\d{2}-\d{2}/g, "<date>")
    .replace(/\breq_\w+/g, "req_<id>")
    .replace(/\(\d+ kB\)/g, "(<size> kB)")
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line, i, all) => line !== "" || i < all.length - 1);
}

let world: ExampleWorld;

beforeAll(async () => {
  world = await startExampleWorld();
}, 120_000);

afterAll(async () => {
  await world?.close();
});

describe("README.md's terminal captures", () => {
  test("there are some, among them a refused command", () => {
    expect(captures.length).toBeGreaterThanOrEqual(2);
    expect(captures.some((capture) => capture.output[0]?.startsWith("orgagent: "))).toBe(true);
  });

  for (const capture of captures) {
    test(`${capture.where}: $ ${capture.command}`, async () => {
      const run = await world.runOnTerminal(capture.command, COLUMNS);
      const shown = run.stdout.replaceAll(world.emulator.baseUrl, NPM_START.api).replaceAll(world.emulator.appUrl, NPM_START.app);
      expect(neutral(shown), `${capture.where}: ${describeRun(run)}`).toEqual(neutral(capture.output.join("\n")));
    });
  }
});

describe("README.md's captures of npm start", () => {
  test("npm start prints, in this order, the lines README.md's text blocks show (… stands for lines left out)", async () => {
    const temporary = mkdtempSync(join(tmpdir(), "orgagent-npm-start-"));
    const child = spawn(join(root, "node_modules", ".bin", "tsx"), ["src/start.ts"], {
      cwd: root,
      env: cleanEnv({ PORT: "0", TMPDIR: temporary }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk) => (err += chunk));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    // The tour ends with the report's path; then the emulator serves until interrupted.
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk) => {
        out += chunk;
        if (/Tour done\./.test(out)) resolve();
      });
      void exited.then(() => resolve());
    });
    child.kill("SIGINT");
    await exited;
    expect(out, err).toContain("Tour done.");

    const api = /API host \(baseUrl\): (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const app = /app host \(appUrl\): +(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const printed = neutral(out.replaceAll(api, NPM_START.api).replaceAll(app, NPM_START.app).replaceAll(temporary, "/tmp"));

    const blocks = blocksOf(readme, "text");
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      // Each block is a capture of its own; within it, its parts come in the order shown.
      let from = 0;
      const segments = neutral(block.lines.join("\n"))
        .join("\n")
        .split(/^…$/m)
        .map((segment) => segment.replace(/^\n+|\n+$/g, "").split("\n"));
      for (const segment of segments) {
        const at = printed.findIndex((_, i) => i >= from && segment.every((line, j) => printed[i + j] === line));
        expect(
          at,
          `README.md:${block.line}: these lines, in this order, after line ${from} of npm start's output:\n${segment.join("\n")}\n--- npm start printed:\n${printed.join("\n")}`,
        ).toBeGreaterThanOrEqual(0);
        from = at + segment.length;
      }
    }
  }, 120_000);
});
