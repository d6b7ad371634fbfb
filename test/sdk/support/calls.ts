// One call of every SDK method per operationId: with required parameters only, and with every optional one.
// Shared by the Prism test (results equal the spec examples) and the host-split test (which host each reaches).
import type { OperationId } from "../../../generated/spec-tables.js";
import type { OrgAgent } from "../../../src/index.js";
import { analyticsRange } from "../../support/spec.js";

export type Call = (client: OrgAgent) => Promise<unknown>;
export interface MethodCase {
  required: Call;
  everyOptional: Call;
}

const { startDate, endDate } = analyticsRange();
export const callOptions = { maxRetries: 0, timeout: 10_000, headers: { "X-Test-Case": "every-optional" } };
export const sessionId = "sess_7f3c2a91d4e84b0c";
export const computerId = "cmp_3e9d0a4b7c2f4e61";

// One entry per operationId: `satisfies` makes a new operation without a case a compile error.
export const methods = {
  getAnalyticsTokens: {
    required: (c) => c.analytics.tokens({ startDate, endDate }),
    everyOptional: (c) => c.analytics.tokens({ startDate, endDate, group_by: "model" }, callOptions),
  },
  getAnalyticsTools: {
    required: (c) => c.analytics.tools({ startDate, endDate }),
    everyOptional: (c) => c.analytics.tools({ startDate, endDate, group_by: "tool_name" }, callOptions),
  },
  getAnalyticsActivity: {
    required: (c) => c.analytics.activity({ startDate, endDate }),
    everyOptional: (c) => c.analytics.activity({ startDate, endDate, group_by: "client" }, callOptions),
  },
  getAnalyticsProductivity: {
    required: (c) => c.analytics.productivity({ startDate, endDate }),
    everyOptional: (c) => c.analytics.productivity({ startDate, endDate }, callOptions),
  },
  listAnalyticsUsers: {
    // `await` on a page promise gives the first page: the whole envelope.
    required: async (c) => await c.analytics.users({ startDate, endDate }),
    everyOptional: async (c) =>
      await c.analytics.users({ startDate, endDate, limit: 50, cursor: "cur_a1" }, { ...callOptions, maxItems: 10 }),
  },
  listReadinessReports: {
    required: async (c) => await c.readiness.list(),
    everyOptional: async (c) =>
      await c.readiness.list(
        { repoId: "repo_fleet-control", limit: 20, startAfter: "0b8e6c2d-5f4a-4e1b-9c3d-7a2f1e6b8d40" },
        { ...callOptions, maxItems: 5 },
      ),
  },
  listEnterpriseControlsHistory: {
    required: async (c) => await c.enterpriseControls.history(),
    everyOptional: async (c) => await c.enterpriseControls.history({ limit: 10, cursor: "cur_rev_41" }, callOptions),
  },
  setUserLimits: {
    // An entry has no optional field; "every optional" sends several entries and request options.
    required: (c) => c.usageLimits.setUserLimits([{ email: "maya@acme-robotics.example", limit: 5000 }]),
    everyOptional: (c) =>
      c.usageLimits.setUserLimits(
        [
          { email: "maya@acme-robotics.example", limit: 5000 },
          { email: "li@acme-robotics.example", limit: 0 },
        ],
        callOptions,
      ),
  },
  createSession: {
    required: (c) => c.sessions.create({ computerId }),
    everyOptional: (c) =>
      c.sessions.create(
        {
          computerId,
          cwd: "/home/maya/src/fleet-control",
          sessionSettings: {
            model: "claude-sonnet-4-5",
            specModeModel: "claude-opus-4-1",
            providerLockTimestamp: "1772440800000",
            archivedAt: "2026-03-02T08:40:00Z",
            assistantActiveTimeMs: 125_000,
            childInclusiveTokenUsageBySessionId: { sess_child: { inputTokens: 10 } },
            tags: [{ name: "nightly", metadata: { owner: "maya" } }],
            enabledToolIds: ["bash"],
            disabledToolIds: ["web_fetch"],
          },
        },
        callOptions,
      ),
  },
  getSession: {
    required: (c) => c.sessions.get(sessionId),
    everyOptional: (c) => c.sessions.get(sessionId, { computerId }, callOptions),
  },
  sendSessionMessage: {
    required: (c) => c.sessions.sendMessage(sessionId, { text: "Run the tests." }),
    everyOptional: (c) =>
      c.sessions.sendMessage(
        sessionId,
        {
          text: "Run the tests.",
          images: [{ data: "iVBORw0KGgo=" }],
          files: [{ data: "aGVsbG8=", parsedData: "hello", name: "notes.txt", path: "docs/notes.txt" }],
          computerId,
        },
        callOptions,
      ),
  },
  getSessionMessage: {
    required: (c) => c.sessions.getMessage(sessionId, "msg_01"),
    everyOptional: (c) => c.sessions.getMessage(sessionId, "msg_01", { computerId }, callOptions),
  },
  getComputer: {
    required: (c) => c.computers.get(computerId),
    everyOptional: (c) => c.computers.get(computerId, callOptions),
  },
  getComputerByName: {
    required: (c) => c.computers.getByName("build-box-eu-1"),
    everyOptional: (c) => c.computers.getByName("build-box-eu-1", callOptions),
  },
  retryComputerInstallDeps: {
    required: (c) => c.computers.retryInstallDeps(computerId),
    everyOptional: (c) => c.computers.retryInstallDeps(computerId, callOptions),
  },
} satisfies Record<OperationId, MethodCase>;
