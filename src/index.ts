export { OrgAgent } from "./client.js";
export type { ApiKeySource, ClientOptions } from "./client.js";
export type {
  OperationArgs,
  OperationOptions,
  OperationParams,
  OperationResult,
  PageItem,
  PagedOperationId,
  PathParams,
  QueryParams,
  RequestBody,
  ResponseBody,
} from "./core/operation-types.js";
export type { OperationId } from "../generated/spec-tables.js";
export type { Middleware } from "openapi-fetch";
export type { AttemptInfo, AttemptResult, RequestPlugin, RetryDecision } from "./core/retry.js";
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
export type { RequestContext, ValidationRule } from "./core/errors.js";
export type { LogLevel, Logger } from "./core/log.js";
export { PagePromise, PaginationError } from "./core/pagination.js";
export { readPage } from "./core/read-page.js";
export type { PageReading } from "./core/read-page.js";
export type { PageOptions, PagesOptions, ToArrayOptions } from "./core/pagination.js";
export type { RequestOptions } from "./core/options.js";
export type { AnalyticsPage, APIPromise, WithResponse } from "./core/response.js";
export { WaitTimeoutError } from "./core/wait.js";
export type { WaitOptions } from "./core/wait.js";
export { dateRange } from "./dates.js";
export type { DateRange, DateRangeOptions } from "./dates.js";
export { isKnownHookInput, parseHookInput } from "./hooks.js";
export type { HookInput, KnownHookInput, UnknownHookInput, UnknownHookEventName } from "./hooks.js";
export { ComputerProvisioningError } from "./computers.js";
export { InvalidEntriesError, UserLimitsAbortedError } from "./usage-limits.js";
export type {
  PositionedEntry,
  SetUserLimitsOptions,
  SupersededEntry,
  UserLimitFailure,
  UserLimitsPartialResult,
  UserLimitsProgress,
  UserLimitsResult,
} from "./usage-limits.js";
export type { WindowOptions } from "./core/windows.js";
export type { AnalyticsActivityResponse, AnalyticsTokensResponse, AnalyticsToolsResponse } from "../generated/resources.js";
export { buildAnalyticsReport } from "./report/data.js";
export type * from "./report/types.js";
export type * from "../generated/openapi.js";
