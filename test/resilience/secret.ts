// The credential every resilience test uses, and every way an error or a client can be turned into text.
import { inspect } from "node:util";
import type { Logger } from "../../src/index.js";

export const SECRET = "sk-live-7Hq2Vx9RbN4mZt1KcW8pLd3F";

/** Every rendering of a value that could end up in a log, a bug report or a crash dump. */
export function renderings(value: unknown): string[] {
  const texts = [inspect(value, { depth: 8, showHidden: true }), safe(() => JSON.stringify(value))];
  if (value instanceof Error) {
    texts.push(value.message, String(value), value.stack ?? "");
    for (let cause = value.cause, depth = 0; cause && depth < 5; cause = (cause as Error).cause, depth++) {
      texts.push(inspect(cause, { depth: 8, showHidden: true }), String(cause), (cause as Error).stack ?? "");
    }
  }
  return texts;
}

/** The texts of `values` that contain the secret. */
export function leaks(values: unknown[]): string[] {
  return values.flatMap(renderings).filter((text) => text.includes(SECRET));
}

/** A logger that keeps every line with its level. */
export function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (...parts: unknown[]) =>
      lines.push(`${level} ${parts.map((part) => (typeof part === "string" ? part : inspect(part))).join(" ")}`);
  return { lines, error: keep("error"), warn: keep("warn"), info: keep("info"), debug: keep("debug") };
}

function safe(render: () => string | undefined): string {
  try {
    return render() ?? "";
  } catch (error) {
    return String(error);
  }
}
