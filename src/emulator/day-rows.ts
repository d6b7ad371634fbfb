// The analytics answers as JSON, assembled from each day's rows, which are computed and encoded once and kept: a past
// day's rows depend only on the seed and the organization, so the 300 days of an ungrouped /tokens answer (12 MB for
// 250 people) are neither recomputed nor re-encoded on every request, only written out. Days not yet known are
// computed a few at a time, letting other requests run in between, so one long range never holds the event loop for
// more than a moment.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { DayRange } from "./analytics.js";

/** How many bytes of rows are kept: a year of every view of 250 people is about 20 MB. */
const KEPT_BYTES = 64 * 1024 * 1024;
const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");
/** The longest stretch of computing before other requests get their turn. */
const SLICE_MS = 10;

/** Builds the rows of a range of days (only ever one day here). */
export type RowsOf = (range: DayRange) => readonly object[];

export class DayRows {
  /** Each view's rows of one day, as UTF-8 JSON without brackets (empty for none), oldest insertion first. */
  readonly #days = new Map<string, Buffer>();
  #bytes = 0;

  /** The JSON array `[rows…]` of every day of `range` for the view named `view`, in day order, in pieces. */
  async json(view: string, range: DayRange, rowsOf: RowsOf): Promise<Buffer[]> {
    const pieces: Buffer[] = [OPEN];
    let sliceStart = performance.now();
    for (let day = range.from; day <= range.to; day++) {
      const key = `${view}:${day}`;
      let rows = this.#days.get(key);
      if (rows === undefined) {
        if (performance.now() - sliceStart > SLICE_MS) {
          await nextTurn();
          sliceStart = performance.now();
          rows = this.#days.get(key); // another request may have computed it meanwhile
        }
        rows ??= this.#keep(
          key,
          Buffer.from(
            rowsOf({ from: day, to: day })
              .map((row) => JSON.stringify(row))
              .join(","),
          ),
        );
      }
      if (rows.length) pieces.push(...(pieces.length > 1 ? [COMMA, rows] : [rows]));
    }
    pieces.push(CLOSE);
    return pieces;
  }

  #keep(key: string, rows: Buffer): Buffer {
    this.#days.set(key, rows);
    this.#bytes += rows.length;
    for (const [oldest, kept] of this.#days) {
      if (this.#bytes <= KEPT_BYTES) break;
      this.#days.delete(oldest);
      this.#bytes -= kept.length;
    }
    return rows;
  }
}
