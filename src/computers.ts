// `client.computers`: the generated methods (generated/resources.ts), and the wait for a computer to be active.
import type * as api from "../generated/openapi.js";
import { Computers as GeneratedComputers } from "../generated/resources.js";
import { statusLifecycles } from "../generated/spec-tables.js";
import { OrgAgentError } from "./core/errors.js";
import { pollUntilSettled, type WaitOptions } from "./core/wait.js";

export class Computers extends GeneratedComputers {
  /**
   * Polls the computer until it is active and resolves to it. Rejects with ComputerProvisioningError (carrying
   * the failed provisioning step) when it ends in `error`, and with WaitTimeoutError after `options.timeout`.
   */
  waitUntilActive(computerId: string, options?: WaitOptions<api.Computer>): Promise<api.Computer> {
    return pollUntilSettled(
      {
        poll: (request) => this.get(computerId, request),
        status: (computer) => computer.status,
        lifecycle: statusLifecycles.ComputerStatus,
        what: `computer ${computerId}`,
        failure: (computer) => new ComputerProvisioningError(computer),
      },
      options,
    );
  }
}

/** A computer waited on ended in a failed status: `step` is the provisioning step that failed, when one says so. */
export class ComputerProvisioningError extends OrgAgentError {
  override name = "ComputerProvisioningError";
  /** The failed step: the first with an `error`, if any. */
  readonly step: api.ProvisioningStep | undefined;
  constructor(readonly computer: api.Computer) {
    const step = computer.provisioningSteps?.find((s) => s.error !== undefined);
    const which = step ? `: step ${JSON.stringify(step.name ?? step.id)} failed${step.error ? `: ${step.error}` : ""}` : "";
    super(`Computer ${computer.name} (${computer.id}) is ${computer.status}${which}`);
    this.step = step;
  }
}
