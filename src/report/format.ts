// How the report writes numbers and days: en-US digits, so that a page reads the same wherever it is made.
const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const compactFormat = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat("en-US", { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** 8,094,264,522 */
export const int = (n: number) => integer.format(n);
/** 112.5 */
export const dec = (n: number) => decimal.format(n);
/** 8.09B */
export const compact = (n: number) => compactFormat.format(n);
/** 29.9% (of a fraction, 0.299) */
export const pct = (n: number) => percent.format(n);
/** 1 day, 90 days */
export const days = (n: number) => (n === 1 ? "1 day" : `${n} days`);
/** The start of a `YYYY-MM-DD` day, UTC. */
export const utc = (date: string) => new Date(`${date}T00:00:00Z`);
