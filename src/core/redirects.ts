// Redirects, followed in one place for resource methods and `client.raw` alike. On Node, Bun and Deno the SDK asks
// fetch for `redirect: "manual"` and follows them itself: within the origin with the same headers; to another origin
// with none of the caller's headers and no key, and never with a body; at most MAX_REDIRECTS, never in a loop. A
// browser follows redirects itself (fetch hides them from the page), and there the Fetch standard already drops the
// credential on a cross-origin redirect (and CORS applies).
import { RedirectError, snippet, type RequestContext } from "./errors.js";
import { MAX_REDIRECTS } from "./options.js";
import { withoutUserinfo } from "./urls.js";

// fetch returns redirects as they are (`manual`) on Node, Bun and Deno (all of which set process.versions.node).
// A browser would hand back an opaque response without the Location, so there fetch follows them itself.
export const FOLLOW_REDIRECTS = typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_HEADERS = { Accept: "application/json" };
const BODY_HEADER = /^content-(type|length|encoding|language|location)$/i;

/** One request of an attempt: the first, or a redirect's. */
export interface Hop {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | ArrayBuffer | undefined;
  /** The hop leaves the origin the call was made to. */
  readonly crossOrigin?: boolean | undefined;
}

/** Whether the SDK follows this response as a redirect (a 301, 302, 303, 307 or 308 with a Location). */
export function isRedirect(response: Response): boolean {
  return FOLLOW_REDIRECTS && REDIRECTS.has(response.status) && response.headers.has("location");
}

/**
 * The request a redirect leads to, or a RedirectError for one the SDK does not follow: a bad or non-http(s) Location,
 * one with a user name or password, a loop, more than MAX_REDIRECTS, or a write sent on to another origin. `visited`
 * lists the URLs so far, the call's own first; `where` names the call for the error.
 */
export function nextHop(response: Response, from: Hop, visited: string[], where: () => RequestContext | undefined): Hop {
  const location = response.headers.get("location")!;
  const refuse = (why: string) => new RedirectError(response.status, response.headers, undefined, `${response.status}: ${why}`, where());
  let next: URL;
  try {
    next = new URL(location, from.url);
  } catch {
    throw refuse(`redirect to an invalid Location ${JSON.stringify(snippet(withoutUserinfo(location)))}`);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") throw refuse(`redirect to a ${next.protocol} URL, not http(s)`);
  // fetch refuses a URL with credentials in it, and its error would quote them.
  if (next.username || next.password) throw refuse(`redirect to a URL with a user name or password in it (${withoutUserinfo(next.href)})`);
  if (visited.includes(next.href)) throw refuse(`redirect loop: ${[...visited, next.href].join(" → ")}`);
  if (visited.length > MAX_REDIRECTS) throw refuse(`more than ${MAX_REDIRECTS} redirects, from ${visited[0]}`);
  visited.push(next.href);
  let { method, body, headers } = from;
  // 303, and 301/302 after a POST, turn into a GET without a body (as fetch does); 307 and 308 keep both.
  if (response.status === 303 ? method !== "HEAD" : response.status <= 302 && method === "POST") {
    method = "GET";
    body = undefined;
    // As fetch does: the headers that described the body go with it.
    headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !BODY_HEADER.test(name)));
  }
  // Only the origin the call was made to gets the key and the caller's headers.
  const crossOrigin = next.origin !== new URL(visited[0]!).origin;
  if (crossOrigin) {
    if (method !== "GET" && method !== "HEAD") {
      throw refuse(
        `refused to send the ${method} on to another origin (${next.origin}): it would arrive there without its credential, and must not arrive twice`,
      );
    }
    // The other origin gets nothing of ours: no key, no caller's header.
    headers = CROSS_ORIGIN_HEADERS;
  }
  return { url: next.href, method, body, headers, crossOrigin };
}
