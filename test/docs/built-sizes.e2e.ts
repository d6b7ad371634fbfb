// Sizes the documentation states of built files are the build's (test:docs builds dist/ first, in its global
// setup): the report's charting bundle, dist/report/charts.cjs, minified and gzipped (Node's zlib at level 9, as
// docs/performance.md measures bundles; 1 kB = 1,000 bytes).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test } from "vitest";
import { root } from "../cli/support.js";
import { statedBundleSizes } from "./stated-figures.js";

test("docs/report.md gives dist/report/charts.cjs's size and gzipped size, in kB, as built", () => {
  const built = readFileSync(join(root, "dist", "report", "charts.cjs"));
  const gzipped = gzipSync(built, { level: 9 }).byteLength;
  const measured: [number, number] = [Math.round(built.byteLength / 1000), Math.round(gzipped / 1000)];
  console.info(`dist/report/charts.cjs: ${built.byteLength} B, ${gzipped} B gzipped`);
  const stated = statedBundleSizes(readFileSync(join(root, "docs", "report.md"), "utf8"));
  expect(stated.length).toBeGreaterThan(0);
  for (const sizes of stated) expect(sizes).toEqual(measured);
});
