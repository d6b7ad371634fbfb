// oazapfts: one module per host bundle, each with `defaults.baseUrl` as generated.
import * as api from "./oazapfts/api";
import * as app from "./oazapfts/app";
import { authorization, context as c, expectOk, runAll } from "./shared";

api.defaults.headers = authorization;
app.defaults.headers = authorization;
const ok = <T extends { status: number; data: unknown }>(response: T): T => (expectOk(response.status, response.data), response);
let sessionId = "";
let messageId = "";

await runAll({
  getAnalyticsTokens: async () => {
    ok(await api.getAnalyticsTokens(c.startDate, c.endDate));
    ok(await api.getAnalyticsTokens(c.startDate, c.endDate, { groupBy: "model" }));
  },
  getAnalyticsTools: async () => {
    ok(await api.getAnalyticsTools(c.startDate, c.endDate, { groupBy: "tool_name" }));
  },
  getAnalyticsActivity: async () => {
    ok(await api.getAnalyticsActivity(c.startDate, c.endDate, { groupBy: "client" }));
  },
  getAnalyticsProductivity: async () => {
    ok(await api.getAnalyticsProductivity(c.startDate, c.endDate));
  },
  listAnalyticsUsers: async () => {
    ok(await api.listAnalyticsUsers(c.startDate, c.endDate, { limit: 5 }));
  },
  listReadinessReports: async () => {
    ok(await app.listReadinessReports({ limit: 5 }));
  },
  listEnterpriseControlsHistory: async () => {
    ok(await api.listEnterpriseControlsHistory({ limit: 5 }));
  },
  setUserLimits: async () => {
    ok(await api.setUserLimits({ users: [{ email: c.email, limit: 5000 }] }));
  },
  createSession: async () => {
    const created = ok(await api.createSession({ computerId: c.computerId, cwd: "/srv/app" }));
    if (created.status === 201) sessionId = created.data.sessionId;
  },
  getSession: async () => {
    ok(await api.getSession(sessionId));
  },
  sendSessionMessage: async () => {
    const sent = ok(await api.sendSessionMessage(sessionId, { text: "hello" }));
    if (sent.status === 200) messageId = sent.data.messageId;
  },
  getSessionMessage: async () => {
    ok(await api.getSessionMessage(sessionId, messageId));
  },
  getComputer: async () => {
    ok(await api.getComputer(c.computerId));
  },
  getComputerByName: async () => {
    ok(await api.getComputerByName(c.computerName));
  },
  retryComputerInstallDeps: async () => {
    ok(await api.retryComputerInstallDeps(c.computerId));
  },
});
