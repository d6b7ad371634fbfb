// The OrgAgent client: configuration, the credential, the two hosts, the browser guard, and the one request pipeline
// every call goes through (core/hub.ts over openapi-fetch): the generated resources (generated/resources.ts, with
// the helpers of sessions.ts, computers.ts and usage-limits.ts over them), `client.request` for any operation by its
// operationId, and `client.raw`. Middleware added with `client.use()` (or `client.raw.use()`) sees every attempt of
// every call.
import createClient, { createQuerySerializer, type Client, type Middleware } from "openapi-fetch";
import type { paths } from "../generated/openapi.js";
import { resources as generatedResources } from "../generated/resources.js";
import type { HostName, OperationId } from "../generated/spec-tables.js";
import { Computers } from "./computers.js";
import { ApiKey, type ApiKeySource } from "./core/credentials.js";
import { OrgAgentError, ValidationError } from "./core/errors.js";
import type { CoreClient } from "./core/exchange.js";
import { RequestHub, type CallParams } from "./core/hub.js";
import { checkKnownKeys } from "./core/keys.js";
import { LOG_LEVELS, Log, isLogLevel, type LogLevel, type Logger } from "./core/log.js";
import type { OperationArgs, OperationResult } from "./core/operation-types.js";
import { DEFAULTS, checkBackoff, checkHeaders, checkNumber } from "./core/options.js";
import { rawClient } from "./core/raw.js";
import { RateControllers } from "./core/rate-registry.js";
import type { RequestPlugin } from "./core/retry.js";
import { credentialValues } from "./core/scrub.js";
import { isPlainHttpUrl, withoutUserinfo } from "./core/urls.js";
import { Sessions } from "./sessions.js";
import { UsageLimits } from "./usage-limits.js";

export type { ApiKeySource } from "./core/credentials.js";

export interface ClientOptions {
  /** API key or JWT; a function is called before every attempt (for rotating tokens). Default: env ORGAGENT_API_KEY. */
  apiKey?: ApiKeySource | undefined;
  /** API host, e.g. `https://api.example.com`. Default: env ORGAGENT_BASE_URL. */
  baseUrl?: string | undefined;
  /** App host, which serves readiness reports. Default: env ORGAGENT_APP_URL. Needed only for readiness calls. */
  appUrl?: string | undefined;
  /**
   * A fetch implementation, called with the standard `(input, init)` arguments: a URL and an init, or (when
   * middleware is registered, and for `client.raw`) the Request openapi-fetch built and an init. On Node, Bun and
   * Deno it is asked for `redirect: "manual"`: the SDK follows redirects itself. Default `globalThis.fetch`.
   */
  fetch?: typeof fetch | undefined;
  /** Headers sent with every request (not `Authorization`: the client sets it from `apiKey`). */
  headers?: Record<string, string> | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /** Milliseconds one attempt may take. Default 60,000. */
  timeout?: number | undefined;
  /**
   * Milliseconds a whole call may take across attempts. Default: none. Each page of a list, and each request of a
   * bulk job, is a call of its own.
   */
  deadline?: number | undefined;
  /** Longest `Retry-After` honoured, in ms; a longer one gives up at once with RateLimitError. Default 60,000. */
  maxRetryAfter?: number | undefined;
  /**
   * Pace requests by what the service says of its rate limit (`Retry-After`, `X-RateLimit-*`, `RateLimit`, 429 and
   * 503), with one controller per API key and host shared by every client of the process, and wait out throttles
   * without using up `maxRetries`. `false` sends every request at once, and retries a 429 or 503 as any other
   * retryable failure, within `maxRetries`. Default true. See docs/sdk.md.
   */
  rateLimiting?: boolean | undefined;
  /** Exponential backoff between retries, in ms. Default `{ initial: 500, max: 8000 }`. */
  backoff?: { initial?: number; max?: number } | undefined;
  /** Largest success body accepted, in bytes; a larger one is a ResponseTooLargeError. Default 256 MiB. */
  maxResponseSize?: number | undefined;
  /**
   * Allow the client in a browser-like environment (a page or a web worker), where anyone who can open the page
   * can read the API key. Refused by default; see docs/reliability.md. Default false.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /** Default env ORGAGENT_LOG, else `warn` (which prints nothing a caller handles). */
  logLevel?: LogLevel | undefined;
  /** Default `console`. */
  logger?: Logger | undefined;
  /**
   * Plugins of the request pipeline, told of every attempt of every call, which may wait before one (pacing) and
   * decide a failure's retry before the default policy does. See docs/sdk.md.
   */
  plugins?: readonly RequestPlugin[] | undefined;
}

const CLIENT_OPTION_KEYS: ReadonlySet<string> = new Set([
  "apiKey",
  "baseUrl",
  "appUrl",
  "fetch",
  "headers",
  "maxRetries",
  "timeout",
  "deadline",
  "maxRetryAfter",
  "rateLimiting",
  "backoff",
  "maxResponseSize",
  "dangerouslyAllowBrowser",
  "logLevel",
  "logger",
  "plugins",
]);

const ENV = {
  apiKey: "ORGAGENT_API_KEY",
  baseUrl: "ORGAGENT_BASE_URL",
  appUrl: "ORGAGENT_APP_URL",
  logLevel: "ORGAGENT_LOG",
} as const;

/** The resource classes: the generated ones, and the hand-written subclasses that add helpers over them. */
const RESOURCES = { ...generatedResources, sessions: Sessions, computers: Computers, usageLimits: UsageLimits };
type Resources = { readonly [Name in keyof typeof RESOURCES]: InstanceType<(typeof RESOURCES)[Name]> };

// The resources (`client.analytics`, `client.sessions`…) are properties of every client, one per resource of the
// spec's `x-sdk`: declared here from the table above, set in the constructor.
export interface OrgAgent extends Resources {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor sets every resource the interface declares
export class OrgAgent {
  /**
   * The openapi-fetch client typed by the spec's paths; each path goes to the host that serves it, through the same
   * pipeline as the resource methods (the key, middleware, redirects, timeouts), without retries.
   */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  readonly appUrl: string | undefined;

  // Private fields: util.inspect, JSON.stringify and enumeration never see the credential.
  readonly #hub: RequestHub;
  readonly #middleware: Middleware[] = [];

  constructor(options: ClientOptions = {}) {
    if (inBrowser() && !options.dangerouslyAllowBrowser) {
      throw new OrgAgentError(
        "orgagent does not run in a browser by default: its API key administers the organization, and any key in a " +
          "web page can be read by anyone who opens the page. Call the API from a server. If the key is the page " +
          "user's own and the page is theirs alone, pass `dangerouslyAllowBrowser: true`.",
      );
    }
    checkKnownKeys(options, CLIENT_OPTION_KEYS, "options");
    const apiKey = options.apiKey ?? env(ENV.apiKey);
    if (apiKey === undefined || apiKey === "") {
      throw new OrgAgentError(
        `Missing API key: pass \`apiKey\` to new OrgAgent({ apiKey }) or set the ${ENV.apiKey} environment variable.`,
      );
    }
    const key = new ApiKey(apiKey);
    for (const name of ["maxRetries", "timeout", "deadline", "maxRetryAfter", "maxResponseSize"] as const) {
      checkNumber(name, options[name]);
    }
    if (options.rateLimiting !== undefined && typeof options.rateLimiting !== "boolean") {
      throw new ValidationError("rateLimiting", options.rateLimiting, "true or false", undefined, { rule: "option" });
    }
    checkBackoff("backoff.initial", options.backoff?.initial);
    checkBackoff("backoff.max", options.backoff?.max);
    if (options.headers !== undefined) checkHeaders(options.headers, "headers");
    const baseUrl = options.baseUrl ?? env(ENV.baseUrl);
    if (!baseUrl) {
      throw new OrgAgentError(
        `Missing base URL: pass \`baseUrl\` to new OrgAgent({ baseUrl }) or set the ${ENV.baseUrl} environment variable.`,
      );
    }
    this.baseUrl = checkUrl(baseUrl, "baseUrl");
    const appUrl = options.appUrl ?? env(ENV.appUrl);
    this.appUrl = appUrl ? checkUrl(appUrl, "appUrl") : undefined;

    const logLevel = options.logLevel ?? env(ENV.logLevel)?.toLowerCase() ?? "warn";
    if (!isLogLevel(logLevel)) {
      throw new OrgAgentError(
        `Invalid logLevel ${JSON.stringify(logLevel)}: use ${LOG_LEVELS.slice(0, -1).join(", ")} or ${LOG_LEVELS.at(-1)}.`,
      );
    }
    const secrets = credentialValues(options.headers);
    const log = new Log(logLevel, options.logger ?? console, () => (key.current ? [key.current, ...secrets] : secrets));

    const headers = Object.freeze({ Accept: "application/json", ...options.headers });
    // openapi-fetch's own query serializer with its defaults (form, explode).
    const querySerializer = createQuerySerializer();
    // One openapi-fetch client for every call; the client's headers go with each (core/hub.ts, core/raw.ts).
    const core = createClient<paths>({
      baseUrl: this.baseUrl,
      querySerializer,
      pathSerializer: serializePath,
    }) as unknown as CoreClient;
    const policy = {
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      timeout: options.timeout ?? DEFAULTS.timeout,
      deadline: options.deadline,
      maxRetryAfter: options.maxRetryAfter ?? DEFAULTS.maxRetryAfter,
      backoff: {
        initial: options.backoff?.initial ?? DEFAULTS.backoff.initial,
        max: options.backoff?.max ?? DEFAULTS.backoff.max,
      },
      maxResponseSize: options.maxResponseSize ?? DEFAULTS.maxResponseSize,
    };
    const rate = options.rateLimiting === false ? undefined : new RateControllers(policy.maxRetryAfter);
    const transport = { fetch: () => options.fetch ?? globalThis.fetch, key, log, rate };
    const hostUrl = (host: HostName) => this.#hostUrl(host);
    this.#hub = new RequestHub({
      core,
      transport,
      middleware: this.#middleware,
      policy,
      log,
      plugins: [
        // Stryker disable next-line ArrayDeclaration: a made-up plugin (a string) has no hooks, so every plugin loop passes over it
        ...(options.plugins ?? []),
      ],
      hostUrl,
      pathSerializer: serializePath,
      querySerializer,
      headers,
      secrets,
    });
    this.raw = rawClient({
      core,
      transport,
      middleware: this.#middleware,
      hostUrl,
      use: (...middleware) => this.use(...middleware),
      eject: (...middleware) => this.eject(...middleware),
      timeout: policy.timeout,
      maxResponseSize: policy.maxResponseSize,
      headers,
      secrets,
    });
    const resources: Record<string, unknown> = {};
    for (const name of Object.keys(RESOURCES) as Array<keyof typeof RESOURCES>) resources[name] = new RESOURCES[name](this.#hub);
    Object.assign(this, resources);
  }

  /**
   * Calls any operation of the spec by its operationId, as the resource methods do: the parameters (`path`,
   * `query`, `body`) checked against the spec before anything is sent, retries, typed errors. Resolves to the
   * parsed answer (`.withResponse()` adds the response); a list (`x-pagination`) gives a PagePromise: `await` for
   * the first page, `for await` for every item, `.pages()`.
   *
   *     const computer = await client.request("getComputer", { path: { computerId: "cmp_1" } });
   */
  request<O extends OperationId>(operationId: O, ...args: OperationArgs<O>): OperationResult<O> {
    return this.#hub.request(operationId, args[0] as CallParams | undefined, args[1]);
  }

  /**
   * Adds middleware (openapi-fetch's `onRequest`, `onResponse`, `onError`) that sees every attempt of every call:
   * resource methods, `client.request` and `client.raw` alike. It sees each request before the key is added.
   */
  use(...middleware: Middleware[]): void {
    for (const item of middleware) {
      if (typeof item !== "object" || item === null || !("onRequest" in item || "onResponse" in item || "onError" in item)) {
        throw new ValidationError("middleware", item, "an object with onRequest, onResponse or onError");
      }
    }
    this.#middleware.push(...middleware);
  }

  /** Removes middleware added with `use()`. */
  eject(...middleware: Middleware[]): void {
    for (const item of middleware) {
      const at = this.#middleware.indexOf(item);
      if (at !== -1) this.#middleware.splice(at, 1);
    }
  }

  #hostUrl(host: HostName): string {
    if (host === "app_url") {
      if (!this.appUrl) {
        throw new OrgAgentError(
          `Missing app URL: readiness reports are served by the app host; pass \`appUrl\` to new OrgAgent({ appUrl }) or set the ${ENV.appUrl} environment variable.`,
        );
      }
      return this.appUrl;
    }
    return this.baseUrl;
  }

  /** Shown by console.log and util.inspect: no credential, ever. */
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return `OrgAgent { baseUrl: ${JSON.stringify(this.baseUrl)}, appUrl: ${JSON.stringify(this.appUrl)}, apiKey: *** }`;
  }

  toJSON() {
    return { baseUrl: this.baseUrl, appUrl: this.appUrl };
  }
}

// Path parameters are always percent-encoded, so `getByName("a/b?x=1")` stays one segment with no query. A
// value of `.` or `..` cannot be one segment at all (URL parsing resolves it, even as `%2E%2E`), so it is refused.
// openapi-fetch calls it only for a call with path parameters, so `params` is always there.
function serializePath(pathname: string, params: Record<string, unknown>): string {
  return pathname.replace(/\{([^{}]+)\}/g, (match, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) return match;
    const text = String(value);
    if (text === "." || text === "..") {
      throw new ValidationError(`path.${name}`, text, "a path segment other than . and ..", undefined, { rule: "format" });
    }
    try {
      return encodeURIComponent(text);
    } catch {
      throw new ValidationError(`path.${name}`, text, "a well-formed Unicode string (no lone surrogates)", undefined, { rule: "format" });
    }
  });
}

/** A page or a web worker: where any script that can read the page can read the key. */
function inBrowser(): boolean {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  return scope.document !== undefined || scope.WorkerGlobalScope !== undefined;
}

/** An http(s) URL without user name or password (fetch refuses those, quoting them in its error). */
function checkUrl(value: string, option: string): string {
  if (!isPlainHttpUrl(value)) {
    throw new OrgAgentError(
      `Invalid ${option} ${JSON.stringify(withoutUserinfo(value))}: expected an http(s) URL without user name or password (the key goes in \`apiKey\`).`,
    );
  }
  return value.replace(/\/+$/, "");
}

function env(name: string): string | undefined {
  try {
    const value = (globalThis as { process: { env: Record<string, string | undefined> } }).process.env[name];
    return value === "" ? undefined : value;
  } catch /* Stryker disable next-line BlockStatement: an empty catch block returns undefined too, falling off the end */ {
    return undefined; // no `process` (a browser), or no access to it (Deno without --allow-env)
  }
}
