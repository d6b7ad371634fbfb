// orgagent/report: the analytics report of a date range as one self-contained HTML file.
//
//   import { OrgAgent } from "orgagent";
//   import { writeAnalyticsReport } from "orgagent/report";
//   const { path } = await writeAnalyticsReport(new OrgAgent(), { startDate: "2026-10-01", endDate: "2026-10-31" });
//
// The data alone (no charts) is `buildAnalyticsReport` from "orgagent". This entry bundles its charting library
// (Observable Plot, drawing on linkedom) so that the package still needs nothing at run time but openapi-fetch.
export { buildAnalyticsReport } from "../index.js";
export type { AnalyticsReport, BuildReportOptions, ReportProgress, ReportRange } from "../index.js";
export { renderReportHtml, type RenderReportOptions } from "./html.js";
export {
  ReportWriteError,
  reportFileName,
  writeAnalyticsReport,
  writeFileAtomic,
  type WriteReportOptions,
  type WrittenReport,
} from "./write.js";
