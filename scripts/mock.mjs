#!/usr/bin/env node
// `npm run mock`: Prism on the bundled spec, 127.0.0.1, port from --port or PORT (default 4010).
import { startPrism } from "./prism.mjs";

const flag = process.argv.indexOf("--port");
const port = Number(flag > 0 ? process.argv[flag + 1] : (process.env.PORT ?? 4010));
const prism = await startPrism({ port, stdio: "inherit" });
console.log(`Mock of both hosts at ${prism.url} (Ctrl-C to stop)`);
const stop = () => prism.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
