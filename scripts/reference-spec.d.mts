export const CURL_LABEL: string;
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}
export function operationsOf(spec: unknown): [path: string, method: string, operation: any][];
export function serverOf(spec: unknown, path: string): { url: string; description: string; "x-host-name": string };
export function referenceSpec<T>(spec: T): T;
export function referenceSamples(spec: unknown, path: string, method: string, operation: unknown): CodeSample[];
export function curlSample(spec: unknown, path: string, method: string): string;
export function parametersOf(spec: unknown, path: string, method: string): { name: string; in: string; example?: unknown }[];
