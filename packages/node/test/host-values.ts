// The sdk-only host tags of event protocol 11.3 as Node values. Most become a value at once; the
// ones that depend on where they sit (a getter belongs to its parent object, `$cycle` and `$ref`
// point into the call's arguments) become placeholders that `placeHostValues` puts in place once
// the call's arguments are expanded.
import { CaseExpansionError } from '../../../src/ingest/conformance-expand.ts';

/** `$cycle` / `$ref`: `#/a/b` names a value of the call's arguments. */
class Pointer {
  constructor(readonly pointer: string) {}
}

/** `$throwingGetter`: the key holding it reads through a getter that throws. */
class ThrowingGetter {
  constructor(readonly message: string) {}
}

/** A JSON pointer's segments (RFC 6901 escapes). */
function segments(pointer: string): string[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '') return [];
  if (!body.startsWith('/')) throw new CaseExpansionError(`${pointer} is not a JSON pointer`);
  return body.slice(1).split('/').map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Follows a pointer through a host value: object keys, array indexes, and `length` of a string, array or buffer. */
export function follow(value: unknown, pointer: string): unknown {
  let current: any = value;
  for (const segment of segments(pointer)) {
    if (current === null || current === undefined) throw new TypeError(`nothing at ${segment}`);
    current = current[segment];
  }
  return current;
}

function text(value: unknown, tag: string): string {
  if (typeof value !== 'string') throw new CaseExpansionError(`${tag} takes a string`);
  return value;
}

export function hostTag(tag: string, argument: unknown, expand: (value: unknown) => unknown): unknown {
  const value = expand(argument) as any;
  switch (tag) {
    case '$error':
      return Object.assign(new Error(String(value.message)), { name: String(value.name ?? 'Error') });
    case '$date':
      return new Date(text(value, tag));
    case '$bigint':
      return BigInt(text(value, tag));
    case '$number':
      // "NaN", "Infinity", "-Infinity" or digits: what JSON cannot write.
      return Number(text(value, tag));
    case '$undefined':
      return undefined;
    case '$utf16':
      if (!Array.isArray(value)) throw new CaseExpansionError('$utf16 takes an array of UTF-16 code units');
      return String.fromCharCode(...(value as number[]));
    case '$map':
      return new Map(value);
    case '$set':
      return new Set(value);
    case '$buffer':
      return Buffer.from(text(value, tag), 'utf8');
    case '$projection': {
      const pointer = text(value, tag);
      return (input: unknown) => follow(input, pointer);
    }
    case '$throwingProjection': {
      const message = text(value, tag);
      return () => {
        throw new Error(message);
      };
    }
    case '$throwingGetter':
      return new ThrowingGetter(text(value, tag));
    case '$cycle':
    case '$ref':
      return new Pointer(text(value, tag));
  }
  throw new CaseExpansionError(`Unknown tag ${tag}`);
}

function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

/** Puts placeholders in place inside `root` (a call's expanded arguments); returns `root`. */
export function placeHostValues<T>(root: T): T {
  const found: Array<{ parent: any; key: string | number; holder: Pointer | ThrowingGetter }> = [];
  const visit = (node: unknown): void => {
    if (!isPlainContainer(node)) return;
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((item, index) => [index, item]) : Object.entries(node);
    for (const [key, item] of entries) {
      if (item instanceof Pointer || item instanceof ThrowingGetter) found.push({ parent: node, key, holder: item });
      else visit(item);
    }
  };
  visit(root);
  for (const { parent, key, holder } of found) {
    if (holder instanceof Pointer) parent[key] = follow(root, holder.pointer);
    else {
      const message = holder.message;
      Object.defineProperty(parent, key, {
        enumerable: true,
        configurable: true,
        get() {
          throw new Error(message);
        },
      });
    }
  }
  return root;
}
