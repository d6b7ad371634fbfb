#!/usr/bin/env node
// `orgagent`: the SDK on the command line, for an admin's everyday jobs. Configured by ORGAGENT_API_KEY,
// ORGAGENT_BASE_URL and ORGAGENT_APP_URL or by the matching flags. The commands live in src/cli/, one file per
// command group over shared output helpers (output.ts) and error wording (errors.ts).
//
// Exit codes: 0 success; 1 the API answered with an error or could not be reached (or any other failure);
// 2 bad usage or input (unknown command or option, missing configuration, a value the API would reject,
// a malformed CSV row), reported before anything is sent; 3 partial failure: some entries were rejected
// (limits set); 4 timed out waiting (sessions wait, computers wait, sessions send --wait).
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { run } from "./cli/program.js";

export { run } from "./cli/program.js";
export { EXIT } from "./cli/errors.js";
export { parseLimitsCsv } from "./cli/limits.js";

// Run when this file is the program (node src/cli.ts, tsx, the bundled bin through its symlink), not when imported.
function isProgram(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isProgram()) {
  // A reader that stops early (`orgagent … | head -1`) closes the pipe: end quietly, as other CLIs do, instead of
  // an unhandled EPIPE. Nothing more can be printed, so there is no point in finishing the command.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(0);
      throw error;
    });
  }
  run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
