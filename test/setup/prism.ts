// Global setup: one Prism mock of the bundled spec on a free loopback port for the whole run.
import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startPrism } from "../../scripts/prism.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    prismUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const prism = await startPrism();
  project.provide("prismUrl", prism.url);
  return () => prism.close();
}
