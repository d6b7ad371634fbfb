// Derives from the bundled spec one MCP tool per operation (`orgagent mcp`): its name (the operationId), title and
// description, a self-contained JSON Schema of its input (parameters and body fields side by side, every $ref
// inlined), annotations from the method, where each argument goes (path, query or body), the paging rule and the
// operation's `x-effect`. A new operation in the spec is a new tool after `npm run generate`.
import { deref } from "./spec-tables.mjs";

const METHODS = ["get", "put", "post", "delete", "patch"];
// OpenAPI's own keywords and annotations a tool's input schema does without: not JSON Schema (discriminator, xml,
// externalDocs), or bytes a model does not need (titles name the spec's components, examples are long).
const DROPPED = new Set(["discriminator", "xml", "externalDocs", "example", "examples", "title", "readOnly", "writeOnly"]);
const EFFECTS = new Set(["spends-credits", "starts-work", "changes-settings"]);

/**
 * `schema` with every local $ref inlined (a $ref's siblings, such as its description, win over the target's), OpenAPI
 * keywords and `x-` extensions dropped, and properties marked readOnly left out (a request never carries them). A
 * component that refers to itself goes to `defs` and is referred to as `#/$defs/<name>`, so the result stays
 * self-contained.
 */
function inputSchema(spec, schema, defs, stack = []) {
  if (Array.isArray(schema)) return schema.map((item) => inputSchema(spec, item, defs, stack));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    const { $ref, ...siblings } = schema;
    const name = $ref.split("/").pop();
    if (stack.includes($ref)) {
      if (!defs.has(name)) {
        defs.set(name, null); // reserved while it is expanded
        defs.set(name, inputSchema(spec, deref(spec, schema), defs, [$ref]));
      }
      return { ...clean(spec, siblings, defs, stack), $ref: `#/$defs/${name}` };
    }
    return { ...inputSchema(spec, deref(spec, { $ref }), defs, [...stack, $ref]), ...clean(spec, siblings, defs, stack) };
  }
  return clean(spec, schema, defs, stack);
}

function clean(spec, schema, defs, stack) {
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith("x-")) continue;
    if (key === "properties") {
      out.properties = {};
      for (const [name, property] of Object.entries(value)) {
        if (deref(spec, property)?.readOnly) continue;
        out.properties[name] = inputSchema(spec, property, defs, stack);
      }
    } else if (key === "required") {
      const readOnly = (name) => deref(spec, schema.properties?.[name])?.readOnly;
      out.required = value.filter((name) => !readOnly(name));
    } else if (key === "description") out.description = value.trim();
    else out[key] = typeof value === "object" ? inputSchema(spec, value, defs, stack) : value;
  }
  return out;
}

/** The text of a tool: the operation's summary and description, and what a list answer holds. */
function toolDescription(op) {
  const parts = [op.summary?.trim(), op.description?.trim()].filter(Boolean);
  if (op["x-pagination"]) {
    parts.push(
      `This tool pages through the list for you: one call returns whole pages up to the server's bound on items, ` +
        `with \`next_cursor\` when more exist (pass it as \`${op["x-pagination"].cursorParam}\` to continue).`,
    );
  }
  return parts.join("\n\n");
}

export function buildMcpTools(spec) {
  const tools = {};
  for (const rawItem of Object.values(spec.paths)) {
    const item = deref(spec, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const defs = new Map();
      const properties = {};
      const required = [];
      const args = {};
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const param = deref(spec, raw);
        if (param.in !== "path" && param.in !== "query") continue; // headers and cookies: the SDK sets its own
        properties[param.name] = {
          ...inputSchema(spec, param.schema, defs),
          ...(param.description ? { description: param.description.trim() } : {}),
        };
        if (param.required) required.push(param.name);
        args[param.name] = param.in;
      }
      const requestBody = op.requestBody ? deref(spec, op.requestBody) : undefined;
      const bodySchema = requestBody?.content?.["application/json"]?.schema;
      let body;
      if (bodySchema) {
        const schema = inputSchema(spec, bodySchema, defs);
        const fields = schema.type === "object" && schema.properties ? Object.keys(schema.properties) : [];
        // The body's fields sit beside the parameters, as a caller writes them, unless a name is taken or the body
        // is not an object of named fields: then it is one argument, `body`.
        if (fields.length && !fields.some((name) => name in properties) && !("body" in properties)) {
          for (const name of fields) {
            properties[name] = schema.properties[name];
            args[name] = "body";
          }
          if (requestBody.required) required.push(...(schema.required ?? []));
          body = "fields";
        } else {
          properties.body = { ...schema, ...(requestBody.description ? { description: requestBody.description.trim() } : {}) };
          if (requestBody.required) required.push("body");
          args.body = "body";
          body = "whole";
        }
      }
      const effect = op["x-effect"];
      if (effect !== undefined && !EFFECTS.has(effect)) {
        throw new Error(`${op.operationId}: x-effect ${JSON.stringify(effect)} is not one of ${[...EFFECTS].join(", ")}`);
      }
      const read = method === "get";
      tools[op.operationId] = {
        name: op.operationId,
        title: op.summary?.trim() ?? op.operationId,
        description: toolDescription(op),
        method: method.toUpperCase(),
        inputSchema: {
          type: "object",
          properties,
          ...(required.length ? { required } : {}),
          additionalProperties: false,
          ...(defs.size ? { $defs: Object.fromEntries(defs) } : {}),
        },
        // MCP's hints from HTTP's meaning of the method: GET reads; PUT replaces (destructive, idempotent); DELETE
        // removes (destructive, idempotent); POST and PATCH add or change, and sending one twice may do it twice.
        annotations: {
          title: op.summary?.trim() ?? op.operationId,
          readOnlyHint: read,
          ...(read
            ? {}
            : {
                destructiveHint: method === "put" || method === "delete" || method === "patch",
                idempotentHint: method === "put" || method === "delete",
              }),
        },
        arguments: args,
        ...(body ? { body } : {}),
        ...(op["x-pagination"] ? { pagination: op["x-pagination"] } : {}),
        ...(read ? {} : { effect: effect ?? "changes-data" }),
      };
    }
  }
  return tools;
}

/**
 * The spec's own guide, for the docs-search tool: the introduction cut at its `##` headings, and each tag's
 * description.
 */
export function buildMcpGuide(spec) {
  const sections = [];
  let heading = spec.info.title;
  let lines = [];
  const flush = () => {
    const text = lines.join("\n").trim();
    if (text) sections.push({ heading, text });
  };
  for (const line of (spec.info.description ?? "").split("\n")) {
    const match = /^##\s+(.*)$/.exec(line);
    if (!match) {
      lines.push(line);
      continue;
    }
    flush();
    heading = match[1].trim();
    lines = [];
  }
  flush();
  for (const tag of spec.tags ?? []) if (tag.description) sections.push({ heading: tag.name, text: tag.description.trim() });
  return sections;
}

export function renderMcpTools(tools, guide) {
  return [
    "/** One MCP tool of `orgagent mcp`, derived from one operation of the spec. */",
    "export interface McpToolSpec {",
    "  /** The operationId. */",
    "  readonly name: string;",
    "  readonly title: string;",
    "  /** The operation's summary and description, and how a list pages. */",
    "  readonly description: string;",
    '  readonly method: "GET" | "PUT" | "POST" | "DELETE" | "PATCH";',
    "  /** JSON Schema (2020-12) of the arguments, self-contained: every $ref inlined, recursive ones in `$defs`. */",
    '  readonly inputSchema: { readonly type: "object"; readonly properties: Readonly<Record<string, object>>; readonly required?: readonly string[]; readonly [keyword: string]: unknown };',
    "  readonly annotations: { readonly title: string; readonly readOnlyHint: boolean; readonly destructiveHint?: boolean; readonly idempotentHint?: boolean };",
    "  /** Where each argument goes. */",
    '  readonly arguments: Readonly<Record<string, "path" | "query" | "body">>;',
    "  /** `fields`: the body's fields are arguments of their own; `whole`: the body is the argument `body`. */",
    '  readonly body?: "fields" | "whole";',
    "  /** The operation's `x-pagination`. */",
    "  readonly pagination?: { readonly items: string; readonly cursorParam: string; readonly limitParam?: string; readonly [key: string]: string | undefined };",
    "  /** A write's `x-effect`; `changes-data` when the spec names none. */",
    '  readonly effect?: "spends-credits" | "starts-work" | "changes-settings" | "changes-data";',
    "}",
    "",
    "/** Every operation's tool, by operationId. */",
    `export const mcpTools: Readonly<Record<string, McpToolSpec>> = ${JSON.stringify(tools, null, 2)};`,
    "",
    "/** The spec's introduction by section, and each tag's description: what the docs-search tool searches besides the tools. */",
    `export const mcpGuide: readonly { readonly heading: string; readonly text: string }[] = ${JSON.stringify(guide, null, 2)};`,
    "",
  ].join("\n");
}
