// A tolerant reader: random answers drawn from our own response schemas, read as loosely as a real service may fill
// them (optional fields absent, nulls where allowed, unknown values of open enums, unknown keys in maps, unknown
// fields), go through the SDK from a loopback server, then through the CLI's views (tables on a terminal and piped,
// CSV, JSON) and through the analytics report. Nothing may crash, and no view may show NaN or a function's text.
import fc from "fast-check";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { Output, type Row } from "../../src/cli/output.js";
import { OrgAgent, buildAnalyticsReport } from "../../src/index.js";
import { renderReportHtml } from "../../src/report/index.js";
import { calls, operationIds } from "../resilience/calls.js";
import { startLoopback, type Loopback, type Reply } from "../sdk/support/loopback.js";
import { arbitraryOf } from "../support/schema-arbitrary.js";
import { deref, specOperation } from "../support/spec.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);
let server: Loopback;
let client: OrgAgent;
let answer: (pathname: string) => Reply = () => ({ body: {} });

beforeAll(async () => {
  server = await startLoopback((request) => answer(request.pathname));
  client = new OrgAgent({ apiKey: "oa-test-key-123456", baseUrl: server.url, appUrl: server.url, maxRetries: 0, logLevel: "off" });
});
afterAll(() => server.close());

/** The JSON schema of an operation's success answer. */
function successSchema(id: OperationId) {
  const op = specOperation(id);
  return deref(deref(op.responses[String(op.successStatus)]).content["application/json"].schema);
}

/** What the CLI shows of an answer: the rows of a list, or the one resource. */
function shownBy(id: OperationId, result: any): { rows?: Row[]; resource?: object } {
  if (id.startsWith("getAnalytics") || id === "listAnalyticsUsers") return { rows: result.data };
  if (id === "listReadinessReports") return { rows: result.reports };
  if (id === "listEnterpriseControlsHistory") return { rows: result.changes };
  return { resource: result };
}

/** Every view of the CLI, on a terminal and piped: the text written, stdout and stderr together. */
function views({ rows, resource }: { rows?: Row[]; resource?: object }): string {
  let text = "";
  for (const tty of [true, false]) {
    const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 80 });
    const stderr = Object.assign(new PassThrough(), { isTTY: tty, columns: 80 });
    stdout.on("data", (chunk) => (text += chunk));
    stderr.on("data", (chunk) => (text += chunk));
    const out = new Output({ stdout, stderr });
    if (rows) for (const format of ["table", "csv", "json", "ndjson"]) out.list(rows, { format });
    if (resource) for (const format of [undefined, "table", "json"]) out.resource(resource, { format });
  }
  return text;
}

// What a view shows when it reads a number from nothing, an object as text, or a prototype's function as a value.
const FORBIDDEN = /\bNaN\b|\[object Object\]|\[native code\]/;

describe("random answers of every operation, read loosely: the SDK resolves, the CLI shows them", () => {
  test.each(operationIds)("%s", async (id) => {
    const schema = successSchema(id);
    await fc.assert(
      fc.asyncProperty(arbitraryOf(schema, { loose: true }), async (body) => {
        answer = () => ({ status: operations[id].successStatus, body });
        const result = await calls[id](client, {});
        const text = views(shownBy(id, result));
        expect(text).not.toMatch(FORBIDDEN);
      }),
      { seed: SEED, numRuns: 40 },
    );
  });
});

describe("the report, from random answers of the five analytics endpoints", () => {
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const range = { startDate: new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10), endDate: yesterday };
  const days = Array.from({ length: 7 }, (_, i) => new Date(Date.parse(range.startDate) + i * 86_400_000).toISOString().slice(0, 10));
  // Each endpoint's answer in the envelope of the report's request: /tokens by model, the others by day.
  const envelope = (id: OperationId, title?: string) => {
    const schema = successSchema(id);
    return title ? deref((schema.anyOf as unknown[]).find((branch) => deref(branch).title === title)) : schema;
  };
  const ENDPOINTS = {
    "/api/v1/analytics/tokens": envelope("getAnalyticsTokens", "AnalyticsTokensGroupedResponse"),
    "/api/v1/analytics/activity": envelope("getAnalyticsActivity", "AnalyticsActivityDailyResponse"),
    "/api/v1/analytics/tools": envelope("getAnalyticsTools", "AnalyticsToolsDailyResponse"),
    "/api/v1/analytics/productivity": envelope("getAnalyticsProductivity"),
    "/api/v1/analytics/users": envelope("listAnalyticsUsers"),
  };

  test("builds and renders without a crash, and shows no NaN", async () => {
    const bodies = fc.record(
      Object.fromEntries(Object.entries(ENDPOINTS).map(([path, schema]) => [path, arbitraryOf(schema, { loose: true })])),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (answers: Record<string, any>) => {
        // The rows fall on the days of the range (the report counts only those); /users has one page.
        for (const body of Object.values(answers)) (body.data ?? []).forEach((row: any, i: number) => (row.date = days[i % days.length]));
        answers["/api/v1/analytics/users"].meta = { ...answers["/api/v1/analytics/users"].meta, has_more: false, next_cursor: null };
        answer = (pathname) => ({ body: answers[pathname] });
        const report = await buildAnalyticsReport(client, range);
        const html = renderReportHtml(report);
        expect(html).not.toMatch(FORBIDDEN);
        expect(JSON.stringify(report)).not.toContain("null,null"); // figures are numbers, never NaN (JSON writes NaN as null)
      }),
      { seed: SEED, numRuns: 15 },
    );
  }, 120_000);
});
