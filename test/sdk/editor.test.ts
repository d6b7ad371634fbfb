// What a user's editor shows, asked of the TypeScript language service (what VS Code's hovers and completions come
// from): the spec's names in hovers and compiler messages, not `components["schemas"][…]`, and no internal method in
// the completions of the client.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const file = join(root, "test", "sdk", "editor-probe.ts");

// A user's code; `/*@name*/` marks a position asked about.
const source = `
import { OrgAgent } from "../../src/index.js";
declare const client: OrgAgent;
const /*@computer*/computer = await client.computers.get("cmp_1");
void computer./*@status*/status;
const /*@users*/users = client.analytics.users({ startDate: "2026-03-02", endDate: "2026-03-03" });
for await (const /*@row*/row of users) void row;
const /*@answer*/answer = await client.sessions.get("sess_1").withResponse();
const /*@limits*/limits = client.usageLimits.setUserLimits([{ email: "a@b.c", limit: 1 }]);
void client.sessions./*@create*/create;
client./*@client*/;
client.computers./*@computers*/;
void client.sessions.create({ computerID: "cmp_1" });
const session: import("../../src/index.js").Session = computer;
`;

let service: ts.LanguageService;
const at = (marker: string) => source.indexOf(`/*@${marker}*/`) + `/*@${marker}*/`.length;
const hover = (marker: string) => ts.displayPartsToString(service.getQuickInfoAtPosition(file, at(marker))?.displayParts);
const completions = (marker: string) =>
  (service.getCompletionsAtPosition(file, at(marker), {})?.entries ?? [])
    .filter((entry) => entry.kind !== "warning")
    .map((entry) => entry.name)
    .sort();

beforeAll(() => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  )!;
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) => {
      const text = name === file ? source : ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => config.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (name) => name === file || ts.sys.fileExists(name),
    readFile: (name) => (name === file ? source : ts.sys.readFile(name)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  service = ts.createLanguageService(host);
}, 60_000);

describe("hovers show the spec's names", () => {
  it("a resource's result, its fields, page items and withResponse's data", () => {
    expect(hover("computer")).toBe("const computer: Computer");
    expect(hover("status")).toBe("(property) status?: ComputerStatus | undefined");
    expect(hover("users")).toBe("const users: PagePromise<AnalyticsUsersResponse, UserRow>");
    expect(hover("row")).toBe("const row: UserRow");
    expect(hover("answer")).toBe("const answer: WithResponse<Session>");
    expect(hover("limits")).toBe("const limits: Promise<UserLimitsResult>");
  });

  it("a method's signature", () => {
    expect(hover("create")).toBe("(method) Sessions.create(body: CreateSessionRequest, options?: RequestOptions): APIPromise<Session>");
  });

  it("nothing anywhere shows components[…]", () => {
    for (const marker of ["computer", "status", "users", "row", "answer", "limits", "create"])
      expect(hover(marker)).not.toContain("components");
  });
});

it("compiler messages name the spec's types", () => {
  const messages = service.getSemanticDiagnostics(file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(messages).toEqual([
    "Object literal may only specify known properties, but 'computerID' does not exist in type 'CreateSessionRequest'. Did you mean to write 'computerId'?",
    "Type 'Computer' is missing the following properties from type 'Session': sessionId, messageCount, updatedAt",
  ]);
});

describe("completions offer the public API only", () => {
  it("the client: its resources, request (any operation), use/eject (middleware), raw and its settings, no internal call or paginate", () => {
    expect(completions("client")).toEqual([
      "analytics",
      "appUrl",
      "baseUrl",
      "computers",
      "eject",
      "enterpriseControls",
      "raw",
      "readiness",
      "request",
      "sessions",
      "toJSON",
      "usageLimits",
      "use",
    ]);
  });

  it("a resource: its methods", () => {
    expect(completions("computers")).toEqual(["get", "getByName", "retryInstallDeps", "waitUntilActive"]);
  });
});
