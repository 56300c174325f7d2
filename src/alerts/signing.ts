// The signature of a webhook notification: HMAC-SHA256 under the rule's secret over
// "<timestamp>.<body>", sent as `x-jtrace-signature: t=<timestamp>,v1=<hex>` with the timestamp
// (Unix seconds) also in `x-jtrace-timestamp`. Signing the timestamp lets a receiver refuse a
// replayed notification older than it tolerates; the body is the exact bytes sent.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function newAlertSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signNotification(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}

/** What a receiver does: recompute and compare in constant time. */
export function verifyNotification(secret: string, header: string, body: string): boolean {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (match === null) return false;
  const expected = Buffer.from(signNotification(secret, Number(match[1]), body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
