// The spec as the API reference (`npm run docs`) renders it, derived from the bundle by `referenceSpec` so that
// nothing shown in the reference is copied by hand:
// - Every host in the Servers card: the root `servers` lists each host's server once, and every path is pinned to
//   the server that serves it, so each operation still shows only its own URL. (The bundle itself keeps one root
//   server, the API host, and a path-level server on readiness reports: a second root server would tell generators
//   that every path is served by both hosts.)
// - A curl sample for every operation (`curlSample`), from its server, path, parameter examples and first request
//   body example. test/docs/reference-samples.e2e.ts runs each one against the emulator.
import { deref } from "./spec-tables.mjs";

const METHODS = ["get", "put", "post", "delete", "patch"];

/** The `x-codeSamples` label of the generated curl samples. */
export const CURL_LABEL = "curl";

/** `[path, method, operation]` for every operation of the bundle, in the spec's order. */
export function operationsOf(spec) {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => deref(spec, item)[method]).map((method) => [path, method, deref(spec, item)[method]]),
  );
}

/** The server that serves `path`: its own path-level server, else the root one. */
export function serverOf(spec, path) {
  return (deref(spec, spec.paths[path]).servers ?? spec.servers)[0];
}

/** The parameters of an operation, its path item's included, resolved. */
export function parametersOf(spec, path, method) {
  const item = deref(spec, spec.paths[path]);
  return [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p) => deref(spec, p));
}

/** A copy of the bundled spec, as the reference shows it: every host listed, a curl sample on every operation. */
export function referenceSpec(spec) {
  const reference = structuredClone(spec);
  const hosts = new Map();
  for (const path of Object.keys(reference.paths)) {
    const server = serverOf(reference, path);
    if (!hosts.has(server.url)) hosts.set(server.url, server);
    const item = deref(reference, reference.paths[path]);
    item.servers = [server];
  }
  reference.servers = [...hosts.values()];
  for (const [path, method, operation] of operationsOf(reference)) {
    operation["x-codeSamples"] = [
      ...(operation["x-codeSamples"] ?? []),
      { lang: "Shell", label: CURL_LABEL, source: curlSample(spec, path, method) },
    ];
  }
  return reference;
}

/** The value a parameter's (or a media type's) examples give first. */
function exampleOf(spec, node) {
  if (node.example !== undefined) return node.example;
  const [first] = Object.values(node.examples ?? {});
  if (first !== undefined) return deref(spec, first).value;
  return deref(spec, node.schema)?.example;
}

const shellQuote = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/** JSON indented by two spaces, except that an array of scalars stays on one line (`["Read", "Edit"]`). */
function formatJson(value, indent) {
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

/**
 * The curl command of one operation, as a reader would type it: the operation's own host, the credential from
 * `$ORGAGENT_API_KEY`, path parameters and query parameters from their examples (every query parameter with an
 * example but the page cursor, which a first request does not have), and the first request body example.
 */
export function curlSample(spec, path, method) {
  const operation = deref(spec, spec.paths[path])[method];
  const parameters = parametersOf(spec, path, method);
  const cursor = operation["x-pagination"]?.cursorParam;

  let url = serverOf(spec, path).url + path;
  for (const p of parameters.filter((p) => p.in === "path")) {
    url = url.replace(`{${p.name}}`, encodeURIComponent(String(exampleOf(spec, p))));
  }
  const query = parameters.filter((p) => p.in === "query" && p.name !== cursor && exampleOf(spec, p) !== undefined);
  const media = deref(spec, operation.requestBody)?.content?.["application/json"];
  const body = media && exampleOf(spec, media);

  const words = [["curl", ...(query.length ? ["-G"] : []), ...(method === "get" || (method === "post" && body) ? [] : ["-X", method.toUpperCase()]), url]];
  if ((operation.security ?? spec.security)?.length) words.push(["-H", '"Authorization: Bearer $ORGAGENT_API_KEY"']);
  for (const p of query) {
    const pair = `${p.name}=${exampleOf(spec, p)}`;
    words.push(/^[\w.:-]+=[\w.:-]+$/.test(pair) ? ["-d", pair] : ["--data-urlencode", shellQuote(pair)]);
  }
  if (body !== undefined) {
    words.push(["-H", '"Content-Type: application/json"']);
    words.push(["-d", `'${formatJson(body, "  ").replaceAll("'", `'\\''`)}'`]);
  }
  return `${words.map((line) => line.join(" ")).join(" \\\n  ")}\n`;
}
