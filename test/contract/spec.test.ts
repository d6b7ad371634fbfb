// The spec itself: lint-clean, generated files fresh, and the document-level facts of the API description stated.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { deref, spec, specOperations } from "../support/spec.js";

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
      expect(readFileSync(join(root, "generated", file), "utf8"), `generated/${file} is stale: run npm run generate`).toBe(
        expected,
      );
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

  it("serves readiness from the app host and everything else from the API host", () => {
    expect(spec.servers[0].url).toBe("{base_url}");
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      const servers = deref(item).servers;
      if (path === "/api/organization/maturity-level-reports") expect(servers[0].url).toBe("{app_url}");
      else expect(servers).toBeUndefined();
    }
  });

  it("requires a bearer credential (API key or JWT) on every operation", () => {
    expect(spec.security).toEqual([{ bearerAuth: [] }]);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const op of specOperations) expect(deref(spec.paths[op.path])[op.method.toLowerCase()].security).toBeUndefined();
  });

  it("gives every operation an id, a summary, a description, one tag and a TypeScript code sample", () => {
    for (const op of specOperations) {
      const raw = deref(spec.paths[op.path])[op.method.toLowerCase()];
      expect(raw.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(raw.summary, op.operationId).toBeTruthy();
      expect(raw.description, op.operationId).toBeTruthy();
      expect(raw.tags, op.operationId).toHaveLength(1);
      expect(raw["x-codeSamples"]?.[0]?.lang, op.operationId).toBe("TypeScript");
    }
  });

  it("gives every response with a body at least one example, and 429 a Retry-After header", () => {
    for (const op of specOperations) {
      for (const [code, rawResponse] of Object.entries<any>(op.responses)) {
        const response = deref(rawResponse);
        const media = response.content?.["application/json"];
        if (media) expect(Object.keys(media.examples ?? {}).length, `${op.operationId} ${code}`).toBeGreaterThan(0);
        if (code === "429") expect(response.headers?.["Retry-After"], op.operationId).toBeDefined();
      }
    }
  });

  it("documents 401 on every operation and the analytics error body on analytics errors", () => {
    for (const op of specOperations) {
      expect(Object.keys(op.responses), op.operationId).toContain("401");
      if (op.path.startsWith("/api/v1/analytics/")) {
        for (const code of ["400", "401", "403", "500"]) {
          const schema = deref(deref(op.responses[code]).content["application/json"].schema);
          expect(schema.required).toEqual(["title", "detail", "status", "requestId"]);
          expect(schema.properties.status.type).toBe("integer");
        }
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
    const events = spec.components.schemas.HookInput.oneOf.map(
      (variant: any) => deref(variant).properties.hook_event_name.const,
    );
    expect(events).toEqual(["Notification", "Stop", "SubagentStop", "SessionEnd", "PostToolUse"]);
    expect(spec.components.schemas.HooksSettings).toBeDefined();
  });
});
