// The charting library and the DOM it draws on, in one module: the build ships this file as one minified
// CommonJS file (dist/report/charts.cjs) that the ESM and CJS builds of orgagent/report and the CLI all load.
// Neither library is a runtime dependency of the package: both are bundled into that file.
export { barX, lineY, plot, rectY, ruleX, ruleY, text } from "@observablehq/plot";
export type { PlotOptions } from "@observablehq/plot";
export { parseHTML } from "linkedom";
