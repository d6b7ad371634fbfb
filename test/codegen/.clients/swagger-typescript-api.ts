// swagger-typescript-api: one `Api` class per host bundle, each at the base URL it was generated with.
import { Api as ApiHost } from "./swagger-typescript-api/api/client";
import { Api as AppHost } from "./swagger-typescript-api/app/client";
import { authorization, context as c, runAll } from "./shared";

// The generated HttpClient throws on a non-2xx answer.
const api = new ApiHost({ baseApiParams: { headers: authorization } }).api;
const app = new AppHost({ baseApiParams: { headers: authorization } }).api;
const dates = { startDate: c.startDate, endDate: c.endDate };
let sessionId = "";
let messageId = "";

await runAll({
  getAnalyticsTokens: async () => {
    await api.getAnalyticsTokens(dates);
    await api.getAnalyticsTokens({ ...dates, group_by: "model" });
  },
  getAnalyticsTools: async () => {
    await api.getAnalyticsTools({ ...dates, group_by: "tool_name" });
  },
  getAnalyticsActivity: async () => {
    await api.getAnalyticsActivity({ ...dates, group_by: "client" });
  },
  getAnalyticsProductivity: async () => {
    await api.getAnalyticsProductivity(dates);
  },
  listAnalyticsUsers: async () => {
    await api.listAnalyticsUsers({ ...dates, limit: 5 });
  },
  listReadinessReports: async () => {
    await app.listReadinessReports({ limit: 5 });
  },
  listEnterpriseControlsHistory: async () => {
    await api.listEnterpriseControlsHistory({ limit: 5 });
  },
  setUserLimits: async () => {
    await api.setUserLimits({ users: [{ email: c.email, limit: 5000 }] });
  },
  createSession: async () => {
    ({ sessionId } = (await api.createSession({ computerId: c.computerId, cwd: "/srv/app" })).data);
  },
  getSession: async () => {
    await api.getSession(sessionId);
  },
  sendSessionMessage: async () => {
    ({ messageId } = (await api.sendSessionMessage(sessionId, { text: "hello" })).data);
  },
  getSessionMessage: async () => {
    await api.getSessionMessage(sessionId, messageId);
  },
  getComputer: async () => {
    await api.getComputer(c.computerId);
  },
  getComputerByName: async () => {
    await api.getComputerByName(c.computerName);
  },
  retryComputerInstallDeps: async () => {
    await api.retryComputerInstallDeps(c.computerId);
  },
});
