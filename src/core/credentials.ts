// The API key: a string, or a function asked before every attempt (a rotating token). Kept in private fields, so
// util.inspect, JSON.stringify and enumeration never see it.
import { APIKeyFunctionError, OrgAgentError, ValidationError } from "./errors.js";
import { checkHeaderValue } from "./options.js";

export type ApiKeySource = string | (() => string | Promise<string>);

export class ApiKey {
  readonly #source: ApiKeySource;
  #current: string | undefined;

  /** Checks the source: a string fetch can send, or a function (whose keys are checked as they come). */
  constructor(source: unknown) {
    if (typeof source === "string") checkHeaderValue(source, "apiKey");
    else if (typeof source !== "function")
      throw new ValidationError("apiKey", typeof source, "a string or a function", `a ${typeof source}`);
    this.#source = source as ApiKeySource;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: only the log's last-line scrub reads a string key here, and every line that could quote it also scrubs the key the attempt sent
    if (typeof source === "string") this.#current = source;
  }

  /** The key last sent (for a rotating key, what the log scrubs). */
  get current(): string | undefined {
    return this.#current;
  }

  /** The key to send now: synchronous for a string (or a synchronous function), so a call pays no await for it. */
  get(): string | Promise<string> {
    const source = this.#source;
    if (typeof source !== "function") return source;
    let key: unknown;
    try {
      key = source();
    } catch (cause) {
      throw keyFunctionFailed(cause);
    }
    // Stryker disable next-line ConditionalExpression: a key passed through Promise.resolve gives the same key or error, a microtask later
    return typeof (key as PromiseLike<unknown> | undefined)?.then === "function"
      ? Promise.resolve(key).then(
          (resolved) => this.#accept(resolved),
          (cause: unknown) => Promise.reject(keyFunctionFailed(cause)),
        )
      : this.#accept(key);
  }

  #accept(key: unknown): string {
    if (typeof key !== "string" || !key) {
      const what = key === "" ? "an empty string" : key === null ? "null" : `a value of type ${typeof key}`;
      throw new APIKeyFunctionError(`The apiKey function returned ${what}; expected a non-empty string.`);
    }
    // Stryker disable next-line ConditionalExpression: checking the same key again passes again and records the same key
    if (key !== this.#current) {
      checkHeaderValue(key, "apiKey"); // a rotated key is checked once, when it first comes
      this.#current = key;
    }
    return key;
  }
}

function keyFunctionFailed(cause: unknown): OrgAgentError {
  // Our own errors pass as they are; anything else is wrapped, its message left out of ours: it is the key
  // function's, and could quote a secret.
  if (cause instanceof OrgAgentError) return cause;
  return new APIKeyFunctionError("The apiKey function threw; the error it threw is this error's `cause`.", { cause });
}
