// Leveled logging with redaction. The SDK logs through this only, so nothing can print a credential. The default
// level (`warn`) prints nothing a caller handles: a failed call is the caller's error to report, not the SDK's.
import { CREDENTIAL_HEADER, scrubText } from "./scrub.js";
import { withoutUserinfo } from "./urls.js";

/** The log levels, from none to every line. */
export const LOG_LEVELS = ["off", "error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Anything with console-like methods; `console` is the default. */
export interface Logger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** Headers as a plain object with credentials replaced by `***`. */
export function redactHeaders(headers: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers ?? {});
  for (const [name, value] of entries) out[name] = CREDENTIAL_HEADER.test(name) ? "***" : value;
  return out;
}

export class Log {
  private readonly threshold: number;
  constructor(
    level: LogLevel,
    private readonly logger: Logger,
    /** Returns the secrets to scrub from every line, as a last line of defence. */
    private readonly secrets: () => readonly string[],
  ) {
    this.threshold = LOG_LEVELS.indexOf(level);
  }

  enabled(level: Exclude<LogLevel, "off">): boolean {
    return LOG_LEVELS.indexOf(level) <= this.threshold;
  }

  /** Writes a line at `level`; `secrets` adds the call's own (a credential header it set) to the client's. */
  write(level: Exclude<LogLevel, "off">, message: string, details?: Record<string, unknown>, secrets?: readonly string[]): void {
    if (!this.enabled(level)) return;
    let line = details ? `${message} ${safeJSON(details)}` : message;
    line = scrubText(withoutUserinfo(line), secrets ? [...this.secrets(), ...secrets] : this.secrets());
    this.logger[level](`[orgagent] ${line}`);
  }
}

function safeJSON(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
