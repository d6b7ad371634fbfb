// setUserLimits as a bulk job: every entry is checked against the spec's rule before anything is sent; only the last
// entry of each e-mail decides that person's limit, so only those are sent, in chunks of the spec's maxItems, several
// at once if asked (PUT is idempotent); and every entry is accounted for exactly once: applied (`updated`), not
// (`errors`, with its position and the reason), or decided by a later entry (`superseded`). A chunk the service
// throttles (429, 503) waits inside its own call and goes again: the job never gives up under a rate limit or an
// overload while its signal and deadline allow.
import type * as api from "../generated/openapi.js";
import { UsageLimits as GeneratedUsageLimits } from "../generated/resources.js";
import { operations } from "../generated/spec-tables.js";
import { InFlightCap } from "./core/concurrency.js";
import { APIConnectionError, APIError, APIUserAbortError, OrgAgentError, ValidationError, isRecord } from "./core/errors.js";
import type { Hub } from "./core/hub.js";
import { checkKnownKeys } from "./core/keys.js";
import type { RequestBody, ResponseBody } from "./core/operation-types.js";
import { REQUEST_OPTION_KEYS, checkNumber, type RequestOptions } from "./core/options.js";
import type { JobHooks } from "./core/send.js";
import { checkField } from "./core/validate.js";

type Entry = RequestBody<"setUserLimits">["users"][number];

/** An entry in `errors`: the API's `{ email, error }`, and the entry's position in the input. */
export interface UserLimitFailure extends api.UserLimitError {
  /** Position of the entry in the array passed to setUserLimits (-1 if the API named an e-mail it was not sent). */
  index: number;
}

/** What setUserLimits resolves to: every entry is in exactly one of the three lists, each in input order. */
export interface UserLimitsResult {
  /** The limits applied, as the API echoed them. */
  updated: api.UserLimitEntry[];
  /** The entries not applied, each with its position and why. */
  errors: UserLimitFailure[];
  /**
   * The entries not sent because a later entry for the same e-mail (compared lower-cased) decides that person's
   * limit, each with its position and `by`, the position of that later entry: its outcome is theirs.
   */
  superseded: SupersededEntry[];
  /** Requests the service throttled (429, or 503 under overload) that the job waited out and sent again. */
  throttled: number;
}

/** An entry of the input, with its position in it. */
export interface PositionedEntry extends api.UserLimitEntryInput {
  index: number;
}

/** An entry in `superseded`: not sent, since a later entry for the same e-mail decides the limit. */
export interface SupersededEntry extends PositionedEntry {
  /** Position of the last entry for the same e-mail, the one sent: this entry's outcome is that one's. */
  by: number;
}

/** The outcome of one chunk, reported as it completes. */
export interface UserLimitsProgress {
  /** Which chunk (0-based) of how many. */
  chunk: number;
  chunks: number;
  /** The chunk's entries applied, and those in `errors` (with their positions in the input). */
  updated: api.UserLimitEntry[];
  errors: UserLimitFailure[];
  /** The earlier entries that the chunk's entries decide (their outcome is that of the entry named by `by`). */
  superseded: SupersededEntry[];
  /** Entries accounted for so far, over every completed chunk (with the entries they decide), of `total`. */
  done: number;
  total: number;
  /** Throttles waited out so far, over the whole job. */
  throttled: number;
}

export interface SetUserLimitsOptions extends RequestOptions {
  /**
   * Chunks in flight at once (1-64). Default 1. Under a rate limit they go at the pace the service allows (shared with
   * every call of the same key and host), and a chunk refused with 429 or 503 is waited for and sent again.
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

/** Everything a setUserLimits call that was aborted had done: every entry is in exactly one of the five lists. */
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
        `${partial.uncertain.length} in flight (may have been applied), ${partial.notSent.length} not sent` +
        `${partial.superseded.length ? `, ${partial.superseded.length} superseded by a later entry` : ""}.`,
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
   * Sets per-user credit limits. Takes any number of entries; only the last entry of each e-mail (compared
   * lower-cased) decides that person's limit, so only that one is sent, and the earlier ones are in `superseded`
   * (each with `by`, the position of the entry that decides it). The entries sent go in chunks of the API's maximum
   * (100), `concurrency` at once (default 1), at the pace the service allows; a chunk throttled with 429 or 503 waits
   * and goes again (`throttled` counts the waits). Resolves to the merged `updated` and `errors` of all chunks, in
   * input order; each error names the entry's position (`index`), and entries of a chunk that failed come back in
   * `errors` with the reason, so every entry is accounted for. Every bad entry is reported at once
   * (InvalidEntriesError) before anything is sent. Throws the failure itself when nothing was or may have been applied
   * (a 401 on the first chunk, say), and UserLimitsAbortedError, carrying what was done, when aborted part-way or when
   * `onProgress` throws. `onProgress` hears of each chunk.
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
const bodyOf = (entry: Entry): Entry =>
  Object.fromEntries(entryFields.filter((name) => name in entry).map((name) => [name, entry[name as keyof Entry]])) as Entry;
// Statuses that concern one chunk's content: the other chunks are still worth sending.
const CHUNK_SPECIFIC_STATUS = new Set([400, 409, 413, 422]);
/** Why a chunk that was waiting for its turn is not sent: an earlier chunk's failure stopped the job. */
const STOPPED = Symbol("stopped");

type ChunkState =
  | { readonly kind: "waiting" | "sending" | "notSent" }
  | { readonly kind: "answered"; readonly answer: ChunkOutcome }
  | { readonly kind: "failed"; readonly error: OrgAgentError };

/** A chunk's share of the result. */
type ChunkOutcome = Pick<UserLimitsResult, "updated" | "errors">;

/** The entries of one request, with their positions in the input, and the earlier entries they decide. */
interface Chunk {
  readonly indexes: readonly number[];
  readonly entries: readonly Entry[];
  readonly decides: readonly SupersededEntry[];
}

/**
 * The rule of a job of limits: only the last entry of an e-mail (compared lower-cased) decides that person's limit.
 * Returns the positions of the entries that decide (in input order), and the earlier entries, each with `by`.
 */
export function lastEntryPerEmail(users: readonly api.UserLimitEntryInput[]): { deciding: number[]; superseded: SupersededEntry[] } {
  const lastOf = new Map<string, number>();
  users.forEach(({ email }, index) => {
    lastOf.set(email.toLowerCase(), index);
  });
  const deciding: number[] = [];
  const superseded: SupersededEntry[] = [];
  users.forEach(({ email, limit }, index) => {
    const by = lastOf.get(email.toLowerCase())!;
    if (by === index) deciding.push(index);
    else superseded.push({ email, limit, index, by });
  });
  return { deciding, superseded };
}

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

  const chunks = chunksOf(users, usersRule.maxItems ?? users.length);
  const superseded = chunks.flatMap((chunk) => chunk.decides).sort((a, b) => a.index - b.index);
  const states: ChunkState[] = chunks.map(() => ({ kind: "waiting" }));
  // The call's own signal ends every chunk at once (in flight, or waiting for its turn) through the cap.
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal!.reason);
  // Removed once the chunks have settled, aborted or not (an abort event comes once per signal).
  signal?.addEventListener("abort", onAbort);
  const cap = new InFlightCap(concurrency, controller.signal);
  /** The calls under way, each with its own controller: a failure that stops the job ends those not sent (yet, or again). */
  const calls = new Map<number, AbortController>();
  let stop: { error: unknown } | undefined;
  /** What onProgress threw: the job sends nothing more and is not told of again. */
  let thrown: { error: unknown } | undefined;
  let done = 0;
  let throttled = 0;

  /** Reports a chunk that completed (answered, or failed); called before its place goes to another chunk. */
  const complete = (i: number) => {
    const chunk = chunks[i]!;
    done += chunk.entries.length + chunk.decides.length;
    if (!onProgress || thrown) return;
    const { updated, errors } = outcomeOf(states[i]!, chunk, stop);
    try {
      onProgress({
        chunk: i,
        chunks: chunks.length,
        updated,
        errors,
        superseded: [...chunk.decides],
        done,
        total: users.length,
        throttled,
      });
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
    else if (error instanceof APIUserAbortError)
      return; // in flight when aborted: it stays "sending"
    else if (error instanceof OrgAgentError) {
      states[i] = { kind: "failed", error };
      // Auth, server or connection failures, or a throttle the job may not wait out, would fail the rest too.
      if (!(error instanceof APIError && CHUNK_SPECIFIC_STATUS.has(error.status))) halt(error);
      complete(i);
    } else halt(error);
  };
  const halt = (error: unknown) => {
    stop ??= { error };
    cap.dropWaiting(STOPPED);
    // A chunk waiting for its turn, or to go again after a 429, has nothing applied: it is not sent.
    for (const [i, call] of calls) if (states[i]!.kind === "waiting") call.abort(STOPPED);
  };

  const sendChunk = async (i: number) => {
    const { indexes, entries } = chunks[i]!;
    // A 429 was refused before the service acted on it: nothing of the chunk can be applied until it goes again. A
    // 503 may come after the service started on it.
    const job: JobHooks = {
      onThrottle: (status) => {
        throttled++;
        if (status !== 429) return;
        states[i] = { kind: "waiting" };
        // Refused after another chunk's failure stopped the job: not sent again.
        // Stryker disable next-line OptionalChaining: a throttle is heard during the chunk's call, which is in `calls` until it ends
        if (stop) calls.get(i)?.abort(STOPPED);
      },
      onSend: () => void (states[i] = { kind: "sending" }),
    };
    try {
      await cap.run(
        async (callSignal) => {
          if (stop) throw STOPPED;
          const call = new AbortController();
          const onEnd = () => call.abort(callSignal.reason);
          callSignal.addEventListener("abort", onEnd);
          calls.set(i, call);
          let answer: ResponseBody<"setUserLimits">;
          try {
            answer = await hub.call(
              "setUserLimits",
              { body: { users: entries.map(bodyOf) } },
              { ...requestOptions, signal: call.signal, job },
            );
          } catch (error) {
            // Stopped by another chunk's failure before it was sent (again): not sent. Only a chunk waiting to be sent
            // is stopped, so this holds too when its attempt was under way (a plugin's beforeAttempt) and went on to
            // the send with the aborted signal. (A refusal over maxRetryAfter is a failure like any other.)
            if (call.signal.reason === STOPPED) throw STOPPED;
            throw error;
            // Stryker disable next-line BlockStatement: hygiene: an ended call's controller has nobody left to hear an abort, nor does its signal
          } finally {
            calls.delete(i);
            // Stryker disable next-line StringLiteral: the cap never aborts the signal of a task that has settled, so the listener would not run
            callSignal.removeEventListener("abort", onEnd);
          }
          // An error item the SDK cannot read leaves the chunk's outcome unknown, as an answer that is not JSON does.
          // (One naming no e-mail is kept, at position -1.)
          const unreadable = answer.errors.findIndex(
            (item: unknown) => !isRecord(item) || !["string", "undefined"].includes(typeof item.email),
          );
          if (unreadable >= 0) {
            const why = `200: item ${unreadable} of \`errors\` cannot be read as an entry's error, so what was applied is unknown`;
            throw new APIError(200, new Headers(), answer, why);
          }
          states[i] = { kind: "answered", answer: { updated: answer.updated, errors: answer.errors.map(positionIn(entries, indexes)) } };
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

  try {
    await Promise.all(chunks.map((_, i) => sendChunk(i)));
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }

  const result: UserLimitsPartialResult = { updated: [], errors: [], superseded, throttled, notSent: [], uncertain: [] };
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
  return { updated: result.updated, errors: result.errors, superseded, throttled };
}

/**
 * The deciding entries in chunks of `size`, each with the earlier entries it decides. The chunks, one after another,
 * hold the deciding entries in input order, so their outcomes put together are in input order too.
 */
function chunksOf(users: readonly Entry[], size: number): Chunk[] {
  const { deciding, superseded } = lastEntryPerEmail(users);
  const chunkOf = new Map<number, number>();
  const chunks = Array.from({ length: Math.ceil(deciding.length / size) }, (_, c) => {
    const indexes = deciding.slice(c * size, (c + 1) * size);
    for (const index of indexes) chunkOf.set(index, c);
    return { indexes, entries: indexes.map((index) => users[index]!), decides: [] as SupersededEntry[] };
  });
  for (const entry of superseded) chunks[chunkOf.get(entry.by)!]!.decides.push(entry);
  return chunks;
}

/** The entries a chunk adds to `updated` and `errors`, from its state. */
function outcomeOf(state: ChunkState, chunk: Chunk, stop: { error: unknown } | undefined): ChunkOutcome {
  if (state.kind === "answered") return state.answer;
  // A chunk not sent is in `errors` only after a failure stopped the job: `stop` is then set.
  const reason =
    state.kind === "failed"
      ? chunkFailure(state.error)
      : `not sent: an earlier chunk failed (${stop!.error instanceof Error ? stop!.error.message : String(stop!.error)})`;
  return { updated: [], errors: positioned(chunk).map(({ email, index }) => ({ email, error: reason, index })) };
}

function positioned({ indexes, entries }: Chunk): PositionedEntry[] {
  return entries.map(({ email, limit }, i) => ({ email, limit, index: indexes[i]! }));
}

/**
 * Gives each of the API's per-entry errors the position of the entry it names, in any letter case: a chunk holds one
 * entry per e-mail compared lower-cased (lastEntryPerEmail), so that entry is the one with the e-mail as sent, if any.
 */
function positionIn(entries: readonly Entry[], indexes: readonly number[]): (error: api.UserLimitError) => UserLimitFailure {
  const taken = new Set<number>();
  return (error) => {
    const email = error.email?.toLowerCase();
    const at = entries.findIndex((entry, i) => !taken.has(i) && entry.email.toLowerCase() === email);
    taken.add(at);
    return { ...error, index: at < 0 ? -1 : indexes[at]! };
  };
}

/** A refusal (4xx other than 408), or a request that never left (a connection refused): nothing of the chunk was applied. */
function surelyRefused(error: OrgAgentError): boolean {
  return (
    (error instanceof APIError && error.status >= 400 && error.status < 500 && error.status !== 408) ||
    (error instanceof APIConnectionError && error.notSent)
  );
}

/**
 * Why a chunk's entries are in `errors`. After a refusal nothing was applied; after a 5xx, a timeout or a reset the
 * server may have applied the chunk, and the caller should read the limits back or send the entries again (setting a
 * limit is idempotent).
 */
function chunkFailure(error: OrgAgentError): string {
  return `${surelyRefused(error) ? "not applied" : "may have been applied"}: ${error.message}`;
}
