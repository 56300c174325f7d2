import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignArrays, findIdKey } from './array-align.ts';
import { jsonEqual, stableKey } from './json-values.ts';
import { MAX_READ_DIFF_ROWS, pairRenames, readDiff } from './read-diff.ts';
import { applyRows } from './test-apply-rows.ts';

describe('readDiff', () => {
  it('reports nothing for equal values, key order aside', () => {
    expect(readDiff({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual({ rows: [], truncated: false });
  });

  it('names a value that became null or disappeared as lost, first', () => {
    const before = { customer: { name: 'Ada', phone: '+44 20', email: 'a@x' }, note: 'n' };
    const after = { customer: { name: 'ADA', email: null }, note: 'n', source: 'web' };
    expect(readDiff(before, after).rows).toEqual([
      { path: 'customer.email', kind: 'lost', before: 'a@x', after: null },
      { path: 'customer.phone', kind: 'lost', before: '+44 20' },
      { path: 'customer.name', kind: 'changed', before: 'Ada', after: 'ADA' },
      { path: 'source', kind: 'added', after: 'web' },
    ]);
  });

  it('a key whose null value disappears is removed, not lost', () => {
    expect(readDiff({ a: null, b: 1 }, { b: 1 }).rows).toEqual([{ path: 'a', kind: 'removed', before: null }]);
  });

  it('null that gets a value is changed', () => {
    expect(readDiff({ a: null }, { a: 3 }).rows).toEqual([{ path: 'a', kind: 'changed', before: null, after: 3 }]);
  });

  it('pairs a renamed key holding an equal value', () => {
    const rows = readDiff({ contact: { phone: '+1 555', zip: '1' } }, { contact: { phoneNumber: '+1 555', zip: '2' } }).rows;
    expect(rows).toEqual([
      { path: 'contact.phoneNumber', kind: 'renamed', before: '+1 555', after: '+1 555', renamedFrom: 'contact.phone' },
      { path: 'contact.zip', kind: 'changed', before: '1', after: '2' },
    ]);
  });

  it('never pairs null, booleans or empty strings as renames, and pairs each key once', () => {
    expect(readDiff({ a: true, b: '' }, { c: true, d: '' }).rows.map((row) => row.kind)).toEqual(['lost', 'lost', 'added', 'added']);
    const rows = readDiff({ a: 'v', b: 'v' }, { c: 'v' }).rows;
    expect(rows).toEqual([
      { path: 'b', kind: 'lost', before: 'v' },
      { path: 'c', kind: 'renamed', before: 'v', after: 'v', renamedFrom: 'a' },
    ]);
  });

  it('an insertion at the front of a list is one added element', () => {
    expect(readDiff({ tags: ['b', 'c', 'd'] }, { tags: ['a', 'b', 'c', 'd'] }).rows).toEqual([
      { path: 'tags[0]', kind: 'added', after: 'a' },
    ]);
  });

  it('matches objects by their id-like key, and names fields inside them by their new index', () => {
    const before = { items: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: 2 }] };
    const after = { items: [{ sku: 'Z', qty: 9 }, { sku: 'A', qty: 1 }, { sku: 'B', qty: 3 }] };
    expect(readDiff(before, after).rows).toEqual([
      { path: 'items[2].qty', kind: 'changed', before: 2, after: 3 },
      { path: 'items[0]', kind: 'added', after: { sku: 'Z', qty: 9 } },
    ]);
  });

  it('another id is another record: removed and added, never changed', () => {
    expect(readDiff([{ id: 1, v: 'a' }], [{ id: 2, v: 'a' }]).rows).toEqual([
      { path: '[0]', kind: 'added', after: { id: 2, v: 'a' } },
      { path: '[0]', kind: 'removed', before: { id: 1, v: 'a' } },
    ]);
  });

  it('an element edited in place in a list without ids is walked into', () => {
    expect(readDiff([{ n: 1 }, { n: 2, m: 1 }, { n: 3 }], [{ n: 1 }, { n: 2, m: 5 }, { n: 3 }]).rows).toEqual([
      { path: '[1].m', kind: 'changed', before: 1, after: 5 },
    ]);
  });

  it('a removed element keeps its index in the first value', () => {
    expect(readDiff(['a', 'b', 'c'], ['a', 'c']).rows).toEqual([{ path: '[1]', kind: 'removed', before: 'b' }]);
  });

  it('orders rows lost, renamed, changed, added, removed', () => {
    const rows = readDiff({ l: 7, r: 'x', c: 1, list: [1, 2] }, { r2: 'x', c: 2, a: 1, list: [1] }).rows;
    expect(rows.map((row) => row.kind)).toEqual(['lost', 'renamed', 'changed', 'added', 'removed']);
  });

  it('cuts at MAX_READ_DIFF_ROWS keeping the lost rows', () => {
    const before: Record<string, number> = { keep: 1 };
    const after: Record<string, number> = {};
    for (let i = 0; i < MAX_READ_DIFF_ROWS + 10; i++) after[`k${i}`] = i + 1000;
    const diff = readDiff(before, after);
    expect(diff.truncated).toBe(true);
    expect(diff.rows).toHaveLength(MAX_READ_DIFF_ROWS);
    expect(diff.rows[0]).toEqual({ path: 'keep', kind: 'lost', before: 1 });
  });

  it('describes containers still different at depth 32 as one changed row', () => {
    let before: unknown = { leaf: 1 };
    let after: unknown = { leaf: 2 };
    for (let i = 0; i < 40; i++) {
      before = { n: before };
      after = { n: after };
    }
    const rows = readDiff(before, after).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.path.split('.')).toHaveLength(32);
    expect(rows[0]!.kind).toBe('changed');
  });
});

describe('alignArrays', () => {
  it('uses the first id-like key every element holds uniquely', () => {
    expect(findIdKey([{ id: 1, orderId: 'x' }], [{ id: 2, orderId: 'x' }])).toBe('id');
    expect(findIdKey([{ id: 1, orderId: 'x' }, { id: 1, orderId: 'y' }], [{ id: 2, orderId: 'z' }])).toBe('orderId');
    expect(findIdKey([{ id: 1 }, 'x'], [{ id: 1 }])).toBeNull();
    expect(findIdKey([{ id: { deep: 1 } }], [{ id: 1 }])).toBeNull();
    expect(findIdKey([], [{ id: 1 }])).toBeNull();
  });

  it('keeps order: a moved element is removed and added', () => {
    expect(alignArrays(['a', 'b', 'c'], ['c', 'a', 'b'])).toEqual([
      { kind: 'added', to: 0 },
      { kind: 'pair', from: 0, to: 1 },
      { kind: 'pair', from: 1, to: 2 },
      { kind: 'removed', from: 2 },
    ]);
  });

  it('covers every index once, pairs increasing together', () => {
    fc.assert(fc.property(fc.array(smallLeaf, { maxLength: 12 }), fc.array(smallLeaf, { maxLength: 12 }), (a, b) => {
      const steps = alignArrays(a, b);
      const from = steps.flatMap((step) => (step.kind === 'added' ? [] : [step.from]));
      const to = steps.flatMap((step) => (step.kind === 'removed' ? [] : [step.to]));
      expect([...from].sort((x, y) => x - y)).toEqual(a.map((_, i) => i));
      expect([...to].sort((x, y) => x - y)).toEqual(b.map((_, i) => i));
      const pairs = steps.filter((step) => step.kind === 'pair');
      for (let k = 1; k < pairs.length; k++) {
        expect(pairs[k]!.from).toBeGreaterThan(pairs[k - 1]!.from);
        expect(pairs[k]!.to).toBeGreaterThan(pairs[k - 1]!.to);
      }
    }));
  });

  it('matches as many equal elements as a longest common subsequence', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 10 }), fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 10 }), (a, b) => {
      const equalPairs = alignArrays(a, b).filter((step) => step.kind === 'pair' && a[step.from] === b[step.to]);
      expect(equalPairs).toHaveLength(lcsLength(a, b));
    }));
  });
});

describe('readDiff properties', () => {
  it('applying the rows to the first value gives the second', () => {
    fc.assert(fc.property(json, json, (before, after) => {
      const diff = readDiff(before, after);
      expect(diff.truncated).toBe(false);
      expect(jsonEqual(applyRows(before, diff.rows), after)).toBe(true);
    }), { numRuns: 1000 });
  });

  it('applying the rows works for a value and an edited copy of it', () => {
    fc.assert(fc.property(json, fc.array(edit, { maxLength: 4 }), (before, edits) => {
      const after = edits.reduce<unknown>((value, change) => change(value), before);
      expect(jsonEqual(applyRows(before, readDiff(before, after).rows), after)).toBe(true);
    }), { numRuns: 1000 });
  });

  it('rows are sorted by kind and an equal pair gives none', () => {
    const order = ['lost', 'renamed', 'changed', 'added', 'removed'];
    fc.assert(fc.property(json, json, (before, after) => {
      const kinds = readDiff(before, after).rows.map((row) => order.indexOf(row.kind));
      expect(kinds).toEqual([...kinds].sort((x, y) => x - y));
      expect(readDiff(before, structuredClone(before)).rows).toEqual([]);
    }));
  });
});

const smallLeaf = fc.oneof(fc.constantFrom(null, true, false, '', 'x', 'y'), fc.integer({ min: 0, max: 4 }));
const key = fc.constantFrom('a', 'b', 'c', 'id', 'phone', 'name');
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    smallLeaf,
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(key, tie('json'), { maxKeys: 4, noNullPrototype: true }),
    fc.uniqueArray(fc.record({ id: fc.integer({ min: 0, max: 6 }), v: smallLeaf }), { maxLength: 5, selector: (item) => item.id }),
  ),
}));

/** Small edits of a value: insert at the front of an array, rename or drop a key, replace a leaf. */
const edit = fc.oneof(
  fc.constant((value: unknown) => (Array.isArray(value) ? ['new', ...value] : value)),
  fc.constant((value: unknown) => renameFirstKey(value)),
  smallLeaf.map((leaf) => (value: unknown) => replaceDeepestFirst(value, leaf)),
  fc.constant((value: unknown) => (Array.isArray(value) ? value.slice(1) : value)),
);

function renameFirstKey(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value);
  if (entries.length === 0) return value;
  return Object.fromEntries([[`${entries[0]![0]}Renamed`, entries[0]![1]], ...entries.slice(1)]);
}

function replaceDeepestFirst(value: unknown, leaf: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [leaf] : [replaceDeepestFirst(value[0], leaf), ...value.slice(1)];
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return { added: leaf };
    return Object.fromEntries([[entries[0]![0], replaceDeepestFirst(entries[0]![1], leaf)], ...entries.slice(1)]);
  }
  return leaf;
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  return table[0]![0]!;
}

describe('pairRenames', () => {
  // The pairing as first written: every value's full key, the first waiting key of equal value.
  function reference(before: Record<string, unknown>, gone: string[], after: Record<string, unknown>, arrived: string[]): Map<string, string> {
    const pairs = new Map<string, string>();
    const pairable = (value: unknown) => value !== null && value !== '' && typeof value !== 'boolean';
    const waiting = new Map<string, string[]>();
    for (const key of arrived) if (pairable(after[key])) waiting.set(stableKey(after[key]), [...(waiting.get(stableKey(after[key])) ?? []), key]);
    for (const key of gone) {
      if (!pairable(before[key])) continue;
      const candidate = waiting.get(stableKey(before[key]))?.shift();
      if (candidate !== undefined) pairs.set(key, candidate);
    }
    return pairs;
  }
  // Few distinct values, so that many are equal, of the same shape, or of the same size.
  const value = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, '', true, 0, 1, 'a', 'b'),
      fc.array(tie('value'), { maxLength: 2 }),
      fc.dictionary(fc.constantFrom('x', 'y'), tie('value'), { maxKeys: 2 }),
    ),
  })).value;
  const side = (prefix: string) => fc.dictionary(fc.constantFrom(...['1', '2', '3', '4'].map((k) => prefix + k)), value, { maxKeys: 4 });

  it('pairs as comparing every value in full would', () => {
    fc.assert(
      fc.property(side('g'), side('a'), (before, after) => {
        const gone = Object.keys(before).sort();
        const arrived = Object.keys(after).sort();
        expect(pairRenames(before, gone, after, arrived)).toEqual(reference(before, gone, after, arrived));
      }),
      { numRuns: 500 },
    );
  });
});
