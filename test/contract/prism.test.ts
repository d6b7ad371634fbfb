// Contract tests: the generated types and the spec's examples, through bare openapi-fetch, against a Prism mock
// built from the same bundle. Prism runs with --errors, so an example that broke its own schema would be a 500.
import createClient from "openapi-fetch";
import { describe, expect, inject, it } from "vitest";
import type { paths } from "../../generated/openapi.js";
import { operations } from "../../generated/spec-tables.js";
import { exampleParams, specOperation, specOperations } from "../support/spec.js";

const baseUrl = inject("prismUrl");
const headers = { Authorization: "Bearer test-key" };
const client = createClient<paths>({ baseUrl, headers });

describe("every operation returns its documented success response with the spec's example", () => {
  it("covers exactly the 15 operations of the API description", () => {
    expect(specOperations).toHaveLength(15);
    expect(new Set(specOperations.map((op) => op.operationId)).size).toBe(15);
  });

  for (const op of specOperations) {
    for (const optional of [false, true]) {
      it(`${op.operationId} (${optional ? "every optional parameter" : "required parameters only"})`, async () => {
        const { data, error, response } = await client.request(
          op.method.toLowerCase() as "get",
          op.path as any,
          {
            params: exampleParams(op, { optional }),
            body: op.requestExample as never,
          } as never,
        );
        expect(error).toBeUndefined();
        expect(response.status).toBe(op.successStatus);
        expect(response.headers.get("sl-violations")).toBeNull();
        expect(data).toEqual(op.successExample);
      });
    }
  }
});

describe("the generated types fit what the mock serves", () => {
  it("types a path parameter, a query and the response body", async () => {
    const { data } = await client.GET("/api/v1/analytics/users", {
      params: { query: { startDate: "2026-03-02", endDate: "2026-03-03", limit: 2 } },
    });
    const meta: { has_more: boolean; next_cursor?: string | null | undefined } | undefined = data?.meta;
    expect(meta?.has_more).toBe(true);
    const computer = await client.GET("/api/v0/computers/name/{name}", { params: { path: { name: "build-box-eu-1" } } });
    expect(computer.data).toEqual(specOperation("getComputerByName").successExample);
  });
});

describe("the mock enforces the contract's security and bounds", () => {
  const analytics = specOperation("listAnalyticsUsers");
  const { query } = exampleParams(analytics, { optional: false });

  it("answers 401 to a request without a bearer credential", async () => {
    const bare = createClient<paths>({ baseUrl });
    const { response } = await bare.GET("/api/v1/analytics/users", { params: { query: query as any } });
    expect(response.status).toBe(401);
  });

  const limit = operations.listAnalyticsUsers.params.limit.schema;
  const nameLength = operations.getComputerByName.params.name.schema.maxLength;

  it.each([limit.minimum - 1, limit.maximum + 1])("rejects /users limit=%i with a 4xx", async (limit) => {
    const { response } = await client.GET("/api/v1/analytics/users", { params: { query: { ...(query as any), limit } } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it(`rejects a ${nameLength + 1}-character computer name with a 4xx`, async () => {
    const name = "n".repeat(nameLength + 1);
    const { response } = await client.GET("/api/v0/computers/name/{name}", { params: { path: { name } } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it("rejects an empty users array with a 4xx", async () => {
    const { response } = await client.PUT("/api/v0/organization/usage/limits/users", { body: { users: [] } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});
