// The base of every resource class (generated/resources.ts, and the hand-written subclasses in src/ that add helpers
// over the generated methods): the hub its methods call.
import type { Hub } from "./hub.js";

export class APIResource {
  /** The request hub: `request` for any operation by its operationId, `call` for one request of a bulk job. */
  protected readonly _hub: Hub;
  constructor(hub: Hub) {
    this._hub = hub;
  }
}
