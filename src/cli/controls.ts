// `orgagent controls history|diff`: the enterprise-control settings over time, as changes between revisions.
import { type Command, Option } from "commander";
import { isDeepStrictEqual } from "node:util";
import { operations } from "../../generated/spec-tables.js";
import type { EnterpriseControlChange } from "../index.js";
import type { Context } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import { LIST_DEFAULT, LIST_FORMATS, addOutputOptions, examples, pageSizeOption, wholeNumber, type WithOutput } from "./options.js";

/**
 * One difference between two revisions, by the setting's dotted name. A value that changed: `before` and `after`
 * (undefined: not set). A list: each item `added` or `removed` (lists are compared as sets, repeats counted), and,
 * apart, each item that only `moved`, with its 1-based positions: lists are never shown whole.
 */
export type SettingChange =
  | { setting: string; change: "changed"; before: unknown; after: unknown }
  | { setting: string; change: "added" | "removed"; item: unknown }
  | { setting: string; change: "moved"; item: unknown; before: number; after: number };

/** What differs between two snapshots: changed values and list items by setting name, then the items that moved. */
export function diffSettings(before: object, after: object): SettingChange[] {
  const a = leaves(before);
  const b = leaves(after);
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const changes: SettingChange[] = [];
  const moves: SettingChange[] = [];
  for (const setting of names) {
    const [old, now] = [a[setting], b[setting]];
    if (isDeepStrictEqual(old, now)) continue;
    const lists = (Array.isArray(old) || old === undefined) && (Array.isArray(now) || now === undefined);
    if (!lists) {
      changes.push({ setting, change: "changed", before: old, after: now });
      continue;
    }
    const diff = diffList((old ?? []) as unknown[], (now ?? []) as unknown[]);
    // Not set on one side, empty on the other: no item differs, the value does.
    if (!diff.removed.length && !diff.added.length && !diff.moved.length)
      changes.push({ setting, change: "changed", before: old, after: now });
    for (const item of diff.removed) changes.push({ setting, change: "removed", item });
    for (const item of diff.added) changes.push({ setting, change: "added", item });
    for (const move of diff.moved) moves.push({ setting, change: "moved", ...move });
  }
  return [...changes, ...moves];
}

/** Two lists as sets (repeats counted), and the common items whose order changed (those off a longest common order). */
function diffList(before: readonly unknown[], after: readonly unknown[]) {
  // Each item by its JSON and its occurrence: the second "x" of a list is another item than the first.
  const keyed = (list: readonly unknown[]) => {
    const seen = new Map<string, number>();
    return list.map((item, index) => {
      const json = JSON.stringify(item);
      const occurrence = (seen.get(json) ?? 0) + 1;
      seen.set(json, occurrence);
      return { key: `${occurrence}:${json}`, item, position: index + 1 };
    });
  };
  const old = keyed(before);
  const now = keyed(after);
  const oldKeys = new Set(old.map((entry) => entry.key));
  const nowKeys = new Set(now.map((entry) => entry.key));
  const commonOld = old.filter((entry) => nowKeys.has(entry.key));
  const commonNow = now.filter((entry) => oldKeys.has(entry.key));
  const kept = longestCommonOrder(
    commonOld.map((entry) => entry.key),
    commonNow.map((entry) => entry.key),
  );
  const positionBefore = new Map(old.map((entry) => [entry.key, entry.position]));
  return {
    removed: old.filter((entry) => !nowKeys.has(entry.key)).map((entry) => entry.item),
    added: now.filter((entry) => !oldKeys.has(entry.key)).map((entry) => entry.item),
    moved: commonNow
      .filter((entry) => !kept.has(entry.key))
      .map((entry) => ({ item: entry.item, before: positionBefore.get(entry.key)!, after: entry.position })),
  };
}

/** The keys of a longest common subsequence of two orderings of the same keys. */
function longestCommonOrder(a: readonly string[], b: readonly string[]): Set<string> {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  }
  const kept = new Set<string>();
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      kept.add(a[i]!);
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++;
    else j++;
  }
  return kept;
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
  const controls = examples(program.command("controls").description("enterprise controls (Manager or Owner key)"), [
    "orgagent controls history --max 10",
    "orgagent controls diff 14",
  ]);

  const history = controls
    .command("history")
    .description("changes to the enterprise-control settings, newest first, with the settings each revision changed")
    .addOption(pageSizeOption(pageSize, "changes"))
    .addOption(new Option("--max <n>", "stop after this many changes").argParser(wholeNumber("--max", 1)));
  addOutputOptions(history, LIST_FORMATS, LIST_DEFAULT);
  examples(history, [
    "orgagent controls history --max 10",
    "orgagent controls history --format csv > controls.csv",
    "orgagent controls history --json revision,user",
  ]);
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
      const changed = previous
        ? [...new Set(diffSettings(previous.settings, change.settings).map((c) => c.setting))].join(" ")
        : change.revision === 1
          ? "(first revision)"
          : "";
      return { revision: change.revision, updatedAt: change.updatedAt, changed, name: change.user.name, email: change.user.email };
    });
    context.out.list(rows, flags, { columns: ["revision", "updatedAt", "changed", "name", "email"] });
  });

  const diff = controls
    .command("diff")
    .description(
      "the settings that differ between two revisions (one revision: what it changed); lists as items added, removed and, apart, moved",
    )
    .argument("<revision>", "a revision; alone, it is compared with the one before it")
    .argument("[to]", "a second revision: show what changed from <revision> to it");
  addOutputOptions(diff, LIST_FORMATS, LIST_DEFAULT);
  examples(diff, ["orgagent controls diff 14", "orgagent controls diff 10 14", "orgagent controls diff 10 14 --json"]);
  diff.action(async (first: string, second: string | undefined, flags: WithOutput<object>, cmd: Command) => {
    context.begin(cmd);
    const revision = (text: string) => {
      if (!/^\d+$/.test(text) || Number(text) < 1)
        throw new CliError(
          `<revision> takes a whole number of 1 or more; got ${JSON.stringify(text)}.`,
          EXIT.usage,
          "Run 'orgagent controls history' to see the revisions.",
        );
      return Number(text);
    };
    const [from, to] = second === undefined ? [revision(first) - 1, revision(first)] : [revision(first), revision(second)];
    if (from < 1)
      throw new CliError(
        `revision ${to} is the first; there is nothing before it to compare with.`,
        EXIT.usage,
        `Run 'orgagent controls diff 1 REV' to compare it with a later one.`,
      );
    const found = new Map<number, EnterpriseControlChange>();
    const oldest = Math.min(from, to);
    for await (const change of context.client(cmd).enterpriseControls.history({ limit: pageSize.maximum })) {
      if (change.revision === from || change.revision === to) found.set(change.revision, change);
      if (found.size === new Set([from, to]).size || change.revision < oldest) break;
    }
    const missing = [from, to].filter((r) => !found.has(r));
    if (missing.length)
      throw new CliError(
        `no revision ${missing.join(" or ")} in the history.`,
        EXIT.error,
        "Run 'orgagent controls history' to see the revisions.",
      );
    const before = found.get(from)!;
    const after = found.get(to)!;
    const changes = diffSettings(before.settings, after.settings);
    const shown = flags.json !== undefined || flags.format === "json" || flags.format === "ndjson" ? changes : changes.map(row);
    const settings = new Set(changes.map((c) => c.setting)).size;
    const reordered = new Set(changes.filter((c) => c.change === "moved").map((c) => c.setting)).size;
    context.out.list(shown as never, flags, {
      columns: ["setting", "change", "before", "after"],
      title: `Revision ${from} (${before.updatedAt}) → ${to} (${after.updatedAt}, by ${after.user.name} <${after.user.email}>): ${settings} setting${settings === 1 ? "" : "s"} changed${reordered ? ` (${reordered} reordered)` : ""}`,
    });
  });
}

/** A difference as a table row: before and after as text; an item in the column of the side it is on. */
function row(change: SettingChange): Record<string, string> {
  const { setting } = change;
  switch (change.change) {
    case "changed":
      return { setting, change: change.change, before: text(change.before), after: text(change.after) };
    case "added":
      return { setting, change: change.change, before: "", after: text(change.item) };
    case "removed":
      return { setting, change: change.change, before: text(change.item), after: "" };
    case "moved":
      return {
        setting,
        change: change.change,
        before: `${text(change.item)} at ${change.before}`,
        after: `${text(change.item)} at ${change.after}`,
      };
  }
}

function text(value: unknown): string {
  return value === undefined ? "(not set)" : typeof value === "string" ? value : JSON.stringify(value);
}
