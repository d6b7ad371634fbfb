// URL checks, the one home for them: which addresses the SDK accepts, and how a URL is shown (never with the user
// name or password it may carry).

/** `text` with the `user:password@` of every URL in it removed: credentials never go into an error or a log. */
export function withoutUserinfo(text: string): string {
  return text.replace(/(\b[a-z][a-z\d+.-]*:\/\/)[^\s/?#@]*@/gi, "$1");
}

/** Whether `value` parses as an http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** Whether `value` is an http(s) URL with no user name or password (fetch refuses those, quoting them). */
export function isPlainHttpUrl(value: string): boolean {
  if (!isHttpUrl(value)) return false;
  const url = new URL(value);
  return !url.username && !url.password;
}
