// Generates generated/examples.ts: each operation's first success example (what Prism answers without `Prefer`),
// and for a list the facts needed to serve that example's items page by page (whether its next cursor may be null).
// Only the emulator reads it: an operation it has no behaviour for is answered from here (src/emulator/examples.ts),
// so it answers every operation of the spec, present and future. The SDK never imports it.
import { deref } from "./spec-tables.mjs";
import { operationsOf } from "./reference-spec.mjs";

function firstExample(spec, media) {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const [first] = Object.values(media.examples ?? {});
  return first === undefined ? undefined : deref(spec, first).value;
}

/** The schema at a dotted path of properties (`pagination.nextCursor`), refs resolved. */
function schemaAt(spec, schema, dotted) {
  let node = deref(spec, schema);
  for (const key of dotted.split(".")) {
    const variants = node?.anyOf ?? node?.oneOf ?? node?.allOf;
    node = deref(spec, (variants ? variants.map((v) => deref(spec, v)).find((v) => v.properties?.[key]) : node)?.properties?.[key]);
  }
  return node;
}

export function buildExamples(spec) {
  const table = {};
  for (const [, , operation] of operationsOf(spec)) {
    const status = Object.keys(operation.responses).find((code) => /^2\d\d$/.test(code));
    const media = deref(spec, deref(spec, operation.responses[status])?.content?.["application/json"]);
    // Whether it documents 403: the emulator then refuses its guest key, as for every operation that does.
    const entry = { status: Number(status), forbids: "403" in operation.responses };
    const example = firstExample(spec, media);
    if (example !== undefined) entry.example = example;
    const paging = operation["x-pagination"];
    if (paging?.nextCursor) {
      const cursor = schemaAt(spec, media.schema, paging.nextCursor);
      entry.nextCursorNullable =
        [cursor?.type].flat().includes("null") || Boolean(cursor?.anyOf?.some((v) => deref(spec, v).type === "null"));
    }
    table[operation.operationId] = entry;
  }
  return table;
}

export function renderExamples(table) {
  return [
    "/**",
    " * Each operation's first success example, with its status; for a list paged by a next cursor, whether that cursor",
    " * may be null on the last page; whether it documents 403. The emulator answers an operation it has no behaviour",
    " * for from here.",
    " */",
    `export const operationExamples: { readonly [operationId: string]: { readonly status: number; readonly forbids: boolean; readonly example?: unknown; readonly nextCursorNullable?: boolean } } = ${JSON.stringify(table, null, 2)};`,
    "",
  ].join("\n");
}
