// One rate controller (rate-controller.ts) per API key and host in the process: every call and job with the same key
// to the same host shares it, whichever client made them. The key is never kept: the registry holds a digest of it
// (with a salt of this process), and no controller knows its key. Idle controllers past a bound are let go of.
// Each client keeps the controller of the last key it used per host (RateControllers), so a call pays no digest.
import { AdaptiveRateController, type RateController, type RatePermit } from "./rate-controller.js";

const registry = new Map<string, AdaptiveRateController>();
/** Controllers let go of by the registry: a client that kept one asks the registry again. */
const retired = new WeakSet<RateController>();
/** Controllers kept when nothing uses them, the least recently used let go first. Busy ones are always kept. */
const IDLE_KEPT = 64;
const SALT = Math.floor(Math.random() * 2 ** 32);

/** The controller of requests with `credential` to `origin` (scheme, host and port). */
export function rateControllerFor(credential: string, origin: string): RateController {
  const id = `${digest(credential)}@${origin}`;
  let controller = registry.get(id);
  if (controller) registry.delete(id);
  else controller = new AdaptiveRateController();
  registry.set(id, controller); // most recently used last
  // The least recently used first; at the bound (the usual case) this stops at once.
  for (const [key, kept] of registry) {
    if (registry.size <= IDLE_KEPT) break;
    if (kept.idle && kept !== controller) {
      registry.delete(key);
      retired.add(kept);
    }
  }
  return controller;
}

/** How many controllers the registry holds now (for tests of its bound). */
export function rateControllerCount(): number {
  return registry.size;
}

/**
 * A client's way to its controllers: the one of the last key seen for each base URL, and the registry's otherwise
 * (a rotated key, or a controller the registry let go of). The key is held in a private field, as the client's is.
 */
export class RateControllers {
  readonly #last = new Map<string, { key: string; controller: RateController }>();

  constructor(
    /** The longest a request waits out a hold told by the service (the client's `maxRetryAfter`). */
    private readonly maxHold: number,
  ) {}

  /**
   * A request's turn to go with `key` to the host of `baseUrl`: a permit at once when nothing holds it back (no
   * promise to wait for), else the wait for it, which `signal` ends.
   */
  turn(key: string, baseUrl: string, retry: boolean, signal: AbortSignal): RatePermit | Promise<RatePermit> {
    const controller = this.for(key, baseUrl);
    return controller.tryAcquire() ?? controller.acquire({ signal, retry, maxHold: this.maxHold });
  }

  /** The controller of `key` to the host of `baseUrl` (a URL of the host, with or without a path). */
  for(key: string, baseUrl: string): RateController {
    const known = this.#last.get(baseUrl);
    if (known && known.key === key && !retired.has(known.controller)) return known.controller;
    const controller = rateControllerFor(key, new URL(baseUrl).origin);
    this.#last.set(baseUrl, { key, controller });
    return controller;
  }
}

/** A 64-bit digest of `text` (two 32-bit FNV-style lanes, salted): one-way enough that the key is not kept. */
function digest(text: string): string {
  let a = 0x811c9dc5 ^ SALT;
  // Stryker disable next-line UnaryOperator: a lane seeded with the salt or its complement is as good; the salt is random
  let b = 0x01000193 ^ ~SALT;
  for (const char of text) {
    const c = char.codePointAt(0)!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}
