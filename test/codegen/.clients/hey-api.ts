// @hey-api/openapi-ts: one client per host bundle, each at the base URL it was generated with.
import { client as apiClient } from "./hey-api/api/client.gen";
import * as api from "./hey-api/api/sdk.gen";
import { client as appClient } from "./hey-api/app/client.gen";
import * as app from "./hey-api/app/sdk.gen";
import { authorization, context as c, runAll } from "./shared";

for (const client of [apiClient, appClient]) client.setConfig({ headers: authorization, throwOnError: true });
const dates = { startDate: c.startDate, endDate: c.endDate };
let sessionId = "";
let messageId = "";

await runAll({
  getAnalyticsTokens: async () => {
    await api.getAnalyticsTokens({ query: dates });
    await api.getAnalyticsTokens({ query: { ...dates, group_by: "model" } });
  },
  getAnalyticsTools: async () => {
    await api.getAnalyticsTools({ query: { ...dates, group_by: "tool_name" } });
  },
  getAnalyticsActivity: async () => {
    await api.getAnalyticsActivity({ query: { ...dates, group_by: "client" } });
  },
  getAnalyticsProductivity: async () => {
    await api.getAnalyticsProductivity({ query: dates });
  },
  listAnalyticsUsers: async () => {
    await api.listAnalyticsUsers({ query: { ...dates, limit: 5 } });
  },
  listReadinessReports: async () => {
    await app.listReadinessReports({ query: { limit: 5 } });
  },
  listEnterpriseControlsHistory: async () => {
    await api.listEnterpriseControlsHistory({ query: { limit: 5 } });
  },
  setUserLimits: async () => {
    await api.setUserLimits({ body: { users: [{ email: c.email, limit: 5000 }] } });
  },
  createSession: async () => {
    ({ sessionId } = (await api.createSession({ body: { computerId: c.computerId, cwd: "/srv/app" }, throwOnError: true })).data);
  },
  getSession: async () => {
    await api.getSession({ path: { sessionId } });
  },
  sendSessionMessage: async () => {
    ({ messageId } = (await api.sendSessionMessage({ path: { sessionId }, body: { text: "hello" }, throwOnError: true })).data);
  },
  getSessionMessage: async () => {
    await api.getSessionMessage({ path: { sessionId, messageId } });
  },
  getComputer: async () => {
    await api.getComputer({ path: { computerId: c.computerId } });
  },
  getComputerByName: async () => {
    await api.getComputerByName({ path: { name: c.computerName } });
  },
  retryComputerInstallDeps: async () => {
    await api.retryComputerInstallDeps({ path: { computerId: c.computerId } });
  },
});
