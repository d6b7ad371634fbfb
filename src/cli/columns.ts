// Which columns a list shows. `--columns a,b,c` picks them, in that order, for a table on a terminal, tab-separated
// output and CSV alike. Without it a terminal table puts the command's first columns (the figures worth a glance)
// before the others, shows as many as fit and names the rest; piped output and CSV keep every column in the spec's
// order, so scripts see the same columns on every terminal.
import { Option } from "commander";

/** `--columns`: for commands that print lists. */
export function columnsOption(): Option {
  return new Option(
    "--columns <names>",
    "only these comma-separated columns, in this order (tables, tab-separated and CSV; not JSON)",
  ).conflicts("json");
}

/** The columns asked for with `--columns`, or undefined. */
export function askedColumns(columns: string | undefined): string[] | undefined {
  if (columns === undefined) return undefined;
  return columns
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
}

/**
 * The columns to show, in order, before the terminal's width cuts them: the ones asked for; else, on a terminal, the
 * command's first columns, then the others; else every one.
 */
export function chooseColumns(
  all: readonly string[],
  asked: readonly string[] | undefined,
  first: readonly string[] | undefined,
  terminal: boolean,
): string[] {
  if (asked) return [...asked];
  if (!terminal || !first) return [...all];
  const leading = first.filter((column) => all.includes(column));
  return [...leading, ...all.filter((column) => !leading.includes(column))];
}

/** The line under a terminal table that names the columns it leaves out. */
export function leftOutNote(left: readonly string[]): string {
  const count = `${left.length} more column${left.length === 1 ? "" : "s"}`;
  return `(${count}: ${left.join(", ")}; pick columns with --columns, or see every one with --format csv or --json)`;
}
