// Error mapping: every documented error status of every operation, chosen from the Prism mock with `Prefer: code=…`,
// becomes the APIError subclass of its status carrying the problem body's title, detail and requestId, and the
// operation, method, path template and URL it came from. A body that
// is not JSON (a proxy's HTML page) still becomes an APIError with a snippet of the text. Every class names itself,
// and a ValidationError shows the refused value as JSON, cut to 80 characters.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { operations, type OperationId } from "../../generated/spec-tables.js";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIKeyFunctionError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  OrgAgent,
  OrgAgentError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  UnprocessableEntityError,
  ValidationError,
  parseHookInput,
} from "../../src/index.js";
import { callOperation, methods } from "./support/calls.js";
import { startLoopback, type Loopback } from "./support/loopback.js";
import { operationObject, responseExample } from "../support/spec.js";

const ERROR_CLASSES = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  429: RateLimitError,
  500: InternalServerError,
} as const;
type Status = keyof typeof ERROR_CLASSES;

// Every (operation, status) pair the spec documents, for the statuses under test.
const documented = (Object.keys(operations) as OperationId[]).flatMap((operationId) =>
  (Object.keys(ERROR_CLASSES).map(Number) as Status[])
    .filter((status) => String(status) in operationObject(operationId).responses)
    .map((status) => [operationId, status] as const),
);

/** Calls an operation through its SDK method with per-request options, and returns what it threw. */
async function failure(client: OrgAgent, operationId: OperationId, status: Status): Promise<unknown> {
  // maxRetries 0: 429 and 500 are retryable, and one Prism answer is the point here.
  const options = { headers: { Prefer: `code=${status}` }, maxRetries: 0 };
  const call = errorCalls[operationId];
  return call(client, options).then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  );
}

type Options = { headers: Record<string, string>; maxRetries: number };
// The calls of support/calls.ts (required parameters, from the spec's examples), with the request options passed through.
const errorCalls = Object.fromEntries(
  (Object.keys(operations) as OperationId[]).map((id) => [id, (c: OrgAgent, o: Options) => callOperation(c, id, false, o)]),
) as Record<OperationId, (c: OrgAgent, o: Options) => Promise<unknown>>;

describe("documented error responses from the Prism mock", () => {
  let client: OrgAgent;
  beforeAll(() => {
    const prismUrl = inject("prismUrl");
    // rateLimiting off: a 429 is otherwise a throttle waited out, and one Prism answer is the point here.
    client = new OrgAgent({ apiKey: "test-key", baseUrl: prismUrl, appUrl: prismUrl, logLevel: "off", rateLimiting: false });
  });

  it("covers each status under test on some operation", () => {
    expect(new Set(documented.map(([, status]) => status))).toEqual(new Set([400, 401, 403, 404, 429, 500]));
    expect(Object.keys(errorCalls).sort()).toEqual(Object.keys(methods).sort());
  });

  it.each(documented)("%s with Prefer: code=%i", async (operationId, status) => {
    const error = await failure(client, operationId, status);
    const example = responseExample(operationId, status);

    expect(error).toBeInstanceOf(ERROR_CLASSES[status]);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(OrgAgentError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(status);
    expect(apiError.name).toBe(ERROR_CLASSES[status].name);
    expect(apiError.title).toBe(example.title);
    expect(apiError.detail).toBe(example.detail);
    expect(apiError.requestId).toBe(example.requestId);
    expect([apiError.title, apiError.detail, apiError.requestId].every((v) => typeof v === "string" && v)).toBe(true);
    expect(apiError.body).toEqual(example);
    expect(apiError.headers.get("content-type")).toMatch(/json/);
    expect(apiError.message).toContain(example.detail);
    // Which request it answered: the operation, its method and path template, and the URL sent (on Prism).
    const { method, path } = operations[operationId];
    expect([apiError.operationId, apiError.method, apiError.path]).toEqual([operationId, method, path]);
    expect(apiError.url!.startsWith(`${inject("prismUrl")}${path.replace(/\{.*$/, "")}`)).toBe(true);
    expect(apiError.message.endsWith(` [${operationId}: ${method} ${apiError.url}]`)).toBe(true);
  });
});

describe("a non-JSON error body", () => {
  const html = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>
    <p>The upstream server did not answer.</p>${"<!-- padding -->".repeat(100)}</body></html>`;
  let gateway: Loopback;
  beforeAll(async () => {
    gateway = await startLoopback(() => ({
      status: 502,
      headers: { "content-type": "text/html; charset=utf-8", "x-request-id": "req_gateway_1" },
      body: html,
    }));
  });
  afterAll(() => gateway.close());

  it("still yields an APIError (InternalServerError) with a snippet of the text", async () => {
    const client = new OrgAgent({ apiKey: "k", baseUrl: gateway.url, maxRetries: 0, logLevel: "off" });
    const error = await client.computers.get("cmp_1").catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(OrgAgentError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(502);
    expect(apiError.body).toBe(html);
    expect(apiError.title).toBeUndefined();
    expect(apiError.message).toContain("502 Bad Gateway");
    expect(apiError.message).toContain("The upstream server did not answer.");
    // A snippet, not the whole page.
    expect(apiError.message.length).toBeLessThan(html.length);
    // Without a JSON body the request id comes from the x-request-id header.
    expect(apiError.requestId).toBe("req_gateway_1");
    expect(gateway.requests).toHaveLength(1);
  });

  it("shows a text body on one line: its runs of spaces and line breaks as one space, none at its ends", async () => {
    const plain = await startLoopback(() => ({
      status: 503,
      headers: { "content-type": "text/plain" },
      body: "\n  upstream   timed out,\n\n\ttry again  \n",
    }));
    try {
      const client = new OrgAgent({ apiKey: "k", baseUrl: plain.url, maxRetries: 0, logLevel: "off" });
      const error = (await client.computers.get("cmp_1").catch((e: unknown) => e)) as APIError;
      expect(error.message).toContain("503: upstream timed out, try again");
      expect(error.message).not.toMatch(/\s{2}|\n/);
    } finally {
      await plain.close();
    }
  });
});

describe("a problem body whose title or detail is not text", () => {
  it("has neither: they stay undefined, and the message says only the status", async () => {
    const server = await startLoopback(() => ({ status: 409, body: { title: 42, detail: { why: "busy" }, status: 409 } }));
    try {
      const client = new OrgAgent({ apiKey: "k", baseUrl: server.url, maxRetries: 0, logLevel: "off" });
      const error = (await client.computers.get("cmp_1").catch((e: unknown) => e)) as APIError;
      expect(error).toBeInstanceOf(ConflictError);
      expect([error.title, error.detail]).toEqual([undefined, undefined]);
      expect(error.message).toBe(`409 [getComputer: GET ${server.url}/api/v0/computers/cmp_1]`);
    } finally {
      await server.close();
    }
  });
});

describe("each error class names itself", () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await startLoopback((request) => {
      if (request.pathname.endsWith("/loop")) return { status: 302, headers: { location: request.target } };
      if (request.pathname.endsWith("/busy")) return { status: 409, body: { title: "Conflict", status: 409 } };
      if (request.pathname.endsWith("/odd")) return { status: 422, body: { title: "Unprocessable Entity", status: 422 } };
      if (request.pathname.endsWith("/teapot")) return { status: 418, body: { title: "I'm a teapot", status: 418 } };
      return { body: { id: "cmp_1", name: "n".repeat(200), providerType: "docker", createdAt: 1 } };
    });
  });
  afterAll(() => server.close());

  it("in `name`, and so first in String(error) and the stack, as a caller meets it", async () => {
    const client = (options: ConstructorParameters<typeof OrgAgent>[0] = {}) =>
      new OrgAgent({ apiKey: "k", baseUrl: server.url, maxRetries: 0, logLevel: "off", ...options });
    const met: [unknown, new (...args: any[]) => Error][] = [
      [
        await client()
          .computers.get("loop")
          .catch((e: unknown) => e),
        RedirectError,
      ],
      [
        await client({ maxResponseSize: 100 })
          .computers.get("cmp_1")
          .catch((e: unknown) => e),
        ResponseTooLargeError,
      ],
      [
        await client({
          apiKey: () => {
            throw new Error("vault sealed");
          },
        })
          .computers.get("cmp_1")
          .catch((e: unknown) => e),
        APIKeyFunctionError,
      ],
      [
        await client()
          .computers.get("busy")
          .catch((e: unknown) => e),
        ConflictError,
      ],
      [
        await client()
          .computers.get("odd")
          .catch((e: unknown) => e),
        UnprocessableEntityError,
      ],
      // A status without a class of its own.
      [
        await client()
          .computers.get("teapot")
          .catch((e: unknown) => e),
        APIError,
      ],
      // Readiness reports are served by the app host, and this client has none.
      [
        await client()
          .readiness.list()
          .catch((e: unknown) => e),
        OrgAgentError,
      ],
    ];
    for (const [error, ErrorClass] of met) {
      expect(error).toBeInstanceOf(ErrorClass);
      expect((error as Error).name).toBe(ErrorClass.name);
      expect(String(error).startsWith(`${ErrorClass.name}: `)).toBe(true);
    }
  });

  it("a connection error built without a message says what it is; a timeout built without a limit is the attempt's", () => {
    expect(new APIConnectionError().message).toBe("Connection error");
    expect(new APIConnectionTimeoutError().message).toBe("Request timed out");
    expect(new APIConnectionTimeoutError().limit).toBe("timeout");
    expect(String(new APIConnectionTimeoutError())).toBe("APIConnectionTimeoutError: Request timed out");
  });

  it("an abort error made for no signal says the request was aborted, and has no cause", () => {
    const error = APIUserAbortError.of(undefined);
    expect(String(error)).toBe("APIUserAbortError: Request was aborted");
    expect(error.cause).toBeUndefined();
  });
});

describe("a ValidationError shows the value it refused (hook input, as a hook command gets it)", () => {
  const refusal = (value: unknown) => {
    try {
      parseHookInput(value);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).message;
    }
    return expect.fail("expected a ValidationError");
  };

  it("a missing value is called so", () => {
    expect(refusal({ session_id: "s" })).toBe(
      "hookInput.hook_event_name: a missing value is not allowed; expected a non-empty string naming the event",
    );
  });

  it("as JSON: an array, an object, a string in quotes; numbers as they print", () => {
    expect(refusal([1, "a", null])).toBe('hookInput: [1,"a",null] is not allowed; expected a JSON object');
    expect(refusal({ hook_event_name: { name: "Stop" } })).toMatch(/^hookInput\.hook_event_name: \{"name":"Stop"\} is not allowed/);
    expect(refusal({ hook_event_name: 7 })).toMatch(/^hookInput\.hook_event_name: 7 is not allowed/);
    expect(refusal("Stop")).toMatch(/^hookInput: "Stop" is not allowed/);
  });

  it("what JSON cannot show (a bigint, a symbol, a function) as its own text", () => {
    expect(refusal(10n)).toBe("hookInput: 10 is not allowed; expected a JSON object");
    expect(refusal(Symbol("event"))).toBe("hookInput: Symbol(event) is not allowed; expected a JSON object");
    expect(refusal({ hook_event_name: 12n })).toMatch(/^hookInput\.hook_event_name: 12 is not allowed/);
  });

  it("a long value cut to its first 80 characters, then an ellipsis", () => {
    const long = "x".repeat(100);
    // 80 characters of the JSON text: the opening quote and 79 x.
    expect(refusal(long)).toBe(`hookInput: "${"x".repeat(79)}… is not allowed; expected a JSON object`);
    expect(refusal("y".repeat(78))).toBe(`hookInput: "${"y".repeat(78)}" is not allowed; expected a JSON object`);
  });
});
