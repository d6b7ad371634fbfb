// Calls of any operation derived from the spec, so that a test covers every operation, present and future, without a
// line per operation: the values come from the spec's examples (with a fixture map by parameter name where a server's
// state decides, such as ids), and the call goes through `client.request` by operationId or through the resource
// method the operation's `x-sdk` names, its arguments in the documented order (path parameters in path order, then
// one object of query parameters and body fields, then the request options).
import type { OperationId } from "../../generated/spec-tables.js";
import type { OrgAgent } from "../../src/index.js";
import { deref, exampleValue, operationObject, specOperation, type SpecOperation } from "./spec.js";

type Json = any; // spec nodes and example values, walked dynamically

export interface CallInput {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** Values by parameter or body-field name that replace the spec's examples (ids of things a server has). */
export type Fixtures = ReadonlyMap<string, unknown>;

/**
 * An operation's input from the spec's examples: its required parameters only, or every parameter; the first request
 * body example, cut to its required fields (at every depth) for a required-only call. `fixtures` replace the value of
 * any parameter, and of any body field at any depth, of the same name.
 */
export function exampleInput(
  operationId: OperationId,
  { optional, fixtures = new Map() }: { optional: boolean; fixtures?: Fixtures },
): CallInput {
  const op = specOperation(operationId);
  const input: CallInput = {};
  for (const param of op.parameters) {
    if (!param.required && !optional) continue;
    const value = fixtures.has(param.name) ? fixtures.get(param.name) : exampleValue(param);
    if (value === undefined) throw new Error(`${operationId}: no example for parameter ${param.name}`);
    if (param.in !== "path" && param.in !== "query") continue;
    (input[param.in] ??= {})[param.name] = value;
  }
  if (op.requestExample !== undefined) {
    const schema = deref(operationObject(operationId).requestBody).content["application/json"].schema;
    input.body = withFixtures(optional ? op.requestExample : requiredOnly(schema, op.requestExample), fixtures);
  }
  return input;
}

/** The value cut to the properties its schema requires, at every depth. */
export function requiredOnly(schema: Json, value: Json): Json {
  const node = deref(schema);
  if (Array.isArray(value)) return value.map((item) => requiredOnly(node?.items ?? {}, item));
  if (value === null || typeof value !== "object" || !node) return value;
  const required: string[] = node.required ?? [];
  const variants = (node.allOf ?? []).map(deref);
  const names = new Set([...required, ...variants.flatMap((variant: Json) => variant.required ?? [])]);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => names.has(name))
      .map(([name, field]) => [name, requiredOnly(node.properties?.[name] ?? {}, field)]),
  );
}

function withFixtures(value: Json, fixtures: Fixtures): Json {
  if (Array.isArray(value)) return value.map((item) => withFixtures(item, fixtures));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, field]) => [name, fixtures.has(name) ? fixtures.get(name) : withFixtures(field, fixtures)]),
  );
}

/** The `x-sdk` of an operation: its resource and method, and whether the method is written by hand. */
export function sdkOf(operationId: OperationId): { resource: string; method: string; custom?: boolean } {
  return operationObject(operationId)["x-sdk"];
}

/** Calls the operation by its operationId (`client.request`). */
export function callByRequest(
  client: OrgAgent,
  operationId: OperationId,
  input: CallInput,
  options?: object,
): PromiseLike<unknown> & { withResponse(): Promise<{ data: unknown; response: Response }> } {
  const request = client.request as (id: OperationId, params?: CallInput, options?: object) => never;
  return request.call(client, operationId, input, options);
}

/**
 * Calls the operation through its generated resource method, `client.<resource>.<method>(…)`, with the arguments in
 * the order the spec's rules give them; undefined for a method written by hand (`x-sdk.custom`), whose signature is
 * its own.
 */
export function callByMethod(
  client: OrgAgent,
  operationId: OperationId,
  input: CallInput,
  options?: object,
): (PromiseLike<unknown> & { withResponse(): Promise<{ data: unknown; response: Response }> }) | undefined {
  const { resource, method, custom } = sdkOf(operationId);
  if (custom) return undefined;
  const op: SpecOperation = specOperation(operationId);
  const pathNames = [...op.path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!);
  const hasQuery = op.parameters.some((param) => param.in === "query");
  const hasBody = operationObject(operationId).requestBody !== undefined;
  const object =
    hasQuery && hasBody ? { ...input.query, ...(input.body as object) } : hasQuery ? input.query : hasBody ? input.body : undefined;
  const args = [...pathNames.map((name) => input.path?.[name]), ...(hasQuery || hasBody ? [object] : []), options];
  const target = (client as unknown as Record<string, Record<string, (...args: unknown[]) => never>>)[resource]!;
  return target[method]!.call(target, ...args);
}
