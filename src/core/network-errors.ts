// A fetch that failed without an answer, as an APIConnectionError: its message from the error and its causes, the
// system error code, and whether the request surely never left this machine (then even a write may be sent again).
import { chainMessages, causeChain, errorCode } from "./causes.js";
import { APIConnectionError, type RequestContext } from "./errors.js";
import { withoutUserinfo } from "./urls.js";

// fetch failures that happen before a single byte of the request can have left this machine.
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/** The APIConnectionError of a failed fetch (or of a body cut off in transfer), `cause` being what fetch threw. */
export function connectionError(cause: unknown, request: RequestContext | undefined): APIConnectionError {
  const message = withoutUserinfo(`Connection error: ${chainMessages(cause).join(": ") || "fetch failed"}`);
  return new APIConnectionError(message, { cause, notSent: wasNotSent(cause), code: errorCode(cause), request });
}

/** Whether the failure happened before the request could leave: a code of NOT_SENT_CODES, or one on every address tried. */
function wasNotSent(error: unknown): boolean {
  for (const link of causeChain(error)) {
    if (NOT_SENT_CODES.has(link.code as string)) return true;
    const errors = link.errors;
    if (
      Array.isArray(errors) &&
      errors.length &&
      errors.every((inner: { code?: unknown } | null) => NOT_SENT_CODES.has(inner?.code as string))
    ) {
      return true;
    }
  }
  return false;
}
