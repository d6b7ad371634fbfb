// `orgagent controls history|diff`: the enterprise-control settings over time, as changes between revisions.
import { type Command, Option } from "commander";
import { isDeepStrictEqual } from "node:util";
import { operations } from "../../generated/spec-tables.js";
import type { EnterpriseControlChange } from "../index.js";
import type { Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { LIST_DEFAULT, LIST_FORMATS, addOutputOptions, examples, pageSizeOption, wholeNumber, type WithOutput } from "./options.js";

/** One setting that differs between two revisions: its dotted name and both values (undefined: not set). */
export interface SettingChange {
  setting: string;
  before: unknown;
  after: unknown;
}

/** The settings that differ between two snapshots, by dotted name; lists and scalars are compared whole. */
export function diffSettings(before: object, after: object): SettingChange[] {
  const a = leaves(before);
  const b = leaves(after);
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return names.filter((name) => !isDeepStrictEqual(a[name], b[name])).map((setting) => ({ setting, before: a[setting], after: b[setting] }));
}

// Setting names come from the server: the map has no prototype, so `constructor` or `__proto__` is a setting like any other.
function leaves(value: object, prefix = "", out: Record<string, unknown> = Object.create(null)): Record<string, unknown> {
  for (const [key, field] of Object.entries(value)) {
    if (field !== null && typeof field === "object" && !Array.isArray(field)) leaves(field, `${prefix}${key}.`, out);
    else out[prefix + key] = field;
  }
  return out;
}

const pageSize = operations.listEnterpriseControlsHistory.params.limit.schema;

export function controlsCommands(program: Command, context: Context): void {
  const controls = examples(program.command("controls").description("enterprise controls (Manager or Owner key)"), ["orgagent controls history --max 10", "orgagent controls diff 14"]);

  const history = controls
    .command("history")
    .description("changes to the enterprise-control settings, newest first, with the settings each revision changed")
    .addOption(pageSizeOption(pageSize, "changes"))
    .addOption(new Option("--max <n>", "stop after this many changes").argParser(wholeNumber("--max", 1)));
  addOutputOptions(history, LIST_FORMATS, LIST_DEFAULT);
  examples(history, ["orgagent controls history --max 10", "orgagent controls history --format csv > controls.csv", "orgagent controls history --json revision,user"]);
  history.action(async (flags: WithOutput<{ pageSize?: number; max?: number }>, cmd: Command) => {
    context.begin(cmd, { "query.limit": "--page-size" });
    const query = flags.pageSize ? { limit: flags.pageSize } : {};
    // One change more than shown: what the oldest shown revision changed is its difference from the one before.
    const changes: EnterpriseControlChange[] = [];
    const wanted = flags.max === undefined ? undefined : flags.max + 1;
    for await (const change of context.client(cmd).enterpriseControls.history(query, { maxItems: wanted })) changes.push(change);
    const shown = flags.max === undefined ? changes : changes.slice(0, flags.max);
    if (flags.json !== undefined || flags.format === "json" || flags.format === "ndjson") return context.out.list(shown as never, flags);
    const rows = shown.map((change, i) => {
      const previous = changes[i + 1];
      const changed = previous ? diffSettings(previous.settings, change.settings).map((c) => c.setting).join(" ") : change.revision === 1 ? "(first revision)" : "";
      return { revision: change.revision, updatedAt: change.updatedAt, changed, name: change.user.name, email: change.user.email };
    });
    context.out.list(rows, flags, { columns: ["revision", "updatedAt", "changed", "name", "email"] });
  });

  const diff = controls
    .command("diff")
    .description("the settings that differ between two revisions (one revision: what it changed)")
    .argument("<revision>", "a revision; alone, it is compared with the one before it")
    .argument("[to]", "a second revision: show what changed from <revision> to it");
  addOutputOptions(diff, LIST_FORMATS, LIST_DEFAULT);
  examples(diff, ["orgagent controls diff 14", "orgagent controls diff 10 14", "orgagent controls diff 10 14 --json"]);
  diff.action(async (first: string, second: string | undefined, flags: WithOutput<object>, cmd: Command) => {
    context.begin(cmd);
    const revision = (text: string) => {
      if (!/^\d+$/.test(text) || Number(text) < 1) throw new CliError(`<revision> takes a whole number of 1 or more; got ${JSON.stringify(text)}.`, EXIT.usage, "Run 'orgagent controls history' to see the revisions.");
      return Number(text);
    };
    const [from, to] = second === undefined ? [revision(first) - 1, revision(first)] : [revision(first), revision(second)];
    if (from < 1) throw new CliError(`revision ${to} is the first; there is nothing before it to compare with.`, EXIT.usage, `Run 'orgagent controls diff 1 REV' to compare it with a later one.`);
    const found = new Map<number, EnterpriseControlChange>();
    const oldest = Math.min(from, to);
    for await (const change of context.client(cmd).enterpriseControls.history({ limit: pageSize.maximum })) {
      if (change.revision === from || change.revision === to) found.set(change.revision, change);
      if (found.size === new Set([from, to]).size || change.revision < oldest) break;
    }
    const missing = [from, to].filter((r) => !found.has(r));
    if (missing.length) throw new CliError(`no revision ${missing.join(" or ")} in the history.`, EXIT.error, "Run 'orgagent controls history' to see the revisions.");
    const before = found.get(from)!;
    const after = found.get(to)!;
    const changes = diffSettings(before.settings, after.settings);
    const shown = flags.json !== undefined || flags.format === "json" || flags.format === "ndjson" ? changes : changes.map(({ setting, before: b, after: a }) => ({ setting, before: text(b), after: text(a) }));
    context.out.list(shown as never, flags, {
      columns: ["setting", "before", "after"],
      title: `Revision ${from} (${before.updatedAt}) → ${to} (${after.updatedAt}, by ${after.user.name} <${after.user.email}>): ${changes.length} setting${changes.length === 1 ? "" : "s"} changed`,
    });
  });
}

function text(value: unknown): string {
  return value === undefined ? "(not set)" : typeof value === "string" ? value : JSON.stringify(value);
}
