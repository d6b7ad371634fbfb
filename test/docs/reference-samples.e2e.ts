// Every sample of the API reference runs, as written, against the emulator: the TypeScript and CLI samples of the
// spec (x-codeSamples, or generated where an operation has none) and the curl samples scripts/reference-spec.mjs
// makes; and so do the generated TypeScript and CLI samples of every operation, so that the samples a new operation
// gets are known to run before it has one. Only the spec's example values are
// replaced by the emulator's own: its hosts' URLs, and the ids of a computer, a session and a message it has, and the
// e-mail addresses of people it knows. Each sample must exit 0 and send its own operation: the SDK's debug log
// names each request of the TypeScript and CLI samples, and curl, told to fail on an HTTP error, must print JSON.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CURL_LABEL, operationsOf, parametersOf, referenceSamples, serverOf } from "../../scripts/reference-spec.mjs";
import { generatedSamples } from "../../scripts/samples.mjs";
import { OrgAgent } from "../../src/index.js";
import { root } from "../cli/support.js";
import { describeRun, startExampleWorld, type ExampleLanguage, type ExampleWorld } from "./example-runner.js";

const spec = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));
const operations = operationsOf(spec).map(([path, method, operation]) => ({
  path,
  method,
  operationId: operation.operationId as string,
  parameters: parametersOf(spec, path, method),
  samples: referenceSamples(spec, path, method, operation),
  generated: generatedSamples(spec, path, method)
    .filter((sample) => sample.label !== CURL_LABEL)
    .map((sample) => ({ ...sample, label: `${sample.label} (generated)` })),
}));

// curl as the samples use it, but failing on an HTTP error status with the body on stdout.
const strictCurl = 'curl() { command curl --silent --show-error --fail-with-body "$@"; }\n';

let world: ExampleWorld;
let client: OrgAgent;
let computerId: string;
/** Example value in the spec → the emulator's value. */
const replacements = new Map<string, string>();

beforeAll(async () => {
  world = await startExampleWorld();
  const { emulator } = world;
  client = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner });

  // A computer, a session on it and a message in that session, as the samples' ids stand for.
  const computer = await client.computers.getByName("build-box-eu-1");
  computerId = computer.id;
  const session = await client.sessions.create({ computerId });
  const { messageId } = await client.sessions.sendMessageAndWait(session.sessionId, { text: "Hello" }, { interval: 50 });
  const live: Record<string, string> = { computerId, name: computer.name, sessionId: session.sessionId, messageId };
  for (const { parameters } of operations) {
    for (const parameter of parameters) {
      if (parameter.example !== undefined && live[parameter.name]) replacements.set(String(parameter.example), live[parameter.name]!);
    }
  }
  for (const { path } of operations) {
    const server = serverOf(spec, path);
    replacements.set(server.url, server["x-host-name"] === "app_url" ? emulator.appUrl : emulator.baseUrl);
  }
  // The people of the spec's examples (the limits request) are people of the emulator's organization.
  const emails = new Set(JSON.stringify(spec.components.examples).match(/[\w.]+@acme-robotics\.com/g));
  [...emails].forEach((email, index) => replacements.set(email, emulator.org.users[index]!.email));
}, 120_000);

afterAll(async () => {
  await world?.close();
});

function withEmulatorValues(source: string): string {
  let text = source;
  for (const [example, value] of replacements) text = text.replaceAll(example, value);
  return text;
}

describe.each(operations)("the samples of $operationId", ({ method, path, samples, generated }) => {
  test("cover TypeScript, the CLI and curl", () => {
    expect(samples.map(({ label }) => label)).toEqual(["TypeScript", "orgagent CLI", CURL_LABEL]);
  });

  test.each([...samples, ...generated])("$label runs against the emulator and sends the operation", async ({ lang, label, source }) => {
    const code = withEmulatorValues(source);
    for (const [example, value] of replacements) if (example !== value) expect(code).not.toContain(example);
    const language: ExampleLanguage = lang === "TypeScript" ? "typescript" : "shell";
    const run = await world.run(language, label === CURL_LABEL ? strictCurl + code : code, { env: { ORGAGENT_LOG: "debug" } });
    expect(run.code, describeRun(run)).toBe(0);
    if (label === CURL_LABEL) expect(() => JSON.parse(run.stdout), describeRun(run)).not.toThrow();
    // The SDK logs through `console` (debug lines go to stdout), the CLI to stderr.
    else expect(run.stdout + run.stderr, describeRun(run)).toContain(`→ ${method.toUpperCase()} ${path}`);
    // A retried install step leaves the computer provisioning for a moment: let it settle for the next sample.
    await client.computers.waitUntilActive(computerId, { interval: 50 });
  });
});
