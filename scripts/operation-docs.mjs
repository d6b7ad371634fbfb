// The lists of operations in the documentation, generated from the bundled spec so that they cannot miss one:
// docs/sdk.md's table of every operation with its SDK method, and docs/cli.md's list of the `orgagent api` form of
// each. `npm run generate` rewrites the part of each file between its markers; test/docs/operation-lists.test.ts
// fails when a file is stale.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operationsOf } from "./reference-spec.mjs";
import { signatureOf } from "./resources.mjs";
import { deref } from "./spec-tables.mjs";

const begin = (name) => `<!-- ${name}: generated from the spec by npm run generate; do not edit -->`;
const end = (name) => `<!-- /${name} -->`;

/** docs/sdk.md: every operation, its SDK method with its arguments, and what a list pages through. */
export function sdkTable(spec) {
  const rows = operationsOf(spec).map(([path, method, operation]) => {
    const { resource, method: name, custom } = operation["x-sdk"];
    const signature = signatureOf(spec, path, operation);
    const object = { query: "query", body: "body", both: "params" }[signature.object];
    const args = [...signature.pathNames, ...(object ? [signature.objectRequired ? object : `${object}?`] : []), "options?"];
    const call = `client.${resource}.${name}(${custom ? "…" : args.join(", ")})`;
    const paging = operation["x-pagination"];
    const answer = paging ? `pages of \`${paging.items}\`` : "";
    return `| \`${operation.operationId}\` | \`${call}\` | \`${method.toUpperCase()} ${path}\` | ${answer} |`;
  });
  return ["| operationId | SDK method | HTTP | A list of |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** docs/cli.md: the `orgagent api` form of every operation. */
export function cliTable(spec) {
  const rows = operationsOf(spec).map(([path, method, operation]) => {
    const host = deref(spec, spec.paths[path]).servers?.[0]?.["x-host-name"] === "app_url" ? " (app host)" : "";
    const paging = operation["x-pagination"] ? " [--paginate]" : "";
    return `| \`orgagent api ${method.toUpperCase()} ${path}${paging}\`${host} | \`${operation.operationId}\` | ${operation.summary.replace(/\|/g, "\\|")} |`;
  });
  return ["| Command | operationId | What it does |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The documents that list operations, each with the block between its markers. */
export const DOCUMENTS = [
  { file: "docs/sdk.md", name: "operations", render: sdkTable },
  { file: "docs/cli.md", name: "api-operations", render: cliTable },
];

/** `text` with the block between the markers of `name` replaced by `block`; throws when the markers are missing. */
export function withBlock(text, name, block) {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from === -1 || to < from) throw new Error(`missing the markers ${begin(name)} … ${end(name)}`);
  return `${text.slice(0, from)}${begin(name)}\n${block}\n${text.slice(to)}`;
}

/** Rewrites the generated blocks of the documents under `root`. */
export function writeOperationDocs(spec, root) {
  for (const { file, name, render } of DOCUMENTS) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, "utf8");
    const updated = withBlock(text, name, render(spec));
    if (updated !== text) writeFileSync(path, updated);
  }
}
