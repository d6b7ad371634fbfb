// Entry of the smoke on Node, Bun and Deno (ESM): the config comes as JSON in the first argument, the summary
// goes to stdout as one JSON line.
import { runSmoke } from "./smoke.js";

const summary = await runSmoke(JSON.parse(process.argv[2]));
console.log(JSON.stringify(summary));
