export function freePort(): Promise<number>;
export function startPrism(options?: {
  port?: number;
  spec?: string;
  mode?: "mock" | "proxy";
  upstream?: string;
  stdio?: "inherit";
}): Promise<{ url: string; close(): Promise<void> }>;
