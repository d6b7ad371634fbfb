export const DOCUMENTS: { file: string; name: string; render(spec: unknown): string }[];
export function withBlock(text: string, name: string, block: string): string;
export function sdkTable(spec: unknown): string;
export function cliTable(spec: unknown): string;
export function writeOperationDocs(spec: unknown, root: string): void;
