// fast-check arbitraries read from the spec's schemas: the values a schema allows, so that tests can send random
// requests (the fuzz through Prism) and serve random answers (the tolerant-reader property test) without writing a
// single one by hand. `loose` reads a response schema as a real service may fill it: optional fields absent, nulls
// where allowed, any string where an enum is open, unknown keys in maps (named like Object.prototype's properties
// too) and unknown fields in objects.
import fc from "fast-check";
import { deref } from "./spec.js";

type Json = any; // schemas are walked dynamically

export interface SchemaArbitraryOptions {
  /** A response as a real service may send it (see above). Default false: values as the examples would be. */
  loose?: boolean;
  /** The values to draw from, by property or parameter name, instead of the schema's (ids that exist, e-mails). */
  pools?: Readonly<Record<string, readonly string[]>>;
}

/** Names a server may use for keys: ordinary ones, and those of Object.prototype's properties. */
const KEYS = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "") },
);
const MAX_DEPTH = 6;

/** An arbitrary of the values `schema` allows (`name`: the property or parameter it is the schema of). */
export function arbitraryOf(schema: Json, options: SchemaArbitraryOptions = {}, name = "", depth = 0): fc.Arbitrary<unknown> {
  const node = deref(schema);
  if (depth > MAX_DEPTH) return fc.constant(null);
  const pool = options.pools?.[name];
  return pool?.length ? fc.constantFrom(...pool) : plain(node, options, name, depth);
}

function plain(node: Json, options: SchemaArbitraryOptions, name: string, depth: number): fc.Arbitrary<unknown> {
  const loose = options.loose ?? false;
  if (node.const !== undefined) return fc.constant(node.const);
  if (node.enum) return fc.constantFrom(...node.enum);
  if (node.allOf) {
    // Every part is an object here (a map's known keys and its values): one object with each part's fields.
    return fc
      .tuple(...node.allOf.map((part: Json) => arbitraryOf(part, options, name, depth + 1)))
      .map((parts) => Object.assign(Object.create(null), ...(parts as object[])));
  }
  const union = node.anyOf ?? node.oneOf;
  if (union) return fc.oneof(...union.map((branch: Json) => arbitraryOf(branch, options, name, depth + 1)));
  const types: string[] = [node.type ?? "object"].flat();
  const nonNull = types.filter((type) => type !== "null");
  if (!nonNull.length) return fc.constant(null);
  const value = fc.oneof(...nonNull.map((type) => ofType(type, node, options, name, depth)));
  if (!types.includes("null")) return value;
  return loose ? fc.oneof(value, fc.constant(null)) : value;
}

function ofType(type: string, node: Json, options: SchemaArbitraryOptions, name: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringOf(node);
    case "integer":
      return fc.integer({
        min: node.minimum ?? (node.format === "int64" ? -(2 ** 40) : -1_000),
        max: node.maximum ?? (node.format === "int64" ? 2 ** 45 : 1_000_000),
      });
    case "number":
      return fc.double({ min: node.minimum ?? -1e9, max: node.maximum ?? 1e12, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(arbitraryOf(node.items ?? {}, options, name, depth + 1), {
        minLength: node.minItems ?? 0,
        maxLength: Math.min(node.maxItems ?? 4, 4),
      });
    case "object":
      return objectOf(node, options, depth);
    default:
      return fc.jsonValue();
  }
}

function stringOf(node: Json): fc.Arbitrary<string> {
  if (node.format === "date") {
    // Around the analytics window: before the first data day, in it, and up to yesterday.
    const yesterday = Math.floor(Date.now() / 86_400_000) - 1;
    return fc.integer({ min: yesterday - 700, max: yesterday }).map((day) => new Date(day * 86_400_000).toISOString().slice(0, 10));
  }
  if (node.format === "date-time")
    return fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((date) => date.toISOString());
  if (node.format === "uuid") return fc.uuid();
  if (node.format === "email") return fc.emailAddress();
  const minLength = node.minLength ?? 0;
  const maxLength = Math.min(node.maxLength ?? 24, Math.max(minLength, 24));
  return fc.string({ unit: "grapheme", minLength, maxLength });
}

function objectOf(node: Json, options: SchemaArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  const loose = options.loose ?? false;
  const properties = Object.entries<Json>(node.properties ?? {});
  const required = new Set<string>(node.required ?? []);
  // Each known field: always when required; optional ones present or absent (in the loose reading, absent often).
  const fields = properties.map(([key, schema]) => {
    const value = arbitraryOf(schema, options, key, depth + 1);
    return required.has(key)
      ? value.map((v) => [[key, v]] as Array<[string, unknown]>)
      : fc.option(
          value.map((v) => [[key, v]] as Array<[string, unknown]>),
          { nil: [], freq: loose ? 2 : 5 },
        );
  });
  const map = node.additionalProperties;
  const extras =
    map && map !== true
      ? fc.array(fc.tuple(KEYS, arbitraryOf(map, options, "", depth + 1)), { maxLength: 4 })
      : loose
        ? fc.array(
            fc.tuple(
              KEYS.filter((key) => !(node.properties && Object.hasOwn(node.properties, key))),
              fc.jsonValue({ maxDepth: 2 }),
            ),
            { maxLength: 2 },
          )
        : fc.constant([] as Array<[string, unknown]>);
  // Object.fromEntries defines each key as the object's own (a key "__proto__" is a field, not its prototype).
  return fc
    .tuple(fc.tuple(...fields), extras)
    .map(([known, extra]) =>
      Object.fromEntries([...(extra as Array<[string, unknown]>), ...(known as Array<Array<[string, unknown]>>).flat()]),
    );
}
