// computers.waitUntilActive against a loopback server that answers getComputer with a computer the test sets: the
// error for a computer that ended in `error` names the computer and the step that failed (when one says so), and the
// wait that times out names the computer it waited on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Computer } from "../../generated/openapi.js";
import { ComputerProvisioningError, OrgAgent, WaitTimeoutError } from "../../src/index.js";
import { startLoopback, type Loopback } from "./support/loopback.js";

let server: Loopback;
let computer: Computer;
let client: OrgAgent;

beforeAll(async () => {
  server = await startLoopback(() => ({ body: computer }));
  client = new OrgAgent({ apiKey: "test-key", baseUrl: server.url, maxRetries: 0, logLevel: "off" });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const base = { id: "cmp_7", name: "build-box", providerType: "cloud", createdAt: 1_772_000_000_000 } as const;
const failure = async () => (await client.computers.waitUntilActive("cmp_7").catch((e: unknown) => e)) as ComputerProvisioningError;

describe("a computer that ends in error", () => {
  it("is a ComputerProvisioningError named so, with the first step that has an error", async () => {
    computer = {
      ...base,
      status: "error",
      provisioningSteps: [
        { id: "boot", name: "Boot", status: "completed" },
        { id: "install-deps", name: "Install dependencies", status: "failed", error: "apt-get exited 100" },
        { id: "warm-up", status: "failed", error: "not reached" },
      ],
    };
    const error = await failure();
    expect(error).toBeInstanceOf(ComputerProvisioningError);
    expect(error.name).toBe("ComputerProvisioningError");
    expect(error.step).toEqual(computer.provisioningSteps![1]);
    expect(error.message).toBe('Computer build-box (cmp_7) is error: step "Install dependencies" failed: apt-get exited 100');
  });

  it("a step with an empty error is named by its id when it has no name, without a reason", async () => {
    computer = { ...base, status: "error", provisioningSteps: [{ id: "install-deps", status: "failed", error: "" }] };
    const error = await failure();
    expect(error.step).toEqual({ id: "install-deps", status: "failed", error: "" });
    expect(error.message).toBe('Computer build-box (cmp_7) is error: step "install-deps" failed');
  });

  it.each([
    ["no provisioning steps", {}],
    ["no step with an error", { provisioningSteps: [{ id: "boot", status: "completed" }] }],
  ])("with %s, the error names the computer and no step", async (_, steps) => {
    computer = { ...base, status: "error", ...steps };
    const error = await failure();
    expect(error).toBeInstanceOf(ComputerProvisioningError);
    expect(error.step).toBeUndefined();
    expect(error.message).toBe("Computer build-box (cmp_7) is error");
  });
});

describe("a wait that times out", () => {
  it("names the computer it waited on", async () => {
    computer = { ...base, status: "provisioning" };
    const error = await client.computers.waitUntilActive("cmp_7", { interval: 20, timeout: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as Error).message).toMatch(/^Computer cmp_7 .*after \d+ ms\.$/);
    expect(server.requests.length).toBeGreaterThan(0);
  });
});
