// One OpenAPI document per host, cut from the combined bundle. The API is served by two hosts (readiness reports by
// the app host, everything else by the API host) and the combined document says so with a path-level `servers`,
// which most client generators ignore: they send every call to the root server. A per-host document has a single
// root server and only that host's paths, so any generator's client reaches the right host with its default.
import { deref } from "./spec-tables.mjs";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** Every `#/components/...` reference reachable from `roots`, following references inside components. */
function reachableRefs(spec, roots) {
  const seen = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/")) {
        if (seen.has(value)) continue;
        seen.add(value);
        visit(deref(spec, { $ref: value }));
      } else if (key === "mapping" && value && typeof value === "object") {
        // A discriminator's mapping names schemas by reference, as plain strings.
        for (const target of Object.values(value)) if (typeof target === "string") visit({ $ref: target });
      } else visit(value);
    }
  };
  visit(roots);
  return seen;
}

/** The file stem of a host's document: the first label of its server's host name (`api`, `app`). */
export function bundleStem(server) {
  return new URL(server.url).hostname.split(".")[0];
}

/**
 * Splits the bundled spec by host: `{ [hostName]: { stem, document } }`. Each document has the host's server as
 * its only root server, the paths that host serves (without path-level `servers`), the components and tags they
 * use, and, for the root host, the `webhooks` (the local hook payloads, whose types belong with the API client).
 */
export function splitByHost(spec) {
  const rootServer = spec.servers[0];
  const byHost = new Map();
  const hostOf = (server) => {
    const name = server["x-host-name"];
    if (!byHost.has(name)) byHost.set(name, { server, paths: {} });
    return byHost.get(name);
  };
  hostOf(rootServer);
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const { servers, ...item } = deref(spec, rawItem);
    if (METHODS.some((method) => item[method]?.servers)) throw new Error(`${path}: operation-level servers are not supported`);
    hostOf(servers?.[0] ?? rootServer).paths[path] = item;
  }

  const documents = {};
  for (const [name, { server, paths }] of byHost) {
    const webhooks = server === rootServer ? spec.webhooks : undefined;
    const used = reachableRefs(spec, [paths, webhooks]);
    const components = {};
    for (const [kind, entries] of Object.entries(spec.components ?? {})) {
      const kept = Object.entries(entries).filter(([entry]) => kind === "securitySchemes" || used.has(`#/components/${kind}/${entry}`));
      if (kept.length) components[kind] = Object.fromEntries(kept);
    }
    const operations = [paths, webhooks ?? {}].flatMap((items) =>
      Object.values(items).flatMap((item) => METHODS.flatMap((method) => (item[method] ? [item[method]] : []))),
    );
    const tagNames = new Set(operations.flatMap((op) => op.tags ?? []));
    const { paths: _paths, webhooks: _webhooks, components: _components, servers: _servers, tags, ...rest } = spec;
    documents[name] = {
      stem: bundleStem(server),
      document: {
        ...rest,
        servers: [server],
        ...(tags ? { tags: tags.filter((tag) => tagNames.has(tag.name)) } : {}),
        paths,
        ...(webhooks ? { webhooks } : {}),
        components,
      },
    };
  }
  return documents;
}
