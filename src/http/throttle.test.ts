import { describe, expect, it } from 'vitest';
import { FailedCredentialThrottle } from './throttle.ts';
import { throttleKey } from './client-address.ts';

const T0 = 1_700_000_000_000;

function failTimes(throttle: FailedCredentialThrottle, key: string, times: number[]): void {
  for (const t of times) throttle.recordFailure(key, t);
}

describe('FailedCredentialThrottle', () => {
  it('five refusals within a minute lock; the sixth attempt is locked', () => {
    const throttle = new FailedCredentialThrottle();
    for (let i = 0; i < 4; i++) {
      expect(throttle.check('a', T0 + i * 1000).locked).toBe(false);
      throttle.recordFailure('a', T0 + i * 1000);
    }
    expect(throttle.check('a', T0 + 4000).locked).toBe(false);
    throttle.recordFailure('a', T0 + 4000);
    expect(throttle.check('a', T0 + 5000)).toEqual({ locked: true, retryAfterSeconds: 299 });
    // Another address is unaffected.
    expect(throttle.check('b', T0 + 5000).locked).toBe(false);
  });

  it('refusals spread over more than a minute do not lock', () => {
    const throttle = new FailedCredentialThrottle();
    // Every window of 60 s holds at most four of these.
    failTimes(throttle, 'a', [0, 15_000, 30_000, 45_000, 60_000, 75_000, 90_000, 105_000].map((t) => T0 + t));
    expect(throttle.check('a', T0 + 106_000).locked).toBe(false);
    // Exactly one minute apart is outside the window.
    const edge = new FailedCredentialThrottle();
    failTimes(edge, 'a', [0, 1, 2, 3, 60_000].map((t) => T0 + t));
    expect(edge.check('a', T0 + 60_000).locked).toBe(false);
    // ...while the four at 1-3 ms and 60 s are still inside it: one more locks.
    edge.recordFailure('a', T0 + 60_000);
    expect(edge.check('a', T0 + 60_000).locked).toBe(true);
  });

  it('the lock lasts five minutes, Retry-After counts down and is at least 1', () => {
    const throttle = new FailedCredentialThrottle();
    failTimes(throttle, 'a', [0, 1, 2, 3, 4].map((t) => T0 + t));
    const lockedAt = T0 + 4;
    expect(throttle.check('a', lockedAt)).toEqual({ locked: true, retryAfterSeconds: 300 });
    expect(throttle.check('a', lockedAt + 1)).toEqual({ locked: true, retryAfterSeconds: 300 });
    expect(throttle.check('a', lockedAt + 299_001)).toEqual({ locked: true, retryAfterSeconds: 1 });
    expect(throttle.check('a', lockedAt + 299_999)).toEqual({ locked: true, retryAfterSeconds: 1 });
    expect(throttle.check('a', lockedAt + 300_000)).toEqual({ locked: false });
    // The expired entry is forgotten; counting starts afresh.
    expect(throttle.size).toBe(0);
    failTimes(throttle, 'a', [1, 2, 3, 4].map((t) => lockedAt + 300_000 + t));
    expect(throttle.check('a', lockedAt + 300_010).locked).toBe(false);
  });

  it('refusals recorded during the lock (a burst) neither extend it nor count afterwards', () => {
    const throttle = new FailedCredentialThrottle();
    failTimes(throttle, 'a', [0, 1, 2, 3, 4].map((t) => T0 + t));
    failTimes(throttle, 'a', [5, 6, 7, 8, 9, 299_000].map((t) => T0 + t));
    expect(throttle.check('a', T0 + 300_004).locked).toBe(false);
    throttle.recordFailure('a', T0 + 300_005);
    expect(throttle.check('a', T0 + 300_005).locked).toBe(false);
  });

  it('forgets the least recently failed address beyond maxAddresses', () => {
    const throttle = new FailedCredentialThrottle({ maxAddresses: 3 });
    throttle.recordFailure('a', T0);
    throttle.recordFailure('b', T0 + 1);
    throttle.recordFailure('c', T0 + 2);
    // 'a' fails again: now 'b' is the least recently failed.
    throttle.recordFailure('a', T0 + 3);
    throttle.recordFailure('d', T0 + 4);
    expect(throttle.size).toBe(3);
    // 'b' was forgotten: four more refusals do not lock it; 'a' kept its two.
    failTimes(throttle, 'b', [5, 6, 7, 8].map((t) => T0 + t));
    expect(throttle.check('b', T0 + 9).locked).toBe(false);
    expect(throttle.size).toBe(3);
  });

  it('keeps counting for recently failing addresses at the cap', () => {
    const throttle = new FailedCredentialThrottle({ maxAddresses: 2 });
    for (let i = 0; i < 5; i++) {
      throttle.recordFailure(`other-${i}`, T0 + i * 10);
      throttle.recordFailure('attacker', T0 + i * 10 + 1);
    }
    expect(throttle.check('attacker', T0 + 100).locked).toBe(true);
    expect(throttle.size).toBe(2);
  });

  it('check does not refresh recency', () => {
    const throttle = new FailedCredentialThrottle({ maxAddresses: 2 });
    throttle.recordFailure('a', T0);
    throttle.recordFailure('b', T0 + 1);
    throttle.check('a', T0 + 2);
    throttle.recordFailure('c', T0 + 3);
    // 'a' evicted even though it was checked last.
    failTimes(throttle, 'a', [4, 5, 6, 7].map((t) => T0 + t));
    expect(throttle.check('a', T0 + 8).locked).toBe(false);
  });

  it('counts an IPv6 /64 as one address, and a mapped IPv4 with its IPv4 form', () => {
    const throttle = new FailedCredentialThrottle();
    const v6 = ['2001:db8:0:1::1', '2001:db8:0:1::2', '[2001:db8:0:1::3]:443', '2001:db8:0:1:aaaa::9', '2001:db8:0:1::5%eth0'];
    v6.forEach((a, i) => throttle.recordFailure(throttleKey(a), T0 + i));
    expect(throttle.check(throttleKey('2001:db8:0:1:ffff::1'), T0 + 10).locked).toBe(true);
    expect(throttle.check(throttleKey('2001:db8:0:2::1'), T0 + 10).locked).toBe(false);

    const v4 = ['192.0.2.9', '::ffff:192.0.2.9', '192.0.2.9:1234', '[::ffff:192.0.2.9]:80', '::ffff:c000:209'];
    v4.forEach((a, i) => throttle.recordFailure(throttleKey(a), T0 + i));
    expect(throttle.check('192.0.2.9', T0 + 10).locked).toBe(true);
  });

  it('validates its options', () => {
    expect(() => new FailedCredentialThrottle({ maxFailures: 0 })).toThrow(RangeError);
    expect(() => new FailedCredentialThrottle({ maxAddresses: 1.5 })).toThrow(RangeError);
    const custom = new FailedCredentialThrottle({ maxFailures: 2, windowMs: 1000, lockMs: 1500 });
    failTimes(custom, 'a', [T0, T0 + 999]);
    expect(custom.check('a', T0 + 999)).toEqual({ locked: true, retryAfterSeconds: 2 });
    expect(custom.check('a', T0 + 2499).locked).toBe(false);
  });

  it('reports each lock when set and each unlock once, when next seen', () => {
    const seen: Array<[string, string, number]> = [];
    const throttle = new FailedCredentialThrottle({ onTransition: (t, key, now) => seen.push([t, key, now]) });
    failTimes(throttle, 'a', [0, 1, 2, 3, 4].map((t) => T0 + t));
    throttle.recordFailure('a', T0 + 5); // while locked: no second lock
    expect(seen).toEqual([['locked', 'a', T0 + 4]]);
    const after = T0 + 4 + throttle.lockMs;
    throttle.check('a', after);
    throttle.check('a', after + 1);
    throttle.recordFailure('a', after + 2);
    expect(seen).toEqual([['locked', 'a', T0 + 4], ['unlocked', 'a', after]]);
  });
});
