// The MCP tools as generated from the spec: one per operation, each input schema a valid, self-contained JSON Schema
// (2020-12, the spec's dialect) that accepts what the operation takes and refuses what it does not, annotations
// from the method, and a new operation in the spec a new tool with no hand edit.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../generated/mcp-tools.js";
import { buildMcpTools } from "../../scripts/mcp-tools.mjs";
import { deref, spec } from "../support/spec.js";

const METHODS = ["get", "put", "post", "delete", "patch"];
const specOperations = Object.entries<any>(spec.paths).flatMap(([path, item]) =>
  METHODS.filter((method) => deref(item)[method]).map((method) => ({ path, method, op: deref(item)[method], item: deref(item) })),
);

// ajv-formats is CommonJS: its default export, seen from ESM, is the module object or the function itself.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** The schema compiled by Ajv in strict mode (an unknown keyword or a bad schema throws). */
function compile(schema: object) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

describe("one tool per operation", () => {
  it("names every operation of the spec by its operationId, and nothing else", () => {
    expect(Object.keys(mcpTools).sort()).toEqual(specOperations.map(({ op }) => op.operationId).sort());
  });

  it.each(specOperations.map(({ op, method, path }) => [op.operationId, method, path]))(
    "%s: title and description from the spec",
    (id, _method, _path) => {
      const { op } = specOperations.find((entry) => entry.op.operationId === id)!;
      const tool = mcpTools[id as string]!;
      expect(tool.title).toBe(op.summary);
      expect(tool.description.startsWith(`${op.summary}\n\n${op.description.trim()}`)).toBe(true);
      expect(tool.annotations.title).toBe(op.summary);
    },
  );

  it("gives reads readOnlyHint; PUT is destructive and idempotent, POST neither", () => {
    for (const { op, method } of specOperations) {
      const { annotations } = mcpTools[op.operationId]!;
      if (method === "get") expect(annotations, op.operationId).toEqual({ title: op.summary, readOnlyHint: true });
      else {
        expect(annotations.readOnlyHint).toBe(false);
        expect(annotations.destructiveHint, op.operationId).toBe(method !== "post");
        expect(annotations.idempotentHint, op.operationId).toBe(method === "put" || method === "delete");
      }
    }
  });

  it("carries each write's x-effect, and every write of this spec names one", () => {
    for (const { op, method } of specOperations) {
      expect(mcpTools[op.operationId]!.effect, op.operationId).toBe(method === "get" ? undefined : op["x-effect"]);
      if (method !== "get") expect(op["x-effect"], op.operationId).toMatch(/^(spends-credits|starts-work|changes-settings)$/);
    }
  });
});

describe("input schemas", () => {
  it.each(Object.keys(mcpTools))("%s: compiles as JSON Schema 2020-12 (ajv, strict), with no $ref left outside itself", (id) => {
    const { inputSchema } = mcpTools[id]!;
    expect(() => compile(inputSchema)).not.toThrow();
    const refs = JSON.stringify(inputSchema).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const ref of refs) expect(ref).toMatch(/^"\$ref":"#\/\$defs\//);
    expect(inputSchema.type).toBe("object");
    expect(inputSchema.additionalProperties).toBe(false);
  });

  it("has the operation's parameters and body fields, required as the spec requires them", () => {
    for (const { op, item } of specOperations) {
      const tool = mcpTools[op.operationId]!;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
      for (const param of params) {
        expect(tool.arguments[param.name], `${op.operationId} ${param.name}`).toBe(param.in);
        expect(tool.inputSchema.required?.includes(param.name) ?? false).toBe(Boolean(param.required));
      }
      const body = op.requestBody && deref(deref(op.requestBody).content["application/json"].schema);
      for (const name of Object.keys(body?.properties ?? {})) expect(tool.arguments[name], `${op.operationId} ${name}`).toBe("body");
    }
  });

  it("accepts a request the spec's examples make and refuses an unknown argument or a value out of bounds", () => {
    const users = compile(mcpTools.listAnalyticsUsers!.inputSchema);
    expect(users({ startDate: "2026-03-02", endDate: "2026-03-03", limit: 100 })).toBe(true);
    expect(users({ startDate: "2026-03-02", endDate: "2026-03-03", limit: 101 })).toBe(false);
    expect(users({ startDate: "2026-03-02" })).toBe(false);
    expect(users({ startDate: "2026-03-02", endDate: "2026-03-03", page: 2 })).toBe(false);
    const send = compile(mcpTools.sendSessionMessage!.inputSchema);
    const example = deref(specOperations.find(({ op }) => op.operationId === "sendSessionMessage")!.op.requestBody).content[
      "application/json"
    ].examples;
    for (const { value } of Object.values<any>(example)) expect(send({ sessionId: "sess_1", ...value }), JSON.stringify(value)).toBe(true);
  });

  it("keeps a recursive schema self-contained in $defs", () => {
    const recursive = structuredClone(spec);
    recursive.components.schemas.Tree = {
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Tree" } } },
    };
    recursive.paths["/api/v0/trees"] = {
      post: {
        operationId: "plantTree",
        summary: "Plant a tree",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Tree" } } } },
        responses: { "201": { description: "Planted" } },
      },
    };
    const tool = buildMcpTools(recursive).plantTree;
    expect(tool.inputSchema.$defs.Tree.properties.children.items).toEqual({ $ref: "#/$defs/Tree" });
    const validate = compile(tool.inputSchema);
    expect(validate({ name: "oak", children: [{ name: "acorn", children: [] }] })).toBe(true);
    expect(validate({ name: "oak", children: [{ name: 1 }] })).toBe(false);
    expect(tool.effect).toBe("changes-data");
  });
});

describe("a new operation in the spec", () => {
  it("is a new tool, paged by its x-pagination, with no edit but the spec's", () => {
    const grown = structuredClone(spec);
    grown.paths["/api/v0/computers"] = {
      get: {
        operationId: "listComputers",
        summary: "List computers",
        description: "Every computer of the organization, a page at a time.",
        "x-pagination": { items: "computers", cursorParam: "cursor", limitParam: "limit", nextCursor: "nextCursor", hasMore: "hasMore" },
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 50 } },
          { name: "cursor", in: "query", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "A page",
            content: {
              "application/json": {
                schema: { type: "object", properties: { computers: { type: "array", items: { $ref: "#/components/schemas/Computer" } } } },
              },
            },
          },
        },
      },
    };
    const tools = buildMcpTools(grown);
    expect(Object.keys(tools)).toHaveLength(Object.keys(mcpTools).length + 1);
    const tool = tools.listComputers;
    expect(tool).toMatchObject({
      method: "GET",
      annotations: { readOnlyHint: true },
      pagination: { items: "computers", cursorParam: "cursor" },
      arguments: { limit: "query", cursor: "query" },
    });
    expect(compile(tool.inputSchema)({ limit: 50 })).toBe(true);
    expect(compile(tool.inputSchema)({ limit: 51 })).toBe(false);
  });

  it("is refused by the generator when its x-effect is not one it knows", () => {
    const odd = structuredClone(spec);
    odd.paths["/api/v0/sessions"].post["x-effect"] = "costs-money";
    expect(() => buildMcpTools(odd)).toThrow(
      /createSession: x-effect "costs-money" is not one of spends-credits, starts-work, changes-settings/,
    );
  });
});
