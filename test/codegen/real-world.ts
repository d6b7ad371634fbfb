// Payloads as they occur in the field, which neither the emulator's answers nor the spec's examples show: hooks
// settings as settings files hold them (entries with a `matcher`, commands without `timeout`, an event the spec
// does not name), activity of a client type the spec does not list (`desktop`), both as a key of
// `daily_active_users_by_client` and as the `group_key` of a grouped row, and what the service's own description
// allows beyond the examples (nulls, open enums and maps, items and error bodies without fields). The codegen suite makes every generated
// model decode them (test/codegen/answers.ts); the contract suite checks them against the spec's schemas
// (test/contract/payloads.test.ts).
import { successExample } from "../support/spec.js";
import type { Payload } from "./answers.js";

/** A client type the spec's `ClientType` does not list. */
export const UNLISTED_CLIENT = "desktop";

const meta = { org_id: "org_2x7KQ9mV4pL8", start_date: "2026-03-02", end_date: "2026-03-02" };

/** A settings file's hooks: matchers on most entries, and a `timeout` on one command only. */
export const hooksSettingsAsWritten = {
  hooks: {
    PostToolUse: [
      {
        matcher: "Edit|Write",
        hooks: [{ type: "command", command: 'npx prettier --write "$(jq -r .tool_input.file_path)"' }],
      },
    ],
    Notification: [{ matcher: "", hooks: [{ type: "command", command: 'notify-send "Agent" "$(jq -r .message)"' }] }],
    SessionEnd: [{ hooks: [{ type: "command", command: "jq -c '{session_id, reason}' >> ~/.agent/session-end.log", timeout: 5 }] }],
    // An event the spec does not name.
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/.agent/check-command.sh" }] }],
  },
};

/** One day of activity in which a user also worked in a client the spec does not list. */
export const activityDailyWithUnlistedClient = {
  data: [
    {
      date: "2026-03-02",
      daily_active_users: 2,
      weekly_active_users: 3,
      monthly_active_users: 3,
      daily_active_users_by_client: { "terminal-ui": 2, web: 1, "non-interactive-cli": 1, [UNLISTED_CLIENT]: 1 },
      sessions: 7,
      messages: 98,
      user_messages: 21,
    },
  ],
  meta,
};

/** The same day with `group_by=client`: one row per client type, the unlisted one included. */
export const activityGroupedWithUnlistedClient = {
  data: Object.entries(activityDailyWithUnlistedClient.data[0]!.daily_active_users_by_client).map(([client, users]) => ({
    date: "2026-03-02",
    group_key: client,
    daily_active_users: users,
  })),
  meta,
};

/** The spec's first example of an operation's answer, as a fresh copy to change. */
const example = (id: Parameters<typeof successExample>[0]) => structuredClone(successExample(id));

/** Readiness reports whose optional fields the service sent as null, `modelUsed` null in one and empty in another. */
const readinessWithNulls = (() => {
  const page = example("listReadinessReports");
  const [first] = page.reports;
  const nulls = { commitHash: null, branch: null, hasLocalChanges: null, hasNonRemoteCommits: null };
  page.reports = [
    { ...first, ...nulls, modelUsed: null },
    { ...first, reportId: "6c3f0a52-1e84-4d7b-9a2c-5b8e0f3d7a19", modelUsed: {} },
  ];
  return page;
})();

/** A day of credits in which the service knew no e-mail for one user. */
const creditsWithNullEmail = (() => {
  const page = example("getAnalyticsTokens");
  page.data[0].by_user[0].user_email = null;
  return page;
})();

/** A /users row with no e-mail and a model tier the spec does not list. */
const usersWithUnlistedTier = (() => {
  const page = example("listAnalyticsUsers");
  Object.assign(page.data[0], { user_email: null, primary_model_tier: "ultra" });
  return page;
})();

/** A day of tools whose autonomy levels lack one and add one the spec does not list. */
const toolsWithOpenLevels = (() => {
  const page = example("getAnalyticsTools");
  page.data[0].tool_autonomy_level_ratio = { auto_high: 0.5, auto_medium: 0.25, auto_low: 0.15, spec: 0.1 };
  return page;
})();

/** A day of productivity whose breakdown items lack their fields. */
const productivityWithBareItems = (() => {
  const page = example("getAnalyticsProductivity");
  page.data[0].by_extension = [{}, { extension: ".ts" }];
  page.data[0].by_language = [{ count: 2 }, { language: "Go" }];
  return page;
})();

/** Each payload with the one schema it must be read as. */
export const realWorldPayloads: Payload[] = [
  { id: "hooksSettings-as-written", source: "hooksSettings", types: ["HooksSettings"], body: hooksSettingsAsWritten },
  {
    id: "getAnalyticsActivity-daily-unlisted-client",
    source: "getAnalyticsActivity",
    types: ["AnalyticsActivityDailyResponse"],
    body: activityDailyWithUnlistedClient,
  },
  {
    id: "getAnalyticsActivity-grouped-unlisted-client",
    source: "getAnalyticsActivity",
    types: ["AnalyticsActivityGroupedResponse"],
    body: activityGroupedWithUnlistedClient,
  },
  { id: "listReadinessReports-nulls", source: "listReadinessReports", types: ["ReadinessReportList"], body: readinessWithNulls },
  {
    id: "getAnalyticsTokens-null-email",
    source: "getAnalyticsTokens",
    types: ["AnalyticsTokensDailyResponse"],
    body: creditsWithNullEmail,
  },
  { id: "listAnalyticsUsers-unlisted-tier", source: "listAnalyticsUsers", types: ["AnalyticsUsersResponse"], body: usersWithUnlistedTier },
  { id: "getAnalyticsTools-open-levels", source: "getAnalyticsTools", types: ["AnalyticsToolsDailyResponse"], body: toolsWithOpenLevels },
  {
    id: "getAnalyticsProductivity-bare-items",
    source: "getAnalyticsProductivity",
    types: ["AnalyticsProductivityResponse"],
    body: productivityWithBareItems,
  },
  { id: "error-body-empty", source: "getComputer", types: ["Problem"], body: {} },
  { id: "error-body-analytics-title-only", source: "getAnalyticsTokens", types: ["AnalyticsError"], body: { title: "Bad Request" } },
];
