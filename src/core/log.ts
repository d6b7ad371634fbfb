// Leveled logging with redaction. The SDK logs through this only, so nothing can print a credential.

export type LogLevel = "off" | "error" | "warn" | "info" | "debug";

/** Anything with console-like methods; `console` is the default. */
export interface Logger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

const LEVELS: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };
// Any header whose name looks like it carries a credential: Authorization, Cookie, X-Api-Key, X-Auth-Token,
// X-Session-Id, X-Amz-Signature… A harmless header redacted by mistake costs nothing; a leaked one does.
const CREDENTIAL_HEADER = /auth|token|key|secret|cookie|session|passw|signature|credential/i;

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && Object.hasOwn(LEVELS, value); // own keys only: not "toString" or "constructor"
}

/** Headers as a plain object with credentials replaced by `***`. */
export function redactHeaders(headers: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
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
    this.threshold = LEVELS[level];
  }

  enabled(level: Exclude<LogLevel, "off">): boolean {
    return LEVELS[level] <= this.threshold;
  }

  write(level: Exclude<LogLevel, "off">, message: string, details?: Record<string, unknown>): void {
    if (!this.enabled(level)) return;
    let line = details ? `${message} ${safeJSON(details)}` : message;
    for (const secret of this.secrets()) line = scrubSecret(line, secret);
    this.logger[level](`[orgagent] ${line}`);
  }
}

// Shorter "keys" are test placeholders, not secrets: replacing every "k" would only garble the text.
const MIN_SECRET_LENGTH = 8;

/** `text` with every occurrence of `secret` replaced by `***`. */
export function scrubSecret(text: string, secret: string | undefined): string {
  return secret && secret.length >= MIN_SECRET_LENGTH && text.includes(secret) ? text.split(secret).join("***") : text;
}

function safeJSON(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
