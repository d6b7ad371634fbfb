export { OrgAgent } from "./client.js";
export type { ApiKeySource, ClientOptions, QueryParams, RequestBody, ResponseBody } from "./client.js";
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIKeyFunctionError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  OrgAgentError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  UnprocessableEntityError,
  ValidationError,
} from "./core/errors.js";
export type { LogLevel, Logger } from "./core/log.js";
export { PagePromise, PaginationError } from "./core/pagination.js";
export type { PageOptions } from "./core/pagination.js";
export type { RequestOptions } from "./core/options.js";
export { isKnownHookInput, parseHookInput } from "./hooks.js";
export type { HookInput, KnownHookInput, UnknownHookInput, UnknownHookEventName } from "./hooks.js";
export type { AnalyticsPage } from "./resources.js";
export type * from "../generated/openapi.js";
