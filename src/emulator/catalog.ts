// The fixed vocabulary the emulated organization draws from: models, tools, MCP servers, skills, slash commands,
// hooks, languages and names. The seed decides who uses what and how much; these lists decide what exists.
import type { ClientType, DelegationLevel, ModelTier } from "../../generated/openapi.js";

export interface ModelInfo {
  readonly id: string;
  readonly tier: ModelTier;
  /** Credits per raw token: thinking models cost more. */
  readonly rate: number;
}

export const MODELS: readonly ModelInfo[] = [
  { id: "claude-sonnet-4-5", tier: "standard", rate: 1 },
  { id: "claude-opus-4-1", tier: "thinking", rate: 3 },
  { id: "gpt-5-codex", tier: "standard", rate: 1 },
  { id: "claude-haiku-4-5", tier: "standard", rate: 0.25 },
  { id: "gemini-2-5-pro", tier: "thinking", rate: 2 },
];
export const MODEL_WEIGHTS = [10, 3, 6, 4, 2];

/**
 * Standard Credits of one model's usage: raw input and output tokens, with cache reads at a tenth of the input
 * price and cache writes at a quarter more. Integer, so every sum of it is exact.
 */
export function credits(model: ModelInfo, input: number, output: number, cacheRead: number, cacheWrite: number): number {
  return Math.round(model.rate * (input + 4 * output + cacheRead / 10 + cacheWrite * 1.25));
}

export const CLIENTS: readonly ClientType[] = ["terminal-ui", "web", "non-interactive-cli"];
export const CLIENT_WEIGHTS = [7, 2, 2];

export const TOOLS = ["Read", "Edit", "Execute", "Grep", "Glob", "Create", "LS", "TodoWrite", "WebSearch", "FetchUrl"];
export const TOOL_WEIGHTS = [30, 20, 16, 12, 7, 5, 4, 3, 2, 1];

// `GitHub` is the same server as `github`: the API documents that server names may be duplicated by letter case.
export const MCP_SERVERS = ["github", "linear", "sentry", "notion", "GitHub"];
export const SKILLS = ["review", "changelog", "write-tests", "security-audit"];
export const SLASH_COMMANDS = ["compact", "model", "review", "init", "clear"];

export interface HookConfig {
  readonly event: string;
  readonly matcher: string;
  readonly command: string;
}
export const HOOKS: readonly HookConfig[] = [
  { event: "PostToolUse", matcher: "Edit", command: "npx prettier --write ." },
  { event: "Stop", matcher: "", command: 'notify-send "Agent finished"' },
  { event: "Notification", matcher: "", command: "say 'The agent needs input'" },
  { event: "SessionEnd", matcher: "", command: "./scripts/log-session.sh" },
  { event: "PostToolUse", matcher: "Execute", command: "./scripts/audit-command.sh" },
];

export interface LanguageInfo {
  readonly name: string;
  readonly extensions: readonly string[];
}
export const LANGUAGES: readonly LanguageInfo[] = [
  { name: "TypeScript", extensions: [".ts", ".tsx"] },
  { name: "Python", extensions: [".py"] },
  { name: "Go", extensions: [".go"] },
  { name: "Rust", extensions: [".rs"] },
  { name: "Java", extensions: [".java"] },
  { name: "C++", extensions: [".cpp", ".h"] },
  { name: "Kotlin", extensions: [".kt"] },
  { name: "SQL", extensions: [".sql"] },
];
export const LANGUAGE_WEIGHTS = [10, 8, 5, 2, 3, 2, 1, 2];

export const DELEGATION_LEVELS: readonly DelegationLevel[] = ["auto-high", "auto-medium", "auto-low", "spec", "manual"];
export const DELEGATION_WEIGHTS = [4, 5, 2, 2, 1];
/**
 * Share of a day's tool calls at each autonomy level (auto_high, auto_medium, auto_low, manual) for a user whose
 * primary mode is the given delegation level. `spec` users plan first and then mostly run at medium or low autonomy.
 */
export const LEVEL_MIX: Record<DelegationLevel, readonly [number, number, number, number]> = {
  "auto-high": [80, 14, 4, 2],
  "auto-medium": [12, 72, 12, 4],
  "auto-low": [3, 15, 72, 10],
  spec: [5, 45, 40, 10],
  manual: [0, 5, 15, 80],
};

export const FIRST_NAMES = [
  "maya",
  "li",
  "sam",
  "ana",
  "noah",
  "priya",
  "omar",
  "julia",
  "kenji",
  "lena",
  "diego",
  "fatima",
  "tom",
  "ines",
  "arjun",
  "sofia",
  "ben",
  "hana",
  "lucas",
  "amara",
  "felix",
  "chloe",
  "ravi",
  "nora",
  "mateo",
  "yuki",
  "elif",
  "jonas",
  "zara",
  "leo",
  "mia",
  "tariq",
  "emma",
  "ivan",
  "aisha",
  "hugo",
  "lea",
  "kofi",
  "clara",
  "wei",
];
export const LAST_NAMES = [
  "chen",
  "wei",
  "okafor",
  "silva",
  "kim",
  "patel",
  "haddad",
  "novak",
  "tanaka",
  "schmidt",
  "garcia",
  "rahman",
  "walsh",
  "moreau",
  "iyer",
  "rossi",
  "cohen",
  "sato",
  "martin",
  "mensah",
  "berg",
  "dubois",
  "nair",
  "larsen",
  "lopez",
  "ito",
  "yilmaz",
  "fischer",
  "khan",
  "bianchi",
  "jensen",
  "ali",
  "brown",
  "petrov",
  "osei",
  "weber",
  "costa",
  "andersen",
  "zhang",
  "muller",
];

export const ORG_DOMAIN = "acme-robotics.com";
export const REPOSITORIES = [
  "acme-robotics/fleet-control",
  "acme-robotics/motor-controller",
  "acme-robotics/telemetry-pipeline",
  "acme-robotics/warehouse-sim",
  "acme-robotics/docs-site",
  "acme-robotics/firmware-updater",
];
export const READINESS_CRITERIA = [
  "lint_config",
  "unit_tests",
  "readme",
  "ci_pipeline",
  "type_checking",
  "dependency_pinning",
  "dev_container",
  "codeowners",
];
