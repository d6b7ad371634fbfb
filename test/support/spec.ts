// Reads operations, examples and bounds out of the bundled spec, refs resolved, so tests compare against the spec
// instead of copies of it: every expected body and parameter value comes from here.
import { readFileSync } from "node:fs";
import { operations, type OperationId } from "../../generated/spec-tables.js";

type Json = any; // the bundled document is walked dynamically; every lookup below fails loudly if it is missing

export const spec: Json = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));

/** Follows a local `$ref` (repeatedly) to the node it names. */
export function deref(node: Json): Json {
  while (node && typeof node === "object" && typeof node.$ref === "string") {
    const ref: string = node.$ref;
    if (!ref.startsWith("#/")) throw new Error(`Only local refs are supported: ${ref}`);
    node = ref
      .slice(2)
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((at: Json, key) => at?.[key], spec);
    if (node === undefined) throw new Error(`Unresolved ref ${ref}`);
  }
  return node;
}

/** The operation object of an operationId, found in `paths`. */
export function operationObject(operationId: OperationId): Json {
  const { path, method } = operations[operationId];
  const op = spec.paths[path]?.[method.toLowerCase()];
  if (op?.operationId !== operationId) throw new Error(`No ${method} ${path} for ${operationId} in the spec`);
  return op;
}

/** Named examples of one media type, in document order, values resolved. */
function examplesOf(media: Json): { name: string; value: unknown }[] {
  if (!media) return [];
  if (media.examples) {
    return Object.entries(media.examples).map(([name, example]) => ({ name, value: deref(example).value }));
  }
  return media.example !== undefined ? [{ name: "example", value: media.example }] : [];
}

/** The first example of the operation's first 2xx JSON response: what Prism returns without `Prefer`. */
export function successExample(operationId: OperationId): any {
  const op = operationObject(operationId);
  const status = Object.keys(op.responses).find((code) => /^2\d\d$/.test(code));
  if (!status) throw new Error(`${operationId} has no 2xx response`);
  const example = examplesOf(deref(op.responses[status]).content?.["application/json"])[0];
  if (!example) throw new Error(`${operationId} ${status} has no example`);
  return example.value;
}

/** Every example of the operation's 2xx JSON response. */
export function successExamples(operationId: OperationId): { name: string; value: any }[] {
  const op = operationObject(operationId);
  const status = Object.keys(op.responses).find((code) => /^2\d\d$/.test(code))!;
  return examplesOf(deref(op.responses[status]).content?.["application/json"]);
}

/** The first example of the operation's response for `status` (an error body). */
export function responseExample(operationId: OperationId, status: number): any {
  const response = operationObject(operationId).responses[String(status)];
  if (!response) throw new Error(`${operationId} documents no ${status}`);
  const example = examplesOf(deref(response).content?.["application/json"])[0];
  if (!example) throw new Error(`${operationId} ${status} has no example`);
  return example.value;
}

/** The hook-input examples of the `hookInput` webhook, keyed by example name. */
export function hookInputExamples(): { name: string; value: any }[] {
  return examplesOf(spec.webhooks.hookInput.post.requestBody.content["application/json"]);
}

/** `path` with its `{params}` replaced by plain, safe values. */
export function concretePath(path: string): string {
  return path.replace(/\{([^{}]+)\}/g, (_, name: string) => `sample-${name}`);
}

/** ISO date `days` after `date`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The analytics date window of the spec: the first data day and yesterday (UTC). */
export function analyticsWindow(now = new Date()): { earliest: string; latest: string } {
  const range = operations.getAnalyticsTokens.params.startDate.schema.dateRange;
  const earliest = range.firstDataDay;
  if (range.latest !== "yesterday") throw new Error(`Unexpected latest bound ${range.latest}`);
  // Computed here rather than taken from src/, so a wrong "yesterday" in the SDK cannot hide.
  const latest = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  return { earliest, latest };
}

/** A valid analytics range inside the window: a week starting at the earliest allowed day. */
export function analyticsRange(): { startDate: string; endDate: string } {
  const { earliest, latest } = analyticsWindow();
  const end = addDays(earliest, 6);
  return { startDate: earliest, endDate: end < latest ? end : latest };
}

/** The operationId whose method and path template match a request, if any. */
export function operationFor(method: string, pathname: string): OperationId | undefined {
  for (const [id, op] of Object.entries(operations) as [OperationId, (typeof operations)[OperationId]][]) {
    const pattern = op.path
      .split(/\{[^{}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^/]+");
    if (op.method === method && new RegExp(`^${pattern}$`).test(pathname)) return id;
  }
  return undefined;
}

export interface SpecParameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  example?: unknown;
  schema: Json;
}

export interface SpecOperation {
  operationId: OperationId;
  method: string;
  path: string;
  parameters: SpecParameter[];
  /** First example of the JSON request body, if any. */
  requestExample?: unknown;
  successStatus: number;
  /** First example of the success response: what Prism returns without `Prefer`. */
  successExample: unknown;
  responses: Record<string, Json>;
}

/** Every operation of the spec, in document order. */
export const specOperations: SpecOperation[] = Object.entries(spec.paths as Record<string, Json>).flatMap(([path, rawItem]) => {
  const item = deref(rawItem);
  return ["get", "put", "post", "delete", "patch"]
    .filter((method) => item[method])
    .map((method) => {
      const op = item[method];
      const successStatus = Number(Object.keys(op.responses).find((code) => /^2\d\d$/.test(code)));
      return {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(p)),
        requestExample: examplesOf(deref(op.requestBody)?.content?.["application/json"])[0]?.value,
        successStatus,
        successExample: successExample(op.operationId),
        responses: op.responses,
      };
    });
});

export function specOperation(operationId: string): SpecOperation {
  const op = specOperations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId} in the spec`);
  return op;
}

/** A plausible value for a parameter: its example, else its schema's example, default or first enum value. */
export function exampleValue(param: SpecParameter): unknown {
  const schema = deref(param.schema);
  return param.example ?? schema.examples?.[0] ?? schema.default ?? schema.enum?.[0];
}

/** Path and query parameters of an operation, filled from the spec's examples. */
export function exampleParams(op: SpecOperation, { optional }: { optional: boolean }) {
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const param of op.parameters) {
    if (!param.required && !optional) continue;
    const value = exampleValue(param);
    if (value === undefined) throw new Error(`${op.operationId}: no example for parameter ${param.name}`);
    if (param.in === "path") path[param.name] = value;
    if (param.in === "query") query[param.name] = value;
  }
  return { path, query };
}
