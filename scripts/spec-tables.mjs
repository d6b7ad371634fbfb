// Derives from the bundled spec the runtime tables the SDK needs, so src/ restates no fact of the spec:
// each operation's method, path and host; the bounds of every parameter and body field; its paging rule.
const RULE_KEYS = [
  "type", "format", "pattern", "enum", "const", "default",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "minLength", "maxLength", "minItems", "maxItems", "required",
];
const METHODS = ["get", "put", "post", "delete", "patch"];

/** Resolves local `#/...` refs of the bundled document. */
export function deref(spec, node) {
  while (node && typeof node.$ref === "string") {
    node = node.$ref
      .slice(2)
      .split("/")
      .reduce((at, key) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
  }
  return node;
}

/** The validation-relevant subset of a schema: bounds, types, nested properties and items. */
function fieldRule(spec, schema, depth = 0) {
  schema = deref(spec, schema);
  if (!schema || depth > 8) return {};
  const rule = {};
  for (const key of RULE_KEYS) if (schema[key] !== undefined) rule[key] = schema[key];
  if (schema["x-date-range"]) rule.dateRange = schema["x-date-range"];
  if (schema.properties) {
    rule.properties = {};
    for (const [name, sub] of Object.entries(schema.properties)) {
      rule.properties[name] = fieldRule(spec, sub, depth + 1);
    }
  }
  if (schema.items) rule.items = fieldRule(spec, schema.items, depth + 1);
  return rule;
}

/**
 * The top-level shape of a success body that the SDK checks before handing it over: its type, and each required
 * property with its JSON type (`any` when the spec gives a union). Only the top level is checked, so a service
 * that adds a field, or changes one deep inside, does not break callers; a body missing a required field does.
 */
function responseShape(spec, schema) {
  const shape = { type: schema.type };
  const required = {};
  for (const name of schema.required ?? []) {
    const type = deref(spec, schema.properties?.[name])?.type;
    required[name] = typeof type === "string" ? type : "any";
  }
  if (Object.keys(required).length) shape.required = required;
  return shape;
}

/** Which server variable (`base_url`, `app_url`) a server list addresses. */
function hostOf(servers) {
  const match = /^\{(\w+)\}/.exec(servers?.[0]?.url ?? "");
  if (!match) throw new Error(`server URL must start with a variable: ${servers?.[0]?.url}`);
  return match[1];
}

export function buildSpecTables(spec) {
  const hosts = {};
  const collectHost = (servers) => {
    const name = hostOf(servers);
    hosts[name] = { default: servers[0].variables?.[name]?.default ?? null };
    return name;
  };
  const rootHost = collectHost(spec.servers);
  const operations = {};
  const pathHosts = {};
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = deref(spec, rawItem);
    pathHosts[path] = item.servers ? collectHost(item.servers) : rootHost;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const host = op.servers ? collectHost(op.servers) : pathHosts[path];
      const params = {};
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = deref(spec, raw);
        params[p.name] = { in: p.in, required: Boolean(p.required), schema: fieldRule(spec, p.schema) };
      }
      const body = op.requestBody ? deref(spec, op.requestBody) : undefined;
      const bodySchema = body?.content?.["application/json"]?.schema;
      const success = Object.keys(op.responses).find((code) => /^2\d\d$/.test(code));
      const successSchema = deref(spec, deref(spec, op.responses[success])?.content?.["application/json"]?.schema);
      operations[op.operationId] = {
        method: method.toUpperCase(),
        path,
        host,
        successStatus: Number(success),
        params,
        ...(bodySchema ? { body: { required: Boolean(body.required), schema: fieldRule(spec, bodySchema) } } : {}),
        ...(successSchema ? { response: responseShape(spec, successSchema) } : {}),
        ...(op["x-pagination"] ? { pagination: op["x-pagination"] } : {}),
      };
    }
  }
  // Hook inputs (not HTTP): the rule of each known event, keyed by its `hook_event_name` constant.
  const hookInputs = {};
  for (const variant of deref(spec, spec.components?.schemas?.HookInput)?.oneOf ?? []) {
    const rule = fieldRule(spec, variant);
    hookInputs[rule.properties.hook_event_name.const] = rule;
  }
  return { hosts, pathHosts, operations, hookInputs };
}

export function renderSpecTables({ hosts, pathHosts, operations, hookInputs }) {
  const json = (value) => JSON.stringify(value, null, 2);
  return [
    "/** Server variable of each host, with the spec's documentation placeholder as default. */",
    `export const hosts = ${json(hosts)} as const;`,
    "",
    "/** Which host (server variable) serves each path. */",
    `export const pathHosts = ${json(pathHosts)} as const;`,
    "",
    "/** Every operation by operationId: method, path, host, success status, request bounds and paging rule. */",
    `export const operations = ${json(operations)} as const;`,
    "",
    "/** Rule of each known hook event's input, keyed by `hook_event_name`. */",
    `export const hookInputs = ${json(hookInputs)} as const;`,
    "",
    "export type OperationId = keyof typeof operations;",
    "export type HostName = keyof typeof hosts;",
    "",
  ].join("\n");
}
