// `orgagent api [METHOD] PATH`: any operation of the spec from the shell, as `gh api` reaches any endpoint of
// GitHub's. The operation is found by method and path template (api-route.ts), the fields go where the spec puts
// them, and the call goes through the SDK (`client.request`): the same key, host, checks before sending, retries and
// typed errors as every other command, and `--paginate` follows the operation's `x-pagination`. A path the spec does
// not have is still sent (through `client.raw`, to the API host), with a warning naming the closest operation.
import { STATUS_CODES } from "node:http";
import { type Command, Option } from "commander";
import type { CallParams } from "../core/hub.js";
import { APIError, type OrgAgent } from "../index.js";
import { parseFields, type FieldObject, type RawField } from "./api-fields.js";
import { HTTP_METHODS, findTarget, operationLines, placeFields, type SpecOperation } from "./api-route.js";
import { readInput, type Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { examples } from "./options.js";

/** The command line of one `orgagent api` call, parsed apart from its run. */
export interface ApiOptions {
  /** The HTTP method: as given, else the operation's own (an operationId) or GET. */
  method: string | undefined;
  target: string;
  /** `-f` and `-F` fields, in the order given. */
  fields: RawField[];
  /** `--input`: a file, or `-` for standard input, holding the JSON body. */
  input: string | undefined;
  paginate: boolean;
  slurp: boolean;
  jq: string | undefined;
  headers: Record<string, string>;
  include: boolean;
  silent: boolean;
}

interface ApiFlags {
  /** `-f` and `-F` together, in command-line order. */
  field?: RawField[];
  input?: string;
  paginate?: boolean;
  slurp?: boolean;
  jq?: string;
  header?: string[];
  include?: boolean;
  silent?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function apiCommand(program: Command, context: Context): void {
  // -f and -F share one list, so that `users[][email]` and `users[][limit]` pair up in the order typed.
  const fields: RawField[] = [];
  const field = (typed: boolean) => (text: string) => {
    fields.push({ text, typed });
    return fields;
  };
  const api = program
    .command("api")
    .description("call any operation of the API by its method and path (or operationId), as the spec describes it")
    .usage("[METHOD] <path> [options]")
    .argument("<method>", `HTTP method (${HTTP_METHODS.join(", ")}); without it, GET`)
    .argument("[path]", "the operation's path, with values (/api/v0/computers/cmp_1) or placeholders filled by fields; or its operationId")
    .addOption(
      new Option("-f, --raw-field <key=value>", "a string field (repeatable); key[sub]=v and key[]=v nest").argParser(field(false)),
    )
    .addOption(
      new Option("-F, --field <key=value>", "a typed field: numbers, true, false, null; @file reads a file, @- standard input").argParser(
        field(true),
      ),
    )
    .option("--input <file>", "the JSON request body from a file (- for standard input); fields then go to the path and query")
    .option("--paginate", "follow the operation's paging rule and print every page (page size: the largest the spec allows, unless given)")
    .option("--slurp", "with --paginate, print one JSON array of every page")
    .option("-q, --jq <filter>", "print what a jq filter selects from each answer (strings raw), e.g. '.computers[].name'")
    .option("-H, --header <name:value>", "an extra request header (repeatable; not Authorization: the key comes from --api-key)", collect)
    .option("-i, --include", "print the response's status line and headers before its body")
    .option("--silent", "print no response body");
  examples(api, [
    "orgagent api GET /api/v0/computers/name/build-box-eu-1",
    "orgagent api GET /api/v0/computers/{computerId} -f computerId=cmp_123 --jq .status",
    "orgagent api GET /api/v1/analytics/tokens -f startDate=2026-03-02 -f endDate=2026-03-04 -f group_by=model",
    "orgagent api GET /api/v1/analytics/users -f startDate=2026-03-02 -f endDate=2026-03-04 --paginate --jq '.data[].user_email'",
    "orgagent api POST /api/v0/sessions -f computerId=cmp_123 -f 'sessionSettings[model]=claude-sonnet-4-5'",
    "orgagent api PUT /api/v0/organization/usage/limits/users -f 'users[][email]=maya.chen@acme-robotics.com' -F 'users[][limit]=500000'",
    'echo \'{"text":"Run the tests"}\' | orgagent api POST /api/v0/sessions/sess_123/messages --input -',
    "orgagent api getComputerByName -f name=build-box-eu-1 -i",
  ]);
  api.addHelpText("after", () =>
    [
      "",
      "The operations of the API (placeholders are filled from the path or from fields of the same name; other fields",
      "are query parameters or body fields, as the spec says; a path the spec does not have is sent as given, with a",
      "warning):",
      ...operationLines().map((line) => `  ${line}`),
      "",
    ].join("\n"),
  );
  api.action(async (first: string | undefined, second: string | undefined, flags: ApiFlags, cmd: Command) => {
    context.begin(cmd);
    await runApi(apiOptions(first, second, { ...flags, field: fields }), context, cmd);
  });
}

/** The options of one call from its arguments and flags; a bad combination is a usage error. */
export function apiOptions(first: string | undefined, second: string | undefined, flags: ApiFlags): ApiOptions {
  const [method, target] = second === undefined ? [undefined, first!] : [first!.toUpperCase(), second];
  if (method !== undefined && !(HTTP_METHODS as readonly string[]).includes(method)) {
    throw new CliError(
      `${first} is not an HTTP method.`,
      EXIT.usage,
      `Use one of ${HTTP_METHODS.join(", ")}, or give the path alone for GET.`,
    );
  }
  if (flags.slurp && !flags.paginate) throw new CliError("--slurp needs --paginate.", EXIT.usage, "Run 'orgagent api --help' for usage.");
  if (flags.paginate && flags.input !== undefined)
    throw new CliError("--paginate cannot be used with --input.", EXIT.usage, "Lists take query parameters: give them as fields.");
  if (flags.silent && flags.jq !== undefined)
    throw new CliError("--silent cannot be used with --jq.", EXIT.usage, "Run 'orgagent api --help' for usage.");
  const headers: Record<string, string> = {};
  for (const header of flags.header ?? []) {
    const at = header.indexOf(":");
    const name = header.slice(0, at).trim();
    if (at < 1 || !name)
      throw new CliError(`-H ${JSON.stringify(header)}: expected name:value.`, EXIT.usage, "For example: -H 'Accept-Language: en'.");
    if (name.toLowerCase() === "authorization") {
      throw new CliError(
        "-H Authorization: the credential is not a header here.",
        EXIT.usage,
        "Pass the key with --api-key or ORGAGENT_API_KEY; the CLI sends it as Authorization: Bearer.",
      );
    }
    headers[name] = header.slice(at + 1).trim();
  }
  return {
    method,
    target,
    fields: flags.field ?? [],
    input: flags.input,
    paginate: Boolean(flags.paginate),
    slurp: Boolean(flags.slurp),
    jq: flags.jq,
    headers,
    include: Boolean(flags.include),
    silent: Boolean(flags.silent),
  };
}

export async function runApi(options: ApiOptions, context: Context, cmd: Command): Promise<void> {
  const read = stdinOnce();
  const fields = parseFields(options.fields, (path) => read(path, "@-"));
  const body = options.input === undefined ? undefined : jsonBody(read(options.input, "--input -"), options.input);
  if (options.jq !== undefined) await (await import("./jq.js")).checkFilter(options.jq);
  const printer = new AnswerPrinter(context, options);
  const target = findTarget(options.method, options.target);
  try {
    if (target.kind === "operation") {
      const { operation } = target;
      const placed = placeFields(operation, target, fields, body !== undefined);
      const client = context.client(cmd, { appHost: operation.host === "app_url" });
      await callOperation(client, operation, placed, body, options, printer);
    } else {
      const where = `${target.method} ${target.path}`;
      context.out.note(
        `orgagent: warning: ${where} is not an operation of the API's spec${target.suggestion ? ` (did you mean ${target.suggestion}?)` : ""}; sent as given to the API host, without the spec's checks, retries or paging.`,
      );
      await callRaw(context.client(cmd), target, fields, body, options, printer);
    }
  } catch (error) {
    // As gh does: an error answer's body goes to stdout (scripts can read it); the explanation goes to stderr.
    if (error instanceof APIError && !(error.body === undefined || error.body === ""))
      printer.answer(error.status, error.headers, error.body);
    throw error;
  }
  await printer.end();
}

/** One call through the SDK (`client.request`), or every page of a list with --paginate. */
async function callOperation(
  client: OrgAgent,
  operation: SpecOperation,
  placed: ReturnType<typeof placeFields>,
  input: unknown,
  options: ApiOptions,
  printer: AnswerPrinter,
) {
  const rule = operation.pagination;
  if (options.paginate && rule?.limitParam && !Object.hasOwn(placed.query, rule.limitParam)) {
    const maximum = operation.params[rule.limitParam]?.schema.maximum;
    if (maximum !== undefined) placed.query[rule.limitParam] = maximum;
  }
  const params: CallParams = {
    ...(Object.keys(placed.path).length || hasPathParams(operation) ? { path: placed.path } : {}),
    ...(Object.keys(placed.query).length ? { query: placed.query } : {}),
    ...(input !== undefined ? { body: input } : placed.body ? { body: placed.body } : {}),
  };
  const requestOptions = Object.keys(options.headers).length ? { headers: options.headers } : undefined;
  // Any operation by its id: the hub's own signature, which the typed `client.request` narrows per operation.
  const request = client.request as (operationId: string, params?: CallParams, options?: object) => unknown;
  const result = request.call(client, operation.operationId, params, requestOptions) as Answer;
  if (options.paginate && rule && "pages" in result) {
    for await (const page of result.pages({ withResponse: true })) await printer.page(page.response, page.data);
  } else {
    const { data, response } = await result.withResponse();
    await printer.page(response, data);
  }
}

type WithResponse = { data: unknown; response: Response };
type Answer =
  | { withResponse(): Promise<WithResponse>; pages?: never }
  | { withResponse(): Promise<WithResponse>; pages(options: { withResponse: true }): AsyncIterable<WithResponse> };

function hasPathParams(operation: SpecOperation): boolean {
  return Object.values(operation.params).some((param) => param.in === "path");
}

/** A path the spec does not have: one request through `client.raw` (the same key, transport and limits; no checks, no retries). */
async function callRaw(
  client: OrgAgent,
  target: { method: string; path: string; query: URLSearchParams },
  fields: FieldObject,
  input: unknown,
  options: ApiOptions,
  printer: AnswerPrinter,
) {
  const query: Record<string, unknown> = Object.fromEntries(target.query);
  const inQuery = input !== undefined || ["GET", "HEAD", "DELETE", "OPTIONS"].includes(target.method);
  if (inQuery) Object.assign(query, fields);
  const body = input ?? (!inQuery && Object.keys(fields).length ? fields : undefined);
  const raw = client.raw.request as (
    method: string,
    path: string,
    init: object,
  ) => Promise<{ response: Response; data?: unknown; error?: unknown }>;
  const { response, data, error } = await raw.call(client.raw, target.method.toLowerCase(), target.path, {
    params: { query },
    ...(body !== undefined ? { body } : {}),
    headers: options.headers,
    parseAs: "text",
  });
  const text = (response.ok ? data : error) as string | undefined;
  const parsed = parseMaybeJson(text ?? "");
  if (!response.ok) throw APIError.from(response.status, response.headers, parsed);
  await printer.page(response, parsed);
}

function parseMaybeJson(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/** `@-` and `--input -` read standard input once between them. */
function stdinOnce(): (path: string, by: string) => string {
  let used: string | undefined;
  return (path, by) => {
    if (path === "-") {
      if (used)
        throw new CliError(`standard input is read once, by ${used}: it cannot also give ${by}.`, EXIT.usage, "Put one of them in a file.");
      used = by;
    }
    return readInput(path);
  };
}

function jsonBody(text: string, from: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `--input ${from} is not JSON: ${(error as Error).message}.`,
      EXIT.usage,
      "The request body is sent as application/json. Nothing was sent.",
    );
  }
}

/**
 * Prints each answer as `gh api` does: with -i its status line and headers, then the body as JSON (indented), or
 * what --jq selects from it; --slurp keeps the pages and prints them as one array at the end.
 */
class AnswerPrinter {
  readonly #pages: unknown[] = [];
  #printed = 0;

  constructor(
    private readonly context: Context,
    private readonly options: ApiOptions,
  ) {}

  async page(response: Response, data: unknown): Promise<void> {
    if (this.options.include) this.head(response.status, response.statusText, response.headers);
    if (this.options.slurp) this.#pages.push(data);
    else await this.body(data);
  }

  /** An error answer: its head and its body, never through --jq. */
  answer(status: number, headers: Headers, body: unknown): void {
    if (this.options.include) this.head(status, "", headers);
    if (!this.options.silent) this.data(body);
  }

  async end(): Promise<void> {
    if (this.options.slurp) await this.body(this.#pages);
  }

  private async body(data: unknown): Promise<void> {
    if (this.options.silent || data === undefined) return;
    if (this.options.jq !== undefined) {
      const output = await (await import("./jq.js")).runFilter(data, this.options.jq, this.context.out.tty);
      if (output) this.context.out.line(output);
      return;
    }
    this.data(data);
  }

  /** The server's data: JSON (or text) exactly as it came when piped; on a terminal, nothing in it can drive the terminal. */
  private data(data: unknown): void {
    if (typeof data === "string") this.context.out.line(data);
    else this.context.out.json(data, 2);
  }

  private head(status: number, statusText: string, headers: Headers): void {
    const lines = [...(this.#printed++ ? [""] : []), `HTTP/1.1 ${status} ${statusText || STATUS_CODES[status] || ""}`.trimEnd()];
    for (const [name, value] of [...headers].sort(([a], [b]) => a.localeCompare(b))) lines.push(`${canonical(name)}: ${value}`);
    this.context.out.line(`${lines.join("\n")}\n\n`);
  }
}

/** `content-type` → `Content-Type`, as gh prints header names. */
function canonical(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}
