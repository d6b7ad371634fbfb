// Global setup of `npm run test:docs`: builds the package once (dist/), as the examples use it: the `orgagent` bin
// (dist/cli.js) on the PATH, and `orgagent` as an installed dependency of the shell examples.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { root } from "../cli/support.js";

export default function setup(): void {
  execFileSync(process.execPath, [join(root, "scripts", "build.mjs")], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
}
