// Keeping credentials out of what the SDK shows: the key, and the value of every header the caller set whose name
// looks like a credential, are replaced by `***` in every error field and log line, whatever a server echoes back.
import { APIError } from "./errors.js";
import { withoutUserinfo } from "./urls.js";

// Any header whose name looks like it carries a credential: Authorization, Cookie, X-Api-Key, X-Auth-Token,
// X-Session-Id, X-Amz-Signature… A harmless header redacted by mistake costs nothing; a leaked one does.
export const CREDENTIAL_HEADER = /auth|token|key|secret|cookie|session|passw|signature|credential/i;

// Shorter "keys" are test placeholders, not secrets: replacing every "k" would only garble the text.
export const MIN_SECRET_LENGTH = 8;

/** The values of the credential-like headers of `headers`, long enough to be secrets. */
export function credentialValues(headers: Readonly<Record<string, string>> | undefined): string[] {
  // Stryker disable next-line ArrayDeclaration: a value listed here is only ever replaced by *** in a text, and no text the SDK writes holds a mutant's placeholder
  const values: string[] = [];
  for (const name in headers) {
    const value = headers[name]!;
    // Stryker disable next-line ConditionalExpression: a shorter value kept here is passed over anyway: every scrub skips secrets under MIN_SECRET_LENGTH
    if (CREDENTIAL_HEADER.test(name) && value.length >= MIN_SECRET_LENGTH) values.push(value);
  }
  return values;
}

/** `text` with every occurrence of each secret replaced by `***`. */
export function scrubText(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && text.includes(secret)) text = text.split(secret).join("***");
  }
  return text;
}

/**
 * A parsed JSON value with the secrets scrubbed from every string in it, keys included; walked with a stack of its
 * own, so a body nested thousands deep cannot overflow the call stack. Values without a secret come back as they are.
 */
export function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (!secrets.some((secret) => secret.length >= MIN_SECRET_LENGTH)) return value;
  if (typeof value === "string") return scrubText(value, secrets);
  if (value === null || typeof value !== "object") return value;
  // Stryker disable next-line ObjectLiteral: `value` is always set before it is read
  const root: { value: unknown } = { value: undefined };
  const stack: Array<[source: object, put: (scrubbed: unknown) => void]> = [[value, (scrubbed) => (root.value = scrubbed)]];
  while (stack.length) {
    const [source, put] = stack.pop()!;
    const copy: object = Array.isArray(source) ? [] : {};
    put(copy);
    for (const [key, item] of Object.entries(source)) {
      // Defined, not assigned: a server's `__proto__` key stays a plain property, as JSON.parse made it.
      const name = Array.isArray(copy) ? key : scrubText(key, secrets);
      const set = (scrubbed: unknown) =>
        void Object.defineProperty(copy, name, { value: scrubbed, writable: true, enumerable: true, configurable: true });
      if (item !== null && typeof item === "object") stack.push([item, set]);
      else set(typeof item === "string" ? scrubText(item, secrets) : item);
    }
  }
  return root.value;
}

/** `headers`, or a copy with the secrets scrubbed from their values when any holds one. */
export function scrubHeaders(headers: Headers, secrets: readonly string[]): Headers {
  let dirty = false;
  headers.forEach((value) => {
    if (scrubText(value, secrets) !== value) dirty = true;
  });
  if (!dirty) return headers;
  const clean = new Headers();
  headers.forEach((value, name) => {
    clean.append(name, scrubText(value, secrets));
  });
  return clean;
}

/**
 * `error` with the secrets scrubbed from every field that can hold server text or a URL: its message and stack, and
 * for an APIError its body, headers, title, detail and request id, and the URL of any error that names one. Every
 * error leaves the SDK through this, whatever the server echoed back.
 */
export function scrubError<E extends Error>(error: E, secrets: readonly string[]): E {
  const text = (value: unknown) => (typeof value === "string" ? scrubText(withoutUserinfo(value), secrets) : value);
  const fields = new Map<string, unknown>([
    ["message", text(error.message)],
    ["stack", text(error.stack)],
  ]);
  for (const name of ["url", "title", "detail", "requestId"]) {
    const value: unknown = Reflect.get(error, name);
    // Stryker disable next-line ConditionalExpression: text() gives any other value back as it is, and a value that did not change is not set again
    if (typeof value === "string") fields.set(name, text(value));
  }
  if (error instanceof APIError) {
    fields.set("body", scrubValue(error.body, secrets));
    fields.set("headers", scrubHeaders(error.headers, secrets));
  }
  for (const [name, value] of fields) {
    const own = Object.getOwnPropertyDescriptor(error, name);
    if (value !== Reflect.get(error, name)) {
      Object.defineProperty(error, name, { value, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
    }
  }
  return error;
}
