// Figures the documentation states, read back from it for the tests that compare them (stated-figures.test.ts with
// each other, built-sizes.e2e.ts with the build).

/** docs/report.md's statements of the charting bundle's size: `[minified kB, gzipped kB]` each. */
export function statedBundleSizes(markdown: string): Array<[number, number]> {
  const prose = [...markdown.matchAll(/`dist\/report\/charts\.cjs` \(([\d,]+) kB, ([\d,]+) kB gzipped\)/g)];
  const table = [...markdown.matchAll(/^\| Observable Plot [^|]*\| ([\d,]+) kB \(([\d,]+) kB\) \|/gm)];
  const kB = (text: string) => Number(text.replace(/,/g, ""));
  return [...prose, ...table].map((match) => [kB(match[1]!), kB(match[2]!)]);
}
