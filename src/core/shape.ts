// A success body checked before it is handed over: JSON, of the type the spec says, with every field the spec marks
// required at the top level, of its JSON type. Only the top level is checked, so a service that adds a field, or
// changes one deep inside, does not break callers; a body that cannot be the documented one is an APIError.
import { APIError, isRecord, snippet, type RequestContext } from "./errors.js";

/** The top-level shape of an operation's success body, as emitted into generated/spec-tables.ts. */
export interface ResponseShape {
  readonly type?: string;
  readonly required?: { readonly [name: string]: string };
}

const JSON_TYPES: Record<string, (value: unknown) => boolean> = {
  array: Array.isArray,
  object: isRecord,
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => typeof value === "number",
  boolean: (value) => typeof value === "boolean",
};

/** The parsed body, or the APIError of a success status whose body is not the documented JSON. */
export function parseSuccess(
  shape: ResponseShape | undefined,
  status: number,
  headers: Headers,
  text: string,
  request: { where(): RequestContext | undefined },
): { data: unknown } | { error: APIError } {
  // A test, not trim(): trimming would copy the whole body.
  if (!/\S/.test(text)) return malformedAnswer(status, headers, text, "the response body is empty, expected JSON", request);
  const type = headers.get("content-type");
  // A proxy's or captive portal's page is not the API's answer, even if it happens to parse.
  if (type && !/^application\/(.+\+)?json\s*(;|$)/i.test(type))
    return malformedAnswer(status, headers, text, `expected JSON, got ${type}`, request);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return malformedAnswer(status, headers, text, "the response body is not valid JSON", request);
  }
  if (shape?.type === "object") {
    if (!isRecord(data)) return malformedAnswer(status, headers, text, "expected a JSON object", request);
    for (const name in shape.required) {
      const kind = shape.required[name]!;
      if (data[name] === undefined) return malformedAnswer(status, headers, text, `the required field \`${name}\` is missing`, request);
      if (!(JSON_TYPES[kind]?.(data[name]) ?? true))
        return malformedAnswer(status, headers, text, `expected \`${name}\` to be ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`, request);
    }
  }
  return { data };
}

/** The APIError of a success status whose body cannot be the documented one: the reason and a snippet of the text. */
function malformedAnswer(status: number, headers: Headers, text: string, why: string, request: { where(): RequestContext | undefined }) {
  return { error: new APIError(status, headers, text, `${status}: ${why}${text ? `: ${snippet(text)}` : ""}`, request.where()) };
}
