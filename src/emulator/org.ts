// The emulated organization, drawn once from the seed at startup: its people (with their habits, which drive the
// daily facts), readiness reports and enterprise-control history. Everything here is small and fast to build.
import { isDeepStrictEqual } from "node:util";
import type { DelegationLevel, EnterpriseControlChange, EnterpriseControlSettings, ReadinessReport } from "../../generated/openapi.js";
import {
  CLIENTS,
  CLIENT_WEIGHTS,
  DELEGATION_LEVELS,
  DELEGATION_WEIGHTS,
  FIRST_NAMES,
  HOOKS,
  LANGUAGES,
  LANGUAGE_WEIGHTS,
  LAST_NAMES,
  MCP_SERVERS,
  MODELS,
  MODEL_WEIGHTS,
  ORG_DOMAIN,
  READINESS_CRITERIA,
  REPOSITORIES,
  type LanguageInfo,
  type ModelInfo,
} from "./catalog.js";
import { CROCKFORD, Random } from "./random.js";

/** One person of the organization and the habits their daily activity is drawn from. */
export interface OrgUser {
  /** Position in `users` (sorted by id), used to key the random streams. */
  readonly index: number;
  readonly id: string;
  readonly email: string;
  readonly name: string;
  /** Chance of being active on a weekday; weekends are much quieter. */
  readonly activity: number;
  /** First day index (0 = the first data day) the user can be active. */
  readonly joinDay: number;
  /** Scales how much the user does on an active day. */
  readonly intensity: number;
  readonly clientWeights: readonly number[];
  readonly models: readonly ModelInfo[];
  readonly languages: readonly LanguageInfo[];
  readonly delegation: DelegationLevel;
  /** Tool calls per user turn the user tends to allow. */
  readonly autonomy: number;
  readonly mcpServers: readonly string[];
  readonly hookIndexes: readonly number[];
}

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly users: readonly OrgUser[];
  readonly usersByEmail: ReadonlyMap<string, OrgUser>;
  /** Newest first. */
  readonly readinessReports: readonly ReadinessReport[];
  /** Highest revision first. */
  readonly history: readonly EnterpriseControlChange[];
}

const DAY_MS = 86_400_000;

export function buildOrganization(seed: string, userCount: number, firstDay: string, now: number): Organization {
  const random = Random.of(seed, "org");
  const id = `org_${random.chars(12, "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")}`;
  const users = buildUsers(seed, userCount);
  return {
    id,
    name: "Acme Robotics",
    users,
    usersByEmail: new Map(users.map((user) => [user.email.toLowerCase(), user])),
    readinessReports: buildReadinessReports(seed, Date.parse(firstDay), now),
    history: buildHistory(seed, users, Date.parse(firstDay), now),
  };
}

function buildUsers(seed: string, count: number): OrgUser[] {
  const random = Random.of(seed, "users");
  const taken = new Set<string>();
  const drafts = [];
  for (let i = 0; i < count; i++) {
    let first: string;
    let last: string;
    let local: string;
    let attempt = 0;
    do {
      first = random.pick(FIRST_NAMES);
      last = random.pick(LAST_NAMES);
      local = attempt++ < 20 ? `${first}.${last}` : `${first}.${last}${attempt}`;
    } while (taken.has(local));
    taken.add(local);
    const models = random.sample(MODELS, random.int(1, 3));
    const preferred = random.weighted(MODELS, MODEL_WEIGHTS);
    if (!models.includes(preferred)) models[0] = preferred;
    const primaryClient = random.weighted(CLIENTS, CLIENT_WEIGHTS);
    const languageCount = random.int(1, 3);
    const languages: LanguageInfo[] = [];
    while (languages.length < languageCount) {
      const language = random.weighted(LANGUAGES, LANGUAGE_WEIGHTS);
      if (!languages.includes(language)) languages.push(language);
    }
    const mcpServers = random.chance(0.4) ? random.sample(MCP_SERVERS.slice(0, 4), random.int(1, 2)) : [];
    // A few clients report the GitHub server with different letter case, as the real service does.
    if (mcpServers.includes("github") && random.chance(0.3)) mcpServers[mcpServers.indexOf("github")] = "GitHub";
    drafts.push({
      id: `user_01${random.chars(24, CROCKFORD)}`,
      email: `${local}@${ORG_DOMAIN}`,
      name: `${capitalize(first)} ${capitalize(last)}`,
      activity: 0.25 + random.next() * 0.7,
      joinDay: random.chance(0.8) ? 0 : random.int(1, 200),
      intensity: 0.4 + random.next() * 2,
      clientWeights: CLIENTS.map((client) => (client === primaryClient ? 10 : random.chance(0.4) ? 2 : 0)),
      models,
      languages,
      delegation: random.weighted(DELEGATION_LEVELS, DELEGATION_WEIGHTS),
      autonomy: 2 + random.next() * 16,
      mcpServers,
      hookIndexes: random.chance(0.5)
        ? random.sample(
            HOOKS.map((_, i) => i),
            random.int(1, 3),
          )
        : [],
    });
  }
  drafts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return drafts.map((draft, index) => ({ ...draft, index }));
}

function buildReadinessReports(seed: string, start: number, now: number): ReadinessReport[] {
  const random = Random.of(seed, "readiness");
  const reports: ReadinessReport[] = [];
  const count = 45;
  for (let i = 0; i < count; i++) {
    const repo = random.pick(REPOSITORIES);
    const appCount = random.int(1, 3);
    const apps: ReadinessReport["apps"] = {};
    const appPaths = random.sample(["apps/dashboard", "services/api", "services/telemetry", "firmware", "tools/cli"], appCount);
    for (const path of appPaths) apps[path] = { description: `${capitalize(path.split("/").pop()!)} of ${repo.split("/")[1]}.` };
    const report: ReadinessReport["report"] = {};
    for (const criterion of random.sample(READINESS_CRITERIA, random.int(3, 6))) {
      const denominator = random.int(1, appCount);
      const numerator = random.int(0, denominator);
      report[criterion] = {
        numerator,
        denominator,
        rationale:
          numerator === denominator
            ? `Every evaluated application meets ${criterion.replace(/_/g, " ")}.`
            : `${numerator} of ${denominator} evaluated applications meet ${criterion.replace(/_/g, " ")}.`,
      };
    }
    reports.push({
      reportId: random.uuid(),
      createdAt: Math.floor(start + random.next() * Math.max(0, now - start)),
      repoUrl: `https://github.com/${repo}`,
      apps,
      report,
      commitHash: random.chars(40),
      branch: random.chance(0.7) ? "main" : `feature/${random.pick(["lint", "tests", "ci", "docs"])}-${random.int(1, 99)}`,
      hasLocalChanges: random.chance(0.2),
      hasNonRemoteCommits: random.chance(0.15),
      modelUsed: { id: random.pick(MODELS).id, reasoningEffort: random.pick(["low", "medium", "high", "off"] as const) },
      agentVersion: `0.${random.int(28, 33)}.${random.int(0, 5)}`,
    });
  }
  return reports.sort((a, b) => b.createdAt - a.createdAt || (a.reportId < b.reportId ? -1 : 1));
}

/** Repository id of a report, as `repoId` filters it: `owner/name` of its repository URL. */
export function repoIdOf(report: ReadinessReport): string {
  return new URL(report.repoUrl).pathname.replace(/^\/|\/$/g, "");
}

function buildHistory(seed: string, users: readonly OrgUser[], start: number, now: number): EnterpriseControlChange[] {
  const random = Random.of(seed, "history");
  const admins = users.slice(0, 4);
  const count = 57;
  let settings: EnterpriseControlSettings = {
    sessionDefaultSettings: { model: "claude-sonnet-4-5", specModeModel: "claude-opus-4-1" },
    cloudSessionSync: true,
    includeCoAuthoredByAgent: true,
    enableAgentShield: false,
    commandAllowlist: ["npm test", "git status"],
    commandDenylist: ["rm -rf /"],
    modelPolicy: { allowedModelIds: MODELS.slice(0, 3).map((m) => m.id), allowCustomModels: false },
    mcpPolicy: { enabled: true, allowlist: ["github"] },
    sessionRetentionDays: 30,
  };
  // Each revision changes at least one setting; the mutations are small and always leave a valid snapshot.
  const mutations: Array<(s: EnterpriseControlSettings) => EnterpriseControlSettings> = [
    (s) => ({ ...s, sessionRetentionDays: random.pick([14, 30, 60, 90, 180]) }),
    (s) => ({ ...s, enableAgentShield: !s.enableAgentShield }),
    (s) => ({ ...s, restrictApiKeyCreationToManagers: random.chance(0.6) }),
    (s) => ({
      ...s,
      commandAllowlist: [
        ...new Set([...(s.commandAllowlist ?? []), random.pick(["go test ./...", "cargo test", "make lint", "pytest -q"])]),
      ],
    }),
    (s) => ({
      ...s,
      commandDenylist: [...new Set([...(s.commandDenylist ?? []), random.pick(["git push --force", "curl | sh", "sudo"])])],
    }),
    (s) => ({ ...s, mcpPolicy: { enabled: true, allowlist: random.sample(["github", "linear", "sentry", "notion"], random.int(1, 4)) } }),
    (s) => ({
      ...s,
      modelPolicy: { ...s.modelPolicy, allowedModelIds: random.sample(MODELS, random.int(2, MODELS.length)).map((m) => m.id) },
    }),
    (s) => ({ ...s, sandbox: { enabled: random.chance(0.7), network: { allowedDomains: ["github.com", "registry.npmjs.org"] } } }),
    (s) => ({ ...s, managedComputersEnabled: random.chance(0.7), byomComputersEnabled: true }),
    (s) => ({ ...s, wikiCloudSync: random.chance(0.5), ideAutoConnect: random.chance(0.5) }),
  ];
  const span = Math.max(DAY_MS, now - start);
  const changes: EnterpriseControlChange[] = [];
  for (let revision = 1; revision <= count; revision++) {
    if (revision > 1) {
      // A revision records a change: draw again while a mutation leaves every setting as it was.
      let next: EnterpriseControlSettings;
      do next = random.pick(mutations)(settings);
      while (isDeepStrictEqual(next, settings));
      settings = next;
    }
    const admin = random.pick(admins);
    changes.push({
      revision,
      settings: structuredClone(settings),
      user: { id: admin.id, email: admin.email, name: admin.name },
      updatedAt: new Date(start + Math.floor((span * revision) / (count + 1))).toISOString(),
    });
  }
  return changes.reverse();
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
