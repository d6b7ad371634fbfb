// The request hub: every operation of the spec is called here, by operationId, the generated resource methods and
// `client.request` alike. It checks what it is given (unknown keys, option ranges, the spec's bounds) before anything
// is sent, hands the call to the retry loop (send.ts), and returns an APIPromise of the answer, or for a list a
// PagePromise over the spec's paging rule (with date windows for a list over a date range).
import { createFinalURL } from "openapi-fetch";
import { operations, type HostName, type OperationId } from "../../generated/spec-tables.js";
import type { PaginationRule } from "./cursor.js";
import { ValidationError } from "./errors.js";
import { checkKnownKeys, closest } from "./keys.js";
import {
  PAGE_OPTION_KEYS,
  REQUEST_OPTION_KEYS,
  WINDOW_OPTION_KEYS,
  checkNumber,
  checkRequestOptions,
  mergeHeaders,
  type RequestOptions,
} from "./options.js";
import type { OperationResult, ResponseBody } from "./operation-types.js";
import { PagePromise, type PageOptions } from "./pagination.js";
import { apiPromise, type APIPromise, type ResponseSink } from "./response.js";
import type { ResponseShape } from "./shape.js";
import { credentialValues } from "./scrub.js";
import { send, type JobRequestOptions, type SendConfig } from "./send.js";
import { validateCall, type OperationRules } from "./validate.js";
import { dateRangeOf, inDateWindows, type JobCallOptions, type WindowOptions } from "./windows.js";

export type { JobRequestOptions } from "./send.js";

/** The parameters of a call: path parameters, query parameters and JSON body, as the operation has them. */
export interface CallParams {
  readonly path?: object | undefined;
  readonly query?: object | undefined;
  readonly body?: unknown;
}

/** How the generated resource methods (and the hand-written helpers over them) reach the API. */
export interface Hub {
  /**
   * Calls an operation by its operationId: checks the parameters and options, sends it with the retry policy, and
   * returns an APIPromise of the parsed answer, or for a list (`x-pagination`) a PagePromise of its pages and items.
   */
  request<O extends OperationId>(operationId: O, params?: CallParams, options?: object): OperationResult<O>;
  /** One request of a bulk job (no paging), with the job's own options (its signal, its 429 hook). */
  call<O extends OperationId>(operationId: O, params: CallParams | undefined, options?: JobRequestOptions): APIPromise<ResponseBody<O>>;
}

export interface HubConfig extends SendConfig {
  /** The base URL of a host; throws when it is not configured (the app host, for readiness). */
  hostUrl(host: HostName): string;
  /** The client's headers (`Accept`, and its `headers` option). */
  readonly headers: Readonly<Record<string, string>>;
  /** The values of the client's credential headers: scrubbed from every error and log line. */
  readonly secrets: readonly string[];
}

/** An operation of the spec tables, as the hub reads it. */
interface Operation extends OperationRules {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly host: HostName;
  readonly response?: ResponseShape;
  readonly pagination?: PaginationRule;
}

const PARAM_KEYS = new Set(["path", "query", "body"]);

export class RequestHub implements Hub {
  readonly #config: HubConfig;
  /** Each operation's parameter names by location, for the unknown-key check. */
  readonly #names = new Map<string, { path: Set<string>; query: Set<string> }>();

  constructor(config: HubConfig) {
    this.#config = config;
  }

  request<O extends OperationId>(operationId: O, params?: CallParams, options?: object): OperationResult<O> {
    const op: Operation | undefined = Object.hasOwn(operations, operationId) ? operations[operationId] : undefined;
    if (!op) {
      const suggestion = closest(String(operationId), Object.keys(operations));
      throw new ValidationError(
        "operationId",
        operationId,
        suggestion ? `an operationId of the spec; did you mean \`${suggestion}\`?` : "an operationId of the spec",
      );
    }
    const result = op.pagination ? this.#paginate(op, op.pagination, params, options) : this.#call(op, params, options, true);
    return result as OperationResult<O>;
  }

  call<O extends OperationId>(operationId: O, params: CallParams | undefined, options?: JobRequestOptions): APIPromise<ResponseBody<O>> {
    return this.#call(operations[operationId], params, options, false) as APIPromise<ResponseBody<O>>;
  }

  /** One request: checked, then sent; a bad input rejects the promise before anything is sent. */
  #call(op: Operation, params: CallParams | undefined, options: JobRequestOptions | undefined, checkKeys: boolean): APIPromise<unknown> {
    const sink: ResponseSink = {};
    let data: Promise<unknown>;
    try {
      if (checkKeys) {
        checkKnownKeys(options, REQUEST_OPTION_KEYS, "options");
        this.#checkParams(op, params);
      }
      if (options) checkRequestOptions(options, "options.");
      const given = params ?? {};
      validateCall(op, {
        path: given.path as Record<string, unknown>,
        query: given.query as Record<string, unknown>,
        body: given.body,
      });
      data = send(this.#config, this.#callOf(op, given, options), options ?? {}, sink);
    } catch (error) {
      data = Promise.reject(error);
    }
    return apiPromise(data, sink);
  }

  /** A list: its first page when awaited, every page or item when iterated; date windows with `concurrency`. */
  #paginate(op: Operation, rule: PaginationRule, params: CallParams | undefined, options: object = {}): PagePromise<unknown, unknown> {
    const windowed = dateRangeOf(op) !== undefined;
    checkKnownKeys(options, windowed ? WINDOW_OPTION_KEYS : PAGE_OPTION_KEYS, "options");
    this.#checkParams(op, params);
    const { maxItems, concurrency, ...request } = options as RequestOptions & PageOptions & WindowOptions;
    checkNumber("options.maxItems", maxItems);
    const query = (params?.query ?? {}) as Record<string, unknown>;
    const fetchPage = (pageQuery: Record<string, unknown>, job?: JobCallOptions) =>
      this.#call(op, { ...params, query: pageQuery }, job ? { ...request, ...job } : request, false);
    const windows = windowed ? inDateWindows(op, query, concurrency, request.signal, fetchPage) : undefined;
    return new PagePromise(rule, query, (pageQuery) => fetchPage(pageQuery), { maxItems, signal: request.signal }, windows);
  }

  /** Unknown keys in the parameters: `{ qeury }`, or a query parameter the operation does not have (`groupBy`). */
  #checkParams(op: Operation, params: CallParams | undefined): void {
    if (params === undefined) return;
    checkKnownKeys(params, PARAM_KEYS, "params");
    let names = this.#names.get(op.operationId);
    // Stryker disable next-line ConditionalExpression: a cache; building the sets again gives the same sets
    if (!names) {
      names = { path: new Set(), query: new Set() };
      for (const name in op.params) {
        const where = op.params[name]!.in;
        // Stryker disable next-line ConditionalExpression: the spec's operations have path and query parameters only
        if (where === "path" || where === "query") names[where].add(name);
      }
      this.#names.set(op.operationId, names);
    }
    // Nothing to check in a query or path left out (checkKnownKeys goes through no key of undefined).
    checkKnownKeys(params.query, names.query, "query");
    checkKnownKeys(params.path, names.path, "path");
  }

  #callOf(op: Operation, params: CallParams, options: RequestOptions | undefined) {
    const config = this.#config;
    const baseUrl = config.hostUrl(op.host);
    const { path, query } = params;
    const own = options?.headers;
    const headers = mergeHeaders(config.headers, own);
    const location = { path, query };
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      params: location,
      headers,
      request: {
        method: op.method,
        path: op.path,
        response: op.response,
        baseUrl,
        params: location,
        // JSON.stringify(undefined) is undefined: no body.
        body: JSON.stringify(params.body) as string | undefined,
        headers,
        maxResponseSize: options?.maxResponseSize ?? config.policy.maxResponseSize,
      },
      url: () =>
        createFinalURL(op.path, {
          baseUrl,
          params: {
            ...(path ? { path: path as Record<string, unknown> } : {}),
            ...(query ? { query: query as Record<string, unknown> } : {}),
          },
          querySerializer: config.querySerializer,
          pathSerializer: config.pathSerializer,
        }),
      secrets: own ? [...config.secrets, ...credentialValues(own)] : config.secrets,
    };
  }
}
