import { describe, expect, it } from 'vitest';
import { MAX_DIFF_CHANGES, MAX_DIFF_DEPTH } from './limits.ts';
import { computePayloadDiff } from './payload-diff.ts';

/** `leaf` wrapped `depth` times in {"n": …}: the leaf sits at depth `depth` (root = 0). */
function nest(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { n: value };
  return value;
}

describe('computePayloadDiff (section 6)', () => {
  it('reproduces the reference journey diff: removed input keys, then added output keys', () => {
    const input = { Id: '0018Z00002ABC', Name: 'Jorge Polanco', Phone: '+1 919 555 1234', Status__c: 'Active' };
    const output = { externalId: '0018Z00002ABC', name: 'Jorge Polanco', phone: null, status: 'active' };
    expect(computePayloadDiff(input, output)).toEqual({
      truncated: false,
      changes: [
        { path: 'Id', kind: 'removed', before: '0018Z00002ABC' },
        { path: 'Name', kind: 'removed', before: 'Jorge Polanco' },
        { path: 'Phone', kind: 'removed', before: '+1 919 555 1234' },
        { path: 'Status__c', kind: 'removed', before: 'Active' },
        { path: 'externalId', kind: 'added', after: '0018Z00002ABC' },
        { path: 'name', kind: 'added', after: 'Jorge Polanco' },
        { path: 'phone', kind: 'added', after: null },
        { path: 'status', kind: 'added', after: 'active' },
      ],
    });
  });

  it('yields nothing for equal values, whatever the key order', () => {
    expect(computePayloadDiff({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toEqual({ changes: [], truncated: false });
    expect(computePayloadDiff('[REDACTED]', '[REDACTED]').changes).toEqual([]);
    expect(computePayloadDiff(null, null).changes).toEqual([]);
  });

  it('reports a root difference at path ""', () => {
    expect(computePayloadDiff(1, 2).changes).toEqual([{ path: '', kind: 'changed', before: 1, after: 2 }]);
    expect(computePayloadDiff({ a: 1 }, [1]).changes).toEqual([{ path: '', kind: 'changed', before: { a: 1 }, after: [1] }]);
  });

  it('reports one changed with whole values when kinds differ', () => {
    expect(computePayloadDiff({ a: { x: 1 } }, { a: null }).changes).toEqual([
      { path: 'a', kind: 'changed', before: { x: 1 }, after: null },
    ]);
    expect(computePayloadDiff({ a: 1 }, { a: '1' }).changes).toEqual([{ path: 'a', kind: 'changed', before: 1, after: '1' }]);
    expect(computePayloadDiff({ a: [] }, { a: {} }).changes).toEqual([{ path: 'a', kind: 'changed', before: [], after: {} }]);
  });

  it('walks shared keys in input order, then output-only keys', () => {
    const diff = computePayloadDiff({ b: 1, gone: true, a: 1 }, { a: 2, new: 'x', b: 2 });
    expect(diff.changes.map((c) => [c.path, c.kind])).toEqual([
      ['b', 'changed'], ['gone', 'removed'], ['a', 'changed'], ['new', 'added'],
    ]);
  });

  it('writes paths as a.b[0].c, indices in brackets', () => {
    const diff = computePayloadDiff({ lines: [{ sku: 'A' }, { sku: 'B' }] }, { lines: [{ sku: 'A' }, { sku: 'C' }] });
    expect(diff.changes).toEqual([{ path: 'lines[1].sku', kind: 'changed', before: 'B', after: 'C' }]);
    expect(computePayloadDiff([{ x: 1 }], [{ x: 2 }]).changes[0]?.path).toBe('[0].x');
    expect(computePayloadDiff([[1]], [[2]]).changes[0]?.path).toBe('[0][0]');
  });

  it('compares arrays index by index: extra indices removed or added, a reorder shows many changes', () => {
    expect(computePayloadDiff([1, 2, 3], [1]).changes).toEqual([
      { path: '[1]', kind: 'removed', before: 2 },
      { path: '[2]', kind: 'removed', before: 3 },
    ]);
    expect(computePayloadDiff({ l: [] }, { l: [{ a: 1 }] }).changes).toEqual([{ path: 'l[0]', kind: 'added', after: { a: 1 } }]);
    expect(computePayloadDiff([1, 2, 3], [3, 1, 2]).changes).toHaveLength(3);
  });

  it('keeps null as a value: added null has after null', () => {
    const [change] = computePayloadDiff({}, { phone: null }).changes;
    expect(change).toEqual({ path: 'phone', kind: 'added', after: null });
    expect(change).not.toHaveProperty('before');
  });

  it('handles an own __proto__ key like any key', () => {
    const input = JSON.parse('{"__proto__":{"a":1}}') as unknown;
    const output = JSON.parse('{"__proto__":{"a":2},"x":1}') as unknown;
    expect(computePayloadDiff(input, output).changes).toEqual([
      { path: '__proto__.a', kind: 'changed', before: 1, after: 2 },
      { path: 'x', kind: 'added', after: 1 },
    ]);
    expect(computePayloadDiff({}, JSON.parse('{"__proto__":1}')).changes).toEqual([{ path: '__proto__', kind: 'added', after: 1 }]);
  });
});

describe('computePayloadDiff caps', () => {
  const keys = (count: number, value: (i: number) => unknown) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, value(i)]));

  it('keeps 500 changes and is not truncated when there are exactly 500', () => {
    const diff = computePayloadDiff(keys(MAX_DIFF_CHANGES, () => 1), keys(MAX_DIFF_CHANGES, () => 2));
    expect(diff.changes).toHaveLength(MAX_DIFF_CHANGES);
    expect(diff.truncated).toBe(false);
  });

  it('is truncated when a 501st change exists, keeping the first 500', () => {
    const diff = computePayloadDiff(keys(MAX_DIFF_CHANGES + 1, () => 1), keys(MAX_DIFF_CHANGES + 1, () => 2));
    expect(diff.changes).toHaveLength(MAX_DIFF_CHANGES);
    expect(diff.changes[MAX_DIFF_CHANGES - 1]?.path).toBe(`k${MAX_DIFF_CHANGES - 1}`);
    expect(diff.truncated).toBe(true);
  });

  it('is not truncated by equal values after the 500th change', () => {
    const input = { ...keys(MAX_DIFF_CHANGES, () => 1), same: { deep: [1, 2] } };
    const output = { ...keys(MAX_DIFF_CHANGES, () => 2), same: { deep: [1, 2] } };
    expect(computePayloadDiff(input, output).truncated).toBe(false);
  });

  it('describes differences down to depth 32', () => {
    const diff = computePayloadDiff(nest(MAX_DIFF_DEPTH, 1), nest(MAX_DIFF_DEPTH, 2));
    expect(diff).toEqual({
      truncated: false,
      changes: [{ path: Array(MAX_DIFF_DEPTH).fill('n').join('.'), kind: 'changed', before: 1, after: 2 }],
    });
    const kinds = computePayloadDiff(nest(MAX_DIFF_DEPTH, { a: 1 }), nest(MAX_DIFF_DEPTH, 'x'));
    expect(kinds.changes).toHaveLength(1);
    expect(kinds.truncated).toBe(false);
  });

  it('leaves deeper differences out and marks the diff truncated', () => {
    const diff = computePayloadDiff(nest(MAX_DIFF_DEPTH + 1, 1), nest(MAX_DIFF_DEPTH + 1, 2));
    expect(diff).toEqual({ changes: [], truncated: true });
    const mixed = computePayloadDiff({ top: 1, deep: nest(40, 'a') }, { top: 2, deep: nest(40, 'b') });
    expect(mixed.changes).toEqual([{ path: 'top', kind: 'changed', before: 1, after: 2 }]);
    expect(mixed.truncated).toBe(true);
  });

  it('is not truncated when the values deeper than 32 are equal', () => {
    expect(computePayloadDiff(nest(60, [1, { a: 2 }]), nest(60, [1, { a: 2 }]))).toEqual({ changes: [], truncated: false });
  });

  it('survives a very deep replay response without overflowing the stack', () => {
    const deep = () => {
      let value: unknown = 0;
      for (let i = 0; i < 200_000; i++) value = [value];
      return value;
    };
    expect(computePayloadDiff(deep(), deep())).toEqual({ changes: [], truncated: false });
  });
});
