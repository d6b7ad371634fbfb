// Read-only access to the bundled spec for tests: operations, their examples and parameters, refs resolved.
// Tests take every expected body and parameter value from here, so they restate nothing the spec holds.
import { readFileSync } from "node:fs";

export const spec = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));

export function deref<T = any>(node: any): T {
  while (node && typeof node.$ref === "string") {
    node = node.$ref
      .slice(2)
      .split("/")
      .reduce((at: any, key: string) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
  }
  return node;
}

export interface SpecParameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  example?: unknown;
  schema: any;
}

export interface SpecOperation {
  operationId: string;
  method: string;
  path: string;
  parameters: SpecParameter[];
  /** First example of the JSON request body, if any. */
  requestExample?: unknown;
  successStatus: number;
  /** First example of the success response: what Prism returns by default. */
  successExample: unknown;
  responses: Record<string, any>;
}

function firstExample(media: any): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  return first === undefined ? undefined : deref(first).value;
}

export const specOperations: SpecOperation[] = Object.entries(spec.paths as Record<string, any>).flatMap(
  ([path, rawItem]) => {
    const item = deref(rawItem);
    return ["get", "put", "post", "delete", "patch"]
      .filter((method) => item[method])
      .map((method) => {
        const op = item[method];
        const successStatus = Number(Object.keys(op.responses).find((code) => /^2\d\d$/.test(code)));
        const success = deref(op.responses[String(successStatus)]);
        return {
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => deref<SpecParameter>(p)),
          requestExample: firstExample(deref(op.requestBody)?.content?.["application/json"]),
          successStatus,
          successExample: firstExample(success.content?.["application/json"]),
          responses: op.responses,
        };
      });
  },
);

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
