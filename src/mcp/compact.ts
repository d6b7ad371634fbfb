// Answers that fit a model's context: a value as JSON text within a byte budget. When it is larger, arrays are
// shortened, their first items kept: the most deeply nested first (each day's `by_user` before the days), the
// heaviest of those first, arrays at the same place in every row alike; then long strings are cut. Every cut is
// named, so the model knows what it did not see and can ask for less.

const LONG_STRING = 512;

export interface Compacted {
  /** JSON text of the value, or of what was kept of it. */
  readonly text: string;
  /** What was left out, one line a cut: empty when nothing was. */
  readonly cuts: readonly string[];
}

/** `value` as compact JSON text of at most `budget` bytes (UTF-8). */
export function compactJson(value: unknown, budget: number): Compacted {
  const text = JSON.stringify(value) ?? "null";
  if (bytes(text) <= budget) return { text, cuts: [] };
  // Keep at most `limits.get(place)` items of the arrays at each place: halved, heaviest place first, until it fits.
  const limits = new Map<string, number>();
  let kept = value;
  for (;;) {
    const places = new Map<string, { weight: number; longest: number }>();
    if (weigh(kept, "", places) <= budget) break;
    // The deepest arrays first (a day's breakdown by user before the days), the heaviest of those first; an
    // array's own weight leaves out the arrays inside its items.
    let heaviest: { place: string; depth: number; own: number; longest: number } | undefined;
    for (const [place, { weight, longest }] of places) {
      if (longest <= 1) continue;
      let own = weight;
      for (const [inner, nested] of places) if (nearestInside(inner, place, places)) own -= nested.weight;
      const depth = place.split("[]").length;
      if (!heaviest || depth > heaviest.depth || (depth === heaviest.depth && own > heaviest.own))
        heaviest = { place, depth, own, longest };
    }
    if (!heaviest) break;
    limits.set(heaviest.place, Math.ceil(heaviest.longest / 2));
    kept = shorten(kept, "", limits, Infinity);
  }
  let shortened = JSON.stringify(kept);
  const cuts = [...limits].map(
    ([place, limit]) => `${place || "the answer"}: the first ${limit} item${limit === 1 ? "" : "s"} kept of ${countAt(value, place)}`,
  );
  if (bytes(shortened) > budget) {
    kept = shorten(value, "", limits, LONG_STRING);
    shortened = JSON.stringify(kept);
    cuts.push(`strings longer than ${LONG_STRING} characters cut`);
  }
  if (bytes(shortened) > budget) {
    // Past any cut that keeps JSON whole: the text itself, cut (no longer valid JSON).
    const slice = Buffer.from(shortened)
      .subarray(0, budget)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    return { text: slice, cuts: [...cuts, `the text cut after ${budget} bytes (it is no longer valid JSON)`] };
  }
  return { text: shortened, cuts };
}

function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/**
 * About the size in bytes of `value` as JSON; on the way, the size and longest length of the arrays at each place
 * (`data[].by_user` names the arrays of every row).
 */
function weigh(value: unknown, place: string, places: Map<string, { weight: number; longest: number }>): number {
  if (Array.isArray(value)) {
    let size = 1 + Math.max(value.length, 1);
    for (const item of value) size += weigh(item, `${place}[]`, places);
    const entry = places.get(place) ?? { weight: 0, longest: 0 };
    entry.weight += size;
    entry.longest = Math.max(entry.longest, value.length);
    places.set(place, entry);
    return size;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    let size = 1 + Math.max(entries.length, 1);
    for (const [key, child] of entries) size += key.length + 3 + weigh(child, place ? `${place}.${key}` : key, places);
    return size;
  }
  // Close enough for choosing what to cut (escapes and non-ASCII keys aside); the result is measured exactly.
  return typeof value === "string" ? value.length + 2 : String(value).length;
}

/** Whether the arrays at `inner` lie inside the items of those at `outer`, with no array place between. */
function nearestInside(inner: string, outer: string, places: Map<string, unknown>): boolean {
  if (!inner.startsWith(`${outer}[]`) || inner === outer) return false;
  for (const between of places.keys()) {
    if (between !== inner && between !== outer && between.startsWith(`${outer}[]`) && inner.startsWith(`${between}[]`)) return false;
  }
  return true;
}

/** A copy of `value` with the arrays at each place in `limits` shortened and strings cut at `maxString`. */
function shorten(value: unknown, place: string, limits: Map<string, number>, maxString: number): unknown {
  if (typeof value === "string") return value.length > maxString ? `${value.slice(0, maxString)}…` : value;
  if (Array.isArray(value)) {
    const kept = value.slice(0, limits.get(place) ?? value.length);
    return kept.map((item) => shorten(item, `${place}[]`, limits, maxString));
  }
  if (value !== null && typeof value === "object") {
    // A null prototype: a key such as `__proto__` from the server stays data.
    const copy: Record<string, unknown> = Object.create(null);
    for (const [key, child] of Object.entries(value)) copy[key] = shorten(child, place ? `${place}.${key}` : key, limits, maxString);
    return copy;
  }
  return value;
}

/** How many items the arrays at `place` hold: `250` for one array, `up to 250` for several of different lengths. */
function countAt(value: unknown, place: string): string {
  const lengths: number[] = [];
  const visit = (node: unknown, at: string) => {
    if (Array.isArray(node)) {
      if (at === place) lengths.push(node.length);
      for (const item of node) visit(item, `${at}[]`);
    } else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) visit(child, at ? `${at}.${key}` : key);
    }
  };
  visit(value, "");
  const most = Math.max(...lengths);
  return lengths.length > 1 && lengths.some((length) => length !== most) ? `up to ${most}` : String(most);
}
