// The analytics report as one self-contained HTML page: every chart is SVG drawn by Observable Plot at build
// time (on linkedom's DOM, so no browser is needed), the numbers behind each mark are its SVG <title> (shown on
// hover, no script), and every section has a small table. The page loads nothing: no script, font or image, and
// its Content-Security-Policy forbids any request, so it opens the same from any disk in any browser.
import type { AnalyticsReport, CreditsSection, PreviousPeriod } from "../index.js";
import { compact, days, dec, int, pct } from "./format.js";
import { dailyLines, drawer, rankedBars, stackedDays, type Draw } from "./plots.js";

export interface RenderReportOptions {
  /** Heading of the page. Default `Agent analytics`. */
  title?: string | undefined;
}

/** The report as a complete HTML document (a string: write it with writeAnalyticsReport or any file API). */
export function renderReportHtml(report: AnalyticsReport, options: RenderReportOptions = {}): string {
  const chart = drawer();
  const title = options.title ?? "Agent analytics";
  const { range } = report;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${esc(`${title}: ${range.startDate} to ${range.endDate}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${esc(title)}</h1>
<p class="range">${esc(report.orgId)} · ${range.startDate} to ${range.endDate} (${days(range.days)}, UTC) · fetched ${esc(report.fetchedAt.slice(0, 16).replace("T", " "))} UTC</p>
${keyFigures(report)}
</header>
<main>
${creditsSection(report, chart)}
${activitySection(report, chart)}
${topUsersSection(report, chart)}
${toolsSection(report, chart)}
${productivitySection(report, chart)}
${hooksSection(report, chart)}
</main>
<footer>Made by orgagent from the Organization Analytics API (${range.startDate} to ${range.endDate}). Every figure is a sum of the API's answers; hover a mark for its numbers.</footer>
</body>
</html>
`;
}

// Sections ------------------------------------------------------------------------------------------------------

function keyFigures({ credits, activity, tools, productivity, range }: AnalyticsReport): string {
  const change = credits.previous ? `<small>${changeText(credits.previous)}</small>` : "";
  return `<dl class="key-figures">
<div><dt>Credits</dt><dd data-figure="credits-total">${int(credits.total)}</dd>${change}</div>
<div><dt>Daily active users (average)</dt><dd data-figure="average-dau">${dec(activity.averageDailyActiveUsers)}</dd></div>
<div><dt>Monthly active users</dt><dd data-figure="mau-at-end">${int(activity.monthlyActiveUsersAtEnd)}</dd><small>the 30 days to ${range.endDate}</small></div>
<div><dt>Tool calls</dt><dd data-figure="tool-calls">${int(tools.toolCalls)}</dd></div>
<div><dt>Commits · pull requests</dt><dd><span data-figure="commits">${int(productivity.commits)}</span> · <span data-figure="pull-requests">${int(productivity.pullRequests)}</span></dd></div>
</dl>`;
}

function creditsSection({ credits, range }: AnalyticsReport, chart: Draw): string {
  const models = credits.byModel.map((entry) => entry.model);
  const rows = credits.daily.flatMap((day) =>
    models
      .filter((model) => day.byModel[model])
      .map((model) => ({
        date: day.date,
        key: model,
        value: day.byModel[model]!,
        title: `${day.date} · ${model}: ${int(day.byModel[model]!)} credits (${int(day.total)} that day)`,
      })),
  );
  const top = credits.byModel[0];
  const takeaway =
    `${compact(credits.total)} credits in ${days(range.days)}${credits.previous ? `, ${changeText(credits.previous)}` : ""}` +
    (top ? `; ${top.model} used the most (${pct(top.share)}).` : ".") +
    (credits.previous ? "" : ` Nothing to compare with: the API has no data before ${range.startDate}.`);
  const svg = stackedDays(chart, { days: range.days, rows, keys: models, yLabel: "Credits per day" });
  const table = tableOf(
    ["Model", "Credits", "Share"],
    credits.byModel.map((entry) => [entry.model, int(entry.credits), pct(entry.share)]),
    ["Total", int(credits.total), credits.total ? pct(1) : "–"],
  );
  const daily = tableOf(
    ["Day", ...models, "Total"],
    credits.daily.map((day) => [day.date, ...models.map((model) => int(day.byModel[model] ?? 0)), int(day.total)]),
  );
  return section("credits", "Credits by model", takeaway, svg, table + previousNote(credits) + details("Credits per day", daily));
}

function activitySection({ activity, range }: AnalyticsReport, chart: Draw): string {
  const series = [
    { name: "Daily", value: (d: (typeof activity.daily)[number]) => d.dailyActiveUsers },
    { name: "Trailing 7 days", value: (d: (typeof activity.daily)[number]) => d.weeklyActiveUsers },
    { name: "Trailing 30 days", value: (d: (typeof activity.daily)[number]) => d.monthlyActiveUsers },
  ];
  const clients = activity.byClient.map((entry) => entry.client);
  const main = activity.byClient[0];
  const peak = activity.peakDailyActiveUsers;
  const takeaway =
    `${dec(activity.averageDailyActiveUsers)} people a day on average` +
    (peak ? ` (peak ${int(peak.users)} on ${peak.date})` : "") +
    `; ${int(activity.monthlyActiveUsersAtEnd)} active in the 30 days to ${range.endDate}` +
    (main ? `; ${main.client} is the main client (${dec(main.averageDailyActiveUsers)} a day).` : ".");
  const users = dailyLines(
    chart,
    activity.daily,
    series,
    "Active users",
    (d) => `${d.date}: ${int(d.dailyActiveUsers)} that day, ${int(d.weeklyActiveUsers)} in 7 days, ${int(d.monthlyActiveUsers)} in 30 days`,
  );
  const byClient = dailyLines(
    chart,
    activity.daily,
    clients.map((client) => ({ name: client, value: (d: (typeof activity.daily)[number]) => d.byClient[client] ?? 0 })),
    "Daily active users by client",
    (d) => `${d.date}: ${clients.map((client) => `${client} ${int(d.byClient[client] ?? 0)}`).join(", ")}`,
  );
  const table = tableOf(
    ["Client", "Daily active (average)", "Peak"],
    activity.byClient.map((entry) => [entry.client, dec(entry.averageDailyActiveUsers), int(entry.peakDailyActiveUsers)]),
    ["Anyone", dec(activity.averageDailyActiveUsers), peak ? int(peak.users) : "–"],
  );
  const totals = tableOf(
    ["", "People"],
    [
      [`Active in the 7 days to ${range.endDate}`, int(activity.weeklyActiveUsersAtEnd)],
      [`Active in the 30 days to ${range.endDate}`, int(activity.monthlyActiveUsersAtEnd)],
    ],
  );
  const daily = tableOf(
    ["Day", "Daily", "7 days", "30 days", ...clients],
    activity.daily.map((d) => [
      d.date,
      int(d.dailyActiveUsers),
      int(d.weeklyActiveUsers),
      int(d.monthlyActiveUsers),
      ...clients.map((c) => int(d.byClient[c] ?? 0)),
    ]),
  );
  const note = `<p class="note">A person active on several clients counts once a day in “Daily” and once in each client's line. Sessions: ${int(activity.sessions)}; messages: ${int(activity.messages)}.</p>`;
  return section("activity", "Active users", takeaway, users + byClient, table + totals + note + details("Active users per day", daily));
}

function topUsersSection({ topUsers, credits }: AnalyticsReport, chart: Draw): string {
  const { top } = topUsers;
  const first = top[0];
  const takeaway = first
    ? `The ${top.length} heaviest of ${int(topUsers.people)} people used ${pct(topUsers.topShare)} of all credits; ${who(first)} alone used ${pct(first.share)}.`
    : "Nobody used the agent in this period.";
  const svg = rankedBars(chart, top, {
    label: (user) => who(user),
    value: (user) => user.credits,
    title: (user) =>
      `${who(user)}: ${int(user.credits)} credits (${pct(user.share)}), ${int(user.activeDays)} active days, ${int(user.toolCalls)} tool calls, mostly ${user.primaryModel}`,
    axis: "Credits",
  });
  const table = tableOf(
    ["#", "Person", "Credits", "Share", "Active days", "Sessions", "Main model"],
    top.map((user) => [
      String(user.rank),
      who(user),
      int(user.credits),
      pct(user.share),
      int(user.activeDays),
      int(user.sessions),
      user.primaryModel,
    ]),
    ["", `Top ${top.length}`, int(top.reduce((total, user) => total + user.credits, 0)), pct(topUsers.topShare), "", "", ""],
  );
  const note = `<p class="note">Shares are of the period's ${int(credits.total)} credits. Read from ${int(topUsers.rows)} rows of /users (${int(topUsers.people)} people, ${int(topUsers.credits)} credits).</p>`;
  return section("top-users", `Top ${top.length} users by credits`, takeaway, svg, details("The numbers", table, true) + note);
}

function toolsSection({ tools }: AnalyticsReport, chart: Draw): string {
  const [first, second, third] = tools.top;
  const topServer = tools.mcpServers[0];
  const takeaway = first
    ? `${compact(tools.toolCalls)} tool calls; ${first.tool} made ${pct(first.share)} of them` +
      (third ? `, and ${first.tool}, ${second!.tool} and ${third.tool} together ${pct(first.share + second!.share + third.share)}` : "") +
      (topServer
        ? `. MCP: ${int(tools.mcpCalls)} calls, ${topServer.server} the most (${pct(topServer.share)}).`
        : ". No MCP server was used.")
    : "No tool was called in this period.";
  const toolBars = rankedBars(chart, tools.top, {
    label: (t) => t.tool,
    value: (t) => t.calls,
    title: (t) => `${t.tool}: ${int(t.calls)} calls (${pct(t.share)})`,
    axis: `Calls, top ${tools.top.length} of ${tools.tools} tools`,
  });
  const serverBars = rankedBars(chart, tools.mcpServers, {
    label: (s) => s.server,
    value: (s) => s.calls,
    title: (s) => `${s.names.join(" / ")}: ${int(s.calls)} MCP calls (${pct(s.share)})`,
    axis: "MCP calls by server",
    color: "#9c6bdb",
  });
  const toolTable = tableOf(
    ["Tool", "Calls", "Share"],
    tools.top.map((t) => [t.tool, int(t.calls), pct(t.share)]),
    ["All tools", int(tools.toolCalls), tools.toolCalls ? pct(1) : "–"],
  );
  const serverTable = tableOf(
    ["MCP server", "Calls", "Share"],
    tools.mcpServers.map((s) => [s.names.join(" / "), int(s.calls), pct(s.share)]),
    ["All servers", int(tools.mcpCalls), tools.mcpCalls ? pct(1) : "–"],
  );
  return section("tools", "Tool calls and MCP servers", takeaway, toolBars + serverBars, toolTable + serverTable);
}

function productivitySection({ productivity: p }: AnalyticsReport, chart: Draw): string {
  const language = p.byLanguage[0];
  const takeaway =
    `The agent created ${int(p.filesCreated)} files and edited ${int(p.filesEdited)}, made ${int(p.commits)} commits and opened ${int(p.pullRequests)} pull requests` +
    (language ? `; ${language.language} is ${pct(language.share)} of the files.` : ".");
  const files = p.daily.flatMap((d) => [
    { date: d.date, key: "Edited", value: d.filesEdited, title: `${d.date} · edited: ${int(d.filesEdited)} files` },
    { date: d.date, key: "Created", value: d.filesCreated, title: `${d.date} · created: ${int(d.filesCreated)} files` },
  ]);
  const filesChart = stackedDays(chart, {
    days: p.daily.length,
    rows: files,
    keys: ["Edited", "Created"],
    colors: ["#97bbf5", "#3ca951"],
    yLabel: "Files per day",
  });
  const gitChart = dailyLines(
    chart,
    p.daily,
    [
      { name: "Commits", value: (d: (typeof p.daily)[number]) => d.commits },
      { name: "Pull requests", value: (d: (typeof p.daily)[number]) => d.pullRequests },
    ],
    "Commits and pull requests per day",
    (d) => `${d.date}: ${int(d.commits)} commits, ${int(d.pullRequests)} pull requests`,
  );
  const languageChart = rankedBars(chart, p.byLanguage, {
    label: (l) => l.language,
    value: (l) => l.files,
    title: (l) => `${l.language}: ${int(l.files)} files (${pct(l.share)})`,
    axis: "Files by language",
    color: "#3ca951",
  });
  const table = tableOf(
    ["", "Total"],
    [
      ["Files created", int(p.filesCreated)],
      ["Files edited", int(p.filesEdited)],
      ["Commits", int(p.commits)],
      ["Pull requests", int(p.pullRequests)],
    ],
  );
  const languages = tableOf(
    ["Language", "Files", "Share"],
    p.byLanguage.map((l) => [l.language, int(l.files), pct(l.share)]),
  );
  const daily = tableOf(
    ["Day", "Created", "Edited", "Commits", "Pull requests"],
    p.daily.map((d) => [d.date, int(d.filesCreated), int(d.filesEdited), int(d.commits), int(d.pullRequests)]),
  );
  return section(
    "productivity",
    "What the agent produced",
    takeaway,
    filesChart + gitChart + languageChart,
    table + languages + details("Per day", daily),
  );
}

function hooksSection({ hooks }: AnalyticsReport, chart: Draw): string {
  if (!hooks.executions) return section("hooks", "Hooks", "No hook ran in this period.", "", "");
  // The runs by event come from the same answer as their total, but a service may leave the breakdown out.
  const first = hooks.byEvent[0];
  const byEvent = !first
    ? ", not broken down by event"
    : `; ${first.event} hooks ${hooks.byEvent.length > 1 ? `made ${pct(first.share)} of the runs` : "made every run"}`;
  const takeaway = `Hooks ran ${int(hooks.executions)} times${byEvent}.`;
  const svg = rankedBars(chart, hooks.byEvent, {
    label: (e) => e.event,
    value: (e) => e.executions,
    title: (e) => `${e.event}: ${int(e.executions)} runs (${pct(e.share)})`,
    axis: "Runs by event",
    color: "#ff725c",
  });
  const table = tableOf(
    ["Event", "Matcher", "Command", "Runs"],
    hooks.byHook.map((h) => [h.event, h.matcher || "(any)", h.command, int(h.executions)]),
    ["All hooks", "", "", int(hooks.executions)],
  );
  return section("hooks", "Hooks by event", takeaway, svg, table);
}

// Page pieces ---------------------------------------------------------------------------------------------------

function section(id: string, heading: string, takeaway: string, charts: string, numbers: string): string {
  return `<section id="${id}">
<h2>${esc(heading)}</h2>
<p class="takeaway">${esc(takeaway)}</p>
<div class="body"><div class="charts">${charts}</div><div class="numbers">${numbers}</div></div>
</section>`;
}

/** A table whose number columns (judged by the first row) are right-aligned. */
function tableOf(head: readonly string[], rows: ReadonlyArray<readonly string[]>, foot?: readonly string[]): string {
  const numeric = (rows[0] ?? []).map((cell) => NUMBER.test(cell));
  const cells = (tag: string, cols: readonly string[]) =>
    cols.map((col, i) => `<${tag}${numeric[i] ? ' class="n"' : ""}>${esc(col)}</${tag}>`).join("");
  return `<table><thead><tr>${cells("th", head)}</tr></thead><tbody>${rows.map((row) => `<tr>${cells("td", row)}</tr>`).join("")}</tbody>${
    foot ? `<tfoot><tr>${cells("td", foot)}</tr></tfoot>` : ""
  }</table>`;
}

function details(summary: string, content: string, open = false): string {
  return `<details${open ? " open" : ""}><summary>${esc(summary)}</summary>${content}</details>`;
}

function previousNote({ previous, total }: CreditsSection): string {
  if (!previous) return "";
  const clamped = previous.clamped
    ? ` The API has data from ${previous.firstDataDay} only, so the previous period is ${days(previous.days)} long and the change compares credits per day.`
    : "";
  return `<p class="note">Previous period ${previous.startDate} to ${previous.endDate}: <span data-figure="previous-total">${int(previous.total)}</span> credits (this period: ${int(total)}).${clamped}</p>`;
}

function changeText(previous: PreviousPeriod): string {
  const { ratio, basis } = previous.change;
  const what = basis === "total" ? `the ${days(previous.days)} before` : `the ${days(previous.days)} before (credits per day)`;
  if (ratio === null) return `none used in ${what}`;
  return `${ratio >= 0 ? "+" : "−"}${pct(Math.abs(ratio))} against ${what}`;
}

function who(user: { email: string | null; userId: string }): string {
  return user.email ?? user.userId;
}

// Escaping and styles ---------------------------------------------------------------------------------------

const NUMBER = /^[−+-]?[\d,.]+%?$/;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --paper: #ffffff; --band: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--band); }
header, main, footer { max-width: 1500px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 4px; }
.range, .note, footer { color: var(--muted); }
.note { font-size: 12px; margin: 8px 0; }
.key-figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
.key-figures div { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 180px; }
.key-figures dt { font-size: 12px; color: var(--muted); }
.key-figures dd { margin: 0; font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.key-figures small { color: var(--muted); }
section { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin: 16px 0; }
.takeaway { font-size: 15px; margin: 0 0 12px; }
.body { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 24px; align-items: start; }
.numbers { overflow-x: auto; }
.charts { display: flex; flex-direction: column; gap: 8px; }
.charts > svg, .charts > figure { margin: 0; }
@media (max-width: 1200px) { .body { grid-template-columns: minmax(0, 1fr); } }
table { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; margin: 0 0 12px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
.n { text-align: right; }
thead th { color: var(--muted); font-weight: 600; }
tfoot td { font-weight: 600; border-bottom: none; }
#hooks td:nth-child(3) { font-family: ui-monospace, monospace; white-space: normal; }
details { margin: 4px 0 12px; }
summary { cursor: pointer; color: var(--muted); font-size: 12px; }
details > table { margin-top: 6px; }
footer { font-size: 12px; padding-bottom: 32px; }
@media print { body { background: none; } section { break-inside: avoid; border: none; } }
`;
