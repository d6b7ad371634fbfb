// The MCP server's options and what they allow: which tools are listed and which operations may be called (by a
// tool, or by a program of the code tool through the sandbox's proxy). Reads are on; writes are off unless enabled.
import { mcpTools, type McpToolSpec } from "../../generated/mcp-tools.js";
import type { ClientOptions } from "./sdk-adapter.js";

export const CODE_TOOL = "run_code";
export const DOCS_TOOL = "search_docs";

export interface CodeToolOptions {
  /** The Deno executable. Default: env ORGAGENT_DENO, else `deno` on the PATH, else the `deno` npm package. */
  deno?: string | undefined;
  /** Milliseconds a program may run. Default 30,000. */
  timeout?: number | undefined;
}

export interface McpServerOptions extends ClientOptions {
  /** List and allow reads only. Default false. */
  readOnly?: boolean | undefined;
  /** Allow every write operation too. Default false: a write is allowed only when named in `tools`. */
  allowWrites?: boolean | undefined;
  /**
   * List only these tools: operationIds, `run_code`, `search_docs`. A write named here is allowed. When it names
   * operations, programs of `run_code` may call those operations only. Default: every allowed tool.
   */
  tools?: readonly string[] | undefined;
  /** Most items a list tool returns in one call (whole pages; the rest is a cursor away). Default 100. */
  maxItems?: number | undefined;
  /** Largest tool result in bytes; a larger answer is cut, with a note saying what was left out. Default 32,768. */
  maxResultBytes?: number | undefined;
  /** The code tool: `false` leaves it out. It is listed only where its sandbox (Deno) is found. */
  code?: false | CodeToolOptions | undefined;
}

/** An option the server cannot start with. */
export class McpOptionsError extends Error {
  override name = "McpOptionsError";
}

export const DEFAULT_MAX_ITEMS = 100;
export const DEFAULT_MAX_RESULT_BYTES = 32_768;
export const DEFAULT_CODE_TIMEOUT = 30_000;

export interface Policy {
  /** Operations that may be called, by a tool or by a program. */
  readonly operations: ReadonlySet<string>;
  /** Operation tools listed. */
  readonly operationTools: readonly McpToolSpec[];
  readonly codeTool: boolean;
  readonly docsTool: boolean;
  readonly readOnly: boolean;
  readonly maxItems: number;
  readonly maxResultBytes: number;
}

const isWrite = (tool: McpToolSpec) => !tool.annotations.readOnlyHint;

/** What `options` allow; a contradiction or an unknown tool name is an McpOptionsError. */
export function policyOf(options: McpServerOptions, sandboxAvailable: boolean): Policy {
  const all = Object.values(mcpTools);
  const readOnly = options.readOnly === true;
  if (readOnly && options.allowWrites) throw new McpOptionsError("readOnly and allowWrites contradict each other: choose one.");
  const maxItems = positiveInteger("maxItems", options.maxItems ?? DEFAULT_MAX_ITEMS, 1, 10_000);
  const maxResultBytes = positiveInteger("maxResultBytes", options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, 1024, 16 * 1024 * 1024);
  const named = options.tools ? new Set(options.tools) : undefined;
  if (named) {
    const known = new Set([...all.map((tool) => tool.name), CODE_TOOL, DOCS_TOOL]);
    const unknown = [...named].filter((name) => !known.has(name));
    if (unknown.length) {
      throw new McpOptionsError(
        `Unknown tool ${unknown.map((name) => JSON.stringify(name)).join(", ")}; the tools are ${[...known].join(", ")}.`,
      );
    }
    const writes = all.filter((tool) => named.has(tool.name) && isWrite(tool)).map((tool) => tool.name);
    if (readOnly && writes.length)
      throw new McpOptionsError(`${writes.join(", ")} ${writes.length > 1 ? "are writes" : "is a write"}: readOnly allows reads only.`);
  }
  const namedOperations = all.filter((tool) => named?.has(tool.name));
  const allowed = namedOperations.length ? namedOperations : all.filter((tool) => !isWrite(tool) || options.allowWrites === true);
  return {
    operations: new Set(allowed.map((tool) => tool.name)),
    operationTools: named ? namedOperations : allowed,
    codeTool: options.code !== false && sandboxAvailable && (!named || named.has(CODE_TOOL)),
    docsTool: !named || named.has(DOCS_TOOL),
    readOnly,
    maxItems,
    maxResultBytes,
  };
}

function positiveInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new McpOptionsError(`${name} must be an integer from ${min} to ${max}; got ${value}.`);
  }
  return value;
}
