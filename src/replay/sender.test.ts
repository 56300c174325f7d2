import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { pinnedLookup } from './sender.ts';

const ADDRESSES: LookupAddress[] = [
  { address: '::1', family: 6 },
  { address: '127.0.0.1', family: 4 },
];

function ask(options: { all?: boolean; family?: number }) {
  return new Promise<unknown[]>((resolve) => {
    pinnedLookup(ADDRESSES)('ignored.example', options as never, (...args: unknown[]) => resolve(args));
  });
}

describe('pinnedLookup', () => {
  it('answers only from the pinned addresses, whatever name the socket asks for', async () => {
    expect(await ask({ all: true })).toEqual([null, ADDRESSES]);
    expect(await ask({})).toEqual([null, '::1', 6]);
    expect(await ask({ family: 4 })).toEqual([null, '127.0.0.1', 4]);
    expect(await ask({ family: 4, all: true })).toEqual([null, [ADDRESSES[1]]]);
  });

  it('fails rather than resolving again when no pinned address fits the family', async () => {
    const [error] = await new Promise<unknown[]>((resolve) => {
      pinnedLookup([{ address: '127.0.0.1', family: 4 }])('x', { family: 6 } as never, (...args: unknown[]) => resolve(args));
    });
    expect((error as { code: string }).code).toBe('ENOTFOUND');
  });
});
