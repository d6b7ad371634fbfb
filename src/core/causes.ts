// Walking an error's `cause` chain, the one home for it: fetch wraps the system error that says what happened
// (`TypeError: fetch failed` → `Error: connect ECONNREFUSED`), and a connection tried on several addresses (happy
// eyeballs) fails with an AggregateError of one error per address.

/** How deep a chain is followed: real chains are two or three deep; a cycle or a hostile chain is cut off. */
const MAX_DEPTH = 5;

interface ErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

/** `error` and its causes, outermost first, at most `depth` of them. */
export function* causeChain(error: unknown, depth = MAX_DEPTH): Generator<ErrorLike, void, undefined> {
  let at: unknown = error;
  for (let level = 0; at !== null && typeof at === "object" && level < depth; level++) {
    const link = at as ErrorLike;
    yield link;
    at = link.cause;
  }
}

/**
 * The system error code that explains a failure (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_CONNECT_TIMEOUT`…): the first
 * code in the chain, or the code every error of an AggregateError in it shares.
 */
export function errorCode(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    if (typeof link.code === "string") return link.code;
    if (Array.isArray(link.errors) && link.errors.length) {
      const codes = new Set(link.errors.map((inner: ErrorLike | null | undefined) => inner?.code));
      const [only] = codes;
      if (codes.size === 1 && typeof only === "string") return only;
    }
  }
  return undefined;
}

/** Messages shown of a chain: four levels say what happened (`fetch failed: connect ECONNREFUSED …`). */
const MESSAGE_DEPTH = 4;

/** Each message of the chain with its code, `connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)`, outermost first. */
export function chainMessages(error: unknown): string[] {
  const parts: string[] = [];
  for (const link of causeChain(error, MESSAGE_DEPTH)) {
    const message = typeof link.message === "string" ? link.message : "";
    if (typeof link.code === "string") parts.push(`${message} (${link.code})`.trim());
    else if (message) parts.push(message);
  }
  return parts;
}
