// What the CLI prints, for every command: on a terminal a human view (aligned tables cut to the terminal's width,
// key/value for one resource, ISO times); when piped, stable machine output (tab-separated rows with a header,
// JSON for one resource). json, ndjson and csv are the same everywhere. CSV is written by csv-stringify, with
// spreadsheet formulas escaped. On a terminal, and always on stderr, text from outside the CLI goes through
// terminal-text.ts first, so that it cannot drive the terminal; piped, stdout is the data exactly as it came.
import { stringify } from "csv-stringify/sync";
import { askedColumns, chooseColumns, leftOutNote } from "./columns.js";
import type { Io } from "./io.js";
import { page, pagerFor } from "./pager.js";
import { terminalJson, terminalText } from "./terminal-text.js";

export type Format = "table" | "json" | "ndjson" | "csv";
export type Row = Record<string, unknown>;

export type { Io } from "./io.js";

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

  /** Text for the reader, lines the CLI composed: on a terminal, control characters in it are shown as escapes. */
  line(text: string): void {
    this.write(this.tty ? terminalText(text, { multiline: true }) : text);
  }

  /** One value from outside the CLI (a name, a reason) to put in a line: on a terminal, kept on its one line. */
  one(text: string): string {
    return this.tty ? terminalText(text) : text;
  }

  /** JSON text: exact when piped; on a terminal, with the characters a terminal may act on as `\u` escapes. */
  json(value: unknown, indent?: number): void {
    this.write(this.jsonText(value, indent));
  }

  private jsonText(value: unknown, indent?: number): string {
    const text = JSON.stringify(value, null, indent);
    return this.tty ? terminalJson(text) : text;
  }

  /** A note for the person at the terminal, on stderr so that stdout stays data; never able to drive the terminal. */
  note(text: string): void {
    this.io.stderr.write(`${terminalText(text, { multiline: true })}\n`);
  }

  private write(text: string): void {
    this.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Prints rows in the chosen format. */
  list(rows: readonly Row[], choice: OutputChoice, options: ListOptions = {}): void {
    const format = formatOf(choice);
    const asked = askedColumns(choice.columns);
    if (asked && (format === "json" || format === "ndjson")) {
      throw new OutputUsageError(
        `--columns picks the columns of tables and CSV, not the fields of --format ${format}.`,
        "Name the fields with --json a,b,c instead.",
      );
    }
    const selected = select(rows, choice);
    if (format === "json") {
      this.json(selected, 2);
      return;
    }
    if (format === "ndjson") {
      if (selected.length) this.write(selected.map((row) => this.jsonText(row)).join("\n"));
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
      const csv = stringify(
        flat.map((row) => columns.map((c) => csvCell(row[c]))),
        { header: true, columns, escape_formulas: true },
      );
      return void this.io.stdout.write(this.tty ? terminalText(csv, { multiline: true }) : csv);
    }
    const cells = flat.map((row) => columns.map((column) => displayValue(column, row[column])));
    if (!this.tty) {
      this.write([columns, ...cells].map((line) => line.map(tsvCell).join("\t")).join("\n"));
      return;
    }
    if (options.title) this.line(terminalText(options.title));
    if (!rows.length) {
      this.line("(no rows)");
      return;
    }
    this.table(
      columns.map((column) => terminalText(column)),
      cells.map((line) => line.map((cell) => terminalText(cell))),
    );
  }

  /** Prints one resource: key/value on a terminal, JSON when piped or asked for. */
  resource(value: object, choice: OutputChoice): void {
    const selected = select([value as Row], choice)[0]!;
    const format = choice.json !== undefined || choice.format !== undefined ? formatOf(choice) : this.tty ? "table" : "json";
    if (format !== "table") {
      this.json(selected, 2);
      return;
    }
    // Keys stay on their line; a value's own line breaks are kept, indented under it, so it cannot pose as a key.
    const entries = Object.entries(flatten(selected, "", Object.create(null), { arrays: true })).map(
      ([key, field]) => [this.one(key), this.shown(displayValue(key, field))] as const,
    );
    const width = Math.max(0, ...entries.map(([key]) => key.length));
    const lines = entries.map(([key, text]) => `${key.padEnd(width)}  ${text.replace(/\n/g, `\n${" ".repeat(width + 2)}`)}`);
    this.write(lines.join("\n"));
  }

  /** A multi-line value on a terminal: control characters shown as escapes, its line breaks and tabs kept. */
  private shown(text: string): string {
    return this.tty ? terminalText(text, { multiline: true }) : text;
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
    const render = (line: readonly string[]) =>
      shown
        .map((i) => pad(line[i]!, i))
        .join("  ")
        .trimEnd()
        .slice(0, room);
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
      const safe = terminalText(text);
      stream.write(`\r\x1b[2K${stream.columns ? safe.slice(0, stream.columns - 1) : safe}`);
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
  return typeof choice.json === "string"
    ? choice.json
        .split(",")
        .map((f) => f.trim())
        .filter(Boolean)
    : undefined;
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
    super(
      `unknown ${what}${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}`,
      known.length ? `${list}: ${known.join(", ")}.` : undefined,
    );
  }
}

/**
 * Nested objects as dotted names; arrays of scalars kept as arrays; arrays of objects left out of tables (use json,
 * or --group-by, for the nested breakdowns) or, for one resource, listed as `name[0].field`.
 */
export function flatten(value: Row, prefix = "", out: Row = Object.create(null), { arrays = false } = {}): Row {
  for (const [key, field] of Object.entries(value)) {
    const name = prefix + key;
    if (Array.isArray(field) && field.some((item) => typeof item === "object" && item !== null)) {
      if (arrays)
        field.forEach((item, i) => {
          if (typeof item === "object" && item !== null) flatten(item as Row, `${name}[${i}].`, out, { arrays });
          else out[`${name}[${i}]`] = item;
        });
    } else if (field !== null && typeof field === "object" && !Array.isArray(field)) flatten(field as Row, `${name}.`, out, { arrays });
    else out[name] = field;
  }
  return out;
}

// Unix-millisecond timestamps (`createdAt`, `updatedAt`, `completedAt`, `startedAt`, as the spec names them) read
// as ISO times in human views.
const EPOCH_FIELD = /At$/;
const MAX_DATE_MS = 8.64e15;

function displayValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return "";
  // Only a time a Date can hold (to year 275760): a larger number is shown as the number it is.
  if (
    typeof value === "number" &&
    EPOCH_FIELD.test(key.replace(/\]$/, "")) &&
    Number.isInteger(value) &&
    value > 0 &&
    value <= MAX_DATE_MS
  ) {
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
