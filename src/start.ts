// `npm start`: the emulator on 127.0.0.1 (API host on PORT, default 4000; app host on PORT+1), a short tour of
// the SDK against it, then it keeps serving until interrupted (Ctrl+C). A network's latency and a rate limit are
// opt-in: `npm start -- --latency 50 --jitter 10 --rate-limit 20 --rate-limit-style window`, or LATENCY_MS, JITTER_MS,
// RATE_LIMIT, RATE_LIMIT_STYLE, RATE_BURST, RATE_WINDOW, RETRY_AFTER_MS.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { operations } from "../generated/spec-tables.js";
import { OrgAgent, dateRange } from "./index.js";
import { defaultBurst, windowQuota } from "./emulator/network.js";
import { RATE_LIMIT_STYLES, replyIdOf, startEmulator, type Emulator, type EmulatorOptions, type RateLimitStyle } from "./emulator/index.js";
import { reportFileName, writeAnalyticsReport } from "./report/index.js";

/** The network options, from flags or else the environment; each a number of milliseconds or requests per second. */
function networkOptions(): Pick<EmulatorOptions, "latency" | "rateLimit"> {
  const { values } = parseArgs({
    options: {
      latency: { type: "string" },
      jitter: { type: "string" },
      "rate-limit": { type: "string" },
      "rate-limit-style": { type: "string" },
      burst: { type: "string" },
      "rate-window": { type: "string" },
      "retry-after-ms": { type: "boolean" },
    },
  });
  const text = (flag: string, variable: string) => {
    const value = values[flag as keyof typeof values] ?? process.env[variable];
    return value === undefined || value === "" ? undefined : String(value);
  };
  const number = (flag: string, variable: string) => {
    const given = text(flag, variable);
    if (given === undefined) return undefined;
    const value = Number(given);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${flag} (or ${variable}) must be a number, 0 or more; got ${given}.`);
    return value;
  };
  const ms = number("latency", "LATENCY_MS");
  const jitter = number("jitter", "JITTER_MS");
  const rate = number("rate-limit", "RATE_LIMIT");
  const burst = number("burst", "RATE_BURST");
  const windowSeconds = number("rate-window", "RATE_WINDOW");
  const style = text("rate-limit-style", "RATE_LIMIT_STYLE");
  if (style !== undefined && !RATE_LIMIT_STYLES.includes(style as RateLimitStyle)) {
    throw new Error(`--rate-limit-style (or RATE_LIMIT_STYLE) must be one of ${RATE_LIMIT_STYLES.join(", ")}; got ${style}.`);
  }
  const retryAfterMs = values["retry-after-ms"] ?? ["1", "true"].includes(process.env.RETRY_AFTER_MS ?? "");
  const rateLimit = {
    requestsPerSecond: rate!,
    ...(style !== undefined ? { style: style as RateLimitStyle } : {}),
    ...(burst !== undefined ? { burst } : {}),
    ...(windowSeconds !== undefined ? { windowSeconds } : {}),
    ...(retryAfterMs ? { retryAfterMs } : {}),
  };
  return {
    ...(ms !== undefined || jitter !== undefined ? { latency: { ms: ms ?? 0, jitter: jitter ?? 0 } } : {}),
    ...(rate ? { rateLimit } : {}),
  };
}

async function main() {
  const port = Number(process.env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65_534) throw new Error(`PORT must be a port number; got ${process.env.PORT}.`);
  const network = networkOptions();
  const emulator = await startEmulator({ port, appPort: port === 0 ? 0 : port + 1, ...network }).catch((error: unknown) => {
    throw portInUse(error, port) ?? error;
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void emulator.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  console.log(`orgagent emulator: ${emulator.org.name}, ${emulator.org.users.length} people, seed 1`);
  console.log(`  API host (baseUrl): ${emulator.baseUrl}`);
  console.log(`  app host (appUrl):  ${emulator.appUrl}`);
  console.log(`  demo key (owner):   ${emulator.keys.owner}   manager: ${emulator.keys.manager}   member: ${emulator.keys.member}`);
  if (network.latency)
    console.log(`  latency:            ${network.latency.ms} ms + up to ${network.latency.jitter} ms of jitter on every answer`);
  if (network.rateLimit) console.log(`  rate limit:         ${describeRateLimit(network.rateLimit)}`);
  console.log("");
  console.log("  Use it from a shell:");
  console.log(
    `    export ORGAGENT_BASE_URL=${emulator.baseUrl} ORGAGENT_APP_URL=${emulator.appUrl} ORGAGENT_API_KEY=${emulator.keys.owner}`,
  );
  console.log(
    `  Or from an AI assistant over MCP (docs/mcp.md): claude mcp add orgagent-emulator -e ORGAGENT_BASE_URL=${emulator.baseUrl} -e ORGAGENT_APP_URL=${emulator.appUrl} -e ORGAGENT_API_KEY=${emulator.keys.owner} -- npx tsx ${fileURLToPath(new URL("cli.ts", import.meta.url))} mcp`,
  );
  console.log("");

  await tour(emulator);
  if (!stopping) console.log("\nTour done. The emulator keeps serving; press Ctrl+C to stop.");
}

/** One line on the rate limit: its rate, how it is kept, and what its refusals say. */
function describeRateLimit(limit: NonNullable<EmulatorOptions["rateLimit"]>): string {
  const { requestsPerSecond: rate, style = "bucket", windowSeconds = 1 } = limit;
  const quota = windowQuota(rate, windowSeconds);
  const window = `${windowSeconds} s`;
  const kept: Record<RateLimitStyle, string> = {
    bucket: `a token bucket, bursts of ${limit.burst ?? defaultBurst(rate)}; then 429 with Retry-After`,
    "no-hint": `a token bucket, bursts of ${limit.burst ?? defaultBurst(rate)}; then 429 with no header`,
    overload: `a token bucket, bursts of ${limit.burst ?? defaultBurst(rate)}; then 503 with Retry-After`,
    window: `${quota} per fixed ${window} window, X-RateLimit-* on every answer; then 429 with Retry-After`,
    sliding: `${quota} in any ${window}, X-RateLimit-Limit and -Remaining on every answer; then 429 with Retry-After`,
    ietf: `${quota} per fixed ${window} window, RateLimit and RateLimit-Policy on every answer; then 429 with Retry-After`,
  };
  return `${rate} requests per second per key (${kept[style]}${limit.retryAfterMs && style !== "no-hint" ? " and retry-after-ms" : ""})`;
}

async function tour(emulator: Emulator) {
  const client = new OrgAgent({ baseUrl: emulator.baseUrl, appUrl: emulator.appUrl, apiKey: emulator.keys.owner });
  const week = dateRange.lastDays(7);

  console.log(`1. Credits by model, last week (${week.startDate} to ${week.endDate}):`);
  const byModel = await client.analytics.tokens({ ...week, group_by: "model" });
  const credits = new Map<string, number>();
  for (const row of byModel.data) credits.set(row.group_key, (credits.get(row.group_key) ?? 0) + row.billable_tokens);
  for (const [model, total] of [...credits].sort((a, b) => b[1] - a[1])) {
    console.log(`   ${model.padEnd(20)} ${total.toLocaleString("en-US").padStart(16)}`);
  }

  console.log("\n2. Top users by credits, last week (every page of /users):");
  const perUser = new Map<string, number>();
  let rows = 0;
  for await (const row of client.analytics.users({ ...week, limit: operations.listAnalyticsUsers.params.limit.schema.maximum })) {
    rows++;
    const who = row.user_email ?? row.user_id;
    perUser.set(who, (perUser.get(who) ?? 0) + row.billable_tokens);
  }
  console.log(`   (${rows} rows for ${perUser.size} people)`);
  for (const [who, total] of [...perUser].sort((a, b) => b[1] - a[1]).slice(0, 5)) {
    console.log(`   ${who.padEnd(36)} ${total.toLocaleString("en-US").padStart(14)}`);
  }

  console.log("\n3. A session:");
  const computer = await client.computers.getByName("build-box-eu-1");
  const session = await client.sessions.create({ computerId: computer.id, cwd: "/home/builder/motor-controller" });
  console.log(`   created ${session.sessionId} on ${computer.name}: ${session.status}`);
  const sent = await client.sessions.sendMessage(session.sessionId, {
    text: "test_encoder_ticks fails about one run in twenty on CI. Find out why and make it deterministic.",
  });
  console.log(`   sent ${sent.messageId}: ${sent.status}`);
  let status = sent.status;
  const done = await client.sessions.waitUntilIdle(session.sessionId, {
    interval: 100,
    maxInterval: 500,
    onPoll: (current) => {
      if (current.status !== status) console.log(`   status: ${(status = current.status)}`);
    },
  });
  // What the API tells about the work: the session's status, message count and token usage. It lists no messages,
  // so the agent's reply cannot be read through it; the emulator keeps each reply under an id of its own making.
  const { inputTokens = 0, outputTokens = 0 } = done.sessionSettings?.inclusiveTokenUsage ?? {};
  const tokens = `, ${inputTokens.toLocaleString("en-US")} tokens in, ${outputTokens.toLocaleString("en-US")} out`;
  console.log(`   ${done.status}: ${done.messageCount} messages${tokens}. That is what the API tells: it lists no messages.`);
  const reply = await client.sessions.getMessage(session.sessionId, replyIdOf(sent.messageId));
  console.log("   The reply, read through the emulator's own shortcut, replyIdOf() (the real API has none):");
  for (const block of reply.content) for (const line of (block.text ?? "").split("\n")) console.log(`     ${line}`);

  // In the OS temp dir, not the working tree; one file per range, replaced atomically on the next run.
  const month = dateRange.lastDays(30);
  console.log(`\n4. An analytics report of the last 30 days (${month.startDate} to ${month.endDate}):`);
  const written = await writeAnalyticsReport(client, month, { out: join(tmpdir(), reportFileName(month)) });
  console.log(`   ${written.path} (${Math.round(written.bytes / 1024)} kB): open it in a browser`);
}

/** A port taken by another program (another `npm start`?), said with the port and how to choose others. */
function portInUse(error: unknown, port: number): Error | undefined {
  const { code, port: taken } = (error ?? {}) as { code?: unknown; port?: unknown };
  if (code !== "EADDRINUSE") return undefined;
  const which = taken === port ? "the API host" : "the app host";
  return new Error(
    [
      `Port ${String(taken)} on 127.0.0.1, for ${which}, is in use: is another \`npm start\` running?`,
      `The emulator listens on PORT (default 4000) and PORT+1. Pick others, \`PORT=4100 npm start\`, or free ones, \`PORT=0 npm start\`.`,
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
