import type { CodeSample } from "./reference-spec.mjs";
export const LABELS: { typescript: string; cli: string; curl: string };
export function typeScriptSample(spec: unknown, path: string, method: string): string;
export function cliSample(spec: unknown, path: string, method: string): string;
export function curlSample(spec: unknown, path: string, method: string): string;
export function generatedSamples(spec: unknown, path: string, method: string): CodeSample[];
