// The code tool: the model writes a short TypeScript program against the orgagent SDK; it runs in the Deno sandbox
// (sandbox.ts) with a client whose only way out is the sandbox proxy (sandbox-proxy.ts), and the tool answers with
// what the program returned and printed, within the byte budget, the key and the run's token taken out.
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";
import { mcpTools } from "../../generated/mcp-tools.js";
import { compactJson } from "./compact.js";
import { CODE_TOOL } from "./options.js";
import { errorResult, textResult, type ToolResult } from "./results.js";
import type { SandboxProxy } from "./sandbox-proxy.js";
import { runInSandbox, type SandboxRun } from "./sandbox.js";
import type { SandboxSdk } from "./sandbox-sdk.js";

export interface CodeToolSetup {
  readonly deno: string;
  /** Milliseconds a program may run. */
  readonly timeout: number;
  readonly maxResultBytes: number;
  /** The SDK's resources and their methods, `analytics: tokens, tools, …`, for the description. */
  readonly methods: string;
}

// The example's page size: the largest the spec allows.
const USERS_PAGE = (mcpTools.listAnalyticsUsers?.inputSchema.properties.limit as { maximum?: number } | undefined)?.maximum ?? 20;

export function codeToolDefinition(setup: CodeToolSetup) {
  return {
    name: CODE_TOOL,
    title: "Run a program against the orgagent SDK",
    description: [
      "Runs a TypeScript (or JavaScript) program against the orgagent SDK in a sandbox, and answers with what it returns and prints. " +
        "Use it to combine calls, walk long lists and compute totals, so that only the answer comes back.",
      "Write an ES module that defines `async function run(client)`: `client` is an `OrgAgent` of the orgagent SDK, set up for this " +
        'organization. Return a JSON-serialisable value; `console.log` output comes back too. `import { dateRange } from "orgagent"` ' +
        "works: `dateRange.lastDays(7)` is the last 7 days ending yesterday (UTC), as `{ startDate, endDate }`.",
      "Example, the top 5 users by credits last week:\n" +
        "```ts\n" +
        'import { dateRange } from "orgagent";\n' +
        "export async function run(client) {\n" +
        "  const credits = new Map<string, number>();\n" +
        `  for await (const row of client.analytics.users({ ...dateRange.lastDays(7), limit: ${USERS_PAGE} })) {\n` +
        "    const who = row.user_email ?? row.user_id;\n" +
        "    credits.set(who, (credits.get(who) ?? 0) + row.billable_tokens);\n" +
        "  }\n" +
        "  return [...credits].sort((a, b) => b[1] - a[1]).slice(0, 5);\n" +
        "}\n" +
        "```",
      `The client's resources and methods: ${setup.methods}. Lists are async-iterable (\`for await\`); search_docs finds each method's arguments.`,
      `Limits: ${Math.round(setup.timeout / 1000)} s per run, ${setup.maxResultBytes} bytes of answer. The program has no file, environment or ` +
        "network access besides the API through `client`; an operation this server does not allow (a write, unless writes are enabled) " +
        "fails with 403. Nothing persists between runs.",
    ].join("\n\n"),
    inputSchema: {
      type: "object",
      properties: {
        code: {
          type: "string",
          minLength: 1,
          maxLength: 100_000,
          description: "The program: an ES module defining `async function run(client)`.",
        },
      },
      required: ["code"],
      additionalProperties: false,
    },
    // A program may call writes when the server allows them; with writes off it can only read.
    annotations: { title: "Run a program against the orgagent SDK", readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  };
}

/** The SDK's resources and their methods, read off a client: `analytics (tokens, tools, …), sessions (…)`. */
export function describeMethods(client: object): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(client)) {
    if (value === null || typeof value !== "object" || name === "raw") continue;
    const methods = methodsOf(value);
    if (methods.length) parts.push(`client.${name} (${methods.join(", ")})`);
  }
  return parts.join("; ");
}

/**
 * The methods of a resource, its class's and those it inherits (a hand-written subclass over the generated class adds
 * its helpers to the generated methods), each named once, the generated ones first.
 */
function methodsOf(resource: object): string[] {
  const chain: object[] = [];
  for (let proto = Object.getPrototypeOf(resource); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto))
    chain.unshift(proto);
  const names = chain.flatMap((proto) =>
    Object.getOwnPropertyNames(proto).filter((name) => name !== "constructor" && typeof Reflect.get(proto, name) === "function"),
  );
  return [...new Set(names)];
}

export class CodeRunner {
  constructor(
    private readonly setup: CodeToolSetup,
    private readonly sandbox: () => Promise<{ proxy: SandboxProxy; sdk: SandboxSdk; denoDir: string }>,
  ) {}

  async run(code: unknown, signal?: AbortSignal): Promise<ToolResult> {
    if (typeof code !== "string" || !code.trim())
      return errorResult("Invalid argument code: expected the program's source, a non-empty string. Nothing was run.");
    const { proxy, sdk, denoDir } = await this.sandbox();
    const token = proxy.grant();
    const marker = `\u0000orgagent-${randomBytes(8).toString("hex")} `;
    try {
      const run = await runInSandbox(
        this.setup.deno,
        {
          source: programSource(code, marker, token, proxy.origin),
          importMap: sdk.importMap,
          readable: sdk.files,
          net: proxy.address,
          denoDir,
          cwd: dirname(denoDir),
        },
        { timeout: this.setup.timeout, maxOutput: this.#maxOutput(), heapMb: 256 },
        signal,
      );
      const scrub = (text: string) => proxy.scrub(text).split(token).join("***");
      const result = this.#answer(run, marker);
      return { ...result, content: result.content.map((block) => ({ ...block, text: scrub(block.text) })) };
    } finally {
      proxy.revoke(token);
    }
  }

  /** Bytes of output read before a program is stopped: room for a large answer to be cut to the budget here. */
  #maxOutput(): number {
    return Math.max(this.setup.maxResultBytes * 4, 1024 * 1024);
  }

  #answer(run: SandboxRun, marker: string): ToolResult {
    const printed: string[] = [];
    let outcome:
      | { kind: "result"; json?: string; inspected?: string }
      | { kind: "error"; name?: string; message?: string; stack?: string }
      | undefined;
    for (const line of run.stdout.split("\n")) {
      if (!line.startsWith(marker)) {
        if (line) printed.push(line);
        continue;
      }
      const space = line.indexOf(" ", marker.length);
      const kind = line.slice(marker.length, space);
      let value: unknown;
      try {
        value = JSON.parse(line.slice(space + 1));
      } catch {
        continue; // cut by the output limit
      }
      if (kind === "out") printed.push(String(value));
      else if (kind === "err") printed.push(`[stderr] ${String(value)}`);
      else if (kind === "result" || kind === "error") outcome = { kind, ...(value as object) };
    }
    const budget = this.setup.maxResultBytes;
    const output = printedText(printed, Math.floor(budget / 2));
    if (run.stopped === "time")
      return errorResult(`The program was stopped after ${Math.round(this.setup.timeout / 1000)} s, its time limit.${output}`);
    if (run.stopped === "output")
      return errorResult(
        `What the program printed and returned passed ${this.#maxOutput()} bytes, and it was stopped: return and print less (totals, the top few).${output}`,
      );
    if (run.stopped === "cancelled") return errorResult(`The run was cancelled.${output}`);
    if (outcome?.kind === "error") {
      const stack = (outcome.stack || `${outcome.name}: ${outcome.message}`).split("\n").slice(0, 8).join("\n");
      return errorResult(`The program threw ${stack}${output}`);
    }
    if (outcome?.kind !== "result") {
      const said = run.stderr.trim().split("\n").slice(0, 12).join("\n");
      return errorResult(`The program ended without an answer (exit code ${run.exitCode}).${said ? `\n${said}` : ""}${output}`);
    }
    if (outcome.json === undefined)
      return textResult(
        outcome.inspected === undefined ? "The program returned nothing." : `Returned (not JSON): ${outcome.inspected}`,
        ...(output ? [output.trim()] : []),
      );
    const { text, cuts } = compactJson(JSON.parse(outcome.json), budget - Buffer.byteLength(output));
    const note = cuts.length
      ? [`The answer was cut to fit ${budget} bytes: ${cuts.join("; ")}. Return less (totals, the top few) instead.`]
      : [];
    return textResult(text, ...note, ...(output ? [output.trim()] : []));
  }
}

/** What the program printed, within `budget` bytes, as a block of its own. */
function printedText(lines: string[], budget: number): string {
  if (!lines.length) return "";
  let text = lines.join("\n");
  if (Buffer.byteLength(text) > budget)
    text = `${Buffer.from(text).subarray(0, budget).toString("utf8")}\n[printed output cut after ${budget} bytes]`;
  return `\n\nPrinted:\n${text}`;
}

/**
 * The program given to Deno: it sets up the client (the proxy's address, the run's token), routes console output to
 * standard output as marked lines, then imports the model's module at run time (so that its own imports are
 * checked against the sandbox's permissions) and calls its `run`.
 */
function programSource(code: string, marker: string, token: string, origin: string): string {
  const module = `${code}\n;export const __orgagentRun = typeof run === "function" ? run : undefined;\n`;
  return `import * as sdk from "orgagent";
const marker = ${JSON.stringify(marker)};
const encoder = new TextEncoder();
const emit = (kind, value) => {
  const bytes = encoder.encode(marker + kind + " " + JSON.stringify(value) + "\\n");
  for (let at = 0; at < bytes.length; ) at += Deno.stdout.writeSync(bytes.subarray(at));
};
const show = (value) => (typeof value === "string" ? value : Deno.inspect(value, { depth: 8, colors: false, iterableLimit: 200, strAbbreviateSize: 10000 }));
for (const [name, stream] of [["log", "out"], ["info", "out"], ["debug", "out"], ["warn", "err"], ["error", "err"]]) {
  console[name] = (...args) => emit(stream, args.map(show).join(" "));
}
const client = new sdk.OrgAgent({ apiKey: ${JSON.stringify(token)}, baseUrl: ${JSON.stringify(origin)}, appUrl: ${JSON.stringify(origin)}, logLevel: "off" });
Object.defineProperty(globalThis, "client", { value: client });
const url = "data:application/typescript," + encodeURIComponent(${JSON.stringify(module)});
// The module's data: URL (Deno shortens it in stacks) as "program.ts"; of a stack, the frames in the program.
const named = (text) => String(text ?? "").split(url).join("program.ts").replace(/data:application\\/typescript,[^\\s)]*?(?=:\\d+:\\d+)/g, "program.ts");
const frames = (stack) => named(stack).split("\\n").filter((line) => !/^\\s+at /.test(line) || line.includes("program.ts")).join("\\n");
try {
  const program = await import(url);
  const run = program.__orgagentRun ?? (typeof program.default === "function" ? program.default : undefined);
  const result = run ? await run(client) : undefined;
  let json;
  try {
    json = JSON.stringify(result);
  } catch {}
  emit("result", json === undefined ? { inspected: result === undefined ? undefined : show(result) } : { json });
} catch (error) {
  emit("error", { name: named(error?.name), message: named(error?.message ?? error), stack: frames(error?.stack) });
}
Deno.exit(0);
`;
}
