// For the tests: check a document against the CLI's JSON Schemas (packages/cli/schemas). Only what
// those schemas use — type, const, enum, properties, required, additionalProperties, items,
// anyOf, allOf, minimum, $ref within and across the files — so a schema using more fails loudly.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

type Schema = Record<string, unknown>;

export const SCHEMA_DIR = path.resolve(import.meta.dirname, "..", "schemas");

const KNOWN = new Set([
  ...["$schema", "$id", "$defs", "$ref", "title", "description", "type", "const", "enum"],
  ...["properties", "required", "additionalProperties", "items", "anyOf", "allOf", "minimum"],
]);

/** Every schema file, by file name. */
export function loadSchemas(): Map<string, Schema> {
  return new Map(
    readdirSync(SCHEMA_DIR)
      .filter((name) => name.endsWith(".schema.json"))
      .map((name) => [name, JSON.parse(readFileSync(path.join(SCHEMA_DIR, name), "utf8"))]),
  );
}

const typeOf = (value: unknown) =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : Number.isInteger(value)
        ? "integer"
        : typeof value;

/** The problems with `value` against the schema in `file` (none: it conforms). */
export function check(schemas: Map<string, Schema>, file: string, value: unknown): string[] {
  const problems: string[] = [];
  const resolve = (ref: string, base: string): [Schema, string] => {
    const [target = "", pointer = ""] = ref.split("#");
    const name = target === "" ? base : target;
    let node: unknown = schemas.get(name);
    if (node === undefined) throw new Error(`${base}: $ref to a missing file ${name}`);
    for (const part of pointer.split("/").filter(Boolean)) node = (node as Schema)[part];
    if (node === undefined) throw new Error(`${base}: $ref ${ref} names nothing`);
    return [node as Schema, name];
  };
  const walk = (schema: Schema, base: string, value: unknown, at: string): boolean => {
    const before = problems.length;
    for (const key of Object.keys(schema))
      if (!KNOWN.has(key)) throw new Error(`${base}: the checker does not know "${key}"`);
    if (typeof schema.$ref === "string") {
      const [target, name] = resolve(schema.$ref, base);
      walk(target, name, value, at);
    }
    const types = schema.type === undefined ? [] : [schema.type].flat();
    const actual = typeOf(value);
    if (
      types.length > 0 &&
      !types.some((type) => type === actual || (type === "number" && actual === "integer"))
    )
      problems.push(`${at}: is ${actual}, not ${types.join(" or ")}`);
    if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
      problems.push(`${at}: is ${JSON.stringify(value)}, not ${JSON.stringify(schema.const)}`);
    if (Array.isArray(schema.enum) && !schema.enum.includes(value))
      problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
    if (typeof schema.minimum === "number" && typeof value === "number" && value < schema.minimum)
      problems.push(`${at}: ${value} is below ${schema.minimum}`);
    if (actual === "object") {
      const object = value as Record<string, unknown>;
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      for (const name of (schema.required ?? []) as string[])
        if (!(name in object)) problems.push(`${at}: "${name}" is missing`);
      for (const [name, field] of Object.entries(object)) {
        if (properties[name]) walk(properties[name], base, field, `${at}.${name}`);
        else if (schema.additionalProperties === false)
          problems.push(`${at}: "${name}" is not in the schema`);
      }
    }
    if (actual === "array" && schema.items) {
      const items = schema.items as Schema;
      (value as unknown[]).forEach((item, index) => {
        walk(items, base, item, `${at}[${index}]`);
      });
    }
    for (const part of (schema.allOf ?? []) as Schema[]) walk(part, base, value, at);
    if (Array.isArray(schema.anyOf)) {
      const mark = problems.length;
      const fits = (schema.anyOf as Schema[]).some((option) => {
        const start = problems.length;
        const ok = walk(option, base, value, at);
        problems.length = start;
        return ok;
      });
      problems.length = mark;
      if (!fits) problems.push(`${at}: fits none of anyOf`);
    }
    return problems.length === before;
  };
  walk(schemas.get(file) ?? {}, file, value, "$");
  if (!schemas.has(file)) problems.push(`no schema file ${file}`);
  return problems;
}
