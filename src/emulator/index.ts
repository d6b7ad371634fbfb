// orgagent/emulator: a stateful local emulator of the whole API on loopback, one listener per host (the API
// host and the app host), with an organization drawn deterministically from a seed.
//
//   const emulator = await startEmulator({ seed: 7 });
//   const client = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner });
//   …
//   await emulator.close();
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { operations, type HostName } from "../../generated/spec-tables.js";
import { Computers } from "./computers.js";
import { Facts } from "./facts.js";
import { withExampleAnswers } from "./examples.js";
import { buildOperations, type State } from "./handlers.js";
import { listener, type Role } from "./http.js";
import { checkNetworkOptions, latencies, rateLimiter, type EmulatorLatency, type EmulatorRateLimit } from "./network.js";
import { buildOrganization } from "./org.js";
import { Random } from "./random.js";
import { Sessions } from "./sessions.js";

export { replyIdOf } from "./sessions.js";
export type { Role } from "./http.js";
export type { EmulatorLatency, EmulatorRateLimit, RateLimitStyle } from "./network.js";
export { RATE_LIMIT_STYLES } from "./network.js";

export interface EmulatorTiming {
  /** How long a new session stays `pending` before it can work. Default 200 ms. */
  sessionStartMs: number;
  /** How long the simulated agent works on each message before its reply appears. Default 1,000 ms. */
  replyMs: number;
  /** How long a retried install-dependencies step runs before it completes. Default 3,000 ms. */
  installMs: number;
}

export interface EmulatorKeys {
  /** Owner: every operation. */
  owner: string;
  /** Manager: every operation. */
  manager: string;
  /** Member: 403 on analytics, enterprise-controls history and usage limits. */
  member: string;
  /** Guest: reads readiness reports; 403 on every other operation. */
  guest: string;
}

export interface EmulatorOptions {
  /** Port of the API host (baseUrl). Default 0: any free port. */
  port?: number;
  /** Port of the app host (appUrl), which serves readiness reports. Default 0: any free port. */
  appPort?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Seed of the organization: the same seed (and clock) gives the same people, activity and ids. Default 1. */
  seed?: number | string;
  /** The emulator's clock in Unix ms. Default Date.now. "Today", "yesterday" and every timed transition use it. */
  now?: () => number;
  /** Number of people in the organization. Default 250. */
  users?: number;
  timing?: Partial<EmulatorTiming>;
  /** API keys accepted, by role. Default `oa-emulator-owner`, `oa-emulator-manager`, `oa-emulator-member`, `oa-emulator-guest`. */
  keys?: Partial<EmulatorKeys>;
  /**
   * A network's latency on every answer: `ms` plus up to `jitter` ms drawn from the seed, half before the request is
   * handled and half before the answer leaves. Real time, not the `now` clock. Default: none.
   */
  latency?: EmulatorLatency;
  /**
   * A rate limit per API key, kept and told in one of the styles real services use (`style`: a token bucket by
   * default, fixed or sliding windows with `X-RateLimit-*` headers, the IETF draft's `RateLimit` headers, a 429 with no
   * hint, or 503 under overload): over it, 429 (or 503) with `Retry-After` in whole seconds (none for `no-hint`) and
   * the Problem body. Real time, not the `now` clock. Default: none.
   */
  rateLimit?: EmulatorRateLimit;
}

export interface EmulatorUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
}

export interface Emulator {
  /** The API host, e.g. `http://127.0.0.1:4000`: pass as `baseUrl`. */
  readonly baseUrl: string;
  /** The app host (readiness reports), e.g. `http://127.0.0.1:4001`: pass as `appUrl`. */
  readonly appUrl: string;
  readonly keys: Readonly<EmulatorKeys>;
  /** The emulated organization: who is in it, and its computers. */
  readonly org: {
    readonly id: string;
    readonly name: string;
    readonly users: readonly EmulatorUser[];
    readonly computers: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  };
  /** Credit limits set through the API so far, by lower-cased e-mail (the API has no operation to read them). */
  limits(): ReadonlyMap<string, number>;
  /** Stops both listeners and drops open connections. */
  close(): Promise<void>;
}

export const DEFAULT_KEYS: Readonly<EmulatorKeys> = {
  owner: "oa-emulator-owner",
  manager: "oa-emulator-manager",
  member: "oa-emulator-member",
  guest: "oa-emulator-guest",
};

export const DEFAULT_TIMING: Readonly<EmulatorTiming> = { sessionStartMs: 200, replyMs: 1_000, installMs: 3_000 };

/** The first day with analytics data, as the spec states it. */
export const FIRST_DATA_DAY: string = operations.getAnalyticsTokens.params.startDate.schema.dateRange.firstDataDay;

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const now = options.now ?? Date.now;
  const seed = String(options.seed ?? 1);
  const timing = { ...DEFAULT_TIMING, ...options.timing };
  const keys = { ...DEFAULT_KEYS, ...options.keys };
  const roles = new Map<string, Role>(Object.entries(keys).map(([role, key]) => [key, role as Role]));
  if (roles.size !== Object.keys(DEFAULT_KEYS).length)
    throw new Error("startEmulator: the owner, manager, member and guest keys must differ.");
  checkNetworkOptions(options.latency, options.rateLimit);

  const startedAt = now();
  const org = buildOrganization(seed, options.users ?? 250, FIRST_DATA_DAY, startedAt);
  const sessions = new Sessions(Random.of(seed, "live"), { startMs: timing.sessionStartMs, replyMs: timing.replyMs });
  const computers = new Computers(seed, startedAt, timing.installMs, () => sessions.newSessionId());
  const state: State = { org, facts: new Facts(seed, org, FIRST_DATA_DAY), sessions, computers, limits: new Map() };
  const ops = withExampleAnswers(buildOperations(state));
  let requests = 0;
  const requestId = () => `req_${seed.slice(0, 8)}_${(++requests).toString(36).padStart(6, "0")}`;

  // One latency sequence and one set of buckets for both hosts: a key's rate limit counts every request it makes.
  const network = { latency: latencies(seed, options.latency), rateLimit: rateLimiter(options.rateLimit) };
  const serve = (hostName: HostName) =>
    createServer(listener({ host: hostName, keys: roles, operations: ops, now, requestId, ...network }));
  const api = serve("base_url");
  const app = serve("app_url");
  const servers = [api, app];
  try {
    await listen(api, options.port ?? 0, host);
    await listen(app, options.appPort ?? 0, host);
  } catch (error) {
    await Promise.all(servers.map(stop));
    throw error;
  }
  const urlOf = (server: Server) => `http://${host.includes(":") ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl: urlOf(api),
    appUrl: urlOf(app),
    keys,
    org: {
      id: org.id,
      name: org.name,
      users: org.users.map(({ id, email, name }) => ({ id, email, name })),
      computers: computers.list(),
    },
    limits: () => new Map(state.limits),
    close: () => Promise.all(servers.map(stop)).then(() => undefined),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
