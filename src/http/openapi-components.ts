// zod turns a schema given an id (`.meta({ id })`) into a `$defs` entry of each route schema that
// uses it, referenced as `#/$defs/<id>`. In an OpenAPI document `#` is the document itself, so
// those references would dangle: this moves every `$defs` entry to components/schemas, once,
// and points the references there. Clients then get one named type per shared shape.

type Json = unknown;
type JsonObject = Record<string, Json>;

const LOCAL_DEFS = '#/$defs/';
const COMPONENTS = '#/components/schemas/';

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every object of a JSON value, depth first (the document is a tree: no cycles). */
function visit(value: Json, onObject: (object: JsonObject) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, onObject);
    return;
  }
  if (!isObject(value)) return;
  onObject(value);
  for (const member of Object.values(value)) visit(member, onObject);
}

/**
 * Hoists the `$defs` of every schema of the document into components/schemas (in place) and
 * returns the document. Two different shapes under one id are a mistake in the answer
 * schemas: it throws rather than publish one of them under the other's name.
 */
export function hoistSchemaDefinitions<T extends object>(document: T): T {
  const root = document as JsonObject;
  const components = (isObject(root.components) ? root.components : (root.components = {})) as JsonObject;
  const schemas = (isObject(components.schemas) ? components.schemas : (components.schemas = {})) as JsonObject;
  const hoisted: Array<[string, Json]> = [];
  visit(root.paths, (object) => {
    if (!isObject(object.$defs)) return;
    hoisted.push(...Object.entries(object.$defs));
    delete object.$defs;
  });
  for (const [id, definition] of hoisted) {
    const existing = schemas[id];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(definition)) {
      throw new Error(`Two different answer schemas share the component id ${id}.`);
    }
    schemas[id] = definition;
  }
  visit(root, (object) => {
    const ref = object.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(LOCAL_DEFS)) return;
    const id = ref.slice(LOCAL_DEFS.length);
    // A named schema at the root of an answer loses its $defs beside the $ref: give it no id.
    if (schemas[id] === undefined) throw new Error(`The document refers to ${ref}, which no answer schema defines.`);
    object.$ref = COMPONENTS + id;
  });
  // Sorted, so that the document does not change with the order routes are registered in.
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return document;
}
