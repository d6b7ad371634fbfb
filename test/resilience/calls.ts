// One SDK call per operation, every argument taken from the spec's examples, with request options passed through.
import { operations, type OperationId } from "../../generated/spec-tables.js";
import type { OrgAgent, RequestOptions } from "../../src/index.js";
import { exampleParams, specOperation } from "../support/spec.js";

type Call = (client: OrgAgent, options: RequestOptions) => Promise<unknown>;

const args = (operationId: OperationId) => {
  const op = specOperation(operationId);
  const { path, query } = exampleParams(op, { optional: false });
  return { path: path as Record<string, string>, query: query as any, body: op.requestExample as any };
};

const a = Object.fromEntries((Object.keys(operations) as OperationId[]).map((id) => [id, args(id)])) as Record<OperationId, ReturnType<typeof args>>;

// `satisfies` makes an operation without a call a compile error.
export const calls = {
  getAnalyticsTokens: (c, o) => c.analytics.tokens(a.getAnalyticsTokens.query, o),
  getAnalyticsTools: (c, o) => c.analytics.tools(a.getAnalyticsTools.query, o),
  getAnalyticsActivity: (c, o) => c.analytics.activity(a.getAnalyticsActivity.query, o),
  getAnalyticsProductivity: (c, o) => c.analytics.productivity(a.getAnalyticsProductivity.query, o),
  listAnalyticsUsers: async (c, o) => await c.analytics.users(a.listAnalyticsUsers.query, o),
  listReadinessReports: async (c, o) => await c.readiness.list(a.listReadinessReports.query, o),
  listEnterpriseControlsHistory: async (c, o) => await c.enterpriseControls.history(a.listEnterpriseControlsHistory.query, o),
  // Through `client.request`: `usageLimits.setUserLimits` reports a failed chunk inside its result instead of throwing.
  setUserLimits: (c, o) => c.request("setUserLimits", { body: a.setUserLimits.body }, o),
  createSession: (c, o) => c.sessions.create(a.createSession.body, o),
  getSession: (c, o) => c.sessions.get(a.getSession.path.sessionId!, undefined, o),
  sendSessionMessage: (c, o) => c.sessions.sendMessage(a.sendSessionMessage.path.sessionId!, a.sendSessionMessage.body, o),
  getSessionMessage: (c, o) =>
    c.sessions.getMessage(a.getSessionMessage.path.sessionId!, a.getSessionMessage.path.messageId!, undefined, o),
  getComputer: (c, o) => c.computers.get(a.getComputer.path.computerId!, o),
  getComputerByName: (c, o) => c.computers.getByName(a.getComputerByName.path.name!, o),
  retryComputerInstallDeps: (c, o) => c.computers.retryInstallDeps(a.retryComputerInstallDeps.path.computerId!, o),
} satisfies Record<OperationId, Call>;

export const operationIds = Object.keys(calls) as OperationId[];
