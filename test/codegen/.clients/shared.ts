// Shared by the drivers of the generated TypeScript clients. Each driver calls every operation of the API through
// its generator's own client, built from the per-host bundles and left at the base URL it was generated with
// (the spec's server URL). The only stand-in is DNS: the spec's hosts are mapped to the emulator's two
// listeners, as a hosts file would, so a call sent to the wrong host fails (each listener serves its own paths).

/** What the test hands a driver (JSON, argv[2]). */
export interface Context {
  /** Spec server origin -> emulator origin, e.g. `https://api.orgagent.dev` -> `http://127.0.0.1:4001`. */
  hosts: Record<string, string>;
  apiKey: string;
  startDate: string;
  endDate: string;
  computerId: string;
  computerName: string;
  email: string;
}

export const context: Context = JSON.parse(process.argv[2] ?? "{}");
export const authorization = { Authorization: `Bearer ${context.apiKey}` };

/** Which spec host each request went to, by operation being run. */
const hostsUsed: Record<string, string[]> = {};
let current = "";

const realFetch = globalThis.fetch;
globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const target = context.hosts[url.origin];
  if (!target) throw new Error(`request to ${url.origin}, which is not a host of the spec`);
  (hostsUsed[current] ??= []).push(url.origin);
  const body = ["GET", "HEAD"].includes(request.method) ? undefined : await request.text();
  return realFetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
};

/** Throws unless the status is a success. */
export function expectOk(status: number, data: unknown): void {
  if (status < 200 || status > 299) throw new Error(`status ${status}: ${JSON.stringify(data).slice(0, 200)}`);
}

/** Runs every call in order and prints `{ operationId: { ok, hosts, error? } }` as JSON. */
export async function runAll(calls: Record<string, () => Promise<void>>): Promise<void> {
  const results: Record<string, { ok: boolean; hosts: string[]; error?: string }> = {};
  for (const [operationId, call] of Object.entries(calls)) {
    current = operationId;
    try {
      await call();
      results[operationId] = { ok: true, hosts: hostsUsed[operationId] ?? [] };
    } catch (error) {
      results[operationId] = { ok: false, hosts: hostsUsed[operationId] ?? [], error: String(error) };
    }
  }
  console.log(JSON.stringify(results));
}
