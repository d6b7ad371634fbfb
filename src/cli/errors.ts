// Failures in the CLI's own words: what went wrong, naming the flag or variable the user typed, on one line, and
// what to do about it on the next. Every failure maps to one of the documented exit codes.
import { chainMessages } from "../core/causes.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  ComputerProvisioningError,
  OrgAgentError,
  RateLimitError,
  ValidationError,
  type RequestPlugin,
} from "../index.js";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { OutputUsageError } from "./output.js";
import { terminalText } from "./terminal-text.js";

export const EXIT = { ok: 0, error: 1, usage: 2, partial: 3, timeout: 4 } as const;

/** A failure that ends the command with a given exit code, a message and a hint. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Connection failures that mean nothing listens there, or no such host, in the CLI's words. */
const UNREACHABLE: Readonly<Record<string, string>> = { ECONNREFUSED: "connection refused", ENOTFOUND: "no such host" };

/** The reason a connection failed when nothing listens there or the host does not exist, else undefined. */
function unreachable(error: unknown): string | undefined {
  return error instanceof APIConnectionError && error.code !== undefined && Object.hasOwn(UNREACHABLE, error.code)
    ? UNREACHABLE[error.code]
    : undefined;
}

/** The CLI gives up at once on a host it cannot reach: retrying a refused connection or an unknown host only delays the answer. */
export const FAIL_FAST: RequestPlugin = {
  retry: (_, result) => (unreachable(result.error) ? { retry: false } : undefined),
};

/** What the error explanation needs to know about the run. */
export interface FailureContext {
  /** The command's full name, e.g. `orgagent analytics tokens`. */
  command: string | undefined;
  /** The flag or argument each SDK field was given by: `query.endDate` → `--end`. */
  fields: Readonly<Record<string, string>>;
  /** Where the API key came from, as the user would name it: `ORGAGENT_API_KEY` or `--api-key`. */
  keySource: string;
  /** Where the host of the last request came from: `ORGAGENT_BASE_URL` or `--base-url`. */
  hostSource: string;
  /** Origin of the last request sent. */
  origin: string | undefined;
  /** The time limit of one request, in seconds. */
  requestTimeout: number;
  /** Where that limit came from (`--request-timeout` or `ORGAGENT_REQUEST_TIMEOUT`); undefined for the default. */
  timeoutSource: string | undefined;
  /** How many requests the run sent to a URL, retries included. */
  attempts(url: string): number;
}

export interface Explained {
  message: string;
  hint: string | undefined;
  exitCode: number;
}

const ADMIN_ROLES = "analytics and reports, usage limits and enterprise controls need a Manager or Owner key";

/**
 * A failure in the CLI's words, ready for stderr. The message may quote the server (a title, a detail, a request id)
 * or a file: it never drives the terminal, and only the CLI's own messages (a list of malformed rows) span lines.
 */
export function explain(error: unknown, context: FailureContext): Explained {
  const { message, hint, exitCode } = explainRaw(error, context);
  return {
    message: terminalText(message, { multiline: error instanceof CliError }),
    hint: hint === undefined ? undefined : terminalText(hint),
    exitCode,
  };
}

function explainRaw(error: unknown, context: FailureContext): Explained {
  const help = context.command ? `Run '${context.command} --help' for usage.` : "Run 'orgagent --help' for usage.";
  const result = (message: string, hint: string | undefined, exitCode: number): Explained => ({ message, hint, exitCode });
  if (error instanceof CliError) return result(error.message, error.hint, error.exitCode);
  if (error instanceof OutputUsageError) return result(error.message, error.hint ?? help, EXIT.usage);
  if (error instanceof ValidationError) {
    const flag = context.fields[error.field] ?? error.field.replace(/^(query|body|path)\./, "");
    const value = typeof error.value === "string" ? error.value : JSON.stringify(error.value);
    const lag =
      error.rule === "latest"
        ? `Nothing was sent. Analytics data lags a day: the latest date is ${String(error.bound)}, yesterday (UTC); --days N and --month YYYY-MM give ready-made ranges.`
        : `Nothing was sent. ${help}`;
    return result(`${flag} ${value ?? "(missing)"} is not allowed: expected ${error.allowed}.`, lag, EXIT.usage);
  }
  const reason = unreachable(error);
  if (reason) {
    const check = reason === UNREACHABLE.ENOTFOUND ? "Check the host name in" : "Is the server running? Check";
    const origin = (error as APIConnectionError).url ? new URL((error as APIConnectionError).url!).origin : (context.origin ?? "the API");
    return result(`cannot connect to ${origin}: ${reason} (not retried).`, `${check} ${context.hostSource}.`, EXIT.error);
  }
  if (error instanceof APIConnectionTimeoutError) {
    const origin = context.origin ?? "the API";
    const check = `Check ${context.hostSource} and the network, or try again later`;
    if (error.limit === "deadline")
      return result(`no answer from ${origin}: the deadline of ${error.ms} ms passed`, `${check}.`, EXIT.error);
    // The SDK's "Request timed out after 1000 ms": in the CLI's unit, with the flag or variable that set it and
    // the SDK's retries counted.
    const limit = `${context.requestTimeout} s${context.timeoutSource ? ` (${context.timeoutSource})` : ", the default"}`;
    const attempts = error.url ? context.attempts(error.url) : 0;
    const where = error.operationId ? ` [${error.operationId}: ${error.method} ${error.url}]` : "";
    return result(
      `no answer from ${origin} within ${limit}${attempts > 1 ? `, ${attempts} attempts` : ""}${where}.`,
      `${check}; --request-timeout SECONDS gives each request longer.`,
      EXIT.error,
    );
  }
  if (error instanceof APIConnectionError) {
    const why = chainMessages(error.cause).join(": ") || "the connection failed";
    const where = error.operationId ? ` [${error.operationId}: ${error.method} ${error.url}]` : "";
    return result(
      `cannot reach ${context.origin ?? "the API"}: ${why}${where}`,
      `Check ${context.hostSource} and the network.`,
      EXIT.error,
    );
  }
  if (error instanceof APIError) return explainStatus(error, context);
  if (error instanceof ComputerProvisioningError) {
    const id = error.computer.id;
    return result(
      lower(error.message),
      `Fix the cause on the computer, then run 'orgagent computers retry-install ${id}' and 'orgagent computers wait ${id}'.`,
      EXIT.error,
    );
  }
  if (error instanceof APIUserAbortError) return result("interrupted.", undefined, EXIT.error);
  if (error instanceof OrgAgentError) return result(lower(error.message), help, EXIT.error);
  return result(error instanceof Error ? error.message : String(error), undefined, EXIT.error);
}

function explainStatus(error: APIError, context: FailureContext): Explained {
  // An SDK helper that words an API error its own way (the report's 403) keeps the API's error as its cause: the
  // CLI quotes the API and gives its own hint.
  const answer = `the API answered ${(error.cause instanceof APIError ? error.cause : error).message}`;
  let hint: string;
  switch (error.status) {
    case 401:
      hint = `Check the key in ${context.keySource}; ${ADMIN_ROLES}.`;
      break;
    case 403:
      hint = `The key in ${context.keySource} may not do this: ${ADMIN_ROLES}.`;
      break;
    case 404:
      hint = notFoundHint(error, context);
      break;
    case 409:
      hint = "The resource is busy or not ready: wait for it ('orgagent computers wait ID') and try again.";
      break;
    case 429: {
      const after =
        error instanceof RateLimitError && error.retryAfter !== undefined ? ` in ${Math.ceil(error.retryAfter / 1000)} s` : " later";
      hint = `Rate limited: try again${after}.`;
      break;
    }
    default:
      hint =
        error.status >= 500
          ? `The service failed; try again later${error.requestId ? ` and quote request ${error.requestId} if it persists` : ""}.`
          : `Nothing was changed. ${context.command ? `Run '${context.command} --help' for usage.` : ""}`.trim();
  }
  return { message: answer, hint, exitCode: EXIT.error };
}

/**
 * What a 404 asks to check. The host, when the path itself is not there: the operation addresses no resource by id
 * (a list, analytics), or the answer is not the API's problem body (another server's page). Else the id or name.
 */
function notFoundHint(error: APIError, context: FailureContext): string {
  const id = error.operationId;
  const operation = id !== undefined && Object.hasOwn(operations, id) ? operations[id as OperationId] : undefined;
  const addressesOne = operation !== undefined && Object.values<{ in: string }>(operation.params).some((param) => param.in === "path");
  const fromTheApi = error.title !== undefined || error.detail !== undefined;
  if (!addressesOne || !fromTheApi) return `Nothing is served at this path there: check the host in ${context.hostSource}.`;
  return `Check the id or name (they are case-sensitive), and the host in ${context.hostSource}.`;
}

function lower(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
