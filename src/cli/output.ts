// What the CLI prints, for every command: on a terminal a human view (aligned tables cut to the terminal's width,
// key/value for one resource, ISO times); when piped, stable machine output (tab-separated rows with a header,
// JSON for one resource). json, ndjson and csv are the same everywhere. CSV is written by csv-stringify, with
// spreadsheet formulas escaped.
import { stringify } from "csv-stringify/sync";
import { askedColumns, chooseColumns, leftOutNote } from "./columns.js";
import { page, pagerFor } from "./pager.js";

export type Format = "table" | "json" | "ndjson" | "csv";
export type Row = Record<string, unknown>;

/** Where the CLI writes: `process` in the bin, any pair of streams in tests. */
export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/** How the user asked for output: `--format`, `--json [fields]` and, for lists, `--columns`. */
export interface OutputChoice {
  format?: string | undefined;
  json?: true | string | undefined;
  columns?: string | undefined;
}

export interface ListOptions {
  /** The columns in their documented order (from the spec); they head a table even when it has no rows. */
  columns?: readonly string[] | undefined;
  /** A line above a table on a terminal (e.g. which revisions a diff compares). */
  title?: string | undefined;
  /** The columns a table on a terminal shows first without --columns, in this order; the others follow. */
  firstColumns?: readonly string[] | undefined;
}

const DEFAULT_WIDTH = 100;
// A terminal table cell longer than this is cut with an ellipsis, so one long value does not hide every column.
const MAX_CELL = 60;

export class Output {
  /** A pager still showing a table: the command ends when it does. */
  private paging: Promise<void> = Promise.resolve();

  constructor(
    readonly io: Io,
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {}

  /** Resolves once everything is shown (a pager closed). */
  settled(): Promise<void> {
    return this.paging;
  }

  get tty(): boolean {
    return Boolean(this.io.stdout.isTTY);
  }

  line(text: string): void {
    this.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** A note for the person at the terminal, on stderr so that stdout stays data. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  /** Prints rows in the chosen format. */
  list(rows: readonly Row[], choice: OutputChoice, options: ListOptions = {}): void {
    const format = formatOf(choice);
    const asked = askedColumns(choice.columns);
    if (asked && (format === "json" || format === "ndjson")) {
      throw new OutputUsageError(`--columns picks the columns of tables and CSV, not the fields of --format ${format}.`, "Name the fields with --json a,b,c instead.");
    }
    const selected = select(rows, choice);
    if (format === "json") return this.line(JSON.stringify(selected, null, 2));
    if (format === "ndjson") {
      if (selected.length) this.line(selected.map((row) => JSON.stringify(row)).join("\n"));
      return;
    }
    const flat = selected.map((row) => flatten(row));
    const all = [...new Set([...(options.columns ?? []), ...flat.flatMap((row) => Object.keys(row))])];
    const unknown = (asked ?? []).filter((column) => !all.includes(column));
    if (unknown.length && all.length) throw new UnknownFieldError(unknown, all, "--columns column");
    const terminal = this.tty && format === "table";
    const columns = chooseColumns(all, asked, options.firstColumns, terminal);
    if (format === "csv") {
      // Numbers stay numbers, so a negative one is not mistaken for a formula; every text cell is guarded.
      return void this.io.stdout.write(stringify(flat.map((row) => columns.map((c) => csvCell(row[c]))), { header: true, columns, escape_formulas: true }));
    }
    const cells = flat.map((row) => columns.map((column) => displayValue(column, row[column])));
    if (!this.tty) return this.line([columns, ...cells].map((line) => line.map(tsvCell).join("\t")).join("\n"));
    if (options.title) this.line(options.title);
    if (!rows.length) return this.line("(no rows)");
    this.table(columns, cells);
  }

  /** Prints one resource: key/value on a terminal, JSON when piped or asked for. */
  resource(value: object, choice: OutputChoice): void {
    const selected = select([value as Row], choice)[0]!;
    const format = choice.json !== undefined || choice.format !== undefined ? formatOf(choice) : this.tty ? "table" : "json";
    if (format !== "table") return this.line(JSON.stringify(selected, null, 2));
    const entries = Object.entries(flatten(selected, "", {}, { arrays: true }));
    const width = Math.max(0, ...entries.map(([key]) => key.length));
    const lines = entries.map(([key, field]) => {
      const text = displayValue(key, field).replace(/\n/g, `\n${" ".repeat(width + 2)}`);
      return `${key.padEnd(width)}  ${text}`;
    });
    this.line(lines.join("\n"));
  }

  /**
   * Aligned columns, cut to the terminal's width; the columns left out are named on stderr. A table longer than the
   * screen goes through the pager, if there is one (the note after it).
   */
  private table(columns: readonly string[], cells: string[][]): void {
    const clipped = cells.map((line) => line.map((cell) => (cell.length > MAX_CELL ? `${cell.slice(0, MAX_CELL - 1)}…` : cell)));
    const widths = columns.map((column, i) => Math.max(column.length, ...clipped.map((line) => line[i]!.length)));
    const numeric = columns.map((_, i) => clipped.every((line) => line[i] === "" || /^-?\d+(\.\d+)?$/.test(line[i]!)));
    const room = this.io.stdout.columns || DEFAULT_WIDTH;
    const shown: number[] = [];
    let used = 0;
    for (let i = 0; i < columns.length; i++) {
      const need = (shown.length ? 2 : 0) + widths[i]!;
      if (used + need > room && shown.length) break;
      shown.push(i);
      used += need;
    }
    const pad = (text: string, i: number) => (numeric[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!));
    const render = (line: readonly string[]) => shown.map((i) => pad(line[i]!, i)).join("  ").trimEnd().slice(0, room);
    const text = `${[render(columns), ...clipped.map(render)].join("\n")}\n`;
    const hidden = columns.filter((_, i) => !shown.includes(i));
    const note = hidden.length ? `${wrap(leftOutNote(hidden), room)}\n` : "";
    const pager = pagerFor(this.io, this.env, clipped.length + 1);
    if (pager) {
      this.paging = page(text + note, pager, this.io, this.env);
      return;
    }
    this.io.stdout.write(text);
    if (note) this.io.stderr.write(note);
  }

  /** A one-line progress display on stderr when it is a terminal; nothing at all otherwise. */
  progress(): (text: string | undefined) => void {
    const stream = this.io.stderr;
    let shown = false;
    return (text) => {
      if (!stream.isTTY) return;
      if (text === undefined) {
        if (shown) stream.write("\r\x1b[2K");
        shown = false;
        return;
      }
      // Cut to the terminal's width: a line that wraps could not be cleared by the next one.
      stream.write(`\r\x1b[2K${stream.columns ? text.slice(0, stream.columns - 1) : text}`);
      shown = true;
    };
  }
}

/** The format asked for: `--json` is `--format json`; without either, a table. */
export function formatOf(choice: OutputChoice): Format {
  if (choice.json !== undefined) return "json";
  return (choice.format as Format | undefined) ?? "table";
}

function fieldsOf(choice: OutputChoice): string[] | undefined {
  return typeof choice.json === "string" ? choice.json.split(",").map((f) => f.trim()).filter(Boolean) : undefined;
}

/** Rows cut down to the `--json` fields, in the order given; an unknown field is a usage error naming the known ones. */
function select(rows: readonly Row[], choice: OutputChoice): Row[] {
  const fields = fieldsOf(choice);
  if (!fields) return rows as Row[];
  const known = new Set(rows.flatMap((row) => Object.keys(row)));
  const unknown = fields.filter((field) => rows.length && !known.has(field));
  if (unknown.length) throw new UnknownFieldError(unknown, [...known]);
  return rows.map((row) => Object.fromEntries(fields.map((field) => [field, row[field] ?? null])));
}

/** Output asked for in a way that cannot be: a usage error (exit 2), with what to do instead. */
export class OutputUsageError extends Error {
  constructor(
    message: string,
    readonly hint: string | undefined,
  ) {
    super(message);
  }
}

/** `--json` fields or `--columns` columns that rows do not have; the hint lists those they have. */
export class UnknownFieldError extends OutputUsageError {
  constructor(
    readonly unknown: readonly string[],
    readonly known: readonly string[],
    what: "--json field" | "--columns column" = "--json field",
  ) {
    const list = what === "--json field" ? "Fields" : "Columns";
    super(`unknown ${what}${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}`, known.length ? `${list}: ${known.join(", ")}.` : undefined);
  }
}

/**
 * Nested objects as dotted names; arrays of scalars kept as arrays; arrays of objects left out of tables (use json,
 * or --group-by, for the nested breakdowns) or, for one resource, listed as `name[0].field`.
 */
export function flatten(value: Row, prefix = "", out: Row = {}, { arrays = false } = {}): Row {
  for (const [key, field] of Object.entries(value)) {
    const name = prefix + key;
    if (Array.isArray(field) && field.some((item) => typeof item === "object" && item !== null)) {
      if (arrays) field.forEach((item, i) => (typeof item === "object" && item !== null ? flatten(item as Row, `${name}[${i}].`, out, { arrays }) : (out[`${name}[${i}]`] = item)));
    } else if (field !== null && typeof field === "object" && !Array.isArray(field)) flatten(field as Row, `${name}.`, out, { arrays });
    else out[name] = field;
  }
  return out;
}

// Unix-millisecond timestamps (`createdAt`, `updatedAt`, `completedAt`, `startedAt`, as the spec names them) read
// as ISO times in human views.
const EPOCH_FIELD = /At$/;

function displayValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" && EPOCH_FIELD.test(key.replace(/\]$/, "")) && Number.isInteger(value) && value > 0) {
    return new Date(value).toISOString();
  }
  if (Array.isArray(value)) return value.join(" ");
  return String(value);
}

/** Words wrapped onto lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...out, line].join("\n");
}

function tsvCell(text: string): string {
  return text.replace(/[\t\r\n]+/g, " ");
}

function csvCell(value: unknown): unknown {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.join(" ");
  return typeof value === "boolean" ? String(value) : value;
}
