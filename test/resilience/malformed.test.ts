// A 2xx that is not the documented JSON (a proxy's HTML page, an empty body, the wrong content type, truncated or
// wrongly shaped JSON) is a typed APIError carrying the status and a snippet of what came back: never a crash,
// never a silently undefined or wrongly shaped result. Error statuses with non-JSON bodies keep their class.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import { parseSuccess } from "../../src/core/shape.js";
import { APIConnectionError, APIError, AuthenticationError, InternalServerError } from "../../src/index.js";
import { calls, operationIds } from "./calls.js";
import { success, type Fault } from "./fault-server.js";
import { leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

const ENVELOPED: OperationId = "getAnalyticsTokens"; // the spec's response table: { data: array, meta: object }
const PLAIN: OperationId = "getComputer"; // an object without an envelope
const json = { "content-type": "application/json" };
const html = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>";

const cases: [string, Fault, RegExp, OperationId[]][] = [
  ["not JSON", { kind: "raw", headers: json, body: "OK" }, /not valid JSON: OK/, [ENVELOPED, PLAIN]],
  ["truncated JSON", { kind: "raw", headers: json, body: '{"data":[{"date":"2026-03' }, /not valid JSON: \{"data"/, [ENVELOPED, PLAIN]],
  [
    "an HTML page from a proxy",
    { kind: "raw", headers: { "content-type": "text/html" }, body: html },
    /got text\/html: <!DOCTYPE html>/,
    [ENVELOPED, PLAIN],
  ],
  ["an empty 200", { kind: "raw", headers: { ...json, "content-length": "0" }, body: "" }, /body is empty/, [ENVELOPED, PLAIN]],
  ["a blank 200", { kind: "raw", headers: json, body: " \n" }, /body is empty/, [ENVELOPED, PLAIN]],
  [
    "JSON with a wrong content type",
    { kind: "raw", headers: { "content-type": "text/plain" }, body: "{}" },
    /got text\/plain: \{\}/,
    [ENVELOPED, PLAIN],
  ],
  ["an array instead of an object", { kind: "raw", headers: json, body: "[]" }, /expected a JSON object: \[\]/, [ENVELOPED, PLAIN]],
  ["null", { kind: "raw", headers: json, body: "null" }, /expected a JSON object: null/, [ENVELOPED, PLAIN]],
  ["a bare string", { kind: "raw", headers: json, body: '"ok"' }, /expected a JSON object: "ok"/, [ENVELOPED, PLAIN]],
  [
    "an object without the `data` envelope",
    { kind: "raw", headers: json, body: '{"meta":{}}' },
    /the required field `data` is missing/,
    [ENVELOPED],
  ],
  // Every operation: each success body must have the spec's required top-level fields (a created session
  // answered with `{}` is not a session).
  ["an empty object", { kind: "raw", headers: json, body: "{}" }, /the required field `\w+` is missing: \{\}/, operationIds],
  [
    "a required field of the wrong type",
    { kind: "raw", headers: json, body: '{"id":7,"name":"a","providerType":"b","createdAt":1}' },
    /expected `id` to be a string/,
    [PLAIN],
  ],
  [
    "a number field that is a string",
    { kind: "raw", headers: json, body: '{"id":"c","name":"a","providerType":"b","createdAt":"yesterday"}' },
    /expected `createdAt` to be a number: \{"id"/,
    [PLAIN],
  ],
  [
    "an integer field that is a string",
    { kind: "raw", status: 201, headers: json, body: '{"sessionId":"s","status":"idle","messageCount":"3","createdAt":1,"updatedAt":1}' },
    /expected `messageCount` to be an integer: \{"sessionId"/,
    ["createSession"],
  ],
  [
    "a content type that only starts like JSON's",
    { kind: "raw", headers: { "content-type": "application/json-seq" }, body: "{}" },
    /expected JSON, got application\/json-seq: \{\}/,
    [PLAIN],
  ],
  [
    "a content type that names JSON only in a parameter",
    { kind: "raw", headers: { "content-type": "text/plain; profile=application/json" }, body: "{}" },
    /expected JSON, got text\/plain; profile=application\/json: \{\}/,
    [PLAIN],
  ],
  ["a 204, no body at all", { kind: "raw", status: 204, body: "" }, /^204: the response body is empty, expected JSON \[/, [PLAIN]],
  [
    "an empty 200: nothing to show after the reason",
    { kind: "raw", headers: json, body: "" },
    /^200: the response body is empty, expected JSON \[getComputer: GET /,
    [PLAIN],
  ],
  [
    "`data` that is not an array",
    { kind: "raw", headers: json, body: '{"data":{},"meta":{}}' },
    /expected `data` to be an array/,
    [ENVELOPED],
  ],
  ["a body cut off in transfer", { kind: "truncate" }, /cut off after \d+ characters: \{/, [ENVELOPED, PLAIN]],
];

describe.each(cases)("a 2xx with %s", (_, fault, message, operationIds) => {
  it.each(operationIds)("%s: APIError with status and snippet", async (id) => {
    const server = await scripted(fault);
    const error = await rejection(calls[id](clientOf(server, { maxRetries: 0 }), {}));
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(fault.kind === "raw" ? (fault.status ?? 200) : operations[id].successStatus);
    expect(error.message).toMatch(message);
  });
});

describe("what is still accepted", () => {
  it("JSON with a charset parameter or a +json type, and JSON without any content type", async () => {
    const body = JSON.stringify(success(PLAIN));
    const accepted: Record<string, string>[] = [
      { "content-type": "application/json; charset=utf-8" },
      { "content-type": "application/json ; charset=utf-8" },
      { "content-type": "application/vnd.orgagent+json" },
      {},
    ];
    for (const headers of accepted) {
      const server = await scripted({ kind: "raw", headers, body });
      await expect(calls[PLAIN](clientOf(server), {})).resolves.toEqual(success(PLAIN));
    }
  });
});

// Kinds the generator emits (scripts/spec-tables.mjs) that no operation of today's spec requires at the top level: a
// boolean, and "any" (a field of no single type), checked on the shape directly.
describe("the other kinds a required field can have", () => {
  const check = (kind: string, body: unknown) =>
    parseSuccess({ type: "object", required: { flag: kind } }, 200, new Headers(json), JSON.stringify(body), { where: () => undefined });

  it("a boolean: true and false pass, anything else is an APIError saying what was expected", () => {
    expect([check("boolean", { flag: true }), check("boolean", { flag: false })]).toEqual([
      { data: { flag: true } },
      { data: { flag: false } },
    ]);
    for (const flag of ["true", 1, null, {}]) {
      const outcome = check("boolean", { flag });
      expect("error" in outcome && outcome.error.message).toMatch(/^200: expected `flag` to be a boolean: \{"flag":/);
    }
  });

  it("any: every value passes, as long as it is there", () => {
    for (const flag of ["text", 0, false, null, [], {}]) expect(check("any", { flag })).toEqual({ data: { flag } });
    expect("error" in check("any", {})).toBe(true);
  });
});

describe("error statuses with bodies that are not problem JSON", () => {
  it("a 502 HTML page is an InternalServerError with status and snippet", async () => {
    const server = await scripted({ kind: "raw", status: 502, headers: { "content-type": "text/html" }, body: html });
    const error = await rejection(calls[PLAIN](clientOf(server, { maxRetries: 0 }), {}));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(502);
    expect(error.message).toContain("502: <!DOCTYPE html>");
    expect(error.body).toBe(html);
  });

  it("a 401 in plain text is an AuthenticationError carrying the text", async () => {
    const server = await scripted({ kind: "raw", status: 401, headers: { "content-type": "text/plain" }, body: "token expired" });
    const error = await rejection(calls[PLAIN](clientOf(server), {}));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe(`401: token expired [getComputer: GET ${server.url}/api/v0/computers/cmp_3e9d0a4b7c2f4e61]`);
  });

  it("an error status with an empty body still has its class and status", async () => {
    const server = await scripted({ kind: "raw", status: 404, headers: { "content-length": "0" }, body: "" });
    const error = await rejection(calls[PLAIN](clientOf(server), {}));
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(404);
    expect(error.body).toBeUndefined();
  });
});

describe("a body cut off in transfer", () => {
  /** A server that sends the headers of `status` with a Content-Length of 100, then `sent`, then closes. */
  async function cutting(status: number, sent: string): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer((_, res) => {
      res.writeHead(status, { "content-type": "application/json", "content-length": "100" });
      res.write(sent, () => setTimeout(() => res.destroy(), 20));
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
    };
  }

  it("a success cut off before its first byte: the message says 0 characters and shows nothing", async () => {
    const server = await cutting(200, "");
    try {
      const error = await rejection(calls[PLAIN](clientOf(server, { maxRetries: 0 }), {}));
      expect(error).toBeInstanceOf(APIError);
      expect(error.message).toBe(
        `200: the response body was cut off after 0 characters [getComputer: GET ${server.url}/api/v0/computers/cmp_3e9d0a4b7c2f4e61]`,
      );
    } finally {
      await server.close();
    }
  });

  it("an error status cut off: a connection error that says how the connection ended", async () => {
    const server = await cutting(500, '{"title":"Intern');
    try {
      const error = await rejection(calls[PLAIN](clientOf(server, { maxRetries: 0 }), {}));
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error.message).toMatch(/^Connection error: terminated: /);
    } finally {
      await server.close();
    }
  });
});

describe("numeric required fields that are numbers", () => {
  const check = (kind: string, body: unknown) =>
    parseSuccess({ type: "object", required: { count: kind } }, 200, new Headers(json), JSON.stringify(body), { where: () => undefined });

  it("an integer or a number field holding a number passes as it came", () => {
    expect([check("integer", { count: 3 }), check("number", { count: 1.5 })]).toEqual([{ data: { count: 3 } }, { data: { count: 1.5 } }]);
  });
});

describe("answers the spec does not document as an object", () => {
  const parse = (shape: Parameters<typeof parseSuccess>[0], text: string) =>
    parseSuccess(shape, 200, new Headers(json), text, { where: () => undefined });

  it("an array answer, or one with no documented shape, only has to be JSON", () => {
    expect(parse({ type: "array" }, "[1,2]")).toEqual({ data: [1, 2] });
    expect(parse(undefined, '"ok"')).toEqual({ data: "ok" });
    expect(parse(undefined, "[]")).toEqual({ data: [] });
  });
});
