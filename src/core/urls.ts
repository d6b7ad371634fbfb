// URL checks, the one home for them: which addresses the SDK accepts, and how a URL is shown (never with the user
// name or password it may carry).

// A scheme, with or without "//" (a typo'd `htps:admin:pw@host` has none); at most 32 characters, so that a search
// costs a bounded amount per character of the text.
const SCHEME = /\b[a-z][a-z\d+.-]{0,31}:(?:\/\/)?/i;

/**
 * `text` with the user name and password of every URL in it shown as `***`: credentials never go into an error, a
 * log line or the CLI's output. What is hidden runs from the scheme to the LAST "@" before white space: a password
 * may itself hold "@", "/" or ":". A path with an "@" in it is cut as well: showing less of a URL is the safe side.
 * Linear in the length of the text (it may be a server's answer).
 */
export function withoutUserinfo(text: string): string {
  // Stryker disable next-line StringLiteral: every text includes "", so the shortcut is skipped, and the walk below gives a text without "@" back unchanged
  if (!text.includes("@")) return text;
  return text
    .split(
      /* Stryker disable next-line Regex: split on either runs keeps both (the group captures them): the same pieces, in the same order */ /(\s+)/,
    )
    .map((run) => {
      const at = run.lastIndexOf("@");
      const scheme = at === -1 ? null : SCHEME.exec(run.slice(0, at));
      return scheme ? `${run.slice(0, scheme.index + scheme[0].length)}***${run.slice(at)}` : run;
    })
    .join("");
}

/** Whether `value` parses as an http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch /* Stryker disable next-line BlockStatement: its callers only test it for truth, and undefined is as false */ {
    return false;
  }
}

/** Whether `value` is an http(s) URL with no user name or password (fetch refuses those, quoting them). */
export function isPlainHttpUrl(value: string): boolean {
  if (!isHttpUrl(value)) return false;
  const url = new URL(value);
  return !url.username && !url.password;
}
