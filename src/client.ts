// The OrgAgent client: configuration, credentials, the two hosts, and the internal `call` that every resource
// method goes through (validate → send with retries → typed result or typed error). Resources reach `call` and
// `paginate` through a ResourceClient handed to them at construction: the public client has neither method.
import createClient, { type Client } from "openapi-fetch";
import type { operations as OperationTypes, paths } from "../generated/openapi.js";
import { operations, type HostName, type OperationId } from "../generated/spec-tables.js";
import { APIKeyFunctionError, OrgAgentError, ValidationError, withoutUserinfo } from "./core/errors.js";
import { Log, isLogLevel, scrubSecret, type LogLevel, type Logger } from "./core/log.js";
import { DEFAULTS, checkBackoff, checkHeaderValue, checkHeaders, checkNumber, type RequestOptions } from "./core/options.js";
import { PagePromise, type PageOptions, type PageSource, type PaginationRule } from "./core/pagination.js";
import { followingRedirects, send, type CallParams, type JobRequestOptions, type OperationSpec, type RetryPolicy, type Transport } from "./core/request.js";
import { apiPromise, type APIPromise, type ResponseSink } from "./core/response.js";
import { validateCall, type OperationRules } from "./core/validate.js";
import { Analytics, Computers, EnterpriseControls, Readiness, Sessions, UsageLimits } from "./resources.js";

export type ApiKeySource = string | (() => string | Promise<string>);

export interface ClientOptions {
  /** API key or JWT; a function is called before every attempt (for rotating tokens). Default: env ORGAGENT_API_KEY. */
  apiKey?: ApiKeySource | undefined;
  /** API host, e.g. `https://api.example.com`. Default: env ORGAGENT_BASE_URL. */
  baseUrl?: string | undefined;
  /** App host, which serves readiness reports. Default: env ORGAGENT_APP_URL. Needed only for readiness calls. */
  appUrl?: string | undefined;
  /**
   * A fetch implementation, called with the standard `(url, init)` arguments (resource methods pass a URL string
   * and an init; `client.raw` passes a Request, as openapi-fetch does). On Node, Bun and Deno both ask it for
   * `redirect: "manual"` and follow redirects themselves. Default `globalThis.fetch`.
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
  /** Exponential backoff between retries, in ms. Default `{ initial: 500, max: 8000 }`. */
  backoff?: { initial?: number; max?: number } | undefined;
  /** Largest success body accepted, in bytes; a larger one is a ResponseTooLargeError. Default 256 MiB. */
  maxResponseSize?: number | undefined;
  /**
   * Allow the client in a browser-like environment (a page or a web worker), where anyone who can open the page
   * can read the API key. Refused by default; see docs/reliability.md. Default false.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /** Default env ORGAGENT_LOG, else `warn`. */
  logLevel?: LogLevel | undefined;
  /** Default `console`. */
  logger?: Logger | undefined;
}

type Operations = OperationTypes;
type JsonContent<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
/** The parsed body of an operation's success response. */
export type ResponseBody<O extends OperationId> = {
  [S in keyof Operations[O]["responses"]]: S extends 200 | 201 | 202 ? JsonContent<Operations[O]["responses"][S]> : never;
}[keyof Operations[O]["responses"]];
/** An operation's query parameters. */
export type QueryParams<O extends OperationId> = Operations[O]["parameters"] extends { query?: infer Q } ? Q : never;
/** An operation's JSON request body. */
export type RequestBody<O extends OperationId> = Operations[O] extends { requestBody?: infer B }
  ? JsonContent<NonNullable<B>>
  : never;

const ENV = {
  apiKey: "ORGAGENT_API_KEY",
  baseUrl: "ORGAGENT_BASE_URL",
  appUrl: "ORGAGENT_APP_URL",
  logLevel: "ORGAGENT_LOG",
} as const;

/**
 * The client as its resources see it: how a resource method calls an operation. Not part of the public client, so
 * editors offer users the resources, not these.
 */
export interface ResourceClient {
  /**
   * Calls an operation by its operationId: validates the input against the spec's bounds, sends it with the retry
   * policy, and resolves to the parsed body (`.withResponse()` adds the response).
   */
  call<O extends OperationId>(operationId: O, params: CallParams, body?: RequestBody<O>, options?: JobRequestOptions): APIPromise<ResponseBody<O>>;
  /** A paginated call: a PagePromise over the operation's `x-pagination` rule (or over `source`'s pages). */
  paginate<O extends OperationId, Item>(
    operationId: O,
    query: Record<string, unknown>,
    options?: RequestOptions & PageOptions,
    source?: PageSource<ResponseBody<O>>,
  ): PagePromise<ResponseBody<O>, Item>;
}

const resourceClients = new WeakMap<OrgAgent, ResourceClient>();

/** The ResourceClient of a client: for the SDK's own modules and tests, not exported from the package. */
export function resourceClientOf(client: OrgAgent): ResourceClient {
  return resourceClients.get(client)!;
}

function resourceClient(transport: Transport): ResourceClient {
  const call = <O extends OperationId>(operationId: O, params: CallParams, body?: unknown, options?: JobRequestOptions) => {
    const op = operations[operationId] as OperationSpec & OperationRules;
    const sink: ResponseSink = {};
    let data: Promise<unknown>;
    try {
      validateCall(op, { path: params.path, query: params.query, body });
      data = send(transport, op, params, body, options, sink);
    } catch (error) {
      data = Promise.reject(error);
    }
    return apiPromise(data as Promise<ResponseBody<O>>, sink);
  };
  return {
    call,
    paginate(operationId, query, options = {}, source) {
      const rule = (operations[operationId] as { pagination?: PaginationRule }).pagination;
      if (!rule) throw new OrgAgentError(`${operationId} is not paginated.`);
      const { maxItems, ...requestOptions } = options;
      checkNumber("options.maxItems", maxItems);
      return new PagePromise(
        rule,
        query,
        (pageQuery, more) => call(operationId, { query: pageQuery }, undefined, more ? { ...requestOptions, ...more } : requestOptions),
        { maxItems, signal: options.signal },
        source,
      );
    },
  };
}

const RAW_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"];
// Which host serves each path, read off the operations table (every path has at least one operation).
const hostOfPath: Record<string, HostName> = {};
for (const op of Object.values(operations)) hostOfPath[op.path] = op.host;

export class OrgAgent {
  readonly analytics: Analytics;
  readonly readiness: Readiness;
  readonly enterpriseControls: EnterpriseControls;
  readonly usageLimits: UsageLimits;
  readonly sessions: Sessions;
  readonly computers: Computers;
  /**
   * The openapi-fetch client typed by the spec's paths; each path goes to the host that serves it. Middleware
   * added with `raw.use()` applies to `raw` calls only: resource methods call `fetch` directly.
   */
  readonly raw: Client<paths>;
  readonly baseUrl: string;
  readonly appUrl: string | undefined;

  // Private fields: util.inspect, JSON.stringify and enumeration never see the credential.
  readonly #apiKey: ApiKeySource;
  /** The key last sent: for a rotating key, what the log scrubs. */
  #currentKey: string | undefined;
  readonly #headers: Record<string, string>;
  #sharedHeaders: Readonly<Record<string, string>> | undefined;
  #sharedHeadersKey: string | undefined;

  constructor(options: ClientOptions = {}) {
    if (inBrowser() && !options.dangerouslyAllowBrowser) {
      throw new OrgAgentError(
        "orgagent does not run in a browser by default: its API key administers the organization, and any key in a " +
          "web page can be read by anyone who opens the page. Call the API from a server. If the key is the page " +
          "user's own and the page is theirs alone, pass `dangerouslyAllowBrowser: true`.",
      );
    }
    const apiKey = options.apiKey ?? env(ENV.apiKey);
    if (apiKey === undefined || apiKey === "") {
      throw new OrgAgentError(
        `Missing API key: pass \`apiKey\` to new OrgAgent({ apiKey }) or set the ${ENV.apiKey} environment variable.`,
      );
    }
    if (typeof apiKey === "string") checkHeaderValue(apiKey, "apiKey");
    else if (typeof apiKey !== "function") throw new ValidationError("apiKey", typeof apiKey, "a string or a function", `a ${typeof apiKey}`);
    for (const name of ["maxRetries", "timeout", "deadline", "maxRetryAfter", "maxResponseSize"] as const) {
      checkNumber(name, options[name]);
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
    this.#apiKey = apiKey;
    this.#headers = { Accept: "application/json", ...options.headers };

    const logLevel = options.logLevel ?? env(ENV.logLevel)?.toLowerCase() ?? "warn";
    if (!isLogLevel(logLevel)) {
      throw new OrgAgentError(`Invalid logLevel ${JSON.stringify(logLevel)}: use off, error, warn, info or debug.`);
    }
    const log = new Log(logLevel, options.logger ?? console, () => (this.#currentKey ? [this.#currentKey] : []));

    const inner = createClient<paths>({
      baseUrl: this.baseUrl,
      // The SDK's redirect rules for raw calls too: no key, header or body goes on to another origin.
      fetch: followingRedirects(() => options.fetch ?? globalThis.fetch),
      pathSerializer: serializePath,
    });
    const policy: RetryPolicy = {
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
    const transport: Transport = {
      fetch: options.fetch,
      pathSerializer: serializePath,
      policy,
      log,
      baseUrl: (host) => this.#hostUrl(host as HostName),
      headers: (extra) => this.#requestHeaders(extra),
      scrub: (text, sent) => scrubSecret(text, sent.Authorization?.slice(BEARER.length)),
    };
    this.raw = this.#routedRawClient(inner);

    const resources = resourceClient(transport);
    resourceClients.set(this, resources);
    this.analytics = new Analytics(resources);
    this.readiness = new Readiness(resources);
    this.enterpriseControls = new EnterpriseControls(resources);
    this.usageLimits = new UsageLimits(resources);
    this.sessions = new Sessions(resources);
    this.computers = new Computers(resources);
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

  /** Synchronous for a fixed key (or a sync function): a resource call then pays no await for its headers. */
  #requestHeaders(extra?: Record<string, string>): Record<string, string> | Promise<Record<string, string>> {
    const source = this.#apiKey;
    if (typeof source !== "function") return this.#withKey(source, extra);
    let key: unknown;
    try {
      key = source();
    } catch (cause) {
      throw keyFunctionFailed(cause);
    }
    // Stryker disable next-line ConditionalExpression: a key passed through Promise.resolve gives the same headers or error, a microtask later
    return typeof (key as PromiseLike<unknown> | undefined)?.then === "function"
      ? Promise.resolve(key).then(
          (resolved) => this.#withKey(resolved, extra),
          (cause) => Promise.reject(keyFunctionFailed(cause)),
        )
      : this.#withKey(key, extra);
  }

  #withKey(key: unknown, extra?: Record<string, string>): Record<string, string> {
    if (typeof key !== "string" || !key) {
      const what = key === "" ? "an empty string" : key === null ? "null" : `a value of type ${typeof key}`;
      throw new APIKeyFunctionError(`The apiKey function returned ${what}; expected a non-empty string.`);
    }
    // Stryker disable next-line ConditionalExpression: checking the same key again passes again and records the same key
    if (key !== this.#currentKey) {
      checkHeaderValue(key, "apiKey"); // a rotated key is checked once, when it first comes
      this.#currentKey = key;
    }
    if (extra) {
      // A call's header replaces the client's of the same name in any letter case, instead of joining it.
      const merged: Record<string, string> = { ...this.#headers };
      for (const name in extra) {
        const lower = name.toLowerCase();
        for (const existing in merged) if (existing.toLowerCase() === lower) delete merged[existing];
        merged[name] = extra[name]!;
      }
      merged.Authorization = `${BEARER}${key}`;
      return merged;
    }
    // The common case (same key, no per-call headers) reuses one frozen object instead of building it per call.
    if (key !== this.#sharedHeadersKey || !this.#sharedHeaders) {
      this.#sharedHeaders = Object.freeze({ ...this.#headers, Authorization: `${BEARER}${key}` });
      this.#sharedHeadersKey = key;
    }
    return this.#sharedHeaders;
  }

  /** openapi-fetch's client with credentials added and each path sent to its own host. */
  #routedRawClient(inner: Client<paths>): Client<paths> {
    const request = async (method: string, path: string, init: any = {}) => {
      // Headers in any form fetch takes (an object, a Headers, or name-value pairs), as one object: checked as the
      // client's are, then merged by name.
      const headers = init.headers instanceof Headers || Array.isArray(init.headers) ? Object.fromEntries(init.headers) : init.headers;
      if (headers != null) checkHeaders(headers, "headers");
      return inner.request(method.toLowerCase() as "get", path as any, {
        ...init,
        headers: await this.#requestHeaders(headers),
        ...(hostOfPath[path] ? { baseUrl: this.#hostUrl(hostOfPath[path]) } : {}),
      });
    };
    const raw: Record<string, unknown> = {
      request,
      use: (...middleware: any[]) => inner.use(...middleware),
      eject: (...middleware: any[]) => inner.eject(...middleware),
    };
    for (const method of RAW_METHODS) raw[method] = (path: string, init?: any) => request(method, path, init);
    return raw as unknown as Client<paths>;
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
function serializePath(pathname: string, params: Record<string, unknown>): string {
  return pathname.replace(/\{([^{}]+)\}/g, (match, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) return match;
    const text = String(value);
    if (text === "." || text === "..") {
      throw new ValidationError(`path.${name}`, text, "a path segment other than . and ..");
    }
    try {
      return encodeURIComponent(text);
    } catch {
      throw new ValidationError(`path.${name}`, text, "a well-formed Unicode string (no lone surrogates)");
    }
  });
}

const BEARER = "Bearer ";

function keyFunctionFailed(cause: unknown): OrgAgentError {
  // Our own errors pass as they are; anything else is wrapped, its message left out of ours: it is the key
  // function's, and could quote a secret.
  if (cause instanceof OrgAgentError) return cause;
  return new APIKeyFunctionError("The apiKey function threw; the error it threw is this error's `cause`.", { cause });
}

/** A page or a web worker: where any script that can read the page can read the key. */
function inBrowser(): boolean {
  const scope = globalThis as { document?: unknown; WorkerGlobalScope?: unknown };
  return scope.document !== undefined || scope.WorkerGlobalScope !== undefined;
}

/** An http(s) URL without user name or password (fetch refuses those, quoting them in its error). */
function checkUrl(value: string, option: string): string {
  try {
    const url = new URL(value);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) throw new Error();
  } catch {
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
  } catch {
    return undefined; // no `process` (a browser), or no access to it (Deno without --allow-env)
  }
}
