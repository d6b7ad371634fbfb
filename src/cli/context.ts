// One run of the CLI: its streams, its exit code, and the SDK client built from the global flags and ORGAGENT_*
// variables (checked here, so that a bad value is named as the user typed it).
import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { LOG_LEVELS, isLogLevel } from "../core/log.js";
import { DEFAULTS } from "../core/options.js";
import { isHttpUrl, isPlainHttpUrl, withoutUserinfo } from "../core/urls.js";
import { OrgAgent, type LogLevel, type Logger } from "../index.js";
import { CliError, EXIT, FAIL_FAST, type FailureContext } from "./errors.js";
import { Output, type Io } from "./output.js";
import { terminalText } from "./terminal-text.js";

interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  appUrl?: string;
  debug?: boolean;
  requestTimeout?: number;
}

/** The SDK's time limit of one attempt, in the CLI's unit (whole seconds). */
export const REQUEST_TIMEOUT_DEFAULT = DEFAULTS.timeout / 1000;

export class Context implements FailureContext {
  readonly out: Output;
  exitCode: number = EXIT.ok;
  command: string | undefined;
  fields: Record<string, string> = {};
  keySource = "ORGAGENT_API_KEY";
  hostSource = "ORGAGENT_BASE_URL (or --base-url)";
  origin: string | undefined;
  requestTimeout = REQUEST_TIMEOUT_DEFAULT;
  timeoutSource: string | undefined;
  /** Requests sent to each URL in this run (the SDK's retries included). */
  private readonly sent = new Map<string, number>();

  constructor(
    readonly io: Io,
    readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {
    this.out = new Output(io, env);
  }

  /** Starts a command: its name for hints, and which of its flags give which SDK field. */
  begin(command: Command, fields: Record<string, string> = {}): void {
    this.command = commandPath(command);
    this.fields = fields;
  }

  /** The SDK client for a command, from the global flags and the ORGAGENT_* variables. */
  client(command: Command, { appHost = false } = {}): OrgAgent {
    const options = command.optsWithGlobals<GlobalOptions>();
    const source = (key: keyof GlobalOptions, flag: string, variable: string) =>
      command.getOptionValueSourceWithGlobals(key) === "cli" ? flag : variable;
    this.keySource = source("apiKey", "--api-key", "ORGAGENT_API_KEY");
    const host = appHost
      ? ({ key: "appUrl", flag: "--app-url", variable: "ORGAGENT_APP_URL" } as const)
      : ({ key: "baseUrl", flag: "--base-url", variable: "ORGAGENT_BASE_URL" } as const);
    this.hostSource = source(host.key, host.flag, host.variable);
    if (options.requestTimeout !== undefined) {
      this.requestTimeout = options.requestTimeout;
      this.timeoutSource = source("requestTimeout", "--request-timeout", "ORGAGENT_REQUEST_TIMEOUT");
    }
    const url = options[host.key];
    if (!options.apiKey && !url) {
      // Both at once: a first run has neither, and should not learn of the second only after fixing the first.
      throw new CliError(
        `no API key and no ${appHost ? "app host" : "API host"}.`,
        EXIT.usage,
        `Set ORGAGENT_API_KEY and ${host.variable}, or pass --api-key and ${host.flag}: an API key or JWT from the app's API-key settings, and the host, e.g. http://127.0.0.1:${appHost ? 4001 : 4000} for the emulator of 'npm start'.`,
      );
    }
    if (!options.apiKey) {
      throw new CliError(
        "no API key.",
        EXIT.usage,
        "Set ORGAGENT_API_KEY or pass --api-key (an API key or JWT from the app's API-key settings).",
      );
    }
    if (!url) {
      const what = appHost ? "no app host (it serves readiness reports)." : "no API host.";
      throw new CliError(
        what,
        EXIT.usage,
        `Set ${host.variable} or pass ${host.flag}, e.g. http://127.0.0.1:${appHost ? 4001 : 4000} for the emulator of 'npm start'.`,
      );
    }
    if (!isHttpUrl(url)) {
      throw new CliError(
        `${this.hostSource} is not an http(s) URL: ${JSON.stringify(withoutUserinfo(url))}.`,
        EXIT.usage,
        `Give the whole address with its scheme, e.g. https://api.example.com.`,
      );
    }
    if (!isPlainHttpUrl(url)) {
      throw new CliError(
        `${this.hostSource} must not hold a user name or password: ${JSON.stringify(withoutUserinfo(url))}.`,
        EXIT.usage,
        "Give the address alone; the key goes in ORGAGENT_API_KEY or --api-key.",
      );
    }
    return new OrgAgent({
      apiKey: options.apiKey,
      // The other host is passed on only when it is usable: the command does not need it, so it is not checked
      // (and "" rather than undefined, so that the SDK does not read it from ORGAGENT_APP_URL itself).
      baseUrl: appHost ? (options.baseUrl && isPlainHttpUrl(options.baseUrl) ? options.baseUrl : url) : url,
      appUrl: appHost ? url : options.appUrl && isPlainHttpUrl(options.appUrl) ? options.appUrl : "",
      timeout: this.requestTimeout * 1000,
      logLevel: this.logLevel(options.debug),
      logger: this.logger(),
      fetch: (input, init) => this.fetch(input, init),
      plugins: [FAIL_FAST],
    });
  }

  /** --debug, else ORGAGENT_LOG, else nothing: the CLI reports failures itself. */
  private logLevel(debug: boolean | undefined): LogLevel {
    if (debug) return "debug";
    const level = this.env.ORGAGENT_LOG?.toLowerCase();
    if (!level) return "off";
    if (!isLogLevel(level)) {
      throw new CliError(
        `ORGAGENT_LOG=${this.env.ORGAGENT_LOG} is not a log level.`,
        EXIT.usage,
        `Use ${LOG_LEVELS.slice(0, -1).join(", ")} or ${LOG_LEVELS.at(-1)} (or pass --debug).`,
      );
    }
    return level;
  }

  /** SDK logs go to stderr (the SDK has already replaced the key with ***), one line each, unable to drive the terminal. */
  private logger(): Logger {
    const write = (message: string) => void this.io.stderr.write(`${terminalText(message)}\n`);
    return { error: write, warn: write, info: write, debug: write };
  }

  /** How many requests this run sent to `url`. */
  attempts(url: string): number {
    return this.sent.get(url) ?? 0;
  }

  /** Every request the SDK sends goes through here: where it went, and how often (retries included). */
  private fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : input);
    this.origin = url.origin;
    this.sent.set(url.href, this.attempts(url.href) + 1);
    return fetch(input, init);
  }
}

/** A command's full name: `orgagent analytics users`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** A file's text, or standard input's for `-`. */
export function readInput(path: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    throw new CliError(
      `cannot read ${path === "-" ? "standard input" : path}: ${(error as Error).message}`,
      EXIT.usage,
      "Check the path (- reads standard input).",
    );
  }
}
