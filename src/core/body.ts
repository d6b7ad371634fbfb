// Reading a response body within a limit, the one home for it. Bytes are kept as they come and decoded once, at the
// end: a body over its limit is never decoded at all, so a compressed body that inflates past the limit (a gzip bomb)
// costs no more memory than the limit, and reading stops there (the caller then closes the connection).

/** The body read so far, cut off by the connection: what arrived is kept, the cause is the network's error. */
export class IncompleteBody extends Error {
  constructor(
    readonly partial: BodyBytes,
    cause: unknown,
  ) {
    // Stryker disable next-line StringLiteral: no caller sees this error: each catch of it makes an APIError or a connection error
    super("incomplete body", { cause });
  }
}

/** Bytes of a body, as they came. */
export interface BodyBytes {
  readonly chunks: readonly Uint8Array[];
  readonly size: number;
  /** More than the limit came: `chunks` hold the limit's worth and the rest was not read. */
  readonly more: boolean;
}

export const EMPTY_BODY: BodyBytes = { chunks: [], size: 0, more: false };

/**
 * Up to `limit` bytes of a body, read through `reader` (so that a timeout can cancel it). Stops as soon as more than
 * `limit` came (`more: true`); throws IncompleteBody when the stream fails part-way.
 */
export async function readBytes(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<BodyBytes> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) {
        chunks.push(value.subarray(0, value.length - (size - limit)));
        return { chunks, size: limit, more: true };
      }
      chunks.push(value);
    }
  } catch (cause) {
    // Stryker disable next-line BooleanLiteral: a partial body is only ever decoded (its chunks and size): nothing reads its `more`
    throw new IncompleteBody({ chunks, size, more: false }, cause);
  }
  return { chunks, size, more: false };
}

// Decoding whole bytes is stateless, so one decoder serves every call (building one per call shows in profiles).
const utf8 = new TextDecoder();

/** The bytes as UTF-8 text (invalid sequences as U+FFFD). */
export function decode(bytes: BodyBytes): string {
  return bytes.size ? utf8.decode(concat(bytes)) : "";
}

/** The bytes in one array. */
export function concat({ chunks, size }: BodyBytes): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
