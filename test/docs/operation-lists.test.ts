// The documentation's lists of operations and commands follow the spec and the command tree: the generated tables of
// docs/sdk.md and docs/cli.md are what scripts/operation-docs.mjs renders from the bundle now (`npm run generate`
// rewrites them), and docs/cli.md's table of commands names every command of the CLI.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, test } from "vitest";
import { DOCUMENTS, withBlock } from "../../scripts/operation-docs.mjs";
import { operationsOf } from "../../scripts/reference-spec.mjs";
import { Context } from "../../src/cli/context.js";
import { buildProgram } from "../../src/cli/program.js";
import { root } from "../cli/support.js";
import { spec } from "../support/spec.js";

describe("the generated lists of operations", () => {
  test.each(DOCUMENTS)("$file is what npm run generate writes from the spec", ({ file, name, render }) => {
    const text = readFileSync(join(root, file), "utf8");
    expect(text).toBe(withBlock(text, name, render(spec)));
  });

  test.each(DOCUMENTS)("$file lists every operation of the spec", ({ file }) => {
    const text = readFileSync(join(root, file), "utf8");
    for (const [, , operation] of operationsOf(spec)) expect(text).toContain(`\`${operation.operationId}\``);
  });
});

test("docs/cli.md's table of commands names every command of the CLI", () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  const program = buildProgram(new Context(io));
  const table = readFileSync(join(root, "docs/cli.md"), "utf8").split("## Commands")[1]!.split("\n## ")[0]!;
  const rows = table.split("\n").filter((line) => line.startsWith("| `orgagent"));
  const leaves: string[][] = [];
  const walk = (command: Command, path: string[]) => {
    const visible = command.commands.filter((sub) => !(sub as Command & { _hidden?: boolean })._hidden && sub.name() !== "complete");
    if (!visible.length) leaves.push(path);
    for (const sub of visible) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  expect(leaves.length).toBeGreaterThan(10);
  for (const [group, ...rest] of leaves) {
    const words = (row: string) =>
      row
        .split(/(?<!\\)\|/)[1]!
        .split(/[\s`/\\|[\]]+/)
        .filter(Boolean);
    const documented = rows.some((row) => words(row)[1] === group && rest.every((name) => words(row).includes(name)));
    expect(documented, `orgagent ${[group, ...rest].join(" ")}`).toBe(true);
  }
});
