// The published spec in outside generators' hands, as users of other languages would take it: quicktype →
// Python, Go and Rust models from the spec's schemas, and four TypeScript HTTP-client generators from the per-host
// bundles. Every output must build with no warning, carry no invented type name, decode the emulator's real answers
// to all 15 operations, payloads as they occur in the field (an unlisted client type, hooks settings without
// timeouts and with matchers) and hook inputs of known and unknown events, and (the clients) call all 15 operations
// on the right host. quicktype's notes on values the spec leaves free-form (any JSON) are counted apart from
// warnings. The spec files read here are the ones the package exports (`npm run test:package` checks they are
// byte-identical). Generated code goes to dist/codegen/, never into git.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hosts, operations, type OperationId } from "../../generated/spec-tables.js";
import { startEmulator, type Emulator } from "../../src/emulator/index.js";
import { root } from "../package/consumer-project.js";
import { callContext, collectPayloads, decodedOperations, isHookPayload, type Payload } from "./answers.js";
import { buildClient, generators, runClient, typecheckPayloads } from "./clients.js";
import { go, python, rust, writeJsonSchema, type ModelResult } from "./models.js";

const out = join(root, "dist", "codegen");
const bundle = (name: string) => join(root, "generated", name);
const spec = JSON.parse(readFileSync(bundle("openapi.json"), "utf8"));
const operationCount = Object.keys(operations).length;

let emulator: Emulator;
let payloads: Payload[];
/** Hook inputs and hooks settings: the two webhook payloads. */
const hookCount = () => payloads.filter(isHookPayload).length;
/** The schemas of the webhook payloads: a generator that reads only `paths` emits neither. */
const WEBHOOK_TYPES = ["HookInput", "HooksSettings"];

interface Row {
  pair: string;
  built: boolean;
  warnings: number;
  /** quicktype's "cannot infer this type" notes on values the spec leaves free-form (any JSON): not warnings. */
  notes: number;
  decoded: number;
  hooks: number | string;
  called?: number;
  invented: string[];
}
const rows: Row[] = [];

beforeAll(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  emulator = await startEmulator({ seed: "codegen" });
  payloads = await collectPayloads(emulator);
  writeJsonSchema(spec, join(out, "schema.json"));
});

afterAll(async () => {
  await emulator?.close();
  if (rows.length) report();
});

/** quicktype's invented names, and names too generic to use: the signs of an unnamed union, enum or const. */
const INVENTED = [
  /\b(Purple|Fluffy|Tentacled|Sticky|Indigo|Indecent|Hilarious|Ambitious|Cunning|Magenta|Frisky|Mischievous|Braggadocious)[A-Z]\w*/g,
  /\bDatum\w*/g,
  /\b(?:class|type|struct|enum|interface)\s+(Type|TypeEnum)\b/g,
];

function inventedNames(files: string[]): string[] {
  const found = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const pattern of INVENTED) for (const match of text.matchAll(pattern)) found.add(match[0]);
  }
  return [...found].sort();
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

describe("quicktype models", () => {
  const languages: Array<[string, typeof python]> = [
    ["Python", python],
    ["Go", go],
    ["Rust", rust],
  ];

  test.each(languages)("quicktype → %s: builds without warnings, names every type, decodes every payload", async (language, make) => {
    const result: ModelResult = await make(spec, join(out, "schema.json"), join(out, "quicktype", language.toLowerCase()), payloads);
    const { operations: decoded, hooks } = decodedOperations(payloads, result.decoded);
    const invented = inventedNames(result.files);
    rows.push({
      pair: `quicktype → ${language}`,
      built: result.built,
      warnings: result.warnings.length,
      notes: result.freeFormNotes,
      decoded,
      hooks,
      invented,
    });

    expect(result.warnings).toEqual([]);
    expect(result.buildOutput.trim(), "build output").toBe("");
    expect(result.built).toBe(true);
    expect(invented).toEqual([]);
    expect(result.failures).toEqual({});
    expect(decoded).toBe(operationCount);
    expect(hooks).toBe(hookCount());
  });
});

describe("TypeScript clients from the per-host bundles", () => {
  test.each(generators.map((generator) => [generator.name, generator] as const))(
    "%s: no warnings, tsc --strict, payloads typed, all 15 operations called on the right host",
    async (name, generator) => {
      const dir = join(out, "typescript");
      mkdirSync(dir, { recursive: true });
      const printed = await generator.generate(dir, { api: bundle("openapi.api.json"), app: bundle("openapi.app.json") });
      const warnings = printed.split("\n").filter((line) => /warn|error|deprecat/i.test(line));
      const compiled = await buildClient(dir, generator);
      const generated = filesUnder(join(dir, name));
      const source = (host: string) =>
        generated
          .filter((file) => file.includes(`${name}/${host}`))
          .map((file) => readFileSync(file, "utf8"))
          .join("\n");
      const exported = (host: string, type: string) => new RegExp(`export (type|interface) ${type}\\b`).test(source(host));
      const typed = await typecheckPayloads(dir, generator, payloads, exported);
      const { operations: decoded, hooks } = decodedOperations(payloads, typed.decoded);

      const context = {
        ...callContext(emulator),
        hosts: { [hosts.base_url.default]: emulator.baseUrl, [hosts.app_url.default]: emulator.appUrl },
      };
      const calls = compiled === "" ? await runClient(dir, generator, context) : {};
      const onRightHost = (id: string) => {
        const call = calls[id];
        const host = hosts[operations[id as OperationId].host].default;
        return Boolean(call?.ok && call.hosts.length && call.hosts.every((used) => used === host));
      };
      const called = Object.keys(operations).filter(onRightHost).length;
      const invented = inventedNames(generated);
      // Hook payloads are `webhooks`; a generator that reads only `paths` emits no type for them.
      const noWebhookTypes = WEBHOOK_TYPES.every((type) => typed.missing.includes(type));
      const hooksNote = noWebhookTypes ? "no webhook types" : hooks;
      rows.push({
        pair: `${name} → TypeScript`,
        built: compiled === "",
        warnings: warnings.length,
        notes: 0,
        decoded,
        hooks: hooksNote,
        called,
        invented,
      });

      expect(warnings).toEqual([]);
      expect(compiled).toBe("");
      expect(invented).toEqual([]);
      expect(typed.missing.filter((type) => !(noWebhookTypes && WEBHOOK_TYPES.includes(type)))).toEqual([]);
      expect(decoded, typed.output).toBe(operationCount);
      if (hooksNote !== "no webhook types") expect(hooks, typed.output).toBe(hookCount());
      expect(Object.fromEntries(Object.entries(calls).filter(([id]) => !onRightHost(id)))).toEqual({});
      expect(called).toBe(operationCount);
    },
  );
});

/** One summary line and the results table (also written to dist/codegen/results.md). */
function report(): void {
  const total = operationCount;
  const clients = rows.filter((row) => row.called !== undefined);
  const hookRows = rows.filter((row) => typeof row.hooks === "number");
  const summary =
    `codegen: ${rows.length} generator × language pairs; built ${rows.filter((row) => row.built).length}/${rows.length}, ` +
    `${rows.reduce((sum, row) => sum + row.warnings, 0)} generator warnings, ` +
    `${rows.reduce((sum, row) => sum + row.notes, 0)} notes on free-form values ` +
    `(${
      rows
        .filter((row) => row.notes)
        .map((row) => `${row.pair.replace("quicktype → ", "")} ${row.notes}`)
        .join(", ") || "none"
    }), ` +
    `decoded ${Math.min(...rows.map((row) => row.decoded))}/${total} (${rows.filter((row) => row.decoded === total).length}/${rows.length} pairs), ` +
    `hook payloads ${Math.min(...hookRows.map((row) => row.hooks as number))}/${hookCount()} (${hookRows.length}/${rows.length} pairs emit hook types), ` +
    `called ${Math.min(...clients.map((row) => row.called!))}/${total} (${clients.filter((row) => row.called === total).length}/${clients.length} clients), ` +
    `invented names ${rows.reduce((sum, row) => sum + row.invented.length, 0)}`;
  const cell = (ok: boolean, text: string) => `${ok ? "✅" : "❌"} ${text}`;
  const table = [
    "| generator → language | builds | generator warnings | notes on free-form values | decodes (of 15 operations) | hook payloads (of " +
      hookCount() +
      ") | calls (of 15, right host) |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((row) =>
      [
        row.pair,
        cell(row.built, row.built ? "yes" : "no"),
        cell(row.warnings === 0, String(row.warnings)),
        row.notes ? `ℹ️ ${row.notes}` : "0",
        cell(row.decoded === total, `${row.decoded}/${total}`),
        typeof row.hooks === "number" ? cell(row.hooks === hookCount(), `${row.hooks}/${hookCount()}`) : `— ${row.hooks}`,
        row.called === undefined ? "— models only" : cell(row.called === total, `${row.called}/${total}`),
      ]
        .join(" | ")
        .replace(/^/, "| ")
        .concat(" |"),
    ),
  ].join("\n");
  writeFileSync(join(out, "results.md"), `${table}\n\n${summary}\n`);
  console.log(`${table}\n\n${summary}`);
}
