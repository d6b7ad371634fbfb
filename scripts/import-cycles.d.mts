/** Every elementary cycle reachable among `files` (absolute paths of .ts modules), each a list of files. */
export function findCycles(files: string[]): string[][];
/** The files a module imports or re-exports from (relative specifiers only), resolved. */
export function importsOf(file: string): string[];
