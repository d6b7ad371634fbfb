// Every relative link of README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md leads somewhere: to a file or
// folder of the repository, and, with a #fragment, to a heading of that page (GitHub's anchors: the heading's text,
// lower-case, without punctuation, spaces as hyphens, a repeated heading numbered -1, -2…) or an explicit id.
// Links inside code (fenced blocks, `spans`) are not links; http(s) and mailto links are not checked here, except those
// into the repository's own home (package.json's `repository`), which must name a file of the repository too.
// The package ships README.md, CHANGELOG.md and docs/: their relative links must lead to files of the package, since
// they are read in node_modules too; contributor material outside it is linked by its address in the repository.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { root } from "../cli/support.js";

const documents = [
  "README.md",
  "CONTRIBUTING.md",
  "CHANGELOG.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/**
 * The Markdown without fenced code blocks (their text is not Markdown), line numbers kept; `spans: false` keeps code
 * spans, whose text a heading's anchor is made of.
 */
function withoutCode(markdown: string, { spans = true } = {}): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const open = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence) {
        if (open && open[1]!.startsWith(fence)) fence = undefined;
        return "";
      }
      if (open) {
        fence = open[1]!;
        return "";
      }
      return spans ? line.replace(/(`+)[\s\S]*?\1/g, "") : line;
    })
    .join("\n");
}

/** GitHub's anchor of a heading's text. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, "") // inline HTML
    .replace(/`/g, "")
    .replace(/(\*+|\b_+|_+\b)/g, (match, _m, offset, whole) =>
      /\w/.test(whole[offset - 1] ?? "") && /\w/.test(whole[offset + match.length] ?? "") ? match : "",
    )
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors a page defines: its headings (numbered when repeated) and any explicit id or name. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown, { spans: false }).split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count ? `${base}-${count}` : base);
    }
    for (const match of line.matchAll(/<[a-z][^>]*\s(?:id|name)="([^"]+)"/gi)) anchors.add(match[1]!);
  }
  return anchors;
}

/** The link targets of a page, with their line numbers: inline links and images, and reference definitions. */
function linksOf(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  withoutCode(markdown)
    .split("\n")
    .forEach((text, index) => {
      for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: index + 1, target: match[1]! });
      const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text);
      if (definition) links.push({ line: index + 1, target: definition[1]! });
    });
  return links;
}

/** Files of the repository by their address on its home: `https://github.com/owner/name/blob/main/`. */
const repository = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { repository: { url: string } }).repository.url;
const home = `${repository.replace(/^git\+/, "").replace(/\.git$/, "")}/blob/main/`;

/** What is wrong with each relative link of `file` (a path from the repository's root), and each link into its home. */
function brokenLinks(file: string): string[] {
  const markdown = readFileSync(join(root, file), "utf8");
  const problems: string[] = [];
  for (const { line, target } of linksOf(markdown)) {
    const inRepository = target.startsWith(home);
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !inRepository) continue; // http:, https:, mailto:
    const [path, fragment] = (inRepository ? target.slice(home.length) : target).split("#", 2) as [string, string | undefined];
    const from = inRepository ? root : dirname(join(root, file));
    const resolved = path ? join(from, decodeURIComponent(path)) : join(root, file);
    const where = `${file}:${line}: ${target}`;
    if (!resolved.startsWith(root) || !existsSync(resolved)) {
      problems.push(`${where}: no such file (${relative(root, resolved)})`);
      continue;
    }
    if (fragment === undefined) continue;
    if (!resolved.endsWith(".md") || statSync(resolved).isDirectory()) {
      problems.push(`${where}: an anchor into a file that is not Markdown`);
      continue;
    }
    const anchors = anchorsOf(readFileSync(resolved, "utf8"));
    if (!anchors.has(decodeURIComponent(fragment))) problems.push(`${where}: no heading #${fragment} in ${relative(root, resolved)}`);
  }
  return problems;
}

describe("links and anchors of the documentation", () => {
  test("GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, code and links as their text, repeats numbered", () => {
    expect(slug("Errors and exit codes")).toBe("errors-and-exit-codes");
    expect(slug("`client.raw`")).toBe("clientraw");
    expect(slug("Writing a report: `orgagent/report`")).toBe("writing-a-report-orgagentreport");
    expect(slug("Thousands of credit limits, chunks at once")).toBe("thousands-of-credit-limits-chunks-at-once");
    expect(slug("`limits set`")).toBe("limits-set");
    expect(slug("The data alone: `buildAnalyticsReport`")).toBe("the-data-alone-buildanalyticsreport");
    expect(slug("**Bold** and [a link](x.md)")).toBe("bold-and-a-link");
    expect(slug("snake_case_name")).toBe("snake_case_name");
    expect([...anchorsOf('# A\n## B\n## B\n```\n## C\n```\n<a id="d"></a>\n## `e.f`\n')]).toEqual(["a", "b", "b-1", "d", "ef"]);
    expect(linksOf('[a](x.md) `[b](y.md)` [c](#z "title")\n```\n[d](w.md)\n```\n[e]: ../f.md\n').map((l) => l.target)).toEqual([
      "x.md",
      "#z",
      "../f.md",
    ]);
  });

  test("there is something to check", () => {
    expect(documents.length).toBeGreaterThan(5);
    expect(
      documents.flatMap((file) => linksOf(readFileSync(join(root, file), "utf8"))).filter((l) => l.target.includes("#")).length,
    ).toBeGreaterThan(20);
  });

  test.each(documents)("%s: every relative link and #anchor exists", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});

describe("links of the Markdown files the package ships", () => {
  // What `npm pack` puts in the tarball (dist/ aside, which needs a build and holds no Markdown).
  const packed = new Set(
    (
      JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" })) as [
        { files: { path: string }[] },
      ]
    )[0].files.map((entry) => entry.path),
  );
  const shipped = [...packed].filter((path) => path.endsWith(".md")).sort();

  test("README.md, CHANGELOG.md and every guide of docs/ are in the package", () => {
    expect(shipped).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", ...documents.filter((file) => file.startsWith("docs/"))]));
  });

  test.each(shipped)("%s: every relative link leads to a file of the package", (file) => {
    const outside = linksOf(readFileSync(join(root, file), "utf8"))
      .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
      .map(({ line, target }) => ({
        line,
        path: relative(root, join(dirname(join(root, file)), decodeURIComponent(target.split("#")[0]!))),
      }))
      .filter(({ path }) => !packed.has(path))
      .map(({ line, path }) => `${file}:${line}: ${path} is not in the package; link it by its address, ${home}${path}`);
    expect(outside).toEqual([]);
  });
});
