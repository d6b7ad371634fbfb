// Computers: a fixed fleet drawn from the seed. Their only change is the install-dependencies step, which a retry
// restarts and which completes after a configured time. State is computed from the clock when read, so no timer
// runs in the background and a test clock (`now`) moves it exactly.
import type { Computer, ComputerStatus, ProvisioningStep } from "../../generated/openapi.js";
import { Random } from "./random.js";

interface StepRecord {
  id: string;
  name: string;
  startedAt: number;
  /** When the step finishes (completed or failed). */
  endsAt: number;
  fails: boolean;
  error?: string;
  installSessionId?: string;
}

interface ComputerRecord {
  readonly id: string;
  readonly name: string;
  readonly providerType: string;
  readonly createdAt: number;
  readonly hostId: string;
  readonly hostname: string;
  readonly remoteUser: string;
  readonly relay: boolean;
  readonly steps: StepRecord[];
}

export const INSTALL_STEP_ID = "install-deps";
const RELAY = "wss://relay.orgagent.example.com";

export class Computers {
  readonly #byId = new Map<string, ComputerRecord>();
  readonly #random: Random;
  readonly #installMs: number;

  constructor(seed: string, startedAt: number, installMs: number, newSessionId: () => string) {
    this.#random = Random.of(seed, "computers");
    this.#installMs = installMs;
    const day = 86_400_000;
    // name, provider, how the install step stands at startup
    const fleet: Array<[string, string, "done" | "failed" | "running"]> = [
      ["build-box-eu-1", "byom", "done"],
      ["build-box-us-2", "byom", "done"],
      ["ci-runner-arm64", "hosted-sandbox", "done"],
      ["gpu-box-1", "byom", "failed"],
      ["sandbox-frontend", "hosted-sandbox", "running"],
      ["laptop-maya", "byom", "done"],
    ];
    for (const [name, providerType, install] of fleet) {
      const createdAt = startedAt - this.#random.int(3, 60) * day - this.#random.int(0, day);
      const installStart = install === "running" ? startedAt : createdAt + 120_000;
      const record: ComputerRecord = {
        id: `cmp_${this.#random.chars(16)}`,
        name,
        providerType,
        createdAt,
        hostId: this.#random.uuid(),
        hostname: `${name}.acme-robotics.internal`,
        remoteUser: name.startsWith("laptop") ? "maya" : "builder",
        relay: providerType === "byom",
        steps: [
          { id: "connect-relay", name: "Connect to relay", startedAt: createdAt, endsAt: createdAt + 90_000, fails: false },
          {
            id: INSTALL_STEP_ID,
            name: "Install dependencies",
            startedAt: installStart,
            endsAt: installStart + (install === "running" ? installMs : 300_000),
            fails: install === "failed",
            ...(install === "failed" ? { error: "apt-get install exited with code 100: unable to locate package libcudnn9-dev" } : {}),
            installSessionId: newSessionId(),
          },
        ],
      };
      this.#byId.set(record.id, record);
    }
  }

  /** Every computer's id and name (for the emulator handle and the tour). */
  list(): Array<{ id: string; name: string }> {
    return [...this.#byId.values()].map(({ id, name }) => ({ id, name }));
  }

  get(id: string, now: number): Computer | undefined {
    const record = this.#byId.get(id);
    return record && view(record, now);
  }

  byName(name: string, now: number): Computer | undefined {
    for (const record of this.#byId.values()) if (record.name === name) return view(record, now);
    return undefined;
  }

  status(id: string, now: number): ComputerStatus | undefined {
    return this.get(id, now)?.status;
  }

  /**
   * Restarts the install-dependencies step. Returns the computer, or "busy" while the step is still running
   * (a second retry would race the first), or undefined for an unknown id.
   */
  retryInstall(id: string, now: number, newSessionId: () => string): Computer | "busy" | undefined {
    const record = this.#byId.get(id);
    if (!record) return undefined;
    const step = record.steps.find((s) => s.id === INSTALL_STEP_ID)!;
    if (now < step.endsAt) return "busy";
    step.startedAt = now;
    step.endsAt = now + this.#installMs;
    step.fails = false;
    delete step.error;
    step.installSessionId = newSessionId();
    return view(record, now);
  }
}

function stepStatus(step: StepRecord, now: number): "pending" | "running" | "completed" | "failed" {
  if (now < step.startedAt) return "pending";
  if (now < step.endsAt) return "running";
  return step.fails ? "failed" : "completed";
}

function view(record: ComputerRecord, now: number): Computer {
  const steps: ProvisioningStep[] = record.steps.map((step) => {
    const status = stepStatus(step, now);
    return {
      id: step.id,
      name: step.name,
      status,
      ...(status === "failed" && step.error ? { error: step.error } : {}),
      ...(step.installSessionId ? { installSessionId: step.installSessionId } : {}),
      ...(status !== "pending" ? { startedAt: step.startedAt } : {}),
      ...(status === "completed" || status === "failed" ? { completedAt: step.endsAt } : {}),
    };
  });
  const statuses = steps.map((s) => s.status);
  const status: ComputerStatus = statuses.includes("failed")
    ? "error"
    : statuses.every((s) => s === "completed")
      ? "active"
      : "provisioning";
  return {
    id: record.id,
    name: record.name,
    providerType: record.providerType,
    createdAt: record.createdAt,
    hostId: record.hostId,
    hostname: record.hostname,
    status,
    provisioningSteps: steps,
    ...(record.relay ? { relayClientUrl: `${RELAY}/client/${record.id}`, relayAgentUrl: `${RELAY}/agent/${record.id}` } : {}),
    remoteUser: record.remoteUser,
  };
}
