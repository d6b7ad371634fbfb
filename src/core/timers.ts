// Timers, the one home for them: a wait that an abort ends early, and the clamp every delay needs.
import { APIUserAbortError } from "./errors.js";

// setTimeout fires at once for longer delays (with a warning), so `timeout: Infinity` must be clamped.
export const MAX_TIMER = 2 ** 31 - 1;

/** A wait that ends early, with APIUserAbortError, when `signal` aborts; leaves no timer or listener behind. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(APIUserAbortError.of(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(APIUserAbortError.of(signal));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.min(ms, MAX_TIMER),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
