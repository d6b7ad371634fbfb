// Deterministic randomness. Every value the emulator invents comes from a stream keyed by the seed and a label
// (a user and a day, say), so any single fact can be recomputed on its own without generating the ones before it.

/** A 32-bit hash of a string (FNV-1a followed by a murmur3 finalizer for better mixing). */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A small seeded generator (mulberry32) with the helpers the emulator needs. */
export class Random {
  #state: number;

  constructor(seed: number | string) {
    this.#state = typeof seed === "number" ? seed >>> 0 : hash32(seed);
  }

  /** A generator for one labelled purpose, e.g. `Random.of(seed, "user", 12, "day", 40)`. */
  static of(...parts: Array<string | number>): Random {
    return new Random(parts.join("\u0000"));
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** An item chosen with probability proportional to its weight. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i]!;
      if (r < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** `count` distinct items, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return out;
  }

  /** Characters from an alphabet, e.g. the tail of an id. */
  chars(length: number, alphabet = "0123456789abcdef"): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  /** A version-4 UUID. */
  uuid(): string {
    const hex = this.chars(32);
    const variant = "89ab"[Math.floor(this.next() * 4)];
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

/**
 * Splits `total` into integer parts proportional to `weights` (largest remainders), so the parts always sum to
 * exactly `total`: the property every "breakdown sums to the total" rule rests on.
 */
export function split(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  if (left === 0) return parts;
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) parts[order[k]![1]]! += 1;
  return parts;
}

/** Crockford base-32, the alphabet of ULID-style ids such as `user_01JH8Q4ZK2M3N4P5Q6R7S8T9V0`. */
export const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
