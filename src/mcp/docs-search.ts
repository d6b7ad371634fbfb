// The docs-search tool: a ranked keyword search, offline, over the spec (each operation's tool description and the
// spec's guide) and the package's guides (README.md and docs/*.md, cut at their headings). The guides come from
// dist/mcp/docs.json in the package (scripts/build.mjs writes it) or from the repository when run from source.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mcpGuide, mcpTools } from "../../generated/mcp-tools.js";
import { errorResult, textResult, type ToolResult } from "./results.js";

export interface DocFile {
  /** Path from the package's root: `README.md`, `docs/sdk.md`. */
  readonly path: string;
  readonly text: string;
}

interface Section {
  readonly source: string;
  readonly heading: string;
  readonly text: string;
  readonly terms: Map<string, number>;
  readonly headingTerms: Set<string>;
  readonly length: number;
}

export const DOCS_SEARCH_DESCRIPTION =
  "Searches the documentation of this API and of the orgagent SDK, offline: what each operation does and takes, " +
  "paging, errors, rate limits, date ranges, and how to write SDK code for run_code. Returns the best-matching " +
  "sections, each with where it comes from.";

export const DOCS_SEARCH_INPUT = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: 500, description: "Words to look for, e.g. `paginate analytics users cursor`." },
    limit: { type: "integer", minimum: 1, maximum: 10, default: 4, description: "How many sections to return." },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

/** The guides of the package: the built copy when there is one, else the repository's own files. */
export function readDocFiles(): DocFile[] {
  const built = new URL("./docs.json", import.meta.url);
  if (existsSync(built)) return JSON.parse(readFileSync(built, "utf8")) as DocFile[];
  const root = new URL("../../", import.meta.url);
  if (!existsSync(new URL("docs/", root))) return [];
  const names = [
    "README.md",
    ...readdirSync(new URL("docs/", root))
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  return names.map((path) => ({ path, text: readFileSync(fileURLToPath(new URL(path, root)), "utf8") }));
}

export class DocsIndex {
  readonly #sections: Section[] = [];
  readonly #documentFrequency = new Map<string, number>();

  constructor(files: readonly DocFile[]) {
    for (const tool of Object.values(mcpTools)) {
      const parameters = Object.entries(tool.inputSchema.properties)
        .map(
          ([name, schema]) =>
            `- ${name}${tool.inputSchema.required?.includes(name) ? " (required)" : ""}: ${(schema as { description?: string }).description ?? ""}`,
        )
        .join("\n");
      this.#add(`tool ${tool.name} (${tool.method})`, tool.name, `${tool.description}\n\nArguments:\n${parameters}`);
    }
    for (const { heading, text } of mcpGuide) this.#add("API guide", heading, text);
    for (const file of files) for (const { heading, text } of sectionsOf(file.text)) this.#add(file.path, heading, text);
    for (const section of this.#sections) {
      for (const term of section.terms.keys()) this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
    }
  }

  get size(): number {
    return this.#sections.length;
  }

  #add(source: string, heading: string, text: string): void {
    const terms = new Map<string, number>();
    const words = termsOf(`${heading}\n${text}`);
    for (const term of words) terms.set(term, (terms.get(term) ?? 0) + 1);
    this.#sections.push({ source, heading, text, terms, headingTerms: new Set(termsOf(heading)), length: words.length });
  }

  /** The best `limit` sections for `query`, best first (BM25, with words of a heading counting double). */
  search(query: string, limit: number): { source: string; heading: string; text: string; score: number }[] {
    const wanted = [...new Set(termsOf(query))];
    const count = this.#sections.length;
    const averageLength = this.#sections.reduce((sum, section) => sum + section.length, 0) / Math.max(count, 1);
    const scored = this.#sections.map((section) => {
      let score = 0;
      for (const term of wanted) {
        const frequency = (section.terms.get(term) ?? 0) + (section.headingTerms.has(term) ? 2 : 0);
        if (!frequency) continue;
        const documents = this.#documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (count - documents + 0.5) / (documents + 0.5));
        score += (idf * frequency * 2.2) / (frequency + 1.2 * (0.25 + (0.75 * section.length) / averageLength));
      }
      return { section, score };
    });
    return scored
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ section, score }) => ({
        source: section.source,
        heading: section.heading,
        text: section.text,
        score: Math.round(score * 100) / 100,
      }));
  }
}

/** The tool's answer: the best sections, each whole up to 4,000 characters, together within `maxBytes`. */
export function searchDocs(index: DocsIndex, args: Record<string, unknown>, maxBytes: number): ToolResult {
  const { query, limit } = args;
  if (typeof query !== "string" || !query.trim()) return errorResult("Invalid argument query: expected words to look for.");
  const count = typeof limit === "number" && Number.isInteger(limit) ? Math.min(Math.max(limit, 1), 10) : 4;
  const found = index.search(query, count);
  if (!found.length) return textResult(`Nothing matches ${JSON.stringify(query)}. Try other words, or an operation's name.`);
  const sections: string[] = [];
  let bytes = 0;
  for (const hit of found) {
    const section = `## ${hit.heading} (${hit.source})\n\n${hit.text.length > 4000 ? `${hit.text.slice(0, 4000)}…` : hit.text}`;
    bytes += Buffer.byteLength(section);
    if (sections.length && bytes > maxBytes) break;
    sections.push(section);
  }
  return textResult(...sections);
}

/** A Markdown file cut at its `#`, `##` and `###` headings (not inside code blocks). */
function sectionsOf(markdown: string): { heading: string; text: string }[] {
  const sections: { heading: string; text: string }[] = [];
  let heading = "";
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = lines.join("\n").trim();
    if (text) sections.push({ heading, text });
  };
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,3}\s+(.*)$/.exec(line);
    if (!match) {
      lines.push(line);
      continue;
    }
    flush();
    heading = match[1]!.trim();
    lines = [];
  }
  flush();
  return sections;
}

/** Lower-case words, with camelCase and snake_case names also split into their parts (`listAnalyticsUsers`). */
function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of text.match(/[A-Za-z0-9_]+/g) ?? []) {
    const lower = word.toLowerCase();
    if (lower.length > 1 && !STOP_WORDS.has(lower)) terms.push(lower);
    const parts = word.split(/_|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
    if (parts.length > 1) for (const part of parts) if (part.length > 1) terms.push(part.toLowerCase());
  }
  return terms;
}

const STOP_WORDS = new Set(
  "the a an and or of to in on for is are be by with as at it its this that from not no can do does what how when which who".split(" "),
);
