// Derives from the bundled spec the runtime tables the SDK needs, so src/ restates no fact of the spec:
// each operation's method, path and host; the bounds of every parameter and body field; its paging rule.
const RULE_KEYS = [
  "type",
  "format",
  "pattern",
  "enum",
  "const",
  "default",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "required",
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

/**
 * A union of bodies (`anyOf`/`oneOf`, e.g. an analytics response: daily or grouped envelope) as one schema: the
 * type and the required properties every variant shares, so the shape check holds whichever variant arrives.
 */
function sharedShape(spec, schema) {
  const variants = (schema?.anyOf ?? schema?.oneOf)?.map((variant) => deref(spec, variant));
  if (!variants) return schema;
  const [first, ...rest] = variants;
  const typeOf = (variant, name) => deref(spec, variant.properties?.[name])?.type;
  const shared = (name) => rest.every((v) => v.required?.includes(name) && typeOf(v, name) === typeOf(first, name));
  return {
    type: rest.every((variant) => variant.type === first.type) ? first.type : undefined,
    required: (first.required ?? []).filter(shared),
    properties: first.properties,
  };
}

/** Which host (`base_url`, `app_url`: the server's `x-host-name`) a server list addresses. */
function hostOf(servers) {
  const name = servers?.[0]?.["x-host-name"];
  if (typeof name !== "string") throw new Error(`server ${servers?.[0]?.url} must name its host with x-host-name`);
  return name;
}

export function buildSpecTables(spec) {
  const hosts = {};
  const collectHost = (servers) => {
    const name = hostOf(servers);
    hosts[name] = { default: servers[0].url };
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
      const successSchema = sharedShape(spec, deref(spec, deref(spec, op.responses[success])?.content?.["application/json"]?.schema));
      operations[op.operationId] = {
        operationId: op.operationId,
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
  for (const variant of deref(spec, spec.components?.schemas?.KnownHookInput)?.oneOf ?? []) {
    const rule = fieldRule(spec, variant);
    hookInputs[rule.properties.hook_event_name.const] = rule;
  }
  // Status lifecycles (`x-status-lifecycle`): which statuses are transient, settled or failed, by schema title.
  const statusLifecycles = {};
  for (const [name, schema] of Object.entries(spec.components?.schemas ?? {})) {
    if (schema["x-status-lifecycle"]) statusLifecycles[name] = schema["x-status-lifecycle"];
  }
  // The columns of a table of list items (analytics rows, paged items), by schema title: scalar fields, nested
  // objects as dotted names, arrays of objects left out. A CLI prints them as a header even for an empty list.
  const tableColumns = {};
  for (const op of Object.values(spec.paths).flatMap((item) => METHODS.map((m) => deref(spec, item)[m]).filter(Boolean))) {
    const success = Object.keys(op.responses).find((code) => /^2\d\d$/.test(code));
    const response = deref(spec, deref(spec, op.responses[success])?.content?.["application/json"]?.schema);
    // A body may be one envelope or a union of envelopes (daily or grouped analytics), each with one row type.
    for (const envelope of response?.anyOf ?? response?.oneOf ?? [response]) {
      const body = deref(spec, envelope);
      const itemsName = op["x-pagination"]?.items ?? (body?.properties?.data ? "data" : undefined);
      if (!itemsName) continue;
      const items = deref(spec, deref(spec, body.properties[itemsName])?.items);
      for (const variant of items?.anyOf ?? items?.oneOf ?? [items]) {
        const row = deref(spec, variant);
        if (row?.title) tableColumns[row.title] = flatColumns(spec, row);
      }
    }
  }
  return { hosts, pathHosts, operations, hookInputs, statusLifecycles, tableColumns };
}

function flatColumns(spec, schema, prefix = "", depth = 0) {
  const columns = [];
  for (const [name, raw] of Object.entries(propertiesOf(spec, schema))) {
    // A nullable object (`anyOf: [object, null]`) is that object.
    const branches = deref(spec, raw)
      .anyOf?.map((branch) => deref(spec, branch))
      .filter((branch) => branch.type !== "null");
    const field = branches?.length === 1 ? branches[0] : deref(spec, raw);
    const type = [field.type ?? (field.anyOf ? "any" : field.allOf ? "object" : undefined)].flat().find((t) => t !== "null");
    if (type === "object" && depth < 4) columns.push(...flatColumns(spec, field, `${prefix}${name}.`, depth + 1));
    else if (type === "array" && deref(spec, field.items)?.type === "object") continue;
    else columns.push(prefix + name);
  }
  return columns;
}

/** The properties a schema names, its `allOf` parts' included (an open map's known keys). */
function propertiesOf(spec, schema) {
  const node = deref(spec, schema);
  return Object.assign({}, ...(node.allOf ?? []).map((part) => propertiesOf(spec, part)), node.properties);
}

export function renderSpecTables({ hosts, pathHosts, operations, hookInputs, statusLifecycles, tableColumns }) {
  const json = (value) => JSON.stringify(value, null, 2);
  return [
    "/** Each host by name (the server's `x-host-name`), with the spec's server URL as default. */",
    `export const hosts = ${json(hosts)} as const;`,
    "",
    "/** Which host (by name) serves each path. */",
    `export const pathHosts = ${json(pathHosts)} as const;`,
    "",
    "/** Every operation by operationId: its id, method, path, host, success status, request bounds and paging rule. */",
    `export const operations = ${json(operations)} as const;`,
    "",
    "/** Rule of each known hook event's input, keyed by `hook_event_name`. */",
    `export const hookInputs = ${json(hookInputs)} as const;`,
    "",
    "/** `x-status-lifecycle` of each status schema: which statuses are transient, settled and failed. */",
    `export const statusLifecycles = ${json(statusLifecycles)} as const;`,
    "",
    "/** Table columns of each list-item schema: scalar fields, nested objects as dotted names. */",
    `export const tableColumns = ${json(tableColumns)} as const;`,
    "",
    "export type OperationId = keyof typeof operations;",
    "export type HostName = keyof typeof hosts;",
    "",
  ].join("\n");
}
