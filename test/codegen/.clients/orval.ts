// orval (fetch client): one module per host bundle, generated with `baseUrl.getBaseUrlFromSpecification`.
import * as api from "./orval/api/client";
import * as app from "./orval/app/client";
import { authorization, context as c, expectOk, runAll } from "./shared";

const init = { headers: authorization };
const dates = { startDate: c.startDate, endDate: c.endDate };
const ok = <T extends { status: number; data: unknown }>(response: T): T => (expectOk(response.status, response.data), response);
let sessionId = "";
let messageId = "";

await runAll({
  getAnalyticsTokens: async () => {
    ok(await api.getAnalyticsTokens(dates, init));
    ok(await api.getAnalyticsTokens({ ...dates, group_by: "model" }, init));
  },
  getAnalyticsTools: async () => {
    ok(await api.getAnalyticsTools({ ...dates, group_by: "tool_name" }, init));
  },
  getAnalyticsActivity: async () => {
    ok(await api.getAnalyticsActivity({ ...dates, group_by: "client" }, init));
  },
  getAnalyticsProductivity: async () => {
    ok(await api.getAnalyticsProductivity(dates, init));
  },
  listAnalyticsUsers: async () => {
    ok(await api.listAnalyticsUsers({ ...dates, limit: 5 }, init));
  },
  listReadinessReports: async () => {
    ok(await app.listReadinessReports({ limit: 5 }, init));
  },
  listEnterpriseControlsHistory: async () => {
    ok(await api.listEnterpriseControlsHistory({ limit: 5 }, init));
  },
  setUserLimits: async () => {
    ok(await api.setUserLimits({ users: [{ email: c.email, limit: 5000 }] }, init));
  },
  createSession: async () => {
    const created = ok(await api.createSession({ computerId: c.computerId, cwd: "/srv/app" }, init));
    if (created.status === 201) sessionId = created.data.sessionId;
  },
  getSession: async () => {
    ok(await api.getSession(sessionId, undefined, init));
  },
  sendSessionMessage: async () => {
    const sent = ok(await api.sendSessionMessage(sessionId, { text: "hello" }, init));
    if (sent.status === 200) messageId = sent.data.messageId;
  },
  getSessionMessage: async () => {
    ok(await api.getSessionMessage(sessionId, messageId, undefined, init));
  },
  getComputer: async () => {
    ok(await api.getComputer(c.computerId, init));
  },
  getComputerByName: async () => {
    ok(await api.getComputerByName(c.computerName, init));
  },
  retryComputerInstallDeps: async () => {
    ok(await api.retryComputerInstallDeps(c.computerId, init));
  },
});
