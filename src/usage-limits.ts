// setUserLimits as a bulk job: every entry is checked against the spec's rule before anything is sent, then the
// entries go out in chunks of the spec's maxItems, several at once if asked (PUT is idempotent), and every entry
// is accounted for exactly once: applied (`updated`) or not (`errors`, with its position and the reason).
import type * as api from "../generated/openapi.js";
import { UsageLimits as GeneratedUsageLimits } from "../generated/resources.js";
import { operations } from "../generated/spec-tables.js";
import { ConcurrencyLimiter } from "./core/concurrency.js";
import { APIConnectionError, APIError, APIUserAbortError, OrgAgentError, RateLimitError, ValidationError, isRecord } from "./core/errors.js";
import type { Hub } from "./core/hub.js";
import { checkKnownKeys } from "./core/keys.js";
import type { RequestBody, ResponseBody } from "./core/operation-types.js";
import { REQUEST_OPTION_KEYS, checkNumber, type RequestOptions } from "./core/options.js";
import { checkField } from "./core/validate.js";

type Entry = RequestBody<"setUserLimits">["users"][number];

/** An entry in `errors`: the API's `{ email, error }`, and the entry's position in the input. */
export interface UserLimitFailure extends api.UserLimitError {
  /** Position of the entry in the array passed to setUserLimits (-1 if the API named an e-mail it was not sent). */
  index: number;
}

/** What setUserLimits resolves to: every entry is in exactly one of the two lists, each in input order. */
export interface UserLimitsResult {
  /** The limits applied, as the API echoed them. */
  updated: api.UserLimitEntry[];
  /** The entries not applied, each with its position and why. */
  errors: UserLimitFailure[];
}

/** An entry of the input, with its position in it. */
export interface PositionedEntry extends api.UserLimitEntryInput {
  index: number;
}

/** The outcome of one chunk, reported as it completes. */
export interface UserLimitsProgress {
  /** Which chunk (0-based) of how many. */
  chunk: number;
  chunks: number;
  /** The chunk's entries applied, and those in `errors` (with their positions in the input). */
  updated: api.UserLimitEntry[];
  errors: UserLimitFailure[];
  /** Entries accounted for so far, over every completed chunk, of `total`. */
  done: number;
  total: number;
}

export interface SetUserLimitsOptions extends RequestOptions {
  /**
   * Chunks in flight at once (1-64). Default 1. Under 429 the number in flight is lowered and raised again (AIMD),
   * and a chunk refused with 429 is sent again. Entries for the same e-mail are applied in input order whatever it is.
   */
  concurrency?: number | undefined;
  /**
   * Milliseconds each chunk's request may take across its attempts and waits: it applies to every chunk, not to the
   * whole job. To bound the job, pass `signal: AbortSignal.timeout(ms)`.
   */
  deadline?: number | undefined;
  /**
   * Called as each chunk completes (in the order they complete), with its outcome and the running total. If it
   * throws, nothing more is sent, the chunks in flight finish, and the call rejects with UserLimitsAbortedError
   * (what was done, and what it threw as the cause).
   */
  onProgress?: ((progress: UserLimitsProgress) => void) | undefined;
}

/** Everything a setUserLimits call that was aborted had done: every entry is in exactly one of the four lists. */
export interface UserLimitsPartialResult extends UserLimitsResult {
  /** Entries never sent: send them again. */
  notSent: PositionedEntry[];
  /** Entries of chunks in flight when the call was aborted: they may have been applied (setting a limit again is harmless). */
  uncertain: PositionedEntry[];
}

/**
 * setUserLimits was stopped by its caller after it had started sending: its `signal` aborted (`cause` is the signal's
 * reason), or its `onProgress` threw (`cause` is what it threw). `partial` says what was applied and what was not.
 */
export class UserLimitsAbortedError extends APIUserAbortError {
  override name = "UserLimitsAbortedError";
  constructor(
    readonly partial: UserLimitsPartialResult,
    stoppedBy: { signal: AbortSignal } | { onProgress: unknown },
  ) {
    const byCallback = "onProgress" in stoppedBy;
    super(
      `${byCallback ? "setUserLimits stopped: onProgress threw (its error is the cause)" : APIUserAbortError.of(stoppedBy.signal).message}: ` +
        `${partial.updated.length} limits applied, ${partial.errors.length} not applied, ` +
        `${partial.uncertain.length} in flight (may have been applied), ${partial.notSent.length} not sent.`,
      { cause: byCallback ? stoppedBy.onProgress : stoppedBy.signal.reason },
    );
  }
}

/** Several entries break the spec's rule for an entry: all of them, each with its position, before anything is sent. */
export class InvalidEntriesError extends ValidationError {
  override name = "InvalidEntriesError";
  /** Each bad entry: its position and the first of its fields that breaks the rule. */
  readonly entries: ReadonlyArray<{ readonly index: number; readonly error: ValidationError }>;
  constructor(entries: ReadonlyArray<{ readonly index: number; readonly error: ValidationError }>) {
    // One bad entry reads as its own error; several as one list.
    const one = entries.length === 1 ? entries[0]!.error : undefined;
    super(
      one ? one.field : "users",
      one ? one.value : entries.map(({ index }) => index),
      one ? one.allowed : "entries that follow the API's rule for a limit entry",
    );
    this.entries = entries;
    if (one) this.message = one.message;
    else {
      const shown = entries.slice(0, MAX_SHOWN).map(({ error }) => error.message);
      if (entries.length > MAX_SHOWN) shown.push(`… and ${entries.length - MAX_SHOWN} more`);
      this.message = `users: ${entries.length} entries are not allowed, nothing was sent: ${shown.join("; ")}`;
    }
  }
}
const MAX_SHOWN = 10;

/** `client.usageLimits`: `setUserLimits` as a bulk job over the generated operation. */
export class UsageLimits extends GeneratedUsageLimits {
  /**
   * Sets per-user credit limits. Takes any number of entries and sends them in chunks of the API's maximum (100),
   * `concurrency` at once (default 1). Resolves to the merged `updated` and `errors` of all chunks, in input order;
   * each error names the entry's position (`index`), and entries of a chunk that failed come back in `errors` with
   * the reason, so every entry is accounted for. Every bad entry is reported at once (InvalidEntriesError) before
   * anything is sent. Throws the failure itself when nothing was or may have been applied (a 401 on the first chunk,
   * say), and UserLimitsAbortedError, carrying what was done, when aborted part-way or when `onProgress` throws.
   * `onProgress` hears of each chunk.
   */
  setUserLimits(users: readonly api.UserLimitEntryInput[], options?: SetUserLimitsOptions): Promise<UserLimitsResult> {
    return setUserLimits(this._hub, users, options);
  }
}

/** The keys of SetUserLimitsOptions: the request options and the job's own. */
const JOB_OPTION_KEYS: ReadonlySet<string> = new Set([...REQUEST_OPTION_KEYS, "concurrency", "onProgress"]);

const usersRule = operations.setUserLimits.body.schema.properties.users;
// An entry is sent with the spec's fields only: the `index` of an entry taken from a partial result (sent again, as
// the docs suggest) is the SDK's bookkeeping, not the API's.
const entryFields = Object.keys(usersRule.items?.properties ?? {});
const bodyOf = (entry: Entry): Entry => Object.fromEntries(entryFields.filter((name) => name in entry).map((name) => [name, entry[name as keyof Entry]])) as Entry;
// Statuses that concern one chunk's content: the other chunks are still worth sending.
const CHUNK_SPECIFIC_STATUS = new Set([400, 409, 413, 422]);
/** Why a chunk that was waiting for its turn is not sent: an earlier chunk's failure stopped the job. */
const STOPPED = Symbol("stopped");

type ChunkState =
  | { readonly kind: "waiting" | "sending" | "notSent" }
  | { readonly kind: "answered"; readonly answer: UserLimitsResult }
  | { readonly kind: "failed"; readonly error: OrgAgentError };

async function setUserLimits(hub: Hub, users: readonly Entry[], options: SetUserLimitsOptions = {}): Promise<UserLimitsResult> {
  if (!Array.isArray(users) || users.length === 0) {
    throw new ValidationError("users", users, `a non-empty array of { email, limit } entries`);
  }
  const invalid: Array<{ index: number; error: ValidationError }> = [];
  users.forEach((entry, index) => {
    try {
      checkField(usersRule.items ?? {}, entry, `users[${index}]`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      invalid.push({ index, error });
    }
  });
  if (invalid.length) throw new InvalidEntriesError(invalid);
  checkKnownKeys(options, JOB_OPTION_KEYS, "options");
  const { concurrency = 1, onProgress, signal, ...requestOptions } = options;
  checkNumber("options.concurrency", concurrency);
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw new ValidationError("options.onProgress", typeof onProgress, "a function", `a ${typeof onProgress}`);
  }
  if (signal?.aborted) throw APIUserAbortError.of(signal);

  const size = usersRule.maxItems ?? users.length;
  const chunks = Array.from({ length: Math.ceil(users.length / size) }, (_, i) => ({ start: i * size, entries: users.slice(i * size, (i + 1) * size) }));
  const earlier = sameEmailBefore(chunks.map((chunk) => chunk.entries));
  const states: ChunkState[] = chunks.map(() => ({ kind: "waiting" }));
  // The call's own signal ends every chunk at once (in flight, or waiting for its turn) through the limiter.
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal!.reason);
  // Removed once the chunks have settled, aborted or not (an abort event comes once per signal).
  signal?.addEventListener("abort", onAbort);
  const limiter = new ConcurrencyLimiter(concurrency, controller.signal);
  let stop: { error: unknown } | undefined;
  /** What onProgress threw: the job sends nothing more and is not told of again. */
  let thrown: { error: unknown } | undefined;
  let done = 0;

  /** Reports a chunk that completed (answered, or failed); called before its place goes to another chunk. */
  const complete = (i: number) => {
    done += chunks[i]!.entries.length;
    if (!onProgress || thrown) return;
    const { updated, errors } = outcomeOf(states[i]!, chunks[i]!, stop);
    try {
      onProgress({ chunk: i, chunks: chunks.length, updated, errors, done, total: users.length });
    } catch (error) {
      // The caller's own code stopped the job, as an abort would: the chunks in flight finish, and the call rejects
      // with what was done, so nothing applied is lost to it.
      thrown = { error };
      halt(error);
    }
  };
  /** Records a chunk's failure; one that is not about its content stops the job before another chunk is sent. */
  const fail = (i: number, error: unknown) => {
    const state = states[i]!;
    if (error === STOPPED || (error instanceof APIUserAbortError && state.kind === "waiting")) states[i] = { kind: "notSent" };
    else if (error instanceof APIUserAbortError) return; // in flight when aborted: it stays "sending"
    else if (error instanceof OrgAgentError) {
      states[i] = { kind: "failed", error };
      // Auth, rate-limit, server or connection failures would fail the rest too.
      if (!(error instanceof APIError && CHUNK_SPECIFIC_STATUS.has(error.status))) halt(error);
      complete(i);
    } else halt(error);
  };
  const halt = (error: unknown) => {
    stop ??= { error };
    limiter.dropWaiting(STOPPED);
  };

  const sendChunk = async (i: number, after: Promise<void> | undefined) => {
    await after;
    const { start, entries } = chunks[i]!;
    if (stop || controller.signal.aborted) return void (states[i] = { kind: "notSent" });
    try {
      await limiter.run(
        async (callOptions) => {
          if (stop) throw STOPPED;
          states[i] = { kind: "sending" };
          let answer: ResponseBody<"setUserLimits">;
          try {
            answer = await hub.call("setUserLimits", { body: { users: entries.map(bodyOf) } }, { ...requestOptions, ...callOptions });
          } catch (error) {
            // Refused without being acted on: until it is sent again, nothing of it can have been applied.
            if (error instanceof RateLimitError) states[i] = { kind: "waiting" };
            throw error;
          }
          // An error item the SDK cannot read leaves the chunk's outcome unknown, as an answer that is not JSON does.
          // (One naming no e-mail is kept, at position -1.)
          const unreadable = answer.errors.findIndex((item: unknown) => !isRecord(item) || !["string", "undefined"].includes(typeof item.email));
          if (unreadable >= 0) {
            const why = `200: item ${unreadable} of \`errors\` cannot be read as an entry's error, so what was applied is unknown`;
            throw new APIError(200, new Headers(), answer, why);
          }
          states[i] = { kind: "answered", answer: { updated: answer.updated, errors: answer.errors.map(positionIn(entries, start)) } };
          complete(i);
        },
        i,
        (error) => fail(i, error),
      );
    } catch (error) {
      // Already recorded by `fail`, unless the call never got its turn (aborted or stopped while waiting).
      if (states[i]!.kind === "waiting") fail(i, error);
    }
  };

  const settled: Array<Promise<void>> = [];
  try {
    for (let i = 0; i < chunks.length; i++) settled.push(sendChunk(i, settled[earlier[i]!]));
    await Promise.all(settled);
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }

  const result: UserLimitsPartialResult = { updated: [], errors: [], notSent: [], uncertain: [] };
  chunks.forEach((chunk, i) => {
    const state = states[i]!;
    if (state.kind === "sending") result.uncertain.push(...positioned(chunk));
    else if (state.kind === "notSent" && (!stop || thrown || controller.signal.aborted)) result.notSent.push(...positioned(chunk));
    else {
      const { updated, errors } = outcomeOf(state, chunk, stop);
      result.updated.push(...updated);
      result.errors.push(...errors);
    }
  });
  if (thrown) throw new UserLimitsAbortedError(result, { onProgress: thrown.error });
  // An error that is not the SDK's (a fault in it, or in code it calls) is thrown as it is: its chunk, left "sending",
  // is no sign of an abort.
  if (stop && !(stop.error instanceof OrgAgentError)) throw stop.error;
  if (result.uncertain.length || result.notSent.length) throw new UserLimitsAbortedError(result, { signal: controller.signal });
  // Nothing applied, nothing that may have been: the call failed as a single call would, with the same error.
  const untouched = states.every((state) => state.kind === "notSent" || (state.kind === "failed" && surelyRefused(state.error)));
  if (stop && untouched) throw stop.error;
  return { updated: result.updated, errors: result.errors };
}

/** The entries a chunk adds to `updated` and `errors`, from its state. */
function outcomeOf(state: ChunkState, chunk: { start: number; entries: readonly Entry[] }, stop: { error: unknown } | undefined): UserLimitsResult {
  if (state.kind === "answered") return state.answer;
  // A chunk not sent is in `errors` only after a failure stopped the job: `stop` is then set.
  const reason =
    state.kind === "failed"
      ? chunkFailure(state.error)
      : `not sent: an earlier chunk failed (${stop!.error instanceof Error ? stop!.error.message : String(stop!.error)})`;
  return { updated: [], errors: positioned(chunk).map(({ email, index }) => ({ email, error: reason, index })) };
}

function positioned({ start, entries }: { start: number; entries: readonly Entry[] }): PositionedEntry[] {
  return entries.map(({ email, limit }, i) => ({ email, limit, index: start + i }));
}

/** Gives each of the API's per-entry errors the position of the entry it names: the e-mail as sent, else in any case. */
function positionIn(entries: readonly Entry[], start: number): (error: api.UserLimitError) => UserLimitFailure {
  const taken = new Set<number>();
  return (error) => {
    const find = (same: (email: string) => boolean) => entries.findIndex((entry, i) => !taken.has(i) && same(entry.email));
    let at = find((email) => email === error.email);
    if (at === -1) at = find((email) => email.toLowerCase() === error.email?.toLowerCase());
    taken.add(at);
    return { ...error, index: at < 0 ? -1 : start + at };
  };
}

/**
 * For each chunk, the latest earlier chunk with an entry for one of its e-mails (in any letter case), or -1: it is
 * sent only after that one has settled, so a later entry for a person is applied after an earlier one, as in order.
 */
function sameEmailBefore(chunks: ReadonlyArray<readonly Entry[]>): number[] {
  const lastChunkOf = new Map<string, number>();
  return chunks.map((entries, i) => {
    const keys = entries.map(({ email }) => email.toLowerCase());
    const after = Math.max(-1, ...keys.map((key) => lastChunkOf.get(key) ?? -1));
    for (const key of keys) lastChunkOf.set(key, i);
    return after;
  });
}

/** A refusal (4xx other than 408), or a request that never left (a connection refused): nothing of the chunk was applied. */
function surelyRefused(error: OrgAgentError): boolean {
  return (error instanceof APIError && error.status >= 400 && error.status < 500 && error.status !== 408) || (error instanceof APIConnectionError && error.notSent);
}

/**
 * Why a chunk's entries are in `errors`. After a refusal nothing was applied; after a 5xx, a timeout or a reset the
 * server may have applied the chunk, and the caller should read the limits back or send the entries again (setting a
 * limit is idempotent).
 */
function chunkFailure(error: OrgAgentError): string {
  return `${surelyRefused(error) ? "not applied" : "may have been applied"}: ${error.message}`;
}
