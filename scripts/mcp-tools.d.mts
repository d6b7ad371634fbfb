export function buildMcpTools(spec: unknown): Record<string, any>;
export function buildMcpGuide(spec: unknown): { heading: string; text: string }[];
export function renderMcpTools(tools: Record<string, unknown>, guide: { heading: string; text: string }[]): string;
