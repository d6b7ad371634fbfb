// The bytes of a body as read: one chunk is handed on as it came (a body of hundreds of MiB is not copied), several are
// joined in order.
import { describe, expect, it } from "vitest";
import { concat } from "../../src/core/body.js";

describe("a body's bytes in one array", () => {
  it("a body that came in one chunk is that chunk itself, not a copy", () => {
    const chunk = new TextEncoder().encode("{}");
    expect(concat({ chunks: [chunk], size: 2, more: false })).toBe(chunk);
  });

  it("several chunks are joined in the order they came", () => {
    const [a, b] = [new TextEncoder().encode("ab"), new TextEncoder().encode("c")];
    expect(new TextDecoder().decode(concat({ chunks: [a, b], size: 3, more: false }))).toBe("abc");
  });
});
