// Long tables on a terminal go through a pager, as `gh` does: the command in ORGAGENT_PAGER, else PAGER, run by the
// shell with the terminal as its output. No pager when stdout is not a terminal, when neither variable is set (or it
// is empty, or `cat`), or when the table fits on the screen. `less` gets LESS=FRX unless LESS is set: it quits by
// itself when the text fits, keeps colours, and leaves the text on the screen.
import { spawn } from "node:child_process";
import type { Io } from "./io.js";

/** The pager command to use for `lines` lines of output, or undefined to write them directly. */
export function pagerFor(io: Io, env: Readonly<Record<string, string | undefined>>, lines: number): string | undefined {
  const stdout = io.stdout as Io["stdout"] & { rows?: number };
  if (!stdout.isTTY) return undefined;
  const command = (env.ORGAGENT_PAGER ?? env.PAGER ?? "").trim();
  if (command === "" || command === "cat") return undefined;
  // Without a height (not a real terminal), page anything long.
  if (lines < (stdout.rows || 25)) return undefined;
  return command;
}

/**
 * Shows `text` through the pager and resolves when the pager has exited (the reader quit early: fine). A pager that
 * cannot be started (127: not found, 126: not runnable) is reported and the text written as it is.
 */
export function page(text: string, command: string, io: Io, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(command, {
      shell: true,
      stdio: ["pipe", "inherit", "inherit"],
      env: { ...env, LESS: env.LESS ?? "FRX", LV: env.LV ?? "-c" },
    });
    // Ctrl+C is the pager's while it runs (less ignores it): ending the CLI under it would leave the terminal to a
    // pager reading from a pipe that has gone. git does the same.
    const ignore = () => {};
    process.on("SIGINT", ignore);
    let done = false;
    const finish = (failed: boolean) => {
      if (done) return;
      done = true;
      process.off("SIGINT", ignore);
      if (failed) {
        io.stderr.write(
          `orgagent: the pager ${JSON.stringify(command)} (${env.ORGAGENT_PAGER !== undefined ? "ORGAGENT_PAGER" : "PAGER"}) could not run; printing without it.\n`,
        );
        io.stdout.write(text);
      }
      resolve();
    };
    child.on("error", () => finish(true));
    child.on("close", (code) => finish(code === 126 || code === 127));
    // The reader quit before reading everything (q in less): nothing more to show.
    child.stdin.on("error", () => {});
    child.stdin.end(text);
  });
}
