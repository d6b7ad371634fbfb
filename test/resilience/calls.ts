// One SDK call per operation, every argument taken from the spec's examples, with request options passed through:
// derived from the spec (test/sdk/support/calls.ts), so that a new operation is covered with no line here.
import { operations, type OperationId } from "../../generated/spec-tables.js";
import type { OrgAgent, RequestOptions } from "../../src/index.js";
import { callOperation } from "../sdk/support/calls.js";

type Call = (client: OrgAgent, options: RequestOptions) => Promise<unknown>;

// `usageLimits.setUserLimits` (written by hand) reports a failed chunk inside its result instead of throwing: like
// every method written by hand, it is called as its operation, through `client.request`.
export const calls = Object.fromEntries(
  (Object.keys(operations) as OperationId[]).map((id) => [id, ((c, o) => callOperation(c, id, false, o)) satisfies Call]),
) as Record<OperationId, Call>;

export const operationIds = Object.keys(calls) as OperationId[];
