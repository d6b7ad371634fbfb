// What the smoke program (test/runtimes/.smoke/smoke.ts) is given and what it must report against Prism, both
// read from the spec's examples: Prism answers with them, so the smoke must see exactly them on every runtime.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../package/consumer-project.js";
import { stalledServer, type StalledServer } from "../resilience/stalled-server.js";

type Json = any;
const spec: Json = JSON.parse(readFileSync(join(root, "generated", "openapi.json"), "utf8"));

function examplesOf(operationId: string): Record<string, Json> {
  for (const item of Object.values<Json>(spec.paths)) {
    for (const operation of Object.values<Json>(item)) {
      if (operation?.operationId !== operationId) continue;
      const status = Object.keys(operation.responses).find((code) => code.startsWith("2"))!;
      const examples: Record<string, Json> = operation.responses[status].content["application/json"].examples;
      return Object.fromEntries(
        Object.entries(examples).map(([name, example]) => [
          name,
          example.$ref ? spec.components.examples[example.$ref.split("/").pop()].value : example.value,
        ]),
      );
    }
  }
  throw new Error(`no operation ${operationId} in the spec`);
}

/** The example Prism serves when none is asked for. */
const first = (operationId: string) => Object.values(examplesOf(operationId))[0];
const named = (operationId: string, test: (value: Json) => boolean) => {
  const found = Object.entries(examplesOf(operationId)).find(([, value]) => test(value));
  if (!found) throw new Error(`no example of ${operationId} matches ${test}`);
  return { name: found[0], value: found[1] };
};

const tokensDaily = first("getAnalyticsTokens");
const tokensGrouped = named("getAnalyticsTokens", (page) => page.data.every((row: Json) => "group_key" in row));
const usersMiddle = first("listAnalyticsUsers");
const usersLast = named("listAnalyticsUsers", (page) => page.meta.has_more === false);
const sessionIdle = named("getSession", (session) => session.status === "idle");
const computerActive = first("getComputer");
const computerFailed = named("getComputer", (computer) => computer.status === "error");
const failedStep = computerFailed.value.provisioningSteps.find((step: Json) => step.error !== undefined);
const limitsAnswer = first("setUserLimits");
/** The days of the smoke's range: with 2 windows at once over 2 days, each day is a window of its own. */
const rangeDays = [tokensDaily.meta.start_date, tokensDaily.meta.end_date] as string[];
if (Date.parse(rangeDays[1]!) - Date.parse(rangeDays[0]!) !== 86_400_000) throw new Error(`the smoke's range is not 2 days: ${rangeDays}`);

export function smokeConfig(prismUrl: string, stalledUrl: string) {
  return {
    stalledUrl,
    apiKey: "smoke-test-key",
    baseUrl: prismUrl,
    appUrl: prismUrl,
    startDate: tokensDaily.meta.start_date as string,
    endDate: tokensDaily.meta.end_date as string,
    examples: {
      groupedTokens: tokensGrouped.name,
      lastUsersPage: usersLast.name,
      idleSession: sessionIdle.name,
      failedComputer: computerFailed.name,
    },
  };
}

export const expectedSummary = {
  tokenDays: tokensDaily.data.map((row: Json) => row.date),
  groupedModels: tokensGrouped.value.data.map((row: Json) => row.group_key),
  userIds: [...usersMiddle.data, ...usersLast.value.data].map((row: Json) => row.user_id),
  userPageSizes: [usersMiddle.data.length, usersLast.value.data.length],
  readinessReportIds: first("listReadinessReports").reports.map((report: Json) => report.reportId),
  sessionStatus: first("createSession").status,
  waited: { status: sessionIdle.value.status, lastWeekDays: 7 },
  // The first poll is answered with the idle session: the wait ends there.
  sentAndWaited: { messageId: first("sendSessionMessage").messageId, status: sessionIdle.value.status, polled: [sessionIdle.value.status] },
  activeComputer: { id: computerActive.id, status: computerActive.status, polled: [computerActive.status] },
  failedProvisioning: {
    errorClass: "ComputerProvisioningError",
    computerStatus: "error",
    stepId: failedStep.id,
    stepError: failedStep.error,
  },
  // Two chunks (100 and 50 entries), each answered with the same example: its limits once per chunk, no errors.
  limits: {
    reports: [0, 1].map((chunk) => ({ chunk, chunks: 2, total: 150, updated: limitsAnswer.updated.length, errors: 0 })),
    done: 150,
    updatedEmails: [...limitsAnswer.updated, ...limitsAnswer.updated].map((entry: Json) => entry.email),
    errors: [],
  },
  // Each window: the first page of /users, then (from its cursor) the last.
  windowed: {
    userIds: rangeDays.flatMap(() => [...usersMiddle.data, ...usersLast.value.data].map((row: Json) => row.user_id)),
    ranges: rangeDays.map((day) => `${day}..${day}`),
  },
  messageRole: first("getSessionMessage").role,
  computerName: first("getComputerByName").name,
  rawComputerId: first("getComputer").id,
  notFound: {
    errorClass: "NotFoundError",
    status: 404,
    hasTitle: true,
    operationId: "getComputer",
    method: "GET",
    path: "/api/v0/computers/{computerId}",
    urlPath: "/api/v0/computers/cmp_missing",
    messageEndsWithUrl: true,
  },
  // Prism sends the example of the spec's X-Request-Id header with every answer.
  withResponse: { status: 200, sameData: true, requestId: spec.components.headers.RequestId.schema.examples[0], pageStatuses: [200, 200] },
  firstUsers: [...usersMiddle.data, ...usersLast.value.data].slice(0, 3).map((row: Json) => row.user_id),
  abortedByTimeout: { errorClass: "APIUserAbortError", causeName: "TimeoutError", saysTimedOut: true },
  validation: { errorClass: "ValidationError", requestsSent: 0 },
  timeouts: [
    { errorClass: "APIConnectionTimeoutError", withinMs: true },
    { errorClass: "APIConnectionTimeoutError", withinMs: true },
  ],
  stalled: [
    { errorClass: "APIConnectionTimeoutError", withinMs: true },
    { errorClass: "APIConnectionTimeoutError", withinMs: true },
  ],
  heldOneSecondLater: 0,
  // Redirected to Prism, another origin: the key does not go along, so Prism refuses the request.
  crossOriginRedirect: "AuthenticationError 401",
  browserRefused: false,
};

/**
 * The smoke's stalled server (SmokeConfig.stalledUrl), reachable cross-origin from a browser too: `/never/…` is held
 * and never answered, `/endless/…` gets headers and a body that never ends, `/held` counts the requests held on
 * connections still open, and `/redirect/<path>` redirects to `<path>` on `redirectTo` (another origin).
 */
export async function startSmokeStalledServer(redirectTo: string): Promise<StalledServer> {
  const server: StalledServer = await stalledServer((res, req) => {
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "",
    };
    if (req.method === "OPTIONS") return void res.writeHead(204, cors).end();
    if (req.url === "/held") {
      const held = server.open("holding") - 1; // not this request
      return void res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify({ held }));
    }
    if (req.url!.startsWith("/redirect/")) {
      return void res.writeHead(302, { ...cors, location: `${redirectTo}${req.url!.slice("/redirect".length)}` }).end();
    }
    if (req.url!.startsWith("/endless/")) {
      res.writeHead(200, { ...cors, "content-type": "application/json", "content-length": "1000" });
      return void res.write('{"id":"cmp_3e9d0a4b7c2f4e61",');
    }
    // /never/…: held, never answered
  });
  return server;
}
