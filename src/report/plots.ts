// The report's three kinds of chart, drawn by Observable Plot into SVG markup on linkedom's DOM: stacked bars over
// the days, lines over the days, and ranked horizontal bars. Every bar, and every day of a line chart, carries an
// SVG <title> with its numbers, which browsers show on hover without any script.
import * as Plot from "./charts.js";
import { parseHTML } from "./charts.js";
import { compact, pct, utc } from "./format.js";

/** Draws one chart and returns its markup. */
export type Draw = (options: Plot.PlotOptions) => string;

/** A drawer for one page: its charts are made in one linkedom document. */
export function drawer(): Draw {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  return (options) => (Plot.plot({ ...options, document }) as unknown as Element).outerHTML;
}

const WIDTH = 880;

/**
 * An explicit domain for values spread over less than a millionth (say 5e-324 and -5e-324, which a server may send):
 * d3's ticks cannot divide such a span and throw. Undefined (Plot's own domain) for every ordinary spread.
 */
function valueDomain(values: readonly number[]): { domain: [number, number] } | Record<string, never> {
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  return high - low > 0 && high - low < 1e-6 ? { domain: [low, low + 1] } : {};
}

/** The frame of a chart over `days` days: ticks on whole days, weeks or months (the data has no hours). */
function timeFrame(yLabel: string, days: number): Plot.PlotOptions {
  return {
    width: WIDTH,
    height: 300,
    marginLeft: 56,
    x: { type: "utc", label: null, ticks: days <= 16 ? "day" : days <= 120 ? "week" : "month" },
    y: { grid: true, label: yLabel, tickFormat: compact },
  };
}

/** Bars over the days, stacked by `key` in the order of `keys` (the legend's), each with its own title. */
export function stackedDays(
  draw: Draw,
  spec: {
    days: number;
    rows: ReadonlyArray<{ date: string; key: string; value: number; title: string }>;
    keys: readonly string[];
    colors?: readonly string[];
    yLabel: string;
  },
): string {
  const rows = spec.rows.map((row) => ({ ...row, date: utc(row.date) }));
  const frame = timeFrame(spec.yLabel, spec.days);
  return draw({
    ...frame,
    y: { ...(frame.y as object), ...valueDomain(rows.map((row) => row.value)) },
    color: { legend: true, domain: spec.keys, ...(spec.colors ? { range: spec.colors } : {}) },
    marks: [
      Plot.rectY(rows, { x: "date", interval: "day", y: "value", fill: "key", insetLeft: 0.5, insetRight: 0.5, title: "title" }),
      Plot.ruleY([0]),
    ],
  });
}

/**
 * One line per series over the days, and an invisible column per day whose <title> gives that day's numbers:
 * hovering anywhere above a day shows them.
 */
export function dailyLines<D extends { date: string }>(
  draw: Draw,
  daily: readonly D[],
  series: ReadonlyArray<{ name: string; value: (day: D) => number }>,
  yLabel: string,
  title: (day: D) => string,
): string {
  const points = series.flatMap(({ name, value }) => daily.map((day) => ({ date: utc(day.date), series: name, value: value(day) })));
  const frame = timeFrame(yLabel, daily.length);
  return draw({
    ...frame,
    y: { ...(frame.y as object), ...valueDomain(points.map((point) => point.value)) },
    height: 260,
    color: { legend: true, domain: series.map((s) => s.name) },
    marks: [
      Plot.ruleY([0]),
      // z said outright: with few days Plot would otherwise warn on the console that the series look numeric.
      // A mark on each day when there are few, so that even a single day shows.
      Plot.lineY(points, {
        x: "date",
        y: "value",
        stroke: "series",
        z: "series",
        strokeWidth: 2,
        marker: daily.length <= 31 ? "circle" : null,
      }),
      Plot.ruleX(daily, {
        x: (day: D) => utc(day.date),
        strokeWidth: Math.max(2, (WIDTH - 76) / daily.length),
        strokeOpacity: 0,
        title,
      }),
    ],
  });
}

/** Axis labels longer than this are cut (the full text is in the mark's title and the table). */
const LABEL_MAX = 34;
const shorten = (label: string) => (label.length > LABEL_MAX ? `${label.slice(0, LABEL_MAX - 1)}…` : label);

/** Horizontal bars, largest first, each labelled with its share; nothing when there are no items. */
export function rankedBars<T extends { share: number }>(
  draw: Draw,
  items: readonly T[],
  spec: { label: (item: T) => string; value: (item: T) => number; title: (item: T) => string; axis: string; color?: string },
): string {
  if (!items.length) return "";
  const labels = items.map((item) => shorten(spec.label(item)));
  const rows = items.map((item, i) => ({ label: labels[i]!, value: spec.value(item), text: pct(item.share), title: spec.title(item) }));
  return draw({
    width: WIDTH / 2 + 120,
    height: 50 + 22 * rows.length,
    // Plot does not measure text: about 6.2 px a character at its 10 px font.
    marginLeft: 12 + 6.2 * Math.max(...labels.map((label) => label.length)),
    marginRight: 48,
    x: { grid: true, label: spec.axis, tickFormat: compact, ticks: 5, ...valueDomain(rows.map((row) => row.value)) },
    y: { label: null, domain: labels, tickSize: 0 },
    marks: [
      Plot.barX(rows, { x: "value", y: "label", fill: spec.color ?? "#4269d0", title: "title" }),
      Plot.text(rows, { x: "value", y: "label", text: "text", textAnchor: "start", dx: 4 }),
      Plot.ruleX([0]),
    ],
  });
}
