// `orgagent readiness list`: readiness reports, served by the app host (--app-url or ORGAGENT_APP_URL).
import { type Command, Option } from "commander";
import { operations } from "../../generated/spec-tables.js";
import type { ReadinessReport } from "../index.js";
import type { Context } from "./context.js";
import { LIST_DEFAULT, LIST_FORMATS, addOutputOptions, examples, pageSizeOption, wholeNumber, type WithOutput } from "./options.js";

export function readinessCommands(program: Command, context: Context): void {
  const readiness = examples(
    program.command("readiness").description("readiness reports (served by the app host: --app-url or ORGAGENT_APP_URL)"),
    ["orgagent readiness list --repo-id acme-robotics/fleet-control"],
  );
  const list = readiness
    .command("list")
    .description("list readiness reports, newest first, every page")
    .option("--repo-id <id>", "only the reports of this repository (owner/name)")
    .addOption(pageSizeOption(operations.listReadinessReports.params.limit.schema, "reports"))
    .addOption(new Option("--max <n>", "stop after this many reports").argParser(wholeNumber("--max", 1)));
  addOutputOptions(list, LIST_FORMATS, LIST_DEFAULT);
  examples(list, [
    "orgagent readiness list --max 5",
    "orgagent readiness list --repo-id acme-robotics/fleet-control --format csv",
    "orgagent readiness list --json reportId,repoUrl,report",
  ]);
  list.action(async (flags: WithOutput<{ repoId?: string; pageSize?: number; max?: number }>, cmd: Command) => {
    context.begin(cmd, { "query.limit": "--page-size", "query.repoId": "--repo-id" });
    const query = { ...(flags.repoId ? { repoId: flags.repoId } : {}), ...(flags.pageSize ? { limit: flags.pageSize } : {}) };
    const reports: ReadinessReport[] = [];
    for await (const report of context.client(cmd, { appHost: true }).readiness.list(query, { maxItems: flags.max })) reports.push(report);
    if (flags.json !== undefined || flags.format === "json" || flags.format === "ndjson") return context.out.list(reports as never, flags);
    const rows = reports.map((r) => {
      const scores = Object.values(r.report);
      return {
        reportId: r.reportId,
        createdAt: new Date(r.createdAt).toISOString(),
        repoUrl: r.repoUrl,
        branch: r.branch ?? "",
        criteria_met: `${scores.filter((s) => s.numerator === s.denominator).length}/${scores.length}`,
      };
    });
    context.out.list(rows, flags, { columns: ["reportId", "createdAt", "repoUrl", "branch", "criteria_met"] });
  });
}
