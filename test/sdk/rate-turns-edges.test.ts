// Which request the rate controller of a key and host lets go first, as calls through the client meet it: a request
// sent again goes ahead of every first attempt waiting for its turn (rate-controller.ts), on a moved clock.
import { describe, expect, it, vi } from "vitest";
import { OrgAgent } from "../../src/index.js";
import { successExample } from "../support/spec.js";

describe("the turns of a held controller", () => {
  it("a throttled call's second attempt goes before another call's first attempt that waited longer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const sent: string[] = [];
      const fetch: typeof globalThis.fetch = async (input) => {
        const path = new URL(input instanceof Request ? input.url : String(input)).pathname.split("/").pop()!;
        sent.push(path);
        // The first request is refused with a wait of 1 s, which holds the key's controller that long.
        return sent.length === 1
          ? Response.json({ status: 429 }, { status: 429, headers: { "retry-after-ms": "1000" } })
          : Response.json(successExample("getComputer"));
      };
      const client = new OrgAgent({ apiKey: "turns-key-1", baseUrl: "http://127.0.0.1:9", fetch, maxRetries: 0, logLevel: "off" });
      const first = client.computers.get("cmp_throttled");
      await vi.advanceTimersByTimeAsync(0);
      expect(sent).toEqual(["cmp_throttled"]);
      const second = client.computers.get("cmp_waiting");
      await vi.advanceTimersByTimeAsync(500);
      expect(sent).toEqual(["cmp_throttled"]);
      await vi.advanceTimersByTimeAsync(5_000);
      await Promise.all([first, second]);
      expect(sent).toEqual(["cmp_throttled", "cmp_throttled", "cmp_waiting"]);
    } finally {
      vi.useRealTimers();
    }
  });
});
