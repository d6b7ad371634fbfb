// Validates values against the bundled spec's schemas with Ajv (JSON Schema 2020-12, the spec's
// `jsonSchemaDialect`) and ajv-formats: the validator and formats Prism validates with. OpenAPI's own keywords
// (`discriminator`, `x-…`) are annotations here, as in JSON Schema: each `oneOf` decides by its variants alone.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { spec } from "../support/spec.js";

const SPEC_ID = "https://orgagent.test/openapi.json";

// ajv-formats is CommonJS: its default export, seen from ESM, is the module object or the function itself.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// A secret is any string; the format only tells tools to mask it.
ajv.addFormat("password", true);
ajv.addSchema({ ...spec, $id: SPEC_ID });

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

function compiled(path: string): ValidateFunction {
  const validate = ajv.getSchema(`${SPEC_ID}#/${path}`);
  if (!validate) throw new Error(`No schema at #/${path} in the spec`);
  return validate;
}

export interface Verdict {
  valid: boolean;
  errors: string[];
}

function verdict(validate: ValidateFunction, value: unknown): Verdict {
  const valid = validate(value) as boolean;
  const errors = (validate.errors ?? []).map((error: ErrorObject) => `${error.instancePath || "/"} ${error.message}`);
  return { valid, errors: valid ? [] : errors };
}

/** `value` against `components.schemas[name]`. */
export function validateSchema(name: string, value: unknown): Verdict {
  if (!spec.components.schemas[name]) throw new Error(`No schema ${name} in the spec`);
  return verdict(compiled(pointer("components", "schemas", name)), value);
}

/** `value` against the JSON body schema of an operation's response (`method` lower case), shared responses included. */
export function validateResponse(path: string, method: string, status: string, value: unknown): Verdict {
  const ref: string | undefined = spec.paths[path]?.[method]?.responses?.[status]?.$ref;
  const response = ref ? ref.slice(2) : pointer("paths", path, method, "responses", status);
  return verdict(compiled(`${response}/${pointer("content", "application/json", "schema")}`), value);
}
