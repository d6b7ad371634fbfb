// The credential can never reach an error and cannot be replaced by accident: a key or header value fetch could not
// send is a ValidationError before anything is sent, naming the option but never the value; `Authorization` cannot
// be set through `headers`; an apiKey function that fails becomes an APIKeyFunctionError; and the client refuses to
// run in a browser unless told to.
import { inspect } from "node:util";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { APIKeyFunctionError, OrgAgent, OrgAgentError, ValidationError } from "../../src/index.js";
import { success } from "./fault-server.js";
import { SECRET, captureLogger, leaks } from "./secret.js";
import { clientOf, corpus, rejection, scripted } from "./support.js";

afterAll(() => {
  expect(leaks(corpus)).toEqual([]);
});

const unsendable = [
  ["a line feed", `${SECRET}\nX-Evil: 1`],
  ["a carriage return", `${SECRET}\r`],
  ["a NUL", `${SECRET}\0`],
  ["a character outside Latin-1", `${SECRET}€`],
] as const;

/** Constructing the client throws this error (kept in the corpus, so it is scanned for the key). */
function thrownBy(construct: () => unknown): any {
  try {
    construct();
  } catch (error) {
    corpus.push(error);
    return error;
  }
  expect.fail("expected the constructor to throw");
}

describe.each(unsendable)("a value with %s", (_, value) => {
  it("as apiKey: a ValidationError at construction naming `apiKey`, not the value", () => {
    const error = thrownBy(() => clientOf({ url: "http://127.0.0.1:9" }, { apiKey: value }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe("apiKey");
    expect(error.message).toMatch(/^apiKey: .*not shown/);
    expect(leaks([error, inspect(error, { showHidden: true })])).toEqual([]);
  });

  it("returned by an apiKey function: a ValidationError before anything is sent, not retried", async () => {
    const server = await scripted();
    let asked = 0;
    const apiKey = async () => (asked++, value);
    const error = await rejection(clientOf(server, { apiKey, maxRetries: 2 }).computers.get("cmp_1"));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe("apiKey");
    expect(asked).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it("in the client's headers: a ValidationError at construction naming the header", () => {
    const error = thrownBy(() => clientOf({ url: "http://127.0.0.1:9" }, { headers: { "X-Api-Key": value } }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe('headers["X-Api-Key"]');
  });

  it("in a call's headers: a ValidationError naming the header, nothing sent, not retried", async () => {
    const server = await scripted();
    const error = await rejection(clientOf(server, { maxRetries: 2 }).computers.get("cmp_1", { headers: { "X-Api-Key": value } }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe('options.headers["X-Api-Key"]');
    expect(server.requests).toHaveLength(0);
  });
});

it("a header name that is not a token is a ValidationError naming it", async () => {
  const server = await scripted();
  const error = await rejection(clientOf(server).computers.get("cmp_1", { headers: { "X Bad": "1" } }));
  expect(error).toBeInstanceOf(ValidationError);
  expect(error.field).toBe('options.headers["X Bad"]');
  expect(server.requests).toHaveLength(0);
});

describe("Authorization comes from apiKey only", () => {
  const spellings = ["Authorization", "authorization", "AUTHORIZATION", "aUtHoRiZaTiOn"];

  it.each(spellings)("`%s` in the client's headers is refused at construction, saying why", (name) => {
    const error = thrownBy(() => clientOf({ url: "http://127.0.0.1:9" }, { headers: { [name]: "Bearer evil" } }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.field).toBe(`headers[${JSON.stringify(name)}]`);
    expect(error.message).toContain("the client sets it from `apiKey`");
    expect(error.message).not.toContain("evil");
  });

  it.each(spellings)("a per-call Authorization header does not replace the key (any letter case): `%s`", async (name) => {
    const server = await scripted();
    const client = clientOf(server);
    const error = await rejection(client.computers.get("cmp_1", { headers: { [name]: "Bearer evil" } }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain("the client sets it from `apiKey`");
    // Nothing went out with the caller's credential, merged or alone; the next call carries exactly the key.
    expect(server.requests).toHaveLength(0);
    await client.computers.get("cmp_1");
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${SECRET}`]);
  });

  it("a call's header replaces the client's header of the same name in any letter case, instead of joining it", async () => {
    const server = await scripted();
    await clientOf(server, { headers: { "X-Team": "blue" } }).computers.get("cmp_1", {
      headers: { "x-team": "red", accept: "application/vnd.orgagent+json" },
    });
    expect(server.requests[0]!.headers["x-team"]).toBe("red");
    expect(server.requests[0]!.headers.accept).toBe("application/vnd.orgagent+json");
  });
});

describe("an apiKey function that fails", () => {
  const failures: [string, () => unknown, RegExp][] = [
    [
      "throws",
      () => {
        throw new Error("vault unreachable");
      },
      /threw/,
    ],
    ["rejects", () => Promise.reject(new TypeError("vault unreachable")), /threw/],
    ["returns undefined", () => undefined, /returned a value of type undefined/],
    ["returns a number", () => 42, /returned a value of type number/],
    ["returns an object", async () => ({ token: SECRET }), /returned a value of type object/],
    ["returns an empty string", () => "", /returned an empty string/],
    ["returns null", () => null, /returned null;/],
  ];

  it.each(failures)(
    "%s: an APIKeyFunctionError (an OrgAgentError), the original as cause, nothing sent, not retried",
    async (_, apiKey, message) => {
      const server = await scripted();
      let asked = 0;
      const counted = () => (asked++, apiKey());
      const error = await rejection(clientOf(server, { apiKey: counted as () => string, maxRetries: 2 }).computers.get("cmp_1"));
      expect(error).toBeInstanceOf(APIKeyFunctionError);
      expect(error).toBeInstanceOf(OrgAgentError);
      expect(error.message).toMatch(message);
      // What the function threw stays in `cause`: its text is the function's, not ours to repeat.
      expect(error.message).not.toContain("vault");
      if (/threw/.test(error.message)) expect(error.cause).toMatchObject({ message: "vault unreachable" });
      expect(asked).toBe(1);
      expect(server.requests).toHaveLength(0);
    },
  );
});

it("an apiKey that is neither a string nor a function is a ValidationError at construction naming its type", () => {
  for (const apiKey of [42, { token: SECRET }, true]) {
    const error = thrownBy(() => clientOf({ url: "http://127.0.0.1:9" }, { apiKey: apiKey as never }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ field: "apiKey", value: typeof apiKey, allowed: "a string or a function" });
    expect(error.message).toBe(`apiKey: a ${typeof apiKey} is not allowed; expected a string or a function`);
  }
});

it("an apiKey function that throws one of the SDK's own errors: that error, as it is, nothing sent", async () => {
  const server = await scripted();
  const own = new OrgAgentError("the token service refused the refresh");
  const error = await rejection(
    clientOf(server, {
      apiKey: () => {
        throw own;
      },
    }).computers.get("cmp_1"),
  );
  expect(error).toBe(own);
  expect(server.requests).toHaveLength(0);
});

it("a rotating key echoed back in a header not named like a credential is scrubbed from every debug line: the key sent last", async () => {
  const rotated = [`${SECRET}-1`, `${SECRET}-2`];
  const echoed = (n: number) => ({
    kind: "raw" as const,
    headers: { "content-type": "application/json", "x-debug-echo": `Bearer ${rotated[n]}` },
    body: JSON.stringify(success("getComputer")),
  });
  const server = await scripted(echoed(0), echoed(1));
  const logger = captureLogger();
  let issued = 0;
  const client = clientOf(server, { apiKey: () => rotated[issued++]!, logLevel: "debug", logger });
  await client.computers.get("cmp_1");
  await client.computers.get("cmp_1");
  expect(logger.lines.filter((line) => line.includes('"x-debug-echo":"Bearer ***')).length).toBe(2);
  expect(leaks(logger.lines)).toEqual([]);
});

describe("browser-like environments", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it.each([
    ["a page (`document` exists)", "document"],
    ["a web worker (`WorkerGlobalScope` exists)", "WorkerGlobalScope"],
  ])("in %s the client refuses to start, saying why and how to opt in", (_, global) => {
    vi.stubGlobal(global, {});
    const error = thrownBy(() => clientOf({ url: "http://127.0.0.1:9" }));
    expect(error).toBeInstanceOf(OrgAgentError);
    expect(error.message).toMatch(
      /^orgagent does not run in a browser by default: its API key administers the organization, and any key in a web page can be read by anyone who opens the page/,
    );
    expect(error.message).toContain("dangerouslyAllowBrowser: true");
  });

  it("with dangerouslyAllowBrowser: true it starts and works", async () => {
    vi.stubGlobal("document", {});
    const server = await scripted();
    const client = clientOf(server, { dangerouslyAllowBrowser: true });
    await expect(client.computers.get("cmp_1")).resolves.toEqual(success("getComputer"));
  });

  it("a server runtime needs no option", () => {
    expect(new OrgAgent({ apiKey: SECRET, baseUrl: "http://127.0.0.1:9" })).toBeInstanceOf(OrgAgent);
  });
});
