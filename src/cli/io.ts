// Where the CLI writes, apart from what it writes (output.ts) so that the pager can take it too without an import
// cycle.

/** Where the CLI writes: `process` in the bin, any pair of streams in tests. */
export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}
