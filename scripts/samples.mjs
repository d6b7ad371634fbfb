// The reference's code samples of one operation, generated from the spec: TypeScript (`client.<resource>.<method>`
// from x-sdk), the CLI (`orgagent api`) and curl, each with the operation's own example values (its parameters'
// examples, its first request body example). scripts/reference-spec.mjs shows them for any operation without
// hand-written `x-codeSamples` (curl for every operation); test/docs/code-samples.test.ts compiles every generated
// TypeScript sample and test/docs/reference-samples.e2e.ts runs all three against the emulator, for every operation.
import { signatureOf } from "./resources.mjs";
import { deref } from "./spec-tables.mjs";

/** The labels of the generated samples, as Redoc shows them. */
export const LABELS = { typescript: "TypeScript", cli: "orgagent CLI", curl: "curl" };
/** Samples are kept to this width: the samples panel of a 1440-pixel window. */
const WIDTH = 62;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The server that serves `path`: its own path-level server, else the root one. */
export function serverOf(spec, path) {
  return (deref(spec, spec.paths[path]).servers ?? spec.servers)[0];
}

/** The parameters of an operation, its path item's included, resolved. */
export function parametersOf(spec, path, method) {
  const item = deref(spec, spec.paths[path]);
  return [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p) => deref(spec, p));
}

/** The value a parameter's (or a media type's) examples give first. */
export function exampleOf(spec, node) {
  if (node.example !== undefined) return node.example;
  const [first] = Object.values(node.examples ?? {});
  if (first !== undefined) return deref(spec, first).value;
  return deref(spec, node.schema)?.example;
}

/** The example values of a call: path parameters, query parameters with an example (not the page cursor), the body. */
function exampleCall(spec, path, method) {
  const operation = deref(spec, spec.paths[path])[method];
  const parameters = parametersOf(spec, path, method);
  const cursor = operation["x-pagination"]?.cursorParam;
  const values = (where) =>
    parameters
      .filter((p) => p.in === where && p.name !== cursor && exampleOf(spec, p) !== undefined)
      .map((p) => [p.name, exampleOf(spec, p), p]);
  const media = deref(spec, operation.requestBody)?.content?.["application/json"];
  return { operation, pathValues: values("path"), query: values("query"), body: media ? exampleOf(spec, media) : undefined };
}

export const shellQuote = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/** JSON indented by two spaces, except that an array of scalars stays on one line (`["Read", "Edit"]`). */
export function formatJson(value, indent = "") {
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) {
    return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
  }
  if (!value || typeof value !== "object") return JSON.stringify(value);
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((v) => `${inner}${formatJson(v, inner)}`)
    : Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatJson(v, inner)}`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return entries.length ? `${open}\n${entries.join(",\n")}\n${indent}${close}` : `${open}${close}`;
}

/** A TypeScript literal: on one line when it fits in `room`, else one property or item per line. */
function formatTs(value, indent, room) {
  const key = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
  const flat = (v) =>
    v === null || typeof v !== "object"
      ? JSON.stringify(v)
      : Array.isArray(v)
        ? `[${v.map(flat).join(", ")}]`
        : Object.keys(v).length
          ? `{ ${Object.entries(v)
              .map(([k, item]) => `${key(k)}: ${flat(item)}`)
              .join(", ")} }`
          : "{}";
  const line = flat(value);
  if (line.length <= room || value === null || typeof value !== "object") return line;
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((v) => `${inner}${formatTs(v, inner, WIDTH - inner.length)},`)
    : Object.entries(value).map(([k, v]) => `${inner}${key(k)}: ${formatTs(v, inner, WIDTH - inner.length - key(k).length - 2)},`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return `${open}\n${entries.join("\n")}\n${indent}${close}`;
}

const camel = (name) => name.charAt(0).toLowerCase() + name.slice(1);

/** The curl command of one operation: its host, the key from `$ORGAGENT_API_KEY`, its example values. */
export function curlSample(spec, path, method) {
  const { operation, pathValues, query, body } = exampleCall(spec, path, method);
  let url = serverOf(spec, path).url + path;
  for (const [name, value] of pathValues) url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
  const words = [
    [
      "curl",
      ...(query.length ? ["-G"] : []),
      ...(method === "get" || (method === "post" && body !== undefined) ? [] : ["-X", method.toUpperCase()]),
      url,
    ],
  ];
  if ((operation.security ?? spec.security)?.length) words.push(["-H", '"Authorization: Bearer $ORGAGENT_API_KEY"']);
  for (const [name, value] of query) {
    const pair = `${name}=${value}`;
    words.push(/^[\w.:-]+=[\w.:-]+$/.test(pair) ? ["-d", pair] : ["--data-urlencode", shellQuote(pair)]);
  }
  if (body !== undefined) {
    words.push(["-H", '"Content-Type: application/json"']);
    words.push(["-d", `'${formatJson(body, "  ").replaceAll("'", `'\\''`)}'`]);
  }
  return `${words.map((line) => line.join(" ")).join(" \\\n  ")}\n`;
}

/**
 * The `orgagent api` command of one operation: its method and path with the example values in place, each query
 * parameter as a field (`-f` text, `-F` a number or boolean), the body from standard input, and `--paginate` for a
 * list.
 */
export function cliSample(spec, path, method) {
  const { operation, pathValues, query, body } = exampleCall(spec, path, method);
  let concrete = path;
  for (const [name, value] of pathValues) concrete = concrete.replace(`{${name}}`, encodeURIComponent(String(value)));
  const words = [["orgagent", "api", method.toUpperCase(), concrete]];
  for (const [name, value] of query) words.push([typeof value === "string" ? "-f" : "-F", shellQuote(`${name}=${value}`)]);
  if (operation["x-pagination"]) words.push(["--paginate"]);
  if (body === undefined) return `${words.map((line) => line.join(" ")).join(" \\\n  ")}\n`;
  words.push(["--input", "-", "<<'JSON'"]);
  return `${words.map((line) => line.join(" ")).join(" \\\n  ")}\n${formatJson(body)}\nJSON\n`;
}

/**
 * The TypeScript of one operation: `client.<resource>.<method>(…)` as x-sdk names it, with the example values in
 * the method's signature (path parameters, then one object of query parameters and body fields); a list iterated
 * with `for await`. A method written by hand (`x-sdk.custom`) has no signature to derive: the sample calls
 * `client.request` with the operationId.
 */
export function typeScriptSample(spec, path, method) {
  const { operation, pathValues, query, body } = exampleCall(spec, path, method);
  const { resource, method: name, custom } = operation["x-sdk"];
  const lines = [
    'import { OrgAgent } from "orgagent";',
    "",
    "// Reads ORGAGENT_API_KEY and ORGAGENT_BASE_URL.",
    "const client = new OrgAgent();",
  ];
  const paging = operation["x-pagination"];
  const response = successSchema(spec, operation);
  let callee;
  let args;
  if (custom) {
    callee = "client.request";
    const params = {
      ...(pathValues.length ? { path: Object.fromEntries(pathValues) } : {}),
      ...(query.length ? { query: Object.fromEntries(query) } : {}),
      ...(body !== undefined ? { body } : {}),
    };
    args = [JSON.stringify(operation.operationId), ...(Object.keys(params).length ? [params] : [])];
  } else {
    callee = `client.${resource}.${name}`;
    const signature = signatureOf(spec, path, operation);
    const object =
      signature.object === "query"
        ? Object.fromEntries(query)
        : signature.object === "body"
          ? body
          : signature.object === "both"
            ? { ...Object.fromEntries(query), ...body }
            : undefined;
    args = [
      ...signature.pathNames.map((param) => pathValues.find(([p]) => p === param)?.[1]),
      ...(object !== undefined && (Object.keys(object).length || signature.objectRequired) ? [object] : []),
    ];
  }
  // The call on one line when it fits; else its one object argument opened on that line; else an argument a line.
  const call = (before) => {
    const head = `${before}${callee}(`;
    const literal = (arg, indent, room) => (typeof arg === "string" && arg.startsWith('"') ? arg : formatTs(arg, indent, room));
    const oneLine = `${head}${args.map((arg) => literal(arg, "", Infinity)).join(", ")})`;
    if (oneLine.length <= WIDTH) return oneLine.slice(before.length);
    const last = args.at(-1);
    const leading = args
      .slice(0, -1)
      .map((arg) => literal(arg, "", Infinity))
      .join(", ");
    if (last !== null && typeof last === "object" && `${head}${leading}`.length < WIDTH - 2) {
      return `${head.slice(before.length)}${leading ? `${leading}, ` : ""}${formatTs(last, "", 0)})`;
    }
    return `${head.slice(before.length)}\n${args.map((arg) => `  ${literal(arg, "  ", WIDTH - 3)},`).join("\n")}\n)`;
  };
  if (paging && !custom) {
    const item = camel(deref(spec, deref(spec, response?.properties?.[paging.items])?.items)?.title ?? "item");
    lines.push(`for await (const ${item} of ${call(`for await (const ${item} of `)}) {`, `  console.log(${item});`, "}");
  } else {
    const variable = camel(deref(spec, response)?.title ?? "answer").replace(/Response$/, "") || "answer";
    lines.push(`const ${variable} = await ${call(`const ${variable} = await `)};`, `console.log(${variable});`);
  }
  return `${lines.join("\n")}\n`;
}

function successSchema(spec, operation) {
  const code = Object.keys(operation.responses).find((status) => /^2\d\d$/.test(status));
  return deref(spec, deref(spec, deref(spec, operation.responses[code])?.content?.["application/json"]?.schema));
}

/** The three generated samples of an operation, as `x-codeSamples` entries. */
export function generatedSamples(spec, path, method) {
  return [
    { lang: "TypeScript", label: LABELS.typescript, source: typeScriptSample(spec, path, method) },
    { lang: "Shell", label: LABELS.cli, source: cliSample(spec, path, method) },
    { lang: "Shell", label: LABELS.curl, source: curlSample(spec, path, method) },
  ];
}
