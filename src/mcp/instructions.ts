// The server's instructions to the model, from the spec's tools and the policy: what the tools are, which calls are
// allowed, and which of them spend credits, start work or change settings (the spec's `x-effect`).
import { mcpTools } from "../../generated/mcp-tools.js";
import { CODE_TOOL, DOCS_TOOL, type Policy } from "./options.js";
import { dateRange } from "./sdk-adapter.js";

const EFFECTS: Record<string, string> = {
  "spends-credits": "spend the organization's credits (the agent works)",
  "starts-work": "start work on a computer",
  "changes-settings": "change the organization's settings",
  "changes-data": "change data",
};

/** The instructions, with today's date (UTC) when the session starts: a model does not know it. */
export function instructions(policy: Policy, now = new Date()): string {
  const writes = Object.values(mcpTools).filter((tool) => tool.effect);
  const allowed = writes.filter((tool) => policy.operations.has(tool.name));
  const lines = [
    "orgagent: the Organization Administration and Agent Sessions API of one organization, with an administrator's key.",
    `Tools: one per API operation, named by its operationId${policy.codeTool ? `; ${CODE_TOOL}, a TypeScript program against the orgagent SDK in a sandbox (best for totals, rankings and anything that walks many pages)` : ""}${policy.docsTool ? `; ${DOCS_TOOL}, the API's and the SDK's documentation, offline` : ""}.`,
  ];
  if (!allowed.length) {
    lines.push(
      policy.readOnly
        ? "This server is read-only: only reads are allowed."
        : `Writes are off in this server: only reads are allowed. The user can enable them (orgagent mcp --allow-writes, or --tools naming them).`,
    );
  }
  const effects = new Map<string, string[]>();
  for (const tool of writes) effects.set(tool.effect!, [...(effects.get(tool.effect!) ?? []), tool.name]);
  for (const [effect, names] of effects) {
    const on = names.filter((name) => policy.operations.has(name));
    if (on.length)
      lines.push(
        `These calls ${EFFECTS[effect] ?? effect}: ${on.join(", ")}. Say what you will do and get the user's go-ahead before calling them.`,
      );
  }
  lines.push(
    `Today is ${now.toISOString().slice(0, 10)} (UTC) as this session starts. Analytics dates are UTC days (YYYY-MM-DD), both ends ` +
      `included; the latest day with data is yesterday, ${dateRange.yesterday({ now: now.getTime() }).endDate}.`,
    `A list tool returns at most ${policy.maxItems} items a call (whole pages) and says when more exist, with the cursor to continue. ` +
      `Answers over ${policy.maxResultBytes} bytes are cut, with a note saying what was left out.`,
    "Errors name the argument at fault and what it allows; a 403 means the key's role may not do it.",
  );
  return lines.join("\n");
}
