// "Send a test" of an alert rule (docs/alerts.md): one signed delivery to the rule's receiver,
// made and checked as a real one (the host list, the signature headers, the send timeout), and
// the receiver's answer returned. Nothing is written to the outbox or the delivery log.
import { randomUUID } from 'node:crypto';
import { decryptField } from '../crypto/field-encryption.ts';
import { errors } from '../http/errors.ts';
import { isUuid } from '../protocol/identifiers.ts';
import { sendReplay, type SendOptions } from '../replay/sender.ts';
import { isHostAllowed } from '../replay/url-policy.ts';
import { ALERT_SEND_TIMEOUT_MS } from './limits.ts';
import type { RulesDeps } from './rules.ts';
import { selectRule } from './rules-sql.ts';
import { signNotification } from './signing.ts';

export interface TestDelivery {
  outcome: 'sent' | 'error_status' | 'failed' | 'blocked';
  statusCode: number | null;
  /** Why it was not sent or not answered (`host_not_allowed`, `timeout`, ...); null when answered. */
  error: string | null;
  durationMs: number | null;
}

export async function sendTestDelivery(deps: RulesDeps & { version: string; send?: SendOptions }, projectId: string, ruleId: string, nowMs: number): Promise<TestDelivery> {
  const rule = isUuid(ruleId) ? await selectRule(deps.db, projectId, ruleId.toLowerCase()) : null;
  if (rule === null) throw errors.notFound('The alert rule was not found.');
  const secret = decryptField(deps.keyring, rule.secret_encrypted);
  const url = new URL(rule.url);
  // The same rules as a real delivery: the host list is read again at every send.
  if (secret === null) return { outcome: 'blocked', statusCode: null, error: 'secret_key_not_configured', durationMs: null };
  if (!isHostAllowed(url.hostname, deps.allowedHosts)) return { outcome: 'blocked', statusCode: null, error: 'host_not_allowed', durationMs: null };
  const deliveryId = randomUUID();
  const body =
    rule.channel === 'slack'
      ? JSON.stringify({ text: `jtrace: a test of the rule "${rule.name}"; nothing has fired.` })
      : JSON.stringify({ deliveryId, notification: 'test', rule: { id: rule.id, projectId, name: rule.name, kind: rule.kind }, sentAt: new Date(nowMs).toISOString() });
  const timestamp = Math.floor(nowMs / 1000);
  const outcome = await sendReplay(
    {
      url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': `jtrace/${deps.version}`,
        'x-jtrace-delivery': deliveryId,
        'x-jtrace-timestamp': String(timestamp),
        'x-jtrace-signature': signNotification(secret, timestamp, body),
        'x-jtrace-test': '1',
      },
      body,
    },
    { timeoutMs: ALERT_SEND_TIMEOUT_MS, ...deps.send },
  );
  if (outcome.kind === 'response') return { outcome: outcome.status >= 200 && outcome.status < 300 ? 'sent' : 'error_status', statusCode: outcome.status, error: null, durationMs: outcome.durationMs };
  return { outcome: 'failed', statusCode: outcome.status, error: outcome.error, durationMs: outcome.durationMs };
}
