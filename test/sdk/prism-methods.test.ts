// Every SDK method against the Prism mock of the spec (which answers with each operation's first 2xx example and,
// with --errors, turns a request or response that breaks the spec into an error): once with the required parameters
// only, once with every optional one. The typed result must equal the spec's example.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { operations, pathHosts, type OperationId } from "../../generated/spec-tables.js";
import { OrgAgent } from "../../src/index.js";
import { computerId, methods, type MethodCase } from "./support/calls.js";
import { analyticsRange, successExample } from "../support/spec.js";

const { startDate, endDate } = analyticsRange();

let client: OrgAgent;
beforeAll(() => {
  const prismUrl = inject("prismUrl");
  client = new OrgAgent({ apiKey: "test-key", baseUrl: prismUrl, appUrl: prismUrl, maxRetries: 0, logLevel: "off" });
});

it("covers every operation of the spec", () => {
  expect(Object.keys(methods).sort()).toEqual(Object.keys(operations).sort());
});

describe.each(Object.entries(methods) as [OperationId, MethodCase][])("%s", (operationId, method) => {
  it("with required parameters only, resolves to the spec's first 2xx example", async () => {
    expect(await method.required(client)).toEqual(successExample(operationId));
  });

  it("with every optional parameter, resolves to the spec's first 2xx example", async () => {
    expect(await method.everyOptional(client)).toEqual(successExample(operationId));
  });
});

describe("client.raw", () => {
  // One GET path of each host; the typed openapi-fetch client resolves to { data, response }.
  it("GETs a base-host path with credentials and returns the spec example", async () => {
    const { data, response } = await client.raw.GET("/api/v1/analytics/tokens", {
      params: { query: { startDate, endDate } },
    });
    expect(response.status).toBe(operations.getAnalyticsTokens.successStatus);
    expect(data).toEqual(successExample("getAnalyticsTokens"));
  });

  it("GETs an app-host path and returns the spec example", async () => {
    expect(pathHosts["/api/organization/maturity-level-reports"]).toBe("app_url");
    const { data, response } = await client.raw.GET("/api/organization/maturity-level-reports", {
      params: { query: { limit: 20 } },
    });
    expect(response.status).toBe(operations.listReadinessReports.successStatus);
    expect(data).toEqual(successExample("listReadinessReports"));
  });

  it("GETs a path with a path parameter", async () => {
    const { data } = await client.raw.GET("/api/v0/computers/{computerId}", {
      params: { path: { computerId } },
    });
    expect(data).toEqual(successExample("getComputer"));
  });
});
