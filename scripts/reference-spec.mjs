// The spec as the API reference (`npm run docs`) renders it, derived from the bundle by `referenceSpec` so that
// nothing shown in the reference is copied by hand:
// - Every host in the Servers card: the root `servers` lists each host's server once, and every path is pinned to
//   the server that serves it, so each operation still shows only its own URL. (The bundle itself keeps one root
//   server, the API host, and a path-level server on readiness reports: a second root server would tell generators
//   that every path is served by both hosts.)
// - Samples for every operation (scripts/samples.mjs): its hand-written TypeScript and CLI samples (`x-codeSamples`)
//   where it has them, else generated ones (`client.<resource>.<method>`, `orgagent api`), and a generated curl
//   sample. test/docs/reference-samples.e2e.ts runs each one against the emulator.
import { LABELS, cliSample, curlSample, serverOf, typeScriptSample } from "./samples.mjs";
import { deref } from "./spec-tables.mjs";

export { curlSample, parametersOf, serverOf } from "./samples.mjs";

const METHODS = ["get", "put", "post", "delete", "patch"];

/** The `x-codeSamples` label of the generated curl samples. */
export const CURL_LABEL = LABELS.curl;

/** `[path, method, operation]` for every operation of the bundle, in the spec's order. */
export function operationsOf(spec) {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => deref(spec, item)[method]).map((method) => [path, method, deref(spec, item)[method]]),
  );
}

/**
 * The samples the reference shows for an operation: its hand-written TypeScript and CLI samples, each generated when
 * missing, then curl.
 */
export function referenceSamples(spec, path, method, operation) {
  const own = operation["x-codeSamples"] ?? [];
  const typeScript = own.filter((sample) => sample.lang === "TypeScript");
  const cli = own.filter((sample) => sample.label === LABELS.cli);
  return [
    ...(typeScript.length ? typeScript : [{ lang: "TypeScript", label: LABELS.typescript, source: typeScriptSample(spec, path, method) }]),
    ...(cli.length ? cli : [{ lang: "Shell", label: LABELS.cli, source: cliSample(spec, path, method) }]),
    ...own.filter((sample) => !typeScript.includes(sample) && !cli.includes(sample)),
    { lang: "Shell", label: LABELS.curl, source: curlSample(spec, path, method) },
  ];
}

/** A copy of the bundled spec, as the reference shows it: every host listed, samples on every operation. */
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
    operation["x-codeSamples"] = referenceSamples(spec, path, method, operation);
  }
  return reference;
}
