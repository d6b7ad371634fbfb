// What a tool answers: text blocks, and for a failure a tool error (isError) that says what went wrong in the
// model's terms (the argument it gave, the status the API answered), read from the SDK's structured error fields.
import type { McpToolSpec } from "../../generated/mcp-tools.js";
import { APIConnectionError, APIConnectionTimeoutError, APIError, OrgAgentError, RateLimitError, ValidationError } from "./sdk-adapter.js";

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

export function textResult(...texts: string[]): ToolResult {
  return { content: texts.map((text) => ({ type: "text" as const, text })) };
}

export function errorResult(text: string): ToolResult {
  return { ...textResult(text), isError: true };
}

/** An argument the tool cannot take, found before anything was sent. */
export class ToolInputError extends Error {
  override name = "ToolInputError";
  constructor(
    readonly argument: string,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_HINTS: Record<number, string> = {
  401: "The server's API key is not accepted: the user must check ORGAGENT_API_KEY.",
  403: "The key's role may not do this: analytics, usage limits and the enterprise-controls history need a Manager or Owner key.",
  404: "Nothing has that id or name: check it (getComputerByName finds a computer by name).",
  409: "The session or computer is busy or in a state that does not allow this: read it again, wait, then retry.",
};

/**
 * A failed call as a tool error. `argumentOf` turns a ValidationError's field (`query.limit`) into the tool's
 * argument name (`limit`).
 */
export function failure(error: unknown, spec?: McpToolSpec, argumentOf?: (spec: McpToolSpec, field: string) => string): ToolResult {
  if (error instanceof ToolInputError) return errorResult(`Invalid argument ${error.argument}: ${error.message} Nothing was sent.`);
  if (error instanceof ValidationError) {
    const argument = spec && argumentOf ? argumentOf(spec, error.field) : error.field;
    return errorResult(`Invalid argument ${argument}: ${shown(error.value)} is not allowed; expected ${error.allowed}. Nothing was sent.`);
  }
  if (error instanceof RateLimitError) {
    const wait = error.retryAfter !== undefined ? ` Wait ${Math.ceil(error.retryAfter / 1000)} s before trying again.` : "";
    return errorResult(`The API answered 429: a rate limit was exceeded, after the SDK's retries${requestOf(error)}.${wait}`);
  }
  if (error instanceof APIError) {
    const said = [error.title, error.detail].filter(Boolean).join(": ").replace(/\.$/, "");
    const hint = STATUS_HINTS[error.status];
    return errorResult(`The API answered ${error.status}${said ? ` ${said}` : ""}${requestOf(error)}.${hint ? ` ${hint}` : ""}`);
  }
  if (error instanceof APIConnectionTimeoutError) return errorResult(`The API did not answer in time: ${error.message}`);
  if (error instanceof APIConnectionError) return errorResult(`The API could not be reached: ${error.message}`);
  if (error instanceof OrgAgentError) return errorResult(error.message);
  return errorResult(`The tool failed: ${error instanceof Error ? error.message : String(error)}`);
}

function requestOf(error: APIError): string {
  return error.requestId ? ` (request ${error.requestId})` : "";
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    // Nested too deep to write back (JSON.parse reads deeper than JSON.stringify writes): say what it is.
    text = Array.isArray(value) ? "an array" : typeof value === "object" && value !== null ? "an object" : typeof value;
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
