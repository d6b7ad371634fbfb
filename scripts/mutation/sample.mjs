// A seeded sample of the SDK's mutants, for a run that would otherwise test more than its budget again
// (scripts/mutation/stryker.mjs, docs/testing.md#mutation-testing). Stryker's `mutate` takes line ranges: the sample
// is a set of source lines drawn at random, and Stryker tests every mutant that lies wholly on a drawn line. So the
// score of the sample estimates the score of the whole SDK, measured in minutes whatever a change touched. (A mutant
// spanning lines, such as an emptied block, is never drawn; those are the easiest to kill, so the estimate errs low.)
import { createHash } from "node:crypto";

/** A line that can hold a mutant: code, not a blank, a comment, an import or lone punctuation. */
export function isCodeLine(line) {
  const text = line.trim();
  if (!text || /^(\/\/|\/\*|\*|import\b|export \* from|export type\b)/.test(text)) return false;
  return /[\w"'`]/.test(text);
}

/** The code lines of a file's text, 1-based. */
export function codeLines(text) {
  const lines = [];
  text.split("\n").forEach((line, i) => {
    if (isCodeLine(line)) lines.push(i + 1);
  });
  return lines;
}

/** A small seeded generator (mulberry32): the same seed draws the same sample on every machine. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Draws lines from `sources` (file → text) until they hold about `budget` mutants at `perLine` mutants a line; the
 * seed is the digest of the code lines, so the same code always gives the same sample (a comment added, such as one
 * marking an equivalent mutant, changes neither the seed nor which code lines are drawn). Returns Stryker `mutate`
 * entries (`src/core/hub.ts:12-12`), sorted, and the number of lines drawn of all code lines. A `seed` given draws
 * another sample of the same code (an independent estimate).
 */
export function sampleLines(sources, budget, perLine, seed) {
  const digest = createHash("sha256");
  const population = [];
  for (const [file, text] of Object.entries(sources).sort(([a], [b]) => a.localeCompare(b))) {
    const all = text.split("\n");
    digest.update(file).update("\0");
    for (const line of codeLines(text)) {
      digest.update(all[line - 1].trim()).update("\n");
      population.push([file, line]);
    }
  }
  const wanted = Math.min(population.length, Math.max(1, Math.round(budget / Math.max(perLine, 0.01))));
  const next = random(seed ?? digest.digest().readUInt32BE(0));
  // A partial Fisher-Yates shuffle: the first `wanted` places are the sample.
  for (let i = 0; i < wanted; i++) {
    const j = i + Math.floor(next() * (population.length - i));
    [population[i], population[j]] = [population[j], population[i]];
  }
  const drawn = population
    .slice(0, wanted)
    .sort(([fileA, lineA], [fileB, lineB]) => fileA.localeCompare(fileB) || lineA - lineB)
    .map(([file, line]) => `${file}:${line}-${line}`);
  return { mutate: drawn, lines: wanted, of: population.length };
}

/** Mutants per code line in a Stryker result (its files' sources and mutants): how many a drawn line holds. */
export function mutantsPerCodeLine(result) {
  let lines = 0;
  let mutants = 0;
  for (const { source, mutants: list } of Object.values(result.files ?? {})) {
    lines += codeLines(source).length;
    mutants += list.filter((mutant) => mutant.status !== "Ignored").length;
  }
  return lines ? mutants / lines : 1;
}

/**
 * The score a sample of `mutants` must reach for the whole to be held at `goal` (percent): the goal less the
 * sampling error a one-sided 95% test allows (normal approximation, z = 1.645), in tenths, rounded down. So a sample
 * fails when it shows, with 95% confidence, that the whole scores under the goal; a whole at the goal fails one sample
 * in twenty, not one in two. 150 mutants held to 95%: 92%.
 */
export function sampleBreak(goal, mutants) {
  const p = goal / 100;
  const error = 1.645 * Math.sqrt((p * (1 - p)) / Math.max(1, mutants));
  return Math.floor((goal - 100 * error) * 10) / 10;
}
