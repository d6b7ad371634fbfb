// The command tree: global flags, help (with examples, required flags marked and the global flags shown in every
// subcommand's help), --version, `help <command> <subcommand>`, shell completion, and each command group.
import { Command, CommanderError, Help, Option } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { analyticsCommands } from "./analytics.js";
import { apiCommand } from "./api.js";
import { addCompletion } from "./completion.js";
import { computerCommands } from "./computers.js";
import { Context, REQUEST_TIMEOUT_DEFAULT, commandPath } from "./context.js";
import { controlsCommands } from "./controls.js";
import { CliError, EXIT, explain } from "./errors.js";
import { limitsCommands } from "./limits.js";
import { capitalizeDescriptions, helpLayout, helpOutput } from "./help.js";
import { mcpCommand } from "./mcp.js";
import { examples, seconds } from "./options.js";
import type { Io } from "./output.js";
import { readinessCommands } from "./readiness.js";
import { reportCommand } from "./report.js";
import { sessionCommands } from "./sessions.js";

const EXIT_CODES = [
  "",
  "Exit codes:",
  "  0  Success",
  "  1  The API answered with an error, could not be reached, or another failure",
  "  2  Bad usage or input, found before anything was sent",
  "  3  Partial failure: some entries were rejected (limits set)",
  "  4  Timed out waiting (sessions wait, computers wait, sessions send --wait)",
].join("\n");

export function buildProgram(context: Context): Command {
  const { io } = context;
  const program = new Command("orgagent")
    .description("Organization analytics, usage limits, sessions and computers from the command line.")
    .version(pkg.version, "-V, --version", "print the version of orgagent (also -v)")
    .addOption(new Option("-v").hideHelp())
    .addOption(new Option("--api-key <key>", "API key or JWT").env("ORGAGENT_API_KEY"))
    .addOption(new Option("--base-url <url>", "API host, e.g. https://api.example.com").env("ORGAGENT_BASE_URL"))
    .addOption(new Option("--app-url <url>", "app host, which serves readiness reports").env("ORGAGENT_APP_URL"))
    .addOption(
      new Option(
        "--request-timeout <seconds>",
        `give up on a request after this many seconds; the SDK retries reads up to twice (default: ${REQUEST_TIMEOUT_DEFAULT})`,
      )
        .env("ORGAGENT_REQUEST_TIMEOUT")
        .argParser(seconds("--request-timeout")),
    )
    .option("--debug", "log every request and answer on stderr, credentials redacted (or set ORGAGENT_LOG=debug)")
    .configureOutput(helpOutput(io))
    .helpOption("-h, --help", "Show help for the command")
    .configureHelp({
      ...helpLayout,
      showGlobalOptions: true,
      optionDescription: (option) => `${new Help().optionDescription(option)}${option.mandatory ? " (required)" : ""}`,
    })
    .exitOverride()
    .helpCommand(false)
    .addHelpText("after", EXIT_CODES)
    // -v as -V: the version, and nothing else.
    .on("option:v", () => {
      io.stdout.write(`${pkg.version}\n`);
      throw new CommanderError(EXIT.ok, "commander.version", pkg.version);
    });
  examples(program, [
    "export ORGAGENT_BASE_URL=http://127.0.0.1:4000 ORGAGENT_API_KEY=oa-emulator-owner",
    "orgagent analytics tokens --days 7 --group-by model",
    "orgagent report --days 30",
    "orgagent help analytics users",
    "source <(orgagent completion bash)",
  ]);

  analyticsCommands(program, context);
  reportCommand(program, context);
  limitsCommands(program, context);
  sessionCommands(program, context);
  computerCommands(program, context);
  readinessCommands(program, context);
  controlsCommands(program, context);
  apiCommand(program, context);
  mcpCommand(program, context);

  const help = program
    .command("help")
    .description("show the help of a command or subcommand")
    .argument("[command...]", "a command and its subcommand, e.g. analytics users")
    .action((names: string[]) => {
      let target = program;
      for (const [i, name] of names.entries()) {
        const next = target.commands.find((c) => c.name() === name || c.aliases().includes(name));
        // Named as typed after `help`: `orgagent: unknown command 'analytics costs'`, the program's name once.
        if (!next)
          throw new CliError(
            `unknown command '${names.slice(0, i + 1).join(" ")}'.`,
            EXIT.usage,
            `Run '${commandPath(target)} --help' for its commands.`,
          );
        target = next;
      }
      target.outputHelp();
    });
  examples(help, ["orgagent help analytics", "orgagent help analytics users"]);

  // Descriptions in one case before the completion reads them from the tree.
  capitalizeDescriptions(program);
  addCompletion(program, io);

  for (const command of walk(program)) command.showHelpAfterError(`Run '${commandPath(command)} --help' for usage.`);
  return program;
}

/** Runs the CLI and returns its exit code (never calls process.exit, so output is always flushed). */
export async function run(argv: readonly string[], io: Io = process): Promise<number> {
  const context = new Context(io);
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: "user" });
    await context.out.settled();
    return context.exitCode;
  } catch (error) {
    // commander has printed its own message; help and --version end with 0, every other parse failure is usage.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const { message, hint, exitCode } = explain(error, context);
    io.stderr.write(`orgagent: ${message}\n${hint ? `${hint}\n` : ""}`);
    return exitCode;
  }
}

export function* walk(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* walk(sub);
}
