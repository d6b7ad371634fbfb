// Help and the small conventions of a command-line tool, as `gh` keeps them: every help within the terminal's width
// (80 columns when piped), examples broken into lines that still paste, descriptions in one case, `-v` as `-V`,
// `help NAME` naming the command once, and bash completion with or without the bash-completion package.
import { existsSync } from "node:fs";
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Context } from "../../src/cli/context.js";
import { wrapHelp } from "../../src/cli/help.js";
import { buildProgram, walk } from "../../src/cli/program.js";
import { bundleCli, cleanEnv, runOnTerminal, runProcess, writeFile } from "./support.js";

let bundle: string;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ dir, bundle } = await bundleCli());
  // `orgagent` on the PATH, as after `npm install -g`: the completion script calls it back by that name.
  writeFile(dir, "orgagent", `#!/bin/sh\nexec "${process.execPath}" "${bundle}" "$@"\n`);
  await runProcess("chmod", ["755", `${dir}/orgagent`], process.env);
  env = cleanEnv({ PATH: `${dir}:${process.env.PATH}` });
});
afterAll(() => undefined);

const orgagent = (args: string[]) => runProcess(process.execPath, [bundle, ...args], env);
const lines = (text: string) => text.replace(/\r\n/g, "\n").trimEnd().split("\n");

/** Every command's help as a terminal `columns` wide would show it (stdout a terminal of that width). */
function helpAt(columns: number): Map<string, string> {
  const stdout = Object.assign(new PassThrough(), { isTTY: true, columns });
  let text = "";
  stdout.on("data", (chunk) => (text += chunk));
  const program = buildProgram(new Context({ stdout, stderr: new PassThrough() }));
  const helps = new Map<string, string>();
  for (const command of walk(program)) {
    if (command.name() === "complete") continue;
    text = "";
    command.outputHelp();
    helps.set(pathOf(command), text);
  }
  return helps;
}
const pathOf = (command: Command): string => (command.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name());

/** The example commands of a help, each joined back from its broken lines (` \` + newline + indent), spaces collapsed. */
const examplesOf = (help: string) =>
  help
    .split("\nExamples:\n")[1]!
    .replace(/ \\\n +/g, " ")
    .split("\n")
    .filter((line) => line.startsWith("  $ "))
    // Spaces that align comments may go where a line breaks: the same command to the shell.
    .map((line) => line.replace(/ {2,}/g, " "));

describe("help", () => {
  test("every help of every command fits the terminal's width, and its examples are the same commands, broken with \\", () => {
    const wide = helpAt(1000);
    expect(wide.size).toBeGreaterThan(25);
    for (const columns of [50, 64, 80, 120]) {
      for (const [command, help] of helpAt(columns)) {
        // The one exception: a word that cannot break (a quoted argument of an example) longer than the room left.
        const long = lines(help).filter((line) => line.length > columns && !/^\s*(\$ )?\S+( \\)?$/.test(line));
        expect(long, `${command} at ${columns} columns`).toEqual([]);
        expect(examplesOf(help), `${command} at ${columns} columns`).toEqual(examplesOf(wide.get(command)!));
      }
    }
  });

  test("on a real terminal 60 columns wide, and piped (80 columns)", async () => {
    const [terminal, piped] = await Promise.all([
      runOnTerminal(bundle, ["limits", "set", "--help"], env, 60),
      orgagent(["limits", "set", "--help"]),
    ]);
    expect([terminal.code, piped.code]).toEqual([0, 0]);
    expect(Math.max(...lines(terminal.stdout).map((line) => line.length))).toBeLessThanOrEqual(60);
    expect(Math.max(...lines(piped.stdout).map((line) => line.length))).toBeLessThanOrEqual(80);
    // The prose after the options is reflowed, not cut: the same words at both widths.
    const words = (text: string) => text.split("\nThe file has")[1]!.split("\nExamples:")[0]!.split(/\s+/).join(" ");
    expect(words(lines(terminal.stdout).join("\n"))).toBe(words(piped.stdout));
  });

  test("prose reflows; an item hangs under its description; an example breaks outside quotes and comments", () => {
    expect(wrapHelp("A line of prose that is long enough to need wrapping\nat forty.", 40)).toBe(
      "A line of prose that is long enough to\nneed wrapping at forty.",
    );
    expect(wrapHelp("Lines that fit\nstay as they are.", 40)).toBe("Lines that fit\nstay as they are.");
    expect(wrapHelp("  2  bad usage or input, found before anything was sent", 40)).toBe(
      "  2  bad usage or input, found before\n     anything was sent",
    );
    expect(wrapHelp(`  $ printf 'a b c d e f g' | orgagent limits set --file -   # from stdin`, 40)).toBe(
      ["  $ printf 'a b c d e f g' | orgagent \\", "      limits set --file - # from stdin"].join("\n"),
    );
    expect(wrapHelp("short\n  $ fits", 40)).toBe("short\n  $ fits");
  });

  test("every description starts with a capital letter: commands, arguments, options and the help option", () => {
    const program = buildProgram(new Context({ stdout: new PassThrough(), stderr: new PassThrough() }));
    const descriptions: string[] = [];
    for (const command of walk(program)) {
      descriptions.push(command.description());
      for (const argument of command.registeredArguments) descriptions.push(argument.description);
      for (const option of command.createHelp().visibleOptions(command)) descriptions.push(option.description);
    }
    // The exit codes under the program's help too.
    const exitCodes = helpAt(1000).get("orgagent")!.split("Exit codes:\n")[1]!.split("\n\n")[0]!.split("\n");
    expect(exitCodes).toHaveLength(5);
    descriptions.push(...exitCodes.map((line) => line.replace(/^ +\d +/, "")));
    expect(descriptions.length).toBeGreaterThan(100);
    expect(descriptions.filter((text) => text && !/^[A-Z0-9(-]/.test(text))).toEqual([]);
  });

  test("-v prints the version, as -V and --version do", async () => {
    const runs = await Promise.all([orgagent(["-v"]), orgagent(["-V"]), orgagent(["--version"])]);
    expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual(runs.map(() => [0, runs[2]!.stdout, ""]));
    expect(runs[0]!.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  test("help of an unknown command names it as typed, with the program's name once", async () => {
    const [top, sub] = await Promise.all([orgagent(["help", "nonexistent"]), orgagent(["help", "analytics", "costs"])]);
    expect(top).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "orgagent: unknown command 'nonexistent'.\nRun 'orgagent --help' for its commands.\n",
    });
    expect(sub.stderr).toBe("orgagent: unknown command 'analytics costs'.\nRun 'orgagent analytics --help' for its commands.\n");
  });
});

describe.concurrent("bash completion", () => {
  const complete = (setup: string) =>
    [
      setup,
      "source <(orgagent completion bash)",
      "source <(orgagent completion bash)", // a second time, as a re-read ~/.bashrc does
      'COMP_LINE="orgagent analytics to"; COMP_WORDS=(orgagent analytics to); COMP_CWORD=2; COMP_POINT=${#COMP_LINE}',
      '__orgagent_complete; printf "%s\\n" "${COMPREPLY[@]}"',
      'COMP_LINE="orgagent analytics tools --group-by "; COMP_WORDS=(orgagent analytics tools --group-by ""); COMP_CWORD=4; COMP_POINT=${#COMP_LINE}',
      '__orgagent_complete; printf "%s\\n" "${COMPREPLY[@]}"',
    ].join("\n");

  test("works in a bash without the bash-completion package, and the script can be sourced twice", async () => {
    const result = await runProcess("bash", ["--norc", "--noprofile", "-c", complete("declare -F _get_comp_words_by_ref && exit 9")], env);
    expect(result).toMatchObject({ code: 0, stdout: "tokens\ntools\ntool_name\n", stderr: "" });
  });

  const bashCompletion = "/usr/share/bash-completion/bash_completion";
  test.runIf(existsSync(bashCompletion) || process.env.CI === "true")("works with the bash-completion package loaded", async () => {
    const result = await runProcess("bash", ["--norc", "--noprofile", "-c", complete(`source ${bashCompletion}`)], env);
    expect(result).toMatchObject({ code: 0, stdout: "tokens\ntools\ntool_name\n" });
  });

  test("completion --help says what the scripts need", async () => {
    const { stdout } = await orgagent(["completion", "--help"]);
    expect(stdout.replace(/\s+/g, " ")).toContain("so orgagent must be on the PATH. bash needs no bash-completion package.");
  });
});
