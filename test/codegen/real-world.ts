// Payloads as they occur in the field, which neither the emulator's answers nor the spec's examples show: hooks
// settings as settings files hold them (entries with a `matcher`, commands without `timeout`, an event the spec
// does not name), and activity of a client type the spec does not list (`desktop`), both as a key of
// `daily_active_users_by_client` and as the `group_key` of a grouped row. The codegen suite makes every generated
// model decode them (test/codegen/answers.ts); the contract suite checks them against the spec's schemas
// (test/contract/payloads.test.ts).
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
    SessionEnd: [
      { hooks: [{ type: "command", command: "jq -c '{session_id, reason}' >> ~/.agent/session-end.log", timeout: 5 }] },
    ],
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
];
