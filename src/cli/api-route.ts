// Where `orgagent api METHOD PATH` goes: the operation of the spec whose method and path template match (a concrete
// path, `/api/v0/computers/cmp_1`, or the template itself, `/api/v0/computers/{computerId}`, or the operationId),
// and which of the given fields are its path parameters, its query parameters and its body, by the spec's tables.
// Nothing here names an operation: every operation of generated/spec-tables.ts, present and future, is reachable.
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { closest, editDistance } from "../core/keys.js";
import type { FieldRule } from "../core/validate.js";
import { newObject, type FieldObject, type FieldValue } from "./api-fields.js";
import { CliError, EXIT } from "./errors.js";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

/** An operation of the spec tables, as the CLI reads it. */
export interface SpecOperation {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly host: string;
  readonly params: { readonly [name: string]: { readonly in: string; readonly required: boolean; readonly schema: FieldRule } };
  readonly body?: { readonly required: boolean; readonly schema: FieldRule };
  readonly pagination?: { readonly items: string; readonly limitParam?: string; readonly cursorParam?: string };
}

const OPERATIONS: readonly SpecOperation[] = Object.values(operations);

/** What the command line names: an operation of the spec with the path parameters its path gave, or a path the spec does not have. */
export type Target =
  | { readonly kind: "operation"; readonly operation: SpecOperation; readonly path: FieldObject; readonly query: URLSearchParams }
  | {
      readonly kind: "unknown";
      readonly method: string;
      readonly path: string;
      readonly query: URLSearchParams;
      readonly suggestion: string | undefined;
    };

const segments = (path: string) => path.split("/").slice(1);
const PARAM = /^\{([^{}]+)\}$/;

/**
 * The operation `METHOD path` (or an operationId) names; a path of no operation is `unknown`, with the closest one.
 * Without a method: an operationId's own, else GET.
 */
export function findTarget(given: string | undefined, target: string): Target {
  const byId = OPERATIONS.find((op) => op.operationId === target);
  const method = given ?? byId?.method ?? "GET";
  if (byId) {
    if (method !== byId.method)
      throw new CliError(
        `${target} is ${byId.method} ${byId.path}, not ${method}.`,
        EXIT.usage,
        `Run 'orgagent api ${byId.method} ${byId.path}'.`,
      );
    return { kind: "operation", operation: byId, path: newObject(), query: new URLSearchParams() };
  }
  const at = target.indexOf("?");
  const path = `/${(at === -1 ? target : target.slice(0, at)).replace(/^\/+/, "")}`.replace(/(.)\/+$/, "$1");
  const query = new URLSearchParams(at === -1 ? "" : target.slice(at + 1));
  let best: { operation: SpecOperation; values: FieldObject; literal: number } | undefined;
  for (const operation of OPERATIONS) {
    if (operation.method !== method) continue;
    const match = matchPath(operation.path, path);
    if (match && (!best || match.literal > best.literal)) best = { operation, ...match };
  }
  if (best) return { kind: "operation", operation: best.operation, path: best.values, query };
  return { kind: "unknown", method, path, query, suggestion: closestOperation(method, path) };
}

/** The path parameters a concrete path gives a template (none for a placeholder left as `{name}`), and how many literal segments matched. */
function matchPath(template: string, path: string): { values: FieldObject; literal: number } | undefined {
  const want = segments(template);
  const have = segments(path);
  if (want.length !== have.length) return undefined;
  const values = newObject();
  let literal = 0;
  for (let i = 0; i < want.length; i++) {
    const param = PARAM.exec(want[i]!);
    if (!param) {
      if (want[i] !== have[i]) return undefined;
      literal++;
    } else if (have[i] !== want[i]) {
      if (!have[i]) return undefined;
      try {
        values[param[1]!] = decodeURIComponent(have[i]!);
      } catch {
        throw new CliError(
          `the path segment ${JSON.stringify(have[i])} is not valid percent-encoding.`,
          EXIT.usage,
          "Write the value as it is, or percent-encode it whole.",
        );
      }
    }
  }
  return { values, literal };
}

/** `METHOD template` of the operation closest to what was typed, when one is close enough to be the one meant. */
function closestOperation(method: string, path: string): string | undefined {
  let best: { text: string; distance: number } | undefined;
  const have = segments(path);
  for (const operation of OPERATIONS) {
    // The template with its placeholders filled from the typed path, so ids do not count as differences.
    const filled = segments(operation.path)
      .map((part, i) => (PARAM.test(part) && have[i] ? have[i] : part))
      .join("/");
    const distance = editDistance(path.slice(1), filled) + (operation.method === method ? 0 : 2);
    if (!best || distance < best.distance) best = { text: `${operation.method} ${operation.path}`, distance };
  }
  return best && best.distance <= Math.max(3, Math.floor(path.length / 5)) ? best.text : undefined;
}

export interface Placed {
  path: FieldObject;
  query: FieldObject;
  body: FieldObject | undefined;
}

/**
 * The fields of the command line as the operation's path parameters, query parameters and body fields, by name; a
 * field that is none of them is refused with the names the operation knows. Path and query values are text on the
 * wire: a value of an integer, number or boolean parameter is given that type when it is one.
 */
export function placeFields(
  operation: SpecOperation,
  target: { path: FieldObject; query: URLSearchParams },
  fields: FieldObject,
  bodyFromInput: boolean,
): Placed {
  const placed: Placed = { path: newObject(), query: newObject(), body: undefined };
  for (const [name, value] of Object.entries(target.path)) placed.path[name] = value;
  for (const [name, value] of target.query) place(operation, placed, name, value, false);
  for (const [name, value] of Object.entries(fields)) place(operation, placed, name, value, bodyFromInput);
  return placed;
}

function place(operation: SpecOperation, placed: Placed, name: string, value: FieldValue, bodyFromInput: boolean): void {
  const param = Object.hasOwn(operation.params, name) ? operation.params[name]! : undefined;
  if (param?.in === "path" || param?.in === "query") {
    const where = param.in === "path" ? placed.path : placed.query;
    if (Object.hasOwn(where, name)) throw new CliError(`${name} is given twice (in the path and as a field).`, EXIT.usage, "Give it once.");
    where[name] = paramValue(value, param.schema);
    return;
  }
  if (operation.body && !bodyFromInput) {
    // Bodies may be open objects, so an unknown name is sent; one that looks like a typo of a known one is not.
    const known = Object.keys(operation.body.schema.properties ?? {});
    const meant = known.includes(name) ? undefined : closest(name, known);
    if (meant)
      throw new CliError(
        `${operation.operationId} has no body field ${JSON.stringify(name)}; did you mean ${meant}?`,
        EXIT.usage,
        `Its fields: ${[...Object.keys(operation.params), ...known].join(", ")}. Nothing was sent.`,
      );
    placed.body ??= newObject();
    placed.body[name] = value;
    return;
  }
  const known = [
    ...Object.keys(operation.params),
    ...(operation.body && !bodyFromInput ? Object.keys(operation.body.schema.properties ?? {}) : []),
  ];
  const suggestion = closest(name, known);
  const why = operation.body ? "(with --input, fields are parameters only)" : "";
  throw new CliError(
    `${operation.operationId} (${operation.method} ${operation.path}) has no parameter ${JSON.stringify(name)}${why ? ` ${why}` : ""}${suggestion ? `; did you mean ${suggestion}?` : "."}`,
    EXIT.usage,
    known.length ? `Its fields: ${known.join(", ")}. Nothing was sent.` : `It takes no fields. Nothing was sent.`,
  );
}

/** A path or query value in its schema's type when the text is one (`2` for an integer `limit`); else as given. */
function paramValue(value: FieldValue, schema: FieldRule): FieldValue {
  if (typeof value !== "string") return value;
  const types = [schema.type].flat();
  if ((types.includes("integer") || types.includes("number")) && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (types.includes("boolean") && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** Every operation of the spec, as `orgagent api` lines: `GET /api/v0/computers/{computerId} (getComputer)`. */
export function operationLines(): string[] {
  // Single spaces: help wraps a narrow terminal's lines at them, and never leaves a line wider than the terminal.
  return OPERATIONS.map((op) => `${op.method} ${op.path} (${op.operationId}${op.pagination ? ", a list: --paginate" : ""})`);
}

export function isOperationId(text: string): text is OperationId {
  return Object.hasOwn(operations, text);
}
