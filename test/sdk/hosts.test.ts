// The host split: readiness reports live on the app host, everything else on the API host. Two loopback recorders
// stand in for the two hosts and answer each operation with its spec example; which one saw a request is the test.
// Also: credentials and URLs from options or environment, and the errors when one is missing.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { operations, pathHosts, type OperationId } from "../../generated/spec-tables.js";
import { OrgAgent, OrgAgentError } from "../../src/index.js";
import { methods, type MethodCase } from "./support/calls.js";
import { startLoopback, type Handler, type Loopback } from "./support/loopback.js";
import { analyticsRange, concretePath, operationFor, successExample } from "../support/spec.js";

// Answers every documented operation with its first 2xx example; anything else is a 404.
const specExamples: Handler = (request) => {
  const operationId = operationFor(request.method, request.pathname);
  if (!operationId) return { status: 404, body: { title: "Not Found", detail: request.target } };
  return { status: operations[operationId].successStatus, body: successExample(operationId) };
};

const ENV_NAMES = ["ORGAGENT_API_KEY", "ORGAGENT_BASE_URL", "ORGAGENT_APP_URL"] as const;
let base: Loopback;
let app: Loopback;

beforeAll(async () => {
  [base, app] = await Promise.all([startLoopback(specExamples), startLoopback(specExamples)]);
});
afterAll(async () => {
  await Promise.all([base.close(), app.close()]);
});
beforeEach(() => {
  base.requests.length = 0;
  app.requests.length = 0;
  // The machine's own configuration must not leak into what is tested here.
  for (const name of ENV_NAMES) vi.stubEnv(name, "");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const newClient = (options: ConstructorParameters<typeof OrgAgent>[0] = {}) =>
  new OrgAgent({ apiKey: "test-key", baseUrl: base.url, appUrl: app.url, maxRetries: 0, logLevel: "off", ...options });

const hostOf = (operationId: OperationId) => operations[operationId].host;

describe.each(Object.entries(methods) as [OperationId, MethodCase][])("%s", (operationId, method) => {
  const expectedHost = hostOf(operationId);

  it.each(["required", "everyOptional"] as const)(`(%s) reaches only the ${expectedHost} host`, async (variant) => {
    const result = await method[variant](newClient());
    expect(result).toEqual(successExample(operationId));

    const [target, other] = expectedHost === "app_url" ? [app, base] : [base, app];
    expect(other.requests).toEqual([]);
    expect(target.requests.map((r) => [r.method, operationFor(r.method, r.pathname)])).toEqual([
      [operations[operationId].method, operationId],
    ]);
    expect(target.requests[0]!.headers.authorization).toBe("Bearer test-key");
  });
});

it("readiness is the only operation served by the app host", () => {
  const appOperations = Object.keys(operations).filter((id) => hostOf(id as OperationId) === "app_url");
  expect(appOperations).toEqual(["listReadinessReports"]);
});

describe("client.raw routes each path to its host", () => {
  it.each(Object.keys(operations) as OperationId[])("%s", async (operationId) => {
    const { method, path } = operations[operationId];
    const client = newClient();
    const pathParams = Object.fromEntries([...path.matchAll(/\{([^{}]+)\}/g)].map(([, name]) => [name, `sample-${name}`]));
    const query = operationId.startsWith("getAnalytics") || operationId === "listAnalyticsUsers" ? analyticsRange() : {};
    const body =
      operationId === "setUserLimits"
        ? { users: [{ email: "maya@acme-robotics.example", limit: 5000 }] }
        : operationId === "createSession"
          ? { computerId: "cmp_1" }
          : operationId === "sendSessionMessage"
            ? { text: "hi" }
            : undefined;
    // The raw client is typed per path; driving all paths from the table needs one untyped call.
    const { data, response } = await (client.raw as any)[method](path, {
      params: { path: pathParams, query },
      ...(body ? { body } : {}),
    });
    expect(response.status).toBe(operations[operationId].successStatus);
    expect(data).toEqual(successExample(operationId));

    const [target, other] = pathHosts[path] === "app_url" ? [app, base] : [base, app];
    expect(other.requests).toEqual([]);
    expect(target.requests.map((r) => `${r.method} ${r.pathname}`)).toEqual([`${method} ${concretePath(path)}`]);
    expect(target.requests[0]!.headers.authorization).toBe("Bearer test-key");
  });
});

it("host URLs may end in slashes: each request path is joined with exactly one", async () => {
  const client = newClient({ baseUrl: `${base.url}/`, appUrl: `${app.url}//` });
  expect([client.baseUrl, client.appUrl]).toEqual([base.url, app.url]);
  await client.computers.get("sample-computerId");
  await client.readiness.list();
  expect(base.requests.map((r) => r.target)).toEqual([concretePath(operations.getComputer.path)]);
  expect(app.requests.map((r) => r.target)).toEqual([operations.listReadinessReports.path]);
});

describe("host URLs are checked at construction", () => {
  it("http and https URLs are taken, without their trailing slashes", () => {
    const client = newClient({ baseUrl: "https://api.example.com/", appUrl: "http://app.example.com" });
    expect([client.baseUrl, client.appUrl]).toEqual(["https://api.example.com", "http://app.example.com"]);
  });

  it.each([
    ["no URL", "api.example.com"],
    ["another protocol", "ftp://api.example.com"],
    ["a user name", "https://admin@api.example.com"],
    ["a password", "https://admin:hunter22@api.example.com"],
    ["a password holding @", "https://admin:hunter@22@api.example.com"],
    ["a password holding / and :", "https://admin:hun/ter:22@api.example.com"],
  ])("%s is refused, naming the option and what it takes, never the user name or password", (_, url) => {
    for (const option of ["baseUrl", "appUrl"] as const) {
      let error: unknown;
      try {
        newClient({ [option]: url });
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(OrgAgentError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^Invalid ${option} ".*": expected an http\\(s\\) URL without user name or password \\(the key goes in \`apiKey\`\\)\\.$`,
        ),
      );
      expect((error as Error).message).not.toMatch(/admin|hun|ter|22/);
      if (url.includes("@")) expect((error as Error).message).toContain(`"https://***@api.example.com"`);
    }
  });

  it("a URL from the environment is checked as an option is", () => {
    vi.stubEnv("ORGAGENT_BASE_URL", "ftp://api.example.com");
    expect(() => newClient({ baseUrl: undefined })).toThrow(/^Invalid baseUrl "ftp:\/\/api\.example\.com"/);
  });

  it("JSON shows the two hosts and nothing else", () => {
    expect(JSON.parse(JSON.stringify(newClient()))).toEqual({ baseUrl: base.url, appUrl: app.url });
  });
});

describe("missing appUrl", () => {
  it("is no error until a readiness call is made; other operations work", async () => {
    const client = newClient({ appUrl: undefined });
    expect(client.appUrl).toBeUndefined();
    await expect(methods.getComputer.required(client)).resolves.toEqual(successExample("getComputer"));
    await expect(methods.listEnterpriseControlsHistory.required(client)).resolves.toBeDefined();
    expect(base.requests).toHaveLength(2);
  });

  it("fails a readiness call with an error naming the option and the env var, sending nothing", async () => {
    const client = newClient({ appUrl: undefined });
    const error = await client.readiness.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OrgAgentError);
    expect((error as Error).message).toMatch(/appUrl/);
    expect((error as Error).message).toMatch(/ORGAGENT_APP_URL/);
    await expect(client.raw.GET("/api/organization/maturity-level-reports")).rejects.toThrow(/ORGAGENT_APP_URL/);
    expect([...base.requests, ...app.requests]).toEqual([]);
  });

  it("is taken from ORGAGENT_APP_URL when the option is absent", async () => {
    vi.stubEnv("ORGAGENT_APP_URL", app.url);
    const client = newClient({ appUrl: undefined });
    await client.readiness.list();
    expect(app.requests).toHaveLength(1);
  });
});

describe("missing apiKey or baseUrl", () => {
  it("fails at construction naming `apiKey` and ORGAGENT_API_KEY", () => {
    expect(() => new OrgAgent({ baseUrl: base.url })).toThrow(OrgAgentError);
    expect(() => new OrgAgent({ baseUrl: base.url })).toThrow(/`apiKey`.*ORGAGENT_API_KEY|ORGAGENT_API_KEY.*`apiKey`/);
    expect(() => new OrgAgent({ baseUrl: base.url, apiKey: "" })).toThrow(/ORGAGENT_API_KEY/);
  });

  it("fails at construction naming `baseUrl` and ORGAGENT_BASE_URL", () => {
    expect(() => new OrgAgent({ apiKey: "k" })).toThrow(OrgAgentError);
    expect(() => new OrgAgent({ apiKey: "k" })).toThrow(/`baseUrl`.*ORGAGENT_BASE_URL|ORGAGENT_BASE_URL.*`baseUrl`/);
  });

  it("takes both from the environment when the options are absent", async () => {
    vi.stubEnv("ORGAGENT_API_KEY", "env-key");
    vi.stubEnv("ORGAGENT_BASE_URL", base.url);
    const client = new OrgAgent({ maxRetries: 0 });
    await methods.getComputer.required(client);
    expect(base.requests.map((r) => r.headers.authorization)).toEqual(["Bearer env-key"]);
  });
});

describe("apiKey as a function (rotating tokens)", () => {
  it("a sync function is asked before every request; a second call sends the new token", async () => {
    let issued = 0;
    const client = newClient({ apiKey: () => `token-${++issued}` });
    await methods.getComputer.required(client);
    await methods.getComputer.required(client);
    expect(base.requests.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
  });

  it("an async function is awaited before every request, also for readiness and client.raw", async () => {
    let issued = 0;
    const client = newClient({
      apiKey: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return `jwt-${++issued}`;
      },
    });
    await methods.getSession.required(client);
    await client.readiness.list();
    await client.raw.GET("/api/v0/computers/{computerId}", { params: { path: { computerId: "cmp_1" } } });
    expect(base.requests.map((r) => r.headers.authorization)).toEqual(["Bearer jwt-1", "Bearer jwt-3"]);
    expect(app.requests.map((r) => r.headers.authorization)).toEqual(["Bearer jwt-2"]);
  });
});

describe("the log level from ORGAGENT_LOG", () => {
  /** The levels of the lines a client logs for one call, with ORGAGENT_LOG set to `value` and no logLevel option. */
  async function levelsLogged(value: string): Promise<string[]> {
    vi.stubEnv("ORGAGENT_LOG", value);
    const levels: string[] = [];
    const line = (level: string) => () => void levels.push(level);
    const logger = { error: line("error"), warn: line("warn"), info: line("info"), debug: line("debug") };
    const client = new OrgAgent({ apiKey: "test-key", baseUrl: base.url, maxRetries: 0, logger });
    await client.computers.get("cmp_1");
    return levels;
  }

  it("is read in any case: DEBUG logs the debug lines of each request", async () => {
    expect(await levelsLogged("DEBUG")).toContain("debug");
  });

  it("set but empty is the same as unset: the default, warn, which logs nothing for a call that succeeds", async () => {
    expect(await levelsLogged("")).toEqual([]);
  });
});

describe("a log level that is not one", () => {
  it.each([
    ["the logLevel option", () => new OrgAgent({ apiKey: "test-key", baseUrl: base.url, logLevel: "loud" as never })],
    [
      "ORGAGENT_LOG",
      () => {
        vi.stubEnv("ORGAGENT_LOG", "loud");
        return new OrgAgent({ apiKey: "test-key", baseUrl: base.url });
      },
    ],
  ])("from %s is refused at construction, naming the levels", (_, construct) => {
    expect(construct).toThrow('Invalid logLevel "loud": use off, error, warn, info or debug.');
  });
});
