// One call of every SDK method per operationId, derived from the spec (test/support/operation-calls.ts), so that a new
// operation is covered with no line here: with required parameters only, and with every optional one (and request
// options). A method written by hand (`x-sdk.custom`, the bulk `setUserLimits`) is called as its operation, through
// `client.request`. Shared by the Prism test (results equal the spec examples), the host-split test (which host each
// reaches) and the error test.
import { operations, type OperationId } from "../../../generated/spec-tables.js";
import type { OrgAgent } from "../../../src/index.js";
import { callByMethod, callByRequest, exampleInput } from "../../support/operation-calls.js";
import { exampleValue, specOperation } from "../../support/spec.js";

export type Call = (client: OrgAgent) => Promise<unknown>;
export interface MethodCase {
  required: Call;
  everyOptional: Call;
}

export const callOptions = { maxRetries: 0, timeout: 10_000, headers: { "X-Test-Case": "every-optional" } };
/** The spec's example computer id. */
export const computerId = exampleValue(specOperation("getComputer").parameters.find((p) => p.name === "computerId")!) as string;

/** The operation through its resource method (or, for a method written by hand, `client.request`); a list's first page. */
export async function callOperation(client: OrgAgent, operationId: OperationId, optional: boolean, options?: object): Promise<unknown> {
  const input = exampleInput(operationId, { optional });
  return await (callByMethod(client, operationId, input, options) ?? callByRequest(client, operationId, input, options));
}

export const methods = Object.fromEntries(
  (Object.keys(operations) as OperationId[]).map((id) => [
    id,
    { required: (c) => callOperation(c, id, false), everyOptional: (c) => callOperation(c, id, true, callOptions) } satisfies MethodCase,
  ]),
) as Record<OperationId, MethodCase>;
