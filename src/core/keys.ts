// Unknown keys in an options or parameters object: TypeScript refuses them at compile time, and this refuses them at
// run time for JavaScript callers (`baseURL`, `concurency`, `groupBy`), naming the closest known key.
import { ValidationError } from "./errors.js";

/**
 * Throws a ValidationError for the first key of `value` not in `known`, with a "did you mean" when one is close.
 * `field` names the object (`options`, `query`); each key is shown as `field.key`.
 */
export function checkKnownKeys(value: object | undefined, known: ReadonlySet<string>, field: string): void {
  for (const key in value) {
    if (known.has(key)) continue;
    const suggestion = closest(key, known);
    throw new ValidationError(
      `${field}.${key}`,
      (value as Record<string, unknown>)[key],
      suggestion ? `a known key; did you mean \`${suggestion}\`?` : `one of the known keys: ${[...known].join(", ")}`,
      `an unknown key (${JSON.stringify(key)})`,
      { rule: "unknownKey", bound: suggestion },
    );
  }
}

/** The known key that `key` most likely meant: the same letters in another case or style, else a close spelling. */
export function closest(key: string, known: Iterable<string>): string | undefined {
  // Stryker disable next-line MethodExpression: names are compared folded to one case, upper or lower alike
  const plain = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    // Stryker disable next-line ConditionalExpression: a shortcut: the same letters are at distance 0, which the loop keeps as the best and always accepts
    if (plain(candidate) === plain(key)) return candidate;
    const distance = editDistance(plain(key), plain(candidate));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  // A third of the word (at least one letter, at most three) may differ: `concurency`, `timout`, `maxRetry`.
  return bestDistance <= Math.min(3, Math.max(1, Math.floor(key.length / 3))) ? best : undefined;
}

/** Levenshtein distance: the insertions, deletions and substitutions that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
