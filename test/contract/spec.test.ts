// The spec itself: lint-clean, generated files fresh, and the document-level facts of the API description stated.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { deref, spec, specOperations } from "../support/spec.js";

/** A schema with its `allOf` parts merged: required names and properties of every part. */
function flattenAllOf(raw: any): any {
  const schema = deref(raw);
  const parts = [schema, ...(schema.allOf ?? []).map(flattenAllOf)];
  return {
    required: parts.flatMap((part) => part.required ?? []),
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
  };
}

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;

describe("generated/ is fresh", () => {
  const fresh = mkdtempSync(join(tmpdir(), "orgagent-generate-"));
  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  it("equals, file for file, a new generation from openapi/", async () => {
    await run(process.execPath, ["scripts/generate.mjs", "--out", fresh], { cwd: root });
    const committed = readdirSync(join(root, "generated")).sort();
    expect(readdirSync(fresh).sort()).toEqual(committed);
    for (const file of committed) {
      const expected = readFileSync(join(fresh, file), "utf8");
      expect(readFileSync(join(root, "generated", file), "utf8"), `generated/${file} is stale: run npm run generate`).toBe(expected);
    }
  }, 60_000);
});

describe("the spec is lint-clean", () => {
  it("has 0 errors and 0 warnings under redocly.yaml (recommended-strict and more)", async () => {
    const { stdout } = await run(join(root, "node_modules/.bin/redocly"), ["lint", "openapi/openapi.yaml", "--format=json"], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off" },
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0, ignored: 0 });
  }, 60_000);
});

describe("document-level facts", () => {
  it("declares the 2020-12 dialect so Prism and validators honour 2020-12 keywords", () => {
    expect(spec.jsonSchemaDialect).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("serves readiness from the app host and everything else from the API host, at concrete URLs", () => {
    expect(spec.servers).toHaveLength(1);
    expect(spec.servers[0]).toMatchObject({ url: expect.stringMatching(/^https:\/\/api\.[a-z.]+$/), "x-host-name": "base_url" });
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      const servers = deref(item).servers;
      if (path === "/api/organization/maturity-level-reports") {
        expect(servers).toEqual([
          expect.objectContaining({ url: expect.stringMatching(/^https:\/\/app\.[a-z.]+$/), "x-host-name": "app_url" }),
        ]);
      } else expect(servers).toBeUndefined();
    }
  });

  it("requires a bearer credential (API key or JWT) on every operation", () => {
    expect(spec.security).toEqual([{ bearerAuth: [] }]);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const op of specOperations) expect(deref(spec.paths[op.path])[op.method.toLowerCase()].security).toBeUndefined();
  });

  it("gives every operation an id, a summary, a description and one tag (code samples are generated where it has none)", () => {
    for (const op of specOperations) {
      const raw = deref(spec.paths[op.path])[op.method.toLowerCase()];
      expect(raw.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(raw.summary, op.operationId).toBeTruthy();
      expect(raw.description, op.operationId).toBeTruthy();
      expect(raw.tags, op.operationId).toHaveLength(1);
      if (raw["x-codeSamples"]) expect(raw["x-codeSamples"][0]?.lang, op.operationId).toBe("TypeScript");
    }
  });

  it("gives every response with a body at least one example; declares the headers the SDK reads: X-Request-Id on every answer, Retry-After and retry-after-ms on 429", () => {
    for (const op of specOperations) {
      for (const [code, rawResponse] of Object.entries<any>(op.responses)) {
        const response = deref(rawResponse);
        const media = response.content?.["application/json"];
        if (media) expect(Object.keys(media.examples ?? {}).length, `${op.operationId} ${code}`).toBeGreaterThan(0);
        expect(response.headers?.["X-Request-Id"], `${op.operationId} ${code}`).toBeDefined();
        if (code === "429")
          expect(Object.keys(response.headers).sort(), op.operationId).toEqual(["Retry-After", "X-Request-Id", "retry-after-ms"]);
      }
    }
  });

  it("documents 401 on every operation; an error body guarantees no field (the service's own description promises none)", () => {
    for (const op of specOperations) {
      expect(Object.keys(op.responses), op.operationId).toContain("401");
      for (const [code, raw] of Object.entries<any>(op.responses)) {
        if (!/^[45]/.test(code)) continue;
        const schema = flattenAllOf(deref(raw).content["application/json"].schema);
        expect(schema.required, `${op.operationId} ${code}`).toEqual([]);
        expect(Object.keys(schema.properties).sort()).toEqual(["detail", "requestId", "status", "title"]);
      }
    }
  });

  it("never forbids unknown properties in a schema", () => {
    const text = JSON.stringify(spec.components.schemas);
    expect(text).not.toMatch(/"(additionalProperties|unevaluatedProperties)":false/);
  });

  it("keeps the placeholder-backed enums open: known values plus any string", () => {
    for (const name of ["ComputerProviderType", "UserMessageSource"]) {
      const schema = spec.components.schemas[name];
      expect(schema.anyOf.map((s: any) => deref(s).type)).toEqual(["string", "string"]);
      expect(schema.anyOf.some((s: any) => Array.isArray(deref(s).enum))).toBe(true);
    }
  });

  it("describes the hook input and hooks settings for every generator", () => {
    const known = spec.components.schemas.KnownHookInput;
    const events = known.oneOf.map((variant: any) => deref(variant).properties.hook_event_name.const);
    expect(events).toEqual(["Notification", "Stop", "SubagentStop", "SessionEnd", "PostToolUse"]);
    expect(Object.keys(known.discriminator.mapping)).toEqual(events);
    expect(known.discriminator.propertyName).toBe("hook_event_name");
    // Any other event is a HookInputOtherEvent: HookInput is the known five or the fallback.
    expect(spec.components.schemas.HookInput.oneOf).toEqual([
      { $ref: "#/components/schemas/KnownHookInput" },
      { $ref: "#/components/schemas/HookInputOtherEvent" },
    ]);
    expect(spec.components.schemas.HooksSettings).toBeDefined();
  });
});

describe("names and words for every generator", () => {
  it("names every enum, map and object: no inline one that a generator would have to invent a name for", () => {
    const unnamed: string[] = [];
    const isNullOrString = (branch: any) => ["null", "string"].includes(branch.type) && !branch.enum && Object.keys(branch).length === 1;
    const visit = (node: any, at: string, root: boolean) => {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${at}[${i}]`, false));
      if (!root && !node.title && !node.$ref) {
        if (node.enum || node.const !== undefined) unnamed.push(`${at}: enum`);
        const union = node.anyOf ?? node.oneOf;
        // The one inline union allowed: a named schema or null / any string (nullable or open enum).
        if (union && !(union.length === 2 && union[0].$ref && isNullOrString(union[1]))) unnamed.push(`${at}: union`);
        const map = node.additionalProperties;
        if (node.properties || (map && map !== true)) unnamed.push(`${at}: object`);
      }
      for (const [key, value] of Object.entries(node)) if (key !== "examples") visit(value, `${at}/${key}`, false);
    };
    for (const [name, schema] of Object.entries(spec.components.schemas)) visit(schema, name, true);
    for (const op of specOperations)
      for (const p of op.parameters ?? []) visit(deref(p).schema, `${op.operationId} ${deref(p).name}`, false);
    expect(unnamed).toEqual([]);
  });

  it("types a map's values wherever they are known, and leaves any JSON only where nothing says what they are", () => {
    // Each of these is "any JSON" in every generated model (quicktype notes it cannot infer a type for it).
    const freeForm: string[] = [];
    for (const [name, schema] of Object.entries<any>(spec.components.schemas)) {
      for (const [property, sub] of Object.entries<any>(schema.properties ?? {})) {
        if (sub.additionalProperties === true && !sub.properties) freeForm.push(`${name}.${property}`);
      }
    }
    expect(freeForm.sort()).toEqual([
      "CustomModel.extraArgs",
      "EnterpriseControlSettings.enabledPlugins",
      "EnterpriseControlSettings.extraKnownMarketplaces",
      "EnterpriseControlSettings.mcpAutonomyOverrides",
      "EnterpriseControlSettings.userModelPolicies",
      "SessionSettingsInput.childInclusiveTokenUsageBySessionId",
      "SessionTag.metadata",
    ]);
    // HTTP header values are strings.
    expect(spec.components.schemas.CustomModel.properties.extraHeaders).toMatchObject({
      type: "object",
      title: "CustomModelExtraHeaders",
      additionalProperties: { type: "string" },
    });
  });

  it("gives every webhook an operationId that reads as an operation (a verb first)", () => {
    for (const [name, item] of Object.entries<any>(spec.webhooks)) {
      expect(item.post.operationId, name).toMatch(/^(receive|read|send|handle|apply)[A-Z]/);
      expect(item.post.operationId.toLowerCase(), name).not.toBe(name.toLowerCase());
    }
  });

  it("writes descriptions for the API's readers: no remark about the source material or this document's decisions", () => {
    const remarks = /not shown|not confirmed|unconfirmed|API description|assum(e|ed|ption)|this document|decision|placeholder/i;
    const found: string[] = [];
    const visit = (node: any, at: string) => {
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (["description", "summary", "title"].includes(key) && typeof value === "string" && remarks.test(value)) {
          found.push(`${at}/${key}: ${value.match(remarks)![0]}`);
        }
        visit(value, `${at}/${key}`);
      }
    };
    visit(spec, "#");
    expect(found).toEqual([]);
  });
});

describe("one bundle per host", () => {
  const bundles = ["api", "app"].map((stem) => ({
    stem,
    doc: JSON.parse(readFileSync(join(root, "generated", `openapi.${stem}.json`), "utf8")),
  }));

  it("each has its host's server as the only root server, and no path-level servers", () => {
    for (const { doc } of bundles) {
      expect(doc.servers).toHaveLength(1);
      for (const item of Object.values<any>(doc.paths)) expect(item.servers).toBeUndefined();
    }
    expect(bundles.map(({ doc }) => doc.servers[0]["x-host-name"])).toEqual(["base_url", "app_url"]);
  });

  it("together hold every path of the combined bundle once, each on the host that serves it", () => {
    const hostOf = (path: string) => deref(spec.paths[path]).servers?.[0]["x-host-name"] ?? spec.servers[0]["x-host-name"];
    const placed = bundles.flatMap(({ doc }) => Object.keys(doc.paths).map((path) => [path, doc.servers[0]["x-host-name"]]));
    expect(placed.map(([path]) => path).sort()).toEqual(Object.keys(spec.paths).sort());
    for (const [path, host] of placed) expect(host, path).toBe(hostOf(path!));
  });

  it("carry only the components their paths use, so each is lint-clean on its own", async () => {
    for (const { stem } of bundles) {
      const { stdout } = await run(join(root, "node_modules/.bin/redocly"), ["lint", `generated/openapi.${stem}.json`, "--format=json"], {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: "off" },
      });
      const report = JSON.parse(stdout.slice(stdout.indexOf("{")));
      expect(report.problems, stem).toEqual([]);
    }
  }, 60_000);
});
