// Waiting from the command line: --timeout and --interval in whole seconds over the SDK's waiters, a progress
// line on a terminal, and a timeout as exit 4.
import { type Command, Option } from "commander";
import { WaitTimeoutError, type WaitOptions } from "../index.js";
import type { Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { seconds, type WithOutput } from "./options.js";
import { terminalText } from "./terminal-text.js";

export type WaitFlags = WithOutput<{ timeout: number; interval: number }>;

/** --timeout and --interval of a wait, in whole seconds. */
export function addWaitOptions(command: Command, { timeout }: { timeout: number }): Command {
  return command
    .addOption(
      new Option("--timeout <seconds>", "give up after this many seconds (exit 4)").argParser(seconds("--timeout")).default(timeout),
    )
    .addOption(
      new Option("--interval <seconds>", "first pause between polls, in seconds; later pauses grow up to 5 s")
        .argParser(seconds("--interval"))
        .default(1),
    );
}

/**
 * Runs one of the SDK's waits with the flags' timing and a progress line on a terminal (`what`: "session sess_1").
 * A timeout becomes exit 4 with the last status seen; `check` is the command that shows the resource later.
 */
export async function waitFor<T extends { status?: string | undefined }, R>(
  context: Context,
  flags: WaitFlags,
  what: string,
  check: string,
  wait: (options: WaitOptions<T>) => Promise<R>,
): Promise<R> {
  const progress = context.out.progress();
  try {
    return await wait({
      timeout: flags.timeout * 1000,
      interval: flags.interval * 1000,
      maxInterval: Math.max(5_000, flags.interval * 1000),
      onPoll: (snapshot) => progress(`${what}: ${snapshot.status ?? "?"}`),
    });
  } catch (error) {
    if (!(error instanceof WaitTimeoutError)) throw error;
    const status = (error.snapshot as { status?: string } | undefined)?.status;
    throw new CliError(
      `${what} is ${status ? `still ${terminalText(status)}` : "not settled"} after ${flags.timeout} s.`,
      EXIT.timeout,
      `Wait longer with --timeout SECONDS, or check later with '${check}'.`,
    );
  } finally {
    progress(undefined);
  }
}
