// The fields of `orgagent api`, in gh's syntax: `-f key=value` is a string, `-F key=value` a typed value (a JSON
// number, true, false, null, or `@file` / `@-` read as text), and `key[sub]=v`, `key[]=v` and `key[][sub]=v` build
// nested objects and arrays. The result is built from null-prototype objects, so that a key such as `__proto__` is
// a key like any other.
import { CliError, EXIT } from "./errors.js";

export type FieldValue = string | number | boolean | null | FieldValue[] | FieldObject;
export interface FieldObject {
  [key: string]: FieldValue;
}

/** One `-f` or `-F` as given, in the order given. */
export interface RawField {
  readonly text: string;
  readonly typed: boolean;
}

/** Reads the text of `@file` (`@-`: standard input). */
export type ReadText = (path: string) => string;

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export function newObject(): FieldObject {
  return Object.create(null) as FieldObject;
}

/** The value of a typed field (`-F`): a JSON number, true, false or null, `@file` as text, else the string. */
export function typedValue(text: string, read: ReadText): FieldValue {
  if (text.startsWith("@")) return read(text.slice(1));
  if (NUMBER.test(text)) return Number(text);
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  return text;
}

/** Every field in one object, nested as their keys say (gh's rules, including `key[]` alone for an empty array). */
export function parseFields(fields: readonly RawField[], read: ReadText): FieldObject {
  const params = newObject();
  for (const field of fields) addField(params, field, read);
  return params;
}

function flag(field: RawField): string {
  return `${field.typed ? "-F" : "-f"} ${field.text}`;
}

function addField(params: FieldObject, field: RawField, read: ReadText): void {
  const { text } = field;
  const equals = text.indexOf("=");
  const key = equals === -1 ? text : text.slice(0, equals);
  const keys = keyPath(key);
  if (!keys || keys[0] === "") {
    throw new CliError(
      `${flag(field)}: invalid key ${JSON.stringify(key)}.`,
      EXIT.usage,
      "Write key=value, key[sub]=value or key[]=value.",
    );
  }
  let value: FieldValue | undefined;
  if (equals === -1) {
    if (keys.at(-1) !== "")
      throw new CliError(
        `${flag(field)}: a field needs a value after '='.`,
        EXIT.usage,
        "Write key=value (key[] alone is an empty array).",
      );
  } else {
    const raw = text.slice(equals + 1);
    value = field.typed ? typedValue(raw, read) : raw;
  }

  // Walk down the keys: `a[b][]` is a → b → array; `a[][b]` is a → array of objects → b.
  let target = params;
  let isArray = false;
  let name: string | undefined;
  for (const part of keys) {
    if (part === "") {
      isArray = true;
      continue;
    }
    if (name !== undefined) target = isArray ? objectInArray(target, name, part, field) : childObject(target, name, field);
    isArray = false;
    name = part;
  }
  const last = name!;
  if (isArray) {
    const existing = Object.hasOwn(target, last) ? target[last] : undefined;
    if (existing !== undefined && !Array.isArray(existing)) throw conflict(field, last, "an array");
    const list = (existing as FieldValue[] | undefined) ?? [];
    if (value !== undefined) list.push(value);
    target[last] = list;
  } else {
    if (Object.hasOwn(target, last))
      throw new CliError(
        `${flag(field)}: ${JSON.stringify(last)} is given twice.`,
        EXIT.usage,
        "Give each field once; key[]=value adds to an array.",
      );
    target[last] = value!;
  }
}

/** `a[b][]` → ["a", "b", ""]; undefined for a key with unbalanced brackets. */
function keyPath(key: string): string[] | undefined {
  const match = /^([^[\]]*)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) return undefined;
  return [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
}

function childObject(target: FieldObject, name: string, field: RawField): FieldObject {
  const existing = Object.hasOwn(target, name) ? target[name] : undefined;
  if (existing === undefined) return (target[name] = newObject());
  if (isObject(existing)) return existing;
  throw conflict(field, name, "an object");
}

/** The object of `name[]` that the key `next` goes in: the last one, unless it has `next` already (then a new one). */
function objectInArray(target: FieldObject, name: string, next: string, field: RawField): FieldObject {
  const existing = Object.hasOwn(target, name) ? target[name] : undefined;
  if (existing !== undefined && !Array.isArray(existing)) throw conflict(field, name, "an array");
  const list = (existing as FieldValue[] | undefined) ?? (target[name] = []);
  const last = list.at(-1);
  if (isObject(last) && (!Object.hasOwn(last, next) || Array.isArray(last[next]))) return last;
  const created = newObject();
  list.push(created);
  return created;
}

function isObject(value: FieldValue | undefined): value is FieldObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function conflict(field: RawField, name: string, expected: string): CliError {
  return new CliError(
    `${flag(field)}: ${JSON.stringify(name)} is ${expected} here but was given otherwise before.`,
    EXIT.usage,
    "Give each field one shape.",
  );
}
