// The types of an operation, by operationId, read off the generated types (generated/openapi.ts) and the runtime
// tables (generated/spec-tables.ts): its parameters, body and answer, and what `client.request` takes and returns.
import type { operations as Operations } from "../../generated/openapi.js";
import type { OperationId, operations } from "../../generated/spec-tables.js";
import type { RequestOptions } from "./options.js";
import type { PageOptions, PagePromise } from "./pagination.js";
import type { APIPromise } from "./response.js";
import type { WindowOptions } from "./windows.js";

type JsonContent<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type Nothing = never | undefined;

/** The parsed body of an operation's success response. */
export type ResponseBody<O extends OperationId> = {
  [S in keyof Operations[O]["responses"]]: S extends 200 | 201 | 202 ? JsonContent<Operations[O]["responses"][S]> : never;
}[keyof Operations[O]["responses"]];
/** An operation's query parameters. */
export type QueryParams<O extends OperationId> = Operations[O]["parameters"] extends { query?: infer Q } ? Q : never;
/** An operation's path parameters. */
export type PathParams<O extends OperationId> = Operations[O]["parameters"] extends { path?: infer P } ? P : never;
/** An operation's JSON request body. */
export type RequestBody<O extends OperationId> = Operations[O] extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** The operations the spec pages (`x-pagination`). */
export type PagedOperationId = {
  [O in OperationId]: (typeof operations)[O] extends { pagination: object } ? O : never;
}[OperationId];

/** The paged operations over a date range (`x-date-range` with `notBefore`), which `concurrency` cuts into windows. */
export type WindowedOperationId = {
  [O in PagedOperationId]: {
    [P in keyof (typeof operations)[O]["params"]]: (typeof operations)[O]["params"][P] extends {
      schema: { dateRange: { notBefore: string } };
    }
      ? P
      : never;
  }[keyof (typeof operations)[O]["params"]] extends never
    ? never
    : O;
}[PagedOperationId];

/** The item of a paged operation's pages (the array its `x-pagination` rule names). */
export type PageItem<O extends PagedOperationId> =
  ResponseBody<O> extends infer Page
    ? Page extends Record<(typeof operations)[O]["pagination"]["items"], ReadonlyArray<infer Item>>
      ? Item
      : never
    : never;

type PathPart<O extends OperationId> = Operations[O]["parameters"] extends { path: infer P }
  ? [P] extends [Nothing]
    ? { path?: undefined }
    : { path: P }
  : { path?: undefined };
type QueryPart<O extends OperationId> = Operations[O]["parameters"] extends { query: infer Q }
  ? { query: Q }
  : Operations[O]["parameters"] extends { query?: infer Q }
    ? [Q] extends [Nothing]
      ? { query?: undefined }
      : { query?: Q | undefined }
    : { query?: undefined };
type BodyPart<O extends OperationId> = Operations[O] extends { requestBody: infer B }
  ? { body: JsonContent<B> }
  : Operations[O] extends { requestBody?: infer B }
    ? [B] extends [Nothing]
      ? { body?: undefined }
      : { body?: JsonContent<NonNullable<B>> | undefined }
    : { body?: undefined };

/** What `client.request` takes for an operation: `{ path, query, body }` as the operation has them. */
export type OperationParams<O extends OperationId> = PathPart<O> & QueryPart<O> & BodyPart<O>;

/** The options of an operation's call: request options, and for a list the paging options (and date windows). */
export type OperationOptions<O extends OperationId> = O extends PagedOperationId
  ? RequestOptions & PageOptions & (O extends WindowedOperationId ? WindowOptions : unknown)
  : RequestOptions;

/** What `client.request` returns: a list's PagePromise, or the APIPromise of the answer. */
export type OperationResult<O extends OperationId> = O extends PagedOperationId
  ? PagePromise<ResponseBody<O>, PageItem<O>>
  : APIPromise<ResponseBody<O>>;

/** The arguments after the operationId: the parameters (optional when nothing in them is required), then options. */
export type OperationArgs<O extends OperationId> =
  // biome-ignore lint/complexity/noBannedTypes: `{}` is the empty parameters object, asking whether every key is optional
  {} extends OperationParams<O>
    ? [params?: OperationParams<O>, options?: OperationOptions<O>]
    : [params: OperationParams<O>, options?: OperationOptions<O>];
