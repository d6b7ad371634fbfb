// Generates the SDK's resource classes (generated/resources.ts) from the bundled spec: every operation with
// `x-sdk: { resource, method }` becomes `client.<resource>.<method>(…)`, a one-line typed method over the request
// hub, with the spec's summary and description as its doc comment. Path parameters come first, in path order, then
// one object of query parameters or the body, then the request options. A list (`x-pagination`) returns a
// PagePromise of its items (with date windows, `concurrency`, when it has an `x-date-range` pair);
// `x-sdk.responseByParam` gives an overload per value of the parameter that picks the answer's schema; `x-sdk.custom`
// leaves the method abstract, for a hand-written subclass in src/ (a helper that is more than one call).
import { deref } from "./spec-tables.mjs";

const METHODS = ["get", "put", "post", "delete", "patch"];
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const pascal = (name) => name.charAt(0).toUpperCase() + name.slice(1);
const key = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const refName = (node) =>
  typeof node?.$ref === "string" && node.$ref.startsWith("#/components/schemas/") ? node.$ref.slice(21) : undefined;

/** The TypeScript type of a schema node: its component's name when it is one, else `fallback`. */
function typeOf(node, fallback) {
  const name = refName(node);
  return name ? `api.${name}` : fallback;
}

/** A doc comment from the spec's summary and description (the summary alone with `brief`). */
function docComment(op, indent, brief = false) {
  const text = [op.summary, brief ? undefined : op.description?.trim()].filter(Boolean).join("\n\n").replace(/\*\//g, "*\\/");
  const lines = text.split("\n").map((line) => `${indent} *${line ? ` ${line}` : ""}`);
  return [`${indent}/**`, ...lines, `${indent} */`].join("\n");
}

/** Every operation of the spec with its `x-sdk`, in the order of the spec's paths. */
export function sdkOperations(spec) {
  const found = [];
  for (const [path, rawItem] of Object.entries(spec.paths)) {
    const item = deref(spec, rawItem);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const sdk = op["x-sdk"];
      if (!sdk?.resource || !sdk?.method) throw new Error(`${op.operationId}: x-sdk with resource and method is required`);
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(spec, p));
      found.push({ path, method, op, sdk, params });
    }
  }
  return found;
}

/**
 * How a method's arguments follow from its operation: the path parameters in the order of the path, then one
 * object (`object`): the query parameters, the JSON body, or both in one; then the request options.
 */
export function signatureOf(spec, path, op) {
  const item = deref(spec, spec.paths[path]);
  const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(spec, p));
  const pathNames = [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]);
  const query = params.filter((p) => p.in === "query");
  const body = op.requestBody ? deref(spec, op.requestBody) : undefined;
  const hasBody = Boolean(body?.content?.["application/json"]?.schema);
  const object = query.length && hasBody ? "both" : query.length ? "query" : hasBody ? "body" : undefined;
  const objectRequired = query.some((p) => p.required) || (object === "body" && Boolean(body.required)) || object === "both";
  return { pathNames, query, body: hasBody ? body : undefined, object, objectRequired };
}

/** The success response's JSON schema node (a $ref or an inline schema). */
function successSchema(spec, op) {
  const code = Object.keys(op.responses).find((status) => /^2\d\d$/.test(status));
  return deref(spec, op.responses[code])?.content?.["application/json"]?.schema;
}

/**
 * The type of an answer whose schema the caller's value picks at run time: the first variant's envelope, with its one
 * array property holding the items of every variant. Without such a property, the union of the variants.
 */
function mergedVariants(spec, variants) {
  const bodies = variants.map((variant) => deref(spec, variant));
  const arrays = Object.keys(bodies[0].properties ?? {}).filter((name) =>
    bodies.every((body) => deref(spec, body.properties?.[name])?.type === "array"),
  );
  if (arrays.length !== 1) return variants.map((variant) => typeOf(variant, "unknown")).join(" | ");
  const [items] = arrays;
  const itemTypes = variants.map((variant, i) =>
    typeOf(deref(spec, bodies[i].properties[items]).items, `${typeOf(variant, "unknown")}[${JSON.stringify(items)}][number]`),
  );
  return `Omit<${typeOf(variants[0], "unknown")}, ${JSON.stringify(items)}> & { ${key(items)}: Array<${itemTypes.join(" | ")}> }`;
}

/** One resource method (or its overloads, or its abstract declaration), and any type it needs. */
function renderMethod(spec, { path, op, sdk, params }) {
  const id = op.operationId;
  const doc = docComment(op, "  ");
  const name = sdk.method;
  if (sdk.custom) return { code: `${doc}\n  abstract ${name}(...args: never[]): unknown;`, types: [] };

  const { pathNames, query, body } = signatureOf(spec, path, op);
  const pathArgs = pathNames.map((param) => {
    const schema = deref(spec, params.find((p) => p.in === "path" && p.name === param)?.schema);
    const type = schema?.type === "integer" || schema?.type === "number" ? "number" : schema?.type === "boolean" ? "boolean" : "string";
    return `${param}: ${type}`;
  });
  const queryRequired = query.some((p) => p.required);
  const bodySchema = body?.content?.["application/json"]?.schema;
  const bodyType = bodySchema ? typeOf(bodySchema, `RequestBody<${JSON.stringify(id)}>`) : undefined;

  const types = [];
  const response = successSchema(spec, op);
  let result = typeOf(response, `ResponseBody<${JSON.stringify(id)}>`);
  const paging = op["x-pagination"];
  let options = "RequestOptions";
  if (paging) {
    const page = deref(spec, response);
    const item = typeOf(deref(spec, page.properties?.[paging.items])?.items, `${result}[${JSON.stringify(paging.items)}][number]`);
    result = `PagePromise<${result}, ${item}>`;
    const windowed = query.some((p) => deref(spec, p.schema)?.["x-date-range"]?.notBefore);
    options = `RequestOptions & PageOptions${windowed ? " & WindowOptions" : ""}`;
  } else result = `APIPromise<${result}>`;

  // The object of query parameters and body fields: the query, the body, or both in one object.
  let objectArg;
  let hubParams;
  const pathPart = pathNames.length ? `path: { ${pathNames.join(", ")} }` : undefined;
  const queryType = `QueryParams<${JSON.stringify(id)}>`;
  const optionalQuery = !queryRequired;
  if (query.length && bodyType) {
    objectArg = `params: ${queryType} & ${bodyType}`;
    const names = query.map((p) => key(p.name));
    hubParams = {
      prelude: `const { ${names.join(", ")}, ...body } = params;`,
      parts: [pathPart, `query: { ${names.join(", ")} }`, "body"],
    };
  } else if (query.length) {
    objectArg = `query${optionalQuery ? "?" : ""}: ${queryType}`;
    hubParams = { parts: [pathPart, "query"] };
  } else if (bodyType) {
    objectArg = `body${body.required ? "" : "?"}: ${bodyType}`;
    hubParams = { parts: [pathPart, "body"] };
  } else hubParams = { parts: [pathPart] };
  const args = [...pathArgs, ...(objectArg ? [objectArg] : []), `options?: ${options}`].join(", ");
  const parts = hubParams.parts.filter(Boolean);
  const call = `this._hub.request(${JSON.stringify(id)}, ${parts.length ? `{ ${parts.join(", ")} }` : "undefined"}, options)`;
  const implementation = `${hubParams.prelude ? `    ${hubParams.prelude}\n` : ""}    return ${call};`;

  const byParam = sdk.responseByParam;
  if (!byParam) return { code: `${doc}\n  ${name}(${args}): ${result} {\n${implementation}\n  }`, types };
  // One overload per value of the parameter, one without it, and one for a value known only at run time.
  const title = deref(spec, response)?.title ?? `${pascal(name)}Response`;
  const variants = deref(spec, response).anyOf ?? deref(spec, response).oneOf;
  types.push(
    `/** ${deref(spec, response).description?.trim().replace(/\s+/g, " ") ?? `The answer of ${id}.`} */\nexport type ${title} = ${mergedVariants(spec, variants)};`,
  );
  const withValue = (value) => args.replace(`${queryType}`, `${queryType} & { ${key(byParam.param)}: ${JSON.stringify(value)} }`);
  // The whole doc on the first overload, the summary with what each other one is for.
  const brief = (what) => docComment({ summary: `${op.summary}: ${what}.` }, "  ", true);
  const overloads = [
    ...Object.entries(byParam.values).map(
      ([value, schema], i) =>
        `${i === 0 ? doc : brief(`with \`${byParam.param}: ${JSON.stringify(value)}\``)}\n  ${name}(${withValue(value)}): APIPromise<api.${schema}>;`,
    ),
    `${brief(`without \`${byParam.param}\``)}\n  ${name}(${args.replace(queryType, `${queryType} & { ${key(byParam.param)}?: undefined }`)}): APIPromise<api.${byParam.absent}>;`,
    `${brief(`\`${byParam.param}\` known only at run time: rows of either shape`)}\n  ${name}(${args}): APIPromise<${title}>;`,
  ];
  return { code: `${overloads.join("\n")}\n  ${name}(${args}) {\n${implementation}\n  }`, types };
}

export function renderResources(spec) {
  const byResource = new Map();
  for (const operation of sdkOperations(spec)) {
    const list = byResource.get(operation.sdk.resource) ?? [];
    list.push(operation);
    byResource.set(operation.sdk.resource, list);
  }
  const classes = [];
  const types = [];
  for (const [resource, operations] of byResource) {
    const methods = operations.map((operation) => renderMethod(spec, operation));
    types.push(...methods.flatMap((method) => method.types));
    const abstract = operations.some(({ sdk }) => sdk.custom) ? "abstract " : "";
    const ids = operations.map(({ op }) => op.operationId).join(", ");
    classes.push(
      `/** \`client.${resource}\`: ${ids}. */\nexport ${abstract}class ${pascal(resource)} extends APIResource {\n${methods.map((method) => method.code).join("\n\n")}\n}`,
    );
  }
  const map = [...byResource.keys()].map((resource) => `  ${key(resource)}: ${pascal(resource)},`).join("\n");
  const code = [...types, ...classes].join("\n");
  // Each module's names, imported when the code uses them.
  const imports = [
    ["../src/core/operation-types.js", ["QueryParams", "RequestBody", "ResponseBody"]],
    ["../src/core/options.js", ["RequestOptions"]],
    ["../src/core/pagination.js", ["PageOptions", "PagePromise"]],
    ["../src/core/response.js", ["APIPromise"]],
    ["../src/core/windows.js", ["WindowOptions"]],
  ]
    .map(([module, names]) => [module, names.filter((name) => new RegExp(`\\b${name}\\b`).test(code))])
    .filter(([, names]) => names.length)
    .map(([module, names]) => `import type { ${names.join(", ")} } from "${module}";`);
  return [
    'import { APIResource } from "../src/core/resource.js";',
    ...imports,
    'import type * as api from "./openapi.js";',
    "",
    ...types.flatMap((type) => [type, ""]),
    ...classes.flatMap((code) => [code, ""]),
    "/** Every resource class, by the name of the client property that holds it (`x-sdk.resource`). */",
    `export const resources = {\n${map}\n};`,
    "",
  ].join("\n");
}
