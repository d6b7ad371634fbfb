// Adding an operation is one edit of the spec: in a copy of openapi/, a new `GET /api/v0/computers` with `x-sdk` and
// `x-pagination`, then `npm run generate` (scripts/generate.mjs --spec), and nothing else edited: the SDK has
// `client.computers.list()`, typed (its items are `Computer`), and it pages through a loopback server's answers;
// `client.request("listComputers")` reaches it too.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLoopback, type Loopback } from "../sdk/support/loopback.js";
import { successExample } from "../support/spec.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const copy = mkdtempSync(join(tmpdir(), "orgagent-new-operation-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const LIST_COMPUTERS = `get:
  operationId: listComputers
  x-sdk:
    resource: computers
    method: list
  x-pagination:
    items: computers
    cursorParam: cursor
    limitParam: limit
    nextCursor: nextCursor
    hasMore: hasMore
  summary: List computers
  description: The organization's computers, a page at a time.
  tags:
    - Computers
  parameters:
    - name: limit
      in: query
      description: Computers per page.
      schema:
        type: integer
        minimum: 1
        maximum: 50
    - name: cursor
      in: query
      description: The nextCursor of the page before.
      schema:
        type: string
  responses:
    '200':
      description: A page of computers.
      content:
        application/json:
          schema:
            title: ComputerList
            type: object
            required: [computers, hasMore]
            properties:
              computers:
                type: array
                items:
                  $ref: ../components/schemas/Computer.yaml
              hasMore:
                type: boolean
              nextCursor:
                type: [string, "null"]
    '401':
      $ref: ../components/responses/Unauthorized.yaml
`;

let resources: string;

beforeAll(async () => {
  // The one edit: a path file, and its line in the root document.
  cpSync(join(root, "openapi"), join(copy, "openapi"), { recursive: true });
  writeFileSync(join(copy, "openapi/paths/api_v0_computers.yaml"), LIST_COMPUTERS);
  const rootDocument = join(copy, "openapi/openapi.yaml");
  writeFileSync(rootDocument, readFileSync(rootDocument, "utf8").replace(/^paths:\n/m, "paths:\n  /api/v0/computers:\n    $ref: paths/api_v0_computers.yaml\n"));
  // Then `npm run generate`, into the copy's own generated/, beside an untouched copy of src/.
  await run(process.execPath, ["scripts/generate.mjs", "--spec", join(copy, "openapi"), "--out", join(copy, "generated")], { cwd: root });
  cpSync(join(root, "src"), join(copy, "src"), { recursive: true });
  cpSync(join(root, "package.json"), join(copy, "package.json"));
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  resources = readFileSync(join(copy, "generated/resources.ts"), "utf8");
}, 120_000);

describe("a new operation with x-sdk and x-pagination, after npm run generate", () => {
  it("is a method of its resource: a typed list of Computer, with the spec's summary as its doc", () => {
    expect(resources).toContain(
      'list(query?: QueryParams<"listComputers">, options?: RequestOptions & PageOptions): PagePromise<ResponseBody<"listComputers">, api.Computer> {',
    );
    expect(resources).toMatch(/\/\*\*\n {3}\* List computers\n {3}\*\n {3}\* The organization's computers, a page at a time\.\n {3}\*\/\n {2}list\(/);
  });

  it("type-checks where it is used, and refuses what the spec refuses", () => {
    const program = join(copy, "program.ts");
    writeFileSync(
      program,
      `import { OrgAgent, type Computer } from "./src/index.js";
      declare const client: OrgAgent;
      for await (const computer of client.computers.list({ limit: 2 })) { const typed: Computer = computer; void typed; }
      const page = await client.computers.list();
      const more: boolean = page.hasMore;
      for await (const computer of client.request("listComputers", { query: { limit: 2 } })) { const typed: Computer = computer; void typed; }
      // @ts-expect-error limit is an integer
      void client.computers.list({ limit: "2" });
      void more;`,
    );
    const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([program], config.options));
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  }, 120_000);

  it("pages through the answers of a server: every computer once, two at a time", async () => {
    const computer = successExample("getComputer");
    const all = ["cmp_a", "cmp_b", "cmp_c", "cmp_d", "cmp_e"].map((id) => ({ ...computer, id }));
    const server: Loopback = await startLoopback((request) => {
      const from = Number(request.query.get("cursor") ?? 0);
      const limit = Number(request.query.get("limit"));
      const next = from + limit;
      return { body: { computers: all.slice(from, next), hasMore: next < all.length, nextCursor: next < all.length ? String(next) : null } };
    });
    try {
      const entry = join(copy, "list.ts");
      writeFileSync(
        entry,
        `import { OrgAgent } from "./src/index.ts";
        const client = new OrgAgent({ apiKey: "new-operation-key", baseUrl: process.argv[2] });
        const ids = [];
        for await (const computer of client.computers.list({ limit: 2 })) ids.push(computer.id);
        console.log(JSON.stringify(ids));`,
      );
      await build({ entryPoints: [entry], outfile: join(copy, "list.mjs"), bundle: true, platform: "node", format: "esm", logLevel: "error", absWorkingDir: copy });
      const { stdout } = await run(process.execPath, [join(copy, "list.mjs"), server.url]);
      expect(JSON.parse(stdout)).toEqual(all.map(({ id }) => id));
      expect(server.requests.map((request) => request.target)).toEqual([
        "/api/v0/computers?limit=2",
        "/api/v0/computers?limit=2&cursor=2",
        "/api/v0/computers?limit=2&cursor=4",
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
